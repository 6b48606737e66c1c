/* test_stats_collect.c - lib/stats/collect.c: VECTORS records of several
 * streams into one accumulator (sums against a plain computation, rows and
 * skipped counts, metadata), into one accumulator per label with
 * --by-label (entries in order of first appearance, each its own d), and
 * the errors (exit 1, file and byte offset) for a width that changes, a
 * record without a label, NaN without skipping. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/dtype.h"
#include "stats/collect.h"
#include "stream/stream.h"
#include "scratch.h"
#include "test.h"

/* rows of width d: value(r, j) = (r + 1) * (j - 1.5) / 4, exact in f32 */
static float value(int r, int j) { return (float)((r + 1) * (j - 1.5) / 4); }

static void stream(const char *name, const char *const *labels, const int *d, const int *n, int nrec, int nan_at) {
    cal_writer *w = cal_writer_open(t_path(name));
    cal_meta_set(cal_writer_meta(w), "source", name);
    int row = 0;
    for (int i = 0; i < nrec; i++) {
        float *x = calloc((size_t)(n[i] * d[i]), sizeof *x);
        for (int r = 0; r < n[i]; r++, row++)
            for (int j = 0; j < d[i]; j++) x[r * d[i] + j] = row == nan_at && j == 1 ? NAN : value(row, j);
        cal_write_vectors(w, labels[i], (uint64_t)i, (uint32_t)n[i], (uint32_t)d[i], CAL_F32, x);
        free(x);
    }
    cal_writer_close(w);
}

static void one_accumulator(void) {
    const char *lab[] = {"a", "b", "a"};
    int d[] = {4, 4, 4}, n[] = {2, 3, 1};
    stream("s1.cal", lab, d, n, 2, -1);
    stream("s2.cal", lab + 2, d, n + 2, 1, -1);
    cal_collect_opts o = {0};
    o.threads = 1;
    cal_collect *c = cal_collect_new(&o);
    cal_collect_read(c, t_path("s1.cal"));
    cal_collect_read(c, t_path("s2.cal"));
    cal_result r = {0};
    cal_collect_finish(c, &r);
    cal_collect_free(c);
    /* rows 0..4 of s1, then row 0 of s2 */
    double H01 = 0, sumsq3 = 0;
    for (int k = 0; k < 6; k++) {
        int row = k < 5 ? k : 0;
        H01 += (double)value(row, 0) * value(row, 1);
        sumsq3 += (double)value(row, 3) * value(row, 3);
    }
    cal_result_entry *e = r.n ? &r.e[0] : NULL;
    CHECK(r.n == 1 && !*e->label && e->s->d == 4 && e->s->count == 6 && e->c.rows == 3, "one accumulator: 6 vectors, 3 rows");
    CHECK(e && e->s->H[1] == H01 && e->s->H[4] == H01 && e->s->sumsq[3] == sumsq3, "H and sumsq exact, H symmetric");
    CHECK(!strcmp(cal_meta_get(&r.meta, "source"), "s1.cal"), "metadata of the first stream");
    cal_result_free(&r);
}

static void by_label(void) {
    const char *lab[] = {"blk.0.q", "blk.0.down", "blk.0.q", "blk.0.down"};
    int d[] = {4, 6, 4, 6}, n[] = {2, 1, 3, 2};
    stream("l.cal", lab, d, n, 4, 3);
    cal_collect_opts o = {0};
    o.by_label = 1;
    o.threads = 1;
    o.skip_nonfinite = 1;
    cal_collect *c = cal_collect_new(&o);
    cal_collect_read(c, t_path("l.cal"));
    cal_result r = {0};
    cal_collect_finish(c, &r);
    cal_collect_free(c);
    CHECK(r.n == 2 && !strcmp(r.e[0].label, "blk.0.q") && !strcmp(r.e[1].label, "blk.0.down") && r.e[0].s->d == 4 &&
              r.e[1].s->d == 6,
          "one accumulator per label, in order of first appearance, each its d");
    /* q: rows 0, 1 and 3 (row 3 holds NaN: skipped), 4, 5; down: rows 2, 6, 7 */
    double s0 = 0;
    for (int row = 0; row < 6; row++)
        if (row != 2 && row != 3) s0 += value(row, 0);
    CHECK(r.n == 2 && r.e[0].s->count == 4 && r.e[0].c.skipped == 1 && r.e[0].c.rows == 2 && r.e[0].s->sum[0] == s0 &&
              r.e[1].s->count == 3 && r.e[1].c.rows == 2,
          "per-label sums, rows and skipped vectors");
    cal_result_free(&r);
}

static const char *bad_file;
static int bad_by_label;
static void collect_bad(void *arg) {
    (void)arg;
    cal_collect_opts o = {0};
    o.by_label = bad_by_label;
    o.threads = 1;
    cal_collect *c = cal_collect_new(&o);
    cal_collect_read(c, bad_file);
}

static void errors(void) {
    const char *lab[] = {"a", "b", ""};
    int d[] = {4, 5, 4}, n[] = {1, 1, 1};
    char msg[600];
    stream("d.cal", lab, d, n, 2, -1);
    bad_file = t_path("d.cal"), bad_by_label = 0;
    int st = t_child(collect_bad, NULL, msg, sizeof msg);
    CHECK(st == 1 && strstr(msg, "d.cal: byte 94: VECTORS record has d = 5, earlier records have d = 4"),
          "a width that changes: exit %d: %s", st, msg);
    int d2[] = {4, 4, 4};
    stream("nolabel.cal", lab, d2, n, 3, -1);
    bad_file = t_path("nolabel.cal"), bad_by_label = 1;
    st = t_child(collect_bad, NULL, msg, sizeof msg);
    CHECK(st == 1 && strstr(msg, "nolabel.cal: byte") && strstr(msg, "has no label"), "--by-label without a label: %s", msg);
    stream("nan.cal", lab, d2, n, 2, 1);
    bad_file = t_path("nan.cal"), bad_by_label = 0;
    st = t_child(collect_bad, NULL, msg, sizeof msg);
    CHECK(st == 1 && strstr(msg, "VECTORS record 'b' row 0 holds NaN or Inf"), "NaN: %s", msg);
}

int main(void) {
    if (!mkdtemp(t_dir)) return 1;
    one_accumulator();
    by_label();
    errors();
    for (const char *const *n = (const char *const[]){"s1.cal", "s2.cal", "l.cal", "d.cal", "nolabel.cal", "nan.cal", NULL};
         *n; n++)
        unlink(t_path(*n));
    rmdir(t_dir);
    TEST_END();
}
