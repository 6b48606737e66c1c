/* test_rows_segments.c - lib/rows/segments.c: rows of drawn K-token
 * segments (the draws of the Python model tests/py/packref.py), without
 * replacement, the dropped tail, and too few segments as an error. */
#include "base/buf.h"
#include "rows/segments.h"
#include "test.h"

static cal_buf got;
static cal_ids flat; /* every row's ids, one after another */

static void keep(void *ctx, const cal_row_out *r) {
    (void)ctx;
    for (uint32_t i = 0; i < r->len; i++) cal_ids_push(&flat, r->ids[i]);
    cal_buf_addf(&got, "%s%s:", got.n ? "|" : "", r->label);
    for (uint32_t i = 0; i < r->len; i++) cal_buf_addf(&got, "%s%u", i ? " " : "", r->ids[i]);
}

static char err[256];

static int run(const cal_docstore *s, cal_segments_opts o, cal_drops *d) {
    got.n = 0;
    flat.n = 0;
    int rc = cal_segments_rows(s, &o, keep, NULL, d, err, sizeof err);
    cal_buf_addc(&got, 0);
    return rc;
}

int main(void) {
    cal_docstore s = {0};
    uint32_t a[] = {10, 11, 12, 13, 14}, b[] = {20, 21}, c[] = {30, 31, 32, 33, 34, 35, 36}, d[] = {40, 41, 42};
    cal_docstore_add(&s, a, 5, 101, "a", 1);
    cal_docstore_add(&s, b, 2, 102, "b", 1);
    cal_docstore_add(&s, c, 7, 103, "c", 1);
    cal_docstore_add(&s, d, 3, 104, "d", 1);
    cal_drops drops = {0};
    /* 17 tokens: 5 segments of 3 (2 tokens left), rows of 5 = 2 segments */
    CHECK(run(&s, (cal_segments_opts){3, 3, 5, 0, 9, 0, CAL_RNG_CALKIT}, &drops) == 0, "3 rows of 5 from 3-token segments");
    CHECK(!strcmp(got.p, "c:32 33 34 21 30|a:13 14 20 21 30|a:10 11 12 21 30"),
          "segments 3 2, 1 2, 0 2 (packref, seed 9), the last cut to fit; label of the first: %s", got.p);
    cal_buf b2 = {0};
    cal_drops_format(&drops, &b2);
    cal_buf_addc(&b2, 0);
    CHECK(!strcmp(b2.p, "2 tokens dropped as the partial last segment (--segments 3)"), "tail counted: %s", b2.p);
    cal_buf_free(&b2);
    CHECK(run(&s, (cal_segments_opts){3, 2, 6, 1, 1, 0, CAL_RNG_CALKIT}, &drops) == 0, "no replacement: 2 rows take 4 of 5 segments");
    int distinct = flat.n == 12;
    for (size_t i = 0; i < flat.n; i += 3)
        for (size_t j = 0; j < i; j += 3) distinct &= flat.v[i] != flat.v[j];
    CHECK(distinct, "no replacement: no segment twice: %s", got.p);
    CHECK(run(&s, (cal_segments_opts){3, 3, 6, 1, 1, 0, CAL_RNG_CALKIT}, &drops) == -1 &&
              !strcmp(err, "17 tokens make 5 segments of 3; 3 rows of 6 need 6 without replacement (2 rows possible)"),
          "no replacement, too few: %s", err);
    CHECK(run(&s, (cal_segments_opts){8, 3, 24, 0, 1, 0, CAL_RNG_CALKIT}, &drops) == -1 &&
              !strcmp(err, "17 tokens make 2 segments of 8; a row of 24 needs 3 (0 rows possible)"),
          "fewer segments than one row takes: an error, not rows of repeats (issue 14): %s", err);
    CHECK(run(&s, (cal_segments_opts){32, 3, 256, 0, 0, 0, CAL_RNG_CALKIT}, &drops) == -1 &&
              !strcmp(err, "17 tokens make 0 segments of 32; a row of 256 needs 8 (0 rows possible)"),
          "no whole segment: %s", err);
    CHECK(run(&s, (cal_segments_opts){32, 0, 256, 0, 0, 0, CAL_RNG_CALKIT}, &drops) == 0 && !got.p[0], "-n 0: nothing asked, no error");
    cal_docstore_free(&s);
    cal_buf_free(&got);
    cal_ids_free(&flat);
    TEST_END();
}
