/* test_rows_shuffle.c - lib/rows/shuffle.c: the documented record key (as
 * the Python model tests/py/packref.py computes it), and the window
 * shuffle: a permutation, displacement bounded by W, W = 1 keeps order. */
#include <stdlib.h>

#include "base/num.h"
#include "rows/extsort.h"
#include "rows/shuffle.h"
#include "test.h"

static uint64_t out[1000];
static size_t nout;

static void keep(void *ctx, const void *p, size_t n) {
    (void)ctx;
    if (n == 8 && nout < 1000) out[nout++] = cal_ld64(p);
}

static void window(uint64_t w, uint64_t seed, size_t n) {
    nout = 0;
    cal_window_shuffle *s = cal_window_shuffle_new(w, CAL_RNG_CALKIT, seed, keep, NULL);
    for (uint64_t i = 0; i < n; i++) {
        uint8_t b[8];
        cal_st64(b, i);
        cal_window_shuffle_add(s, b, 8);
    }
    cal_window_shuffle_end(s);
    cal_window_shuffle_free(s);
}

int main(void) {
    CHECK(cal_shuffle_key(5, 9) == 0x31bdf51c0137736aULL, "key of record 5, seed 9 = XXH3-64(5 as u64 LE; seed 9)");
    /* the full shuffle's order: sort by key (packref.shuffle_order(6, 9)) */
    cal_extsort *s = cal_extsort_new(1 << 20);
    for (uint64_t i = 0; i < 6; i++) {
        uint8_t b[8];
        cal_st64(b, i);
        cal_extsort_add(s, cal_shuffle_key(i, 9), b, 8);
    }
    const void *p;
    size_t n;
    nout = 0;
    while (cal_extsort_next(s, &p, &n)) keep(NULL, p, n);
    cal_extsort_free(s);
    CHECK(nout == 6 && out[0] == 1 && out[1] == 5 && out[2] == 2 && out[3] == 0 && out[4] == 4 && out[5] == 3,
          "6 records, seed 9: order 1 5 2 0 4 3");

    window(10, 3, 1000);
    int seen[1000] = {0}, perm = nout == 1000, bounded = 1, moved = 0;
    for (size_t j = 0; j < nout; j++) {
        perm &= !seen[out[j]]++;
        bounded &= out[j] <= j + 9; /* out only after W - 1 later records were read */
        moved |= out[j] != j;
    }
    CHECK(perm && moved, "window 10: a permutation that reorders");
    CHECK(bounded, "window 10: a record moves at most 9 places earlier");
    window(10, 3, 1000);
    uint64_t first[1000];
    memcpy(first, out, sizeof first);
    window(10, 4, 1000);
    CHECK(memcmp(first, out, sizeof first) != 0, "another seed, another order");
    window(1, 3, 50);
    int same = nout == 50;
    for (size_t j = 0; j < nout; j++) same &= out[j] == j;
    CHECK(same, "window 1 keeps the order");
    window(100, 3, 5);
    CHECK(nout == 5, "fewer records than the window: all drained");
    TEST_END();
}
