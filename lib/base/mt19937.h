/* mt19937.h - the Mersenne Twister MT19937 (Matsumoto and Nishimura, 1998).
 *
 * The 32-bit generator under CPython's `random` (base/pyrandom.h, seeded by
 * init_by_array) and torch's CPU generator (base/torchrandom.h, seeded by
 * init_genrand). Written from the published algorithm; its outputs are the
 * reference implementation's, bit for bit. calkit's own generator stays
 * base/rng.h: this one exists only to reproduce those peers. */
#ifndef CAL_BASE_MT19937_H
#define CAL_BASE_MT19937_H

#include <stddef.h>
#include <stdint.h>

#define CAL_MT_N 624

typedef struct {
    uint32_t mt[CAL_MT_N];
    unsigned i; /* next word of mt[] to temper; CAL_MT_N: regenerate first */
} cal_mt19937;

/* init_genrand(s): mt[0] = s, mt[i] = 1812433253 * (mt[i-1] ^ mt[i-1] >> 30) + i. */
void cal_mt_init(cal_mt19937 *m, uint32_t s);
/* init_by_array(key, n): the reference seeding from n >= 1 32-bit words. */
void cal_mt_init_array(cal_mt19937 *m, const uint32_t *key, size_t n);
/* The next tempered 32-bit output (genrand_int32). */
uint32_t cal_mt_next(cal_mt19937 *m);

#endif
