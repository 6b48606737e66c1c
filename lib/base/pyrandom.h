/* pyrandom.h - CPython's `random` module (3.x, the Random class), exactly.
 *
 * Peers draw their calibration windows with it: GPTQ (IST-DASLab datautils),
 * optimum and lmdeploy call random.seed(seed) then random.randint(); EXL2's
 * multilingual rows random.seed(69420); EXL3 random.seed(0) then
 * random.shuffle(). These functions give the same numbers as CPython on a
 * little-endian machine (x86, ARM) for the same seed and the same calls, in
 * the same order. Written from the algorithms of Modules/_randommodule.c and
 * Lib/random.py (MT19937 in base/mt19937.h underneath). */
#ifndef CAL_BASE_PYRANDOM_H
#define CAL_BASE_PYRANDOM_H

#include <stddef.h>
#include <stdint.h>

#include "base/mt19937.h"

typedef struct {
    cal_mt19937 mt;
} cal_pyrandom;

/* random.seed(seed) for an int seed >= 0. */
void cal_py_seed(cal_pyrandom *r, uint64_t seed);
/* random.seed(a) for any int a: words[] are |a| in 32-bit words, least
 * significant first (n >= 0; high zero words are ignored, none means 0). */
void cal_py_seed_words(cal_pyrandom *r, const uint32_t *words, size_t n);
/* random.getrandbits(k) for 0 <= k <= 64 (k = 0 draws nothing). */
uint64_t cal_py_getrandbits(cal_pyrandom *r, unsigned k);
/* random.getrandbits(k) for any k: out[] gets (k + 31) / 32 words, least
 * significant first. */
void cal_py_getrandbits_words(cal_pyrandom *r, uint64_t k, uint32_t *out);
/* random._randbelow(n), n >= 1: getrandbits(n.bit_length()) until below n
 * (so n = 2^k takes k + 1 bits per try). randrange(n) and choice() use it. */
uint64_t cal_py_randbelow(cal_pyrandom *r, uint64_t n);
/* random.randrange(start, stop) = start + _randbelow(stop - start), start < stop. */
int64_t cal_py_randrange(cal_pyrandom *r, int64_t start, int64_t stop);
/* random.randint(a, b) = randrange(a, b + 1), a <= b, b - a < 2^64 - 1. */
int64_t cal_py_randint(cal_pyrandom *r, int64_t a, int64_t b);
/* random.random(): 53 bits from two outputs, (a >> 5, b >> 6). */
double cal_py_random(cal_pyrandom *r);
/* random.shuffle(x) on n elements of `size` bytes at base: for i = n-1 .. 1,
 * swap x[i] with x[_randbelow(i + 1)]. */
void cal_py_shuffle(cal_pyrandom *r, void *base, size_t n, size_t size);
/* random.sample(range(n), k), k <= n: the k picked indices in selection
 * order (the pool or the set method, chosen by n and k as CPython does). */
void cal_py_sample(cal_pyrandom *r, uint64_t n, size_t k, uint64_t *out);

#endif
