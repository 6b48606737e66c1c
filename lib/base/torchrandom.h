/* torchrandom.h - torch's default CPU generator (torch 1.13, Debian's
 * python3-torch), exactly: torch.manual_seed, torch.randint, torch.randperm.
 *
 * EXL3's random rows are torch.manual_seed(0) then torch.randint. The
 * generator is MT19937 (base/mt19937.h) seeded by init_genrand with the low
 * 32 bits of the 64-bit seed; random() is one 32-bit output, random64() two
 * (the first is the high half). Written from the algorithms of ATen's
 * CPUGeneratorImpl, DistributionsHelper (uniform_int_from_to_distribution)
 * and the CPU randperm kernel. */
#ifndef CAL_BASE_TORCHRANDOM_H
#define CAL_BASE_TORCHRANDOM_H

#include <stddef.h>
#include <stdint.h>

#include "base/mt19937.h"

typedef struct {
    cal_mt19937 mt;
} cal_torchgen;

/* torch.manual_seed(seed): only seed's low 32 bits reach the engine. */
void cal_torch_manual_seed(cal_torchgen *g, uint64_t seed);
uint32_t cal_torch_random(cal_torchgen *g);
uint64_t cal_torch_random64(cal_torchgen *g);
/* One element of torch.randint(low, high, (n,)) (int64, CPU; the elements
 * are drawn in order): range = high - low; (random() % range) + low when
 * range < 2^32, else (random64() % range) + low. Modulo, not rejection:
 * torch's own (slight) bias is part of what is reproduced. low < high. */
int64_t cal_torch_randint(cal_torchgen *g, int64_t low, int64_t high);
/* torch.randperm(n) (int64, CPU): out = arange(n), then for i = 0 .. n-2
 * swap out[i] with out[i + random() % (n - i)], as torch 1.13 does for
 * every n. Later torch (pytorch PR 143682, 2025) draws large n differently. */
void cal_torch_randperm(cal_torchgen *g, size_t n, uint64_t *out);
/* x = x[torch.randperm(n)] in place on n elements of `size` bytes (the same
 * swaps applied to x itself). */
void cal_torch_shuffle(cal_torchgen *g, void *base, size_t n, size_t size);

#endif
