/* mt19937.c - MT19937 from the published description (period 2^19937 - 1,
 * twist matrix 0x9908B0DF, tempering shifts 11, 7, 15, 18). */
#include "base/mt19937.h"

#define MT_M 397
#define MT_UPPER 0x80000000u
#define MT_LOWER 0x7fffffffu

void cal_mt_init(cal_mt19937 *m, uint32_t s) {
    m->mt[0] = s;
    for (uint32_t i = 1; i < CAL_MT_N; i++) m->mt[i] = 1812433253u * (m->mt[i - 1] ^ (m->mt[i - 1] >> 30)) + i;
    m->i = CAL_MT_N;
}

void cal_mt_init_array(cal_mt19937 *m, const uint32_t *key, size_t n) {
    uint32_t *mt = m->mt;
    cal_mt_init(m, 19650218u);
    size_t i = 1, j = 0;
    /* Mix every key word in at least once, and every state word at least once. */
    for (size_t k = n > CAL_MT_N ? n : CAL_MT_N; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525u)) + key[j] + (uint32_t)j;
        if (++i >= CAL_MT_N) mt[0] = mt[CAL_MT_N - 1], i = 1;
        if (++j >= n) j = 0;
    }
    for (size_t k = CAL_MT_N - 1; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941u)) - (uint32_t)i;
        if (++i >= CAL_MT_N) mt[0] = mt[CAL_MT_N - 1], i = 1;
    }
    mt[0] = 0x80000000u; /* the state is never all zero */
}

static void twist(cal_mt19937 *m) {
    uint32_t *mt = m->mt;
    for (unsigned k = 0; k < CAL_MT_N; k++) {
        uint32_t y = (mt[k] & MT_UPPER) | (mt[(k + 1) % CAL_MT_N] & MT_LOWER);
        mt[k] = mt[(k + MT_M) % CAL_MT_N] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
    }
    m->i = 0;
}

uint32_t cal_mt_next(cal_mt19937 *m) {
    if (m->i >= CAL_MT_N) twist(m);
    uint32_t y = m->mt[m->i++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}
