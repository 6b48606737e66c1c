/* test_base_spill.c - lib/base/spill.c against a plain byte array: random
 * appends (small, and larger than its 1 MiB write block), zeros, overwrites,
 * random and sequential reads, with a memory limit of 0 (all in the file),
 * a few bytes (moved to the file early), a few KB and more than is ever
 * stored (all in memory); and the move to the file exactly at the limit. */
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "base/spill.h"
#include "test.h"

static uint8_t *model;
static size_t msize, mcap;

static void model_add(const void *p, size_t n) {
    if (msize + n > mcap) {
        while (msize + n > mcap) mcap = mcap ? 2 * mcap : 4096;
        model = realloc(model, mcap);
    }
    if (p) memcpy(model + msize, p, n);
    else memset(model + msize, 0, n);
    msize += n;
}

static void fill(cal_rng *r, uint8_t *b, size_t n) {
    for (size_t i = 0; i < n; i += 8) {
        uint64_t v = cal_rng_next(r);
        memcpy(b + i, &v, n - i < 8 ? n - i : 8);
    }
}

/* 600 random operations; 1 when every read matched the model. */
static int run(size_t limit, uint64_t seed, int *on_disk) {
    cal_rng r;
    cal_rng_init(&r, seed);
    cal_spill *s = cal_spill_new(limit);
    static uint8_t buf[3 << 20], got[3 << 20];
    msize = 0;
    int ok = 1;
    size_t seq = 0; /* bytes read in order since the last rewind */
    cal_spill_rewind(s);
    for (int op = 0; op < 600 && ok; op++) {
        size_t k = (size_t)cal_rng_below(&r, 100), n = (size_t)cal_rng_below(&r, 3000);
        if (k < 2) n = (1 << 20) + (size_t)cal_rng_below(&r, 2 << 20); /* larger than a block */
        if (k < 35) {
            fill(&r, buf, n);
            cal_spill_add(s, buf, n);
            model_add(buf, n);
        } else if (k < 40) {
            cal_spill_add_zeros(s, n);
            model_add(NULL, n);
        } else if (k < 55 && msize) {
            size_t off = (size_t)cal_rng_below(&r, msize);
            if (n > msize - off) n = msize - off;
            fill(&r, buf, n);
            cal_spill_put_at(s, off, buf, n);
            memcpy(model + off, buf, n);
        } else if (k < 75 && msize) {
            size_t off = (size_t)cal_rng_below(&r, msize);
            if (n > msize - off) n = msize - off;
            cal_spill_get_at(s, off, got, n);
            ok &= !memcmp(got, model + off, n);
        } else if (k < 97) {
            const uint8_t *p = cal_spill_next(s, n);
            if (seq + n > msize) {
                ok &= p == NULL; /* too few left: nothing consumed */
            } else {
                ok &= p && !memcmp(p, model + seq, n);
                seq += n;
            }
        } else {
            cal_spill_rewind(s);
            seq = 0;
        }
        ok &= cal_spill_size(s) == msize;
    }
    /* everything once more, in order and at random */
    cal_spill_rewind(s);
    const uint8_t *p;
    size_t at = 0;
    while (ok && (p = cal_spill_next(s, 777))) ok &= !memcmp(p, model + at, 777), at += 777;
    ok &= at + 777 > msize;
    *on_disk = cal_spill_on_disk(s);
    cal_spill_free(s);
    return ok;
}

int main(void) {
    int disk;
    for (uint64_t seed = 1; seed <= 6; seed++) {
        CHECK(run(0, seed, &disk) && disk, "limit 0: every byte in the file (seed %llu)", (unsigned long long)seed);
        CHECK(run(100, seed, &disk) && disk, "limit 100: to the file early (seed %llu)", (unsigned long long)seed);
        CHECK(run(4000000, seed, &disk), "limit 4 MB: to the file mid-way or never (seed %llu, %s)",
              (unsigned long long)seed, disk ? "moved" : "stayed");
        CHECK(run((size_t)1 << 40, seed, &disk) && !disk, "no limit reached: in memory (seed %llu)",
              (unsigned long long)seed);
    }
    /* the move happens when a byte would pass the limit, not before */
    cal_spill *s = cal_spill_new(10);
    cal_spill_add(s, "0123456789", 10);
    int mem = !cal_spill_on_disk(s);
    cal_spill_add(s, "a", 1);
    char b[11];
    cal_spill_get_at(s, 0, b, 11);
    CHECK(mem && cal_spill_on_disk(s) && !memcmp(b, "0123456789a", 11), "10 bytes fit a limit of 10; the 11th moves them");
    cal_spill_free(s);
    free(model);
    TEST_END();
}
