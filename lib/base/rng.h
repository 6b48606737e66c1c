/* rng.h - the one documented RNG of calkit (see man/cal-stream.5, RANDOMNESS).
 *
 * xoshiro256** seeded through SplitMix64 from a 64-bit seed; bounded draws
 * by Lemire's multiply-and-reject method, so results are identical on every
 * machine and libc. Streams for independent purposes are derived with
 * cal_rng_init2(seed, purpose) so that adding one use does not shift another. */
#ifndef CAL_RNG_H
#define CAL_RNG_H

#include <stdint.h>

typedef struct {
    uint64_t s[4];
} cal_rng;

void cal_rng_init(cal_rng *r, uint64_t seed);
/* A stream for a named purpose: seeded from seed and XXH3 of `purpose`. */
void cal_rng_init2(cal_rng *r, uint64_t seed, const char *purpose);
uint64_t cal_rng_next(cal_rng *r);
/* Uniform in [0, n); n > 0. Unbiased. */
uint64_t cal_rng_below(cal_rng *r, uint64_t n);
/* Uniform double in [0, 1) with 53 random bits. */
double cal_rng_double(cal_rng *r);

#endif
