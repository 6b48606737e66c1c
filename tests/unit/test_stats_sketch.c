/* test_stats_sketch.c - lib/stats/sketch.c: the state after merging any
 * split of the values in any order is the state of one pass (memcmp); the
 * window slides and keeps every count; -0 and +0 give the same min/max in
 * any order; percentiles against the exact sorted values within the stated
 * bound; the per-tensor sketch equals one sketch of all values; and the
 * file checks refuse counts, tops and buckets no accumulation makes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/sketch.h"
#include "test.h"

static int same(const cal_sketch *a, const cal_sketch *b) {
    return a->d == b->d && !memcmp(a->c, b->c, a->d * CAL_SKETCH_STRIDE * 8) &&
           !memcmp(a->min, b->min, a->d * 8) && !memcmp(a->max, b->max, a->d * 8);
}

static double rnd(unsigned *s) {
    *s = *s * 1103515245u + 12345u;
    return ((*s >> 8) + 0.5) / (1 << 24);
}

static int cmpd(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* np.percentile(v, p) and the bound of sketch.h for it. */
static double exact(const double *sorted, size_t n, double p, double *bound) {
    double h = (double)(n - 1) * (p / 100), f = h - floor(h), amax = fmax(fabs(sorted[0]), fabs(sorted[n - 1]));
    size_t i = (size_t)floor(h), j = i + 1 < n ? i + 1 : i;
    *bound = CAL_SKETCH_ALPHA * ((1 - f) * fabs(sorted[i]) + f * fabs(sorted[j])) + CAL_SKETCH_FLOOR(amax);
    return sorted[i] + f * (sorted[j] - sorted[i]);
}

int main(void) {
    enum { D = 3, N = 5000 };
    static double x[N * D], col[N], ab[N];
    unsigned seed = 1;
    for (size_t r = 0; r < N; r++) {
        double g = sqrt(-2 * log(rnd(&seed))) * cos(6.283185307179586 * rnd(&seed));
        x[r * D + 0] = g;
        x[r * D + 1] = exp(40 * (rnd(&seed) - 0.5)) * (rnd(&seed) < 0.3 ? -1 : 1); /* 17 decades */
        x[r * D + 2] = r % 7 ? (r % 2 ? 0.0 : -0.0) : g * 1e-310;                  /* zeros, subnormals */
    }
    x[4000 * D + 1] = 1e200; /* slides the window of channel 1 late */

    cal_sketch *one = cal_sketch_new(D);
    cal_sketch_add_rows(one, x, D, N, 1, 0, D);
    CHECK(cal_sketch_count(one, 1) == N, "every value counted after the window slid");
    /* pieces in several orders, merged into fresh sketches */
    size_t cut[] = {0, 17, 1000, 3999, 4001, N};
    int orders[][5] = {{0, 1, 2, 3, 4}, {4, 3, 2, 1, 0}, {2, 4, 0, 3, 1}};
    for (int o = 0; o < 3; o++) {
        cal_sketch *m = cal_sketch_new(D);
        for (int k = 0; k < 5; k++) {
            int p = orders[o][k];
            cal_sketch *part = cal_sketch_new(D);
            cal_sketch_add_rows(part, x + cut[p] * D, D, cut[p + 1] - cut[p], 1, 0, D);
            cal_sketch_merge(m, part);
            cal_sketch_free(part);
        }
        CHECK(same(m, one), "merge order %d gives the one-pass state", o);
        cal_sketch_free(m);
    }
    /* a value in the lowest bucket of the window stays in it on merge */
    double top1 = 1.0, low = ldexp(1 + 1.0 / 64, -12);
    cal_sketch *ta = cal_sketch_new(1), *tb = cal_sketch_new(1), *tab = cal_sketch_new(1);
    cal_sketch_add_rows(ta, &top1, 1, 1, 1, 0, 1);
    cal_sketch_add_rows(tb, &low, 1, 1, 1, 0, 1);
    cal_sketch_add_rows(tab, &top1, 1, 1, 1, 0, 1);
    cal_sketch_add_rows(tab, &low, 1, 1, 1, 0, 1);
    cal_sketch_merge(ta, tb);
    CHECK(same(ta, tab) && tab->c[2 + CAL_SKETCH_N] == 1 && tab->c[1] == 0, "lowest bucket kept on merge");
    cal_sketch_free(ta);
    cal_sketch_free(tb);
    cal_sketch_free(tab);
    /* weights: w times a row = the row w times */
    cal_sketch *w1 = cal_sketch_new(D), *w3 = cal_sketch_new(D);
    for (int k = 0; k < 3; k++) cal_sketch_add_rows(w1, x, D, 10, 1, 0, D);
    cal_sketch_add_rows(w3, x, D, 10, 3, 0, D);
    CHECK(same(w1, w3), "weight 3 = three times");
    cal_sketch_free(w1);
    cal_sketch_free(w3);
    /* signed zeros: the same min and max in either order */
    double z[2] = {0.0, -0.0}, zr[2] = {-0.0, 0.0};
    cal_sketch *za = cal_sketch_new(1), *zb = cal_sketch_new(1);
    cal_sketch_add_rows(za, z, 1, 2, 1, 0, 1);
    cal_sketch_add_rows(zb, zr, 1, 2, 1, 0, 1);
    CHECK(same(za, zb) && signbit(za->min[0]) && !signbit(za->max[0]), "-0 < +0 in either order");
    cal_sketch_free(za);
    cal_sketch_free(zb);

    /* percentiles against the sorted values, within the bound */
    double ps[] = {0, 0.01, 1, 25, 50, 75, 99, 99.9, 99.99, 100};
    for (size_t j = 0; j < D; j++) {
        for (size_t r = 0; r < N; r++) col[r] = x[r * D + j], ab[r] = fabs(col[r]);
        qsort(col, N, sizeof *col, cmpd);
        qsort(ab, N, sizeof *ab, cmpd);
        for (size_t k = 0; k < sizeof ps / sizeof *ps; k++) {
            double b, want = exact(col, N, ps[k], &b), got = cal_sketch_percentile(one, j, ps[k], 0);
            CHECK(fabs(got - want) <= b, "channel %zu p %g of x: %.17g, want %.17g +- %g", j, ps[k], got, want, b);
            want = exact(ab, N, ps[k], &b), got = cal_sketch_percentile(one, j, ps[k], 1);
            CHECK(fabs(got - want) <= b, "channel %zu p %g of |x|: %.17g, want %.17g +- %g", j, ps[k], got, want, b);
        }
        CHECK(cal_sketch_percentile(one, j, 100, 0) == col[N - 1] && cal_sketch_percentile(one, j, 0, 0) == col[0],
              "p 0 and 100 exact");
    }
    /* the gaussian channel: the estimate is within 2^-7, not just the floor */
    for (size_t r = 0; r < N; r++) col[r] = x[r * D];
    qsort(col, N, sizeof *col, cmpd);
    double b, want = exact(col, N, 99, &b);
    CHECK(fabs(cal_sketch_percentile(one, 0, 99, 0) / want - 1) <= CAL_SKETCH_ALPHA, "relative error at p 99");

    /* the tensor's sketch = one sketch of all values in one channel */
    cal_sketch *t = cal_sketch_total(one), *flat = cal_sketch_new(1);
    cal_sketch_add_rows(flat, x, 1, (size_t)N * D, 1, 0, 1);
    CHECK(same(t, flat), "total = one channel of every value");
    cal_sketch_free(t);
    cal_sketch_free(flat);

    /* file checks */
    char err[200];
    uint64_t ch[CAL_SKETCH_STRIDE];
    double amax = fmax(fabs(one->min[1]), fabs(one->max[1]));
    memcpy(ch, one->c + CAL_SKETCH_STRIDE, sizeof ch);
    CHECK(cal_sketch_check(ch, N, amax, err, sizeof err), "a real channel passes: %s", err);
    CHECK(!cal_sketch_check(ch, N + 1, amax, err, sizeof err) && strstr(err, "add up"), "wrong count refused");
    CHECK(!cal_sketch_check(ch, N, amax * 2, err, sizeof err) && strstr(err, "top bucket"), "wrong top refused");
    ch[2 + 2 * CAL_SKETCH_N - 1]--, ch[1]++;
    CHECK(!cal_sketch_check(ch, N, amax, err, sizeof err) && strstr(err, "empty"), "empty top bucket refused");
    memcpy(ch, one->c + 2 * CAL_SKETCH_STRIDE, sizeof ch); /* channel 2: all below, top 0 */
    CHECK(ch[0] == 0 && cal_sketch_check(ch, N, 0, err, sizeof err), "an all-below channel passes: %s", err);
    ch[2]++, ch[1]--;
    CHECK(!cal_sketch_check(ch, N, 0, err, sizeof err) && strstr(err, "outside"), "a bucket under DBL_MIN refused");
    cal_sketch_free(one);
    TEST_END();
}
