/* test_rows_alloc.c - lib/rows/alloc.c (largest remainder) against exact
 * expectations and its bounds. */
#include "base/rng.h"
#include "rows/alloc.h"
#include "test.h"

static int alloc_is(uint64_t total, const double *w, size_t n, const uint64_t *want) {
    uint64_t got[8];
    cal_alloc_largest_remainder(total, w, n, got);
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i]) return 0;
    return 1;
}

int main(void) {
    double w3[] = {1, 1, 1};
    uint64_t e1[] = {4, 3, 3};
    CHECK(alloc_is(10, w3, 3, e1), "10 over three equal weights: 4 3 3 (ties to the earlier)");
    double w[] = {20, 20, 10, 10, 50, 5, 20};
    uint64_t e2[] = {37, 37, 19, 18, 93, 9, 37};
    CHECK(alloc_is(250, w, 7, e2), "EXL3 weights over 250: 37 37 19 18 93 9 37");
    double wz[] = {0, 2, 0, 1};
    uint64_t e3[] = {0, 5, 0, 2};
    CHECK(alloc_is(7, wz, 4, e3), "zero weights get nothing");
    uint64_t e4[] = {0, 0, 0};
    CHECK(alloc_is(0, w3, 3, e4), "total 0");
    double w1[] = {0.3};
    uint64_t e5[] = {12345};
    CHECK(alloc_is(12345, w1, 1, e5), "one part takes all");
    int all = 1;
    cal_rng r;
    cal_rng_init(&r, 7);
    for (int k = 0; k < 2000; k++) {
        double ww[8], sum = 0;
        size_t n = 1 + (size_t)cal_rng_below(&r, 8);
        for (size_t i = 0; i < n; i++) sum += ww[i] = (double)cal_rng_below(&r, 100) / 7 + (i == 0);
        uint64_t total = cal_rng_below(&r, 100000), got[8], s = 0;
        cal_alloc_largest_remainder(total, ww, n, got);
        for (size_t i = 0; i < n; i++) {
            s += got[i];
            double q = (double)total * ww[i] / sum;
            all &= (double)got[i] > q - 1 && (double)got[i] < q + 1;
        }
        all &= s == total;
    }
    CHECK(all, "2000 random allocations sum exactly, each within 1 of its quota");

    TEST_END();
}
