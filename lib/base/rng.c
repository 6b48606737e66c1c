/* rng.c - xoshiro256** seeded by SplitMix64; Lemire's bounded draws.
 * Written from the published algorithm descriptions (Blackman & Vigna 2018;
 * Lemire 2019), so every build gives the same numbers for the same seed. */
#include "base/rng.h"

#include <string.h>

#include "base/hash.h"

static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void cal_rng_init(cal_rng *r, uint64_t seed) {
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&x);
}

void cal_rng_init2(cal_rng *r, uint64_t seed, const char *purpose) {
    cal_rng_init(r, seed ^ cal_hash(purpose, strlen(purpose)));
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t cal_rng_next(cal_rng *r) {
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t cal_rng_below(cal_rng *r, uint64_t n) {
    /* Multiply-shift with rejection of the biased low products. */
    unsigned __int128 m = (unsigned __int128)cal_rng_next(r) * n;
    uint64_t lo = (uint64_t)m;
    if (lo < n) {
        uint64_t threshold = -n % n;
        while (lo < threshold) {
            m = (unsigned __int128)cal_rng_next(r) * n;
            lo = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

double cal_rng_double(cal_rng *r) {
    return (double)(cal_rng_next(r) >> 11) * 0x1.0p-53;
}
