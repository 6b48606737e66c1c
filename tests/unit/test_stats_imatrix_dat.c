/* test_stats_imatrix_dat.c - lib/stats/imatrix_dat.c and imatrix_stats.c:
 * the legacy .dat bytes of a small imatrix against the layout of
 * llama.cpp's save_imatrix_legacy worked out by hand, read back to the same
 * means, every truncation and a few bad values refused with a message (no
 * crash), and the statistics table's numbers for two blocks worked out by
 * hand. (make check-llama compares both with llama-imatrix itself.) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/num.h"
#include "stats/imatrix_dat.h"
#include "stats/imatrix_stats.h"
#include "test.h"

static float f32(const uint8_t *p) {
    uint32_t u = cal_ld32(p);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

int main(void) {
    char err[300];
    cal_imatrix m = {0};
    /* two weights: b (d 2, one matrix, 256 tokens), a (d 1, two experts: 128 and 0 tokens) */
    double b2[] = {512, 1024}, a2[] = {64, 7};
    uint64_t bc[] = {256}, ac[] = {128, 0};
    CHECK(cal_imatrix_add(&m, "blk.0.b.weight", 2, 1, b2, NULL, bc, err, sizeof err) &&
              cal_imatrix_add(&m, "blk.0.a.weight", 1, 2, a2, NULL, ac, err, sizeof err),
          "entries added");
    m.chunk_count = 2; /* chunk size 256 / 2 = 128 */
    cal_imatrix_add_dataset(&m, "first.txt");
    cal_imatrix_add_dataset(&m, "wiki.txt");
    cal_buf b = {0};
    cal_imatrix_serialize_dat(&m, &b);
    const uint8_t *p = (const uint8_t *)b.p;
    /* 2 entries; "blk.0.a.weight" ncall ceil(128/128) = 1, 2 values: 64/128*1,
     * count 0 -> 1/1*1; "blk.0.b.weight" ncall 2, 512/256*2, 1024/256*2; 2; "wiki.txt" */
    int ok = b.n == 4 + (4 + 14 + 8 + 8) + (4 + 14 + 8 + 8) + 8 + 8 && cal_ld32(p) == 2 && cal_ld32(p + 4) == 14 &&
             !memcmp(p + 8, "blk.0.a.weight", 14) && cal_ld32(p + 22) == 1 && cal_ld32(p + 26) == 2 &&
             f32(p + 30) == 0.5f && f32(p + 34) == 1.0f && !memcmp(p + 42, "blk.0.b.weight", 14) &&
             cal_ld32(p + 56) == 2 && f32(p + 64) == 4.0f && f32(p + 68) == 8.0f && cal_ld32(p + 72) == 2 &&
             cal_ld32(p + 76) == 8 && !memcmp(p + 80, "wiki.txt", 8);
    CHECK(ok, ".dat bytes as save_imatrix_legacy writes them (%zu bytes)", b.n);

    cal_imatrix r = {0};
    CHECK(cal_imatrix_add_dat(&r, p, b.n, "x.dat", 512, err, sizeof err) && r.n == 2 && r.chunk_count == 2 &&
              r.ndatasets == 1 && !strcmp(r.datasets[0], "wiki.txt"),
          "read back: entries, chunk count, dataset: %s", err);
    const cal_imatrix_entry *e = !strcmp(r.e[0].name, "blk.0.b.weight") ? &r.e[0] : &r.e[1];
    CHECK(e->nmat == 1 && e->counts[0] == 2 * 512 && e->in_sum2[0] / (double)e->counts[0] == 512.0 / 256 &&
              e->in_sum2[1] / (double)e->counts[0] == 1024.0 / 256,
          "read back: the means of the sums (count = ncall x chunk)");
    cal_imatrix_free(&r);

    int bad = 0;
    for (size_t cut = 0; cut < b.n; cut++) {
        cal_imatrix t = {0};
        int got = cal_imatrix_add_dat(&t, p, cut, "x.dat", 512, err, sizeof err);
        /* a file may end right after the entries (no trailer) */
        if (got != (cut == 72) || (!got && !strstr(err, "x.dat: byte "))) bad++;
        cal_imatrix_free(&t);
    }
    CHECK(!bad, "every truncation refused with 'FILE: byte OFF: what', but the one without a trailer");
    uint8_t *q = malloc(b.n + 1);
    memcpy(q, p, b.n);
    float nan = NAN;
    memcpy(q + 30, &nan, 4);
    cal_imatrix t = {0};
    CHECK(!cal_imatrix_add_dat(&t, q, b.n, "x.dat", 512, err, sizeof err) && strstr(err, "byte 30: entry 'blk.0.a.weight'"),
          "a NaN value: %s", err);
    cal_imatrix_free(&t);
    memcpy(q, p, b.n);
    cal_st32(q, 0);
    CHECK(!cal_imatrix_add_dat(&t, q, b.n, "x.dat", 512, err, sizeof err) && strstr(err, "no entries"), "no entries: %s",
          err);
    cal_imatrix_free(&t);
    memcpy(q, p, b.n);
    q[b.n] = 0;
    CHECK(!cal_imatrix_add_dat(&t, q, b.n + 1, "x.dat", 512, err, sizeof err) && strstr(err, "after the trailer"),
          "a byte too many: %s", err);
    cal_imatrix_free(&t);
    free(q);
    cal_buf_free(&b);
    cal_imatrix_free(&m);

    /* statistics: blk.0.w and blk.1.w, d 4, one matrix each */
    cal_imatrix s = {0};
    double w0[] = {4, 0, 2, 2}, w1[] = {2, 0, 1, 1};
    uint64_t c2[] = {2};
    cal_imatrix_add(&s, "blk.0.w.weight", 4, 1, w0, NULL, c2, err, sizeof err);
    cal_imatrix_add(&s, "blk.1.w.weight", 4, 1, w1, NULL, c2, err, sizeof err);
    char *out = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&out, &n);
    size_t shown = cal_imatrix_statistics(&s, "s.gguf", f);
    fclose(f);
    /* blk.0: a = 2 0 1 1, sum 4, min 0, max 2, mean 1, sd sqrt(6/4 - 1) = 0.7071, active 75%, N 4,
     * entropy -(.5 log .5 + 2 x .25 log .25) = 1.5 bits = 75% of log2 4, z > 1: (2-1)/.7071 = 1.41: 25%;
     * blk.1: a = 1 0 .5 .5, cossim with blk.0's sums = 1 */
    CHECK(shown == 2 && strstr(out, "Computing statistics for s.gguf (2 tensors)") &&
              strstr(out, "    0\tw                   \t      4.00\t  0.0000\t     2.0000\t  1.00\t  0.71\t   75.00%\t     4\t"
                          "    1.5000\t 75.00%\t     25.00%\t  0.0000\n") &&
              strstr(out, "    1\tw                   \t      2.00\t  0.0000\t     1.0000\t  0.50\t  0.35\t   75.00%\t     4\t"
                          "    1.5000\t 75.00%\t     25.00%\t  1.0000\n") &&
              strstr(out, "(2 layers)") && strstr(out, "    1\t          2.00\t   25.0000%\t1.0000\n"),
          "statistics as llama-imatrix computes them:\n%s", out);
    free(out);
    cal_imatrix_free(&s);
    TEST_END();
}
