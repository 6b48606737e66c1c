/* test_pack_common.c - lib/rows/alloc.c (largest remainder) and
 * lib/rows/extsort.c (external sort) against exact expectations. */
#include <stdlib.h>

#include "base/num.h"
#include "base/rng.h"
#include "rows/alloc.h"
#include "rows/extsort.h"
#include "stream/stream.h"
#include "test.h"

static int alloc_is(uint64_t total, const double *w, size_t n, const uint64_t *want) {
    uint64_t got[8];
    cal_alloc_largest_remainder(total, w, n, got);
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i]) return 0;
    return 1;
}

/* Adds n records (key = a draw, payload = its index) and checks that they
 * come out sorted by (key, index) with every payload intact. */
static int sort_ok(size_t n, size_t limit, uint64_t keyspace, size_t *spills) {
    cal_extsort *s = cal_extsort_new(limit);
    cal_rng r;
    cal_rng_init(&r, 42);
    uint64_t *keys = malloc(n * sizeof *keys);
    for (size_t i = 0; i < n; i++) {
        uint8_t b[40];
        size_t len = 8 + (size_t)cal_rng_below(&r, 32);
        keys[i] = cal_rng_below(&r, keyspace);
        cal_st64(b, i);
        for (size_t j = 8; j < len; j++) b[j] = (uint8_t)(i + j);
        cal_extsort_add(s, keys[i], b, len);
    }
    const void *p;
    size_t len, got = 0;
    int ok = 1;
    uint64_t prev_key = 0, prev_i = 0;
    while (cal_extsort_next(s, &p, &len)) {
        const uint8_t *b = p;
        uint64_t i = cal_ld64(b);
        if (i >= n || len < 8) { ok = 0; break; }
        for (size_t j = 8; j < len; j++) ok &= b[j] == (uint8_t)(i + j);
        if (got && (keys[i] < prev_key || (keys[i] == prev_key && i <= prev_i))) ok = 0;
        prev_key = keys[i], prev_i = i;
        got++;
    }
    *spills = cal_extsort_spills(s);
    cal_extsort_free(s);
    free(keys);
    return ok && got == n;
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

    size_t sp;
    CHECK(sort_ok(5000, 1 << 20, UINT64_MAX, &sp) && sp == 0, "5000 records in memory, sorted (%zu spills)", sp);
    CHECK(sort_ok(20000, 4096, UINT64_MAX, &sp) && sp > 128, "20000 records, 4 KB limit: %zu runs, multi-pass merge", sp);
    CHECK(sort_ok(5000, 16384, 3, &sp) && sp > 1, "many equal keys keep insertion order across %zu runs", sp);
    CHECK(sort_ok(0, 4096, 10, &sp), "empty input");
    TEST_END();
}
