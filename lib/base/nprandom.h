/* nprandom.h - numpy's default Generator: SeedSequence, PCG64, and the
 * Generator methods peers call, exactly as numpy (>= 1.17) computes them.
 *
 * AutoAWQ and auto-round shuffle with datasets' Dataset.shuffle(seed=42),
 * which is np.random.default_rng(42).permutation(len(dataset)). These
 * functions give numpy's numbers for the same seed and the same calls, in
 * the same order. Written from the algorithms of numpy's bit_generator.pyx
 * (SeedSequence), pcg64.h (PCG64 XSL-RR 128/64), distributions.c
 * (random_interval, the bounded Lemire draws) and _generator.pyx. */
#ifndef CAL_BASE_NPRANDOM_H
#define CAL_BASE_NPRANDOM_H

#include <stddef.h>
#include <stdint.h>

/* PCG64's state, with numpy's one buffered 32-bit half (next_uint32 uses
 * both halves of a 64-bit output, low first; next_uint64 never touches it). */
typedef struct {
    unsigned __int128 state, inc;
    int has32;
    uint32_t u32;
} cal_pcg64;

/* SeedSequence(entropy).generate_state(nwords, np.uint32), entropy being an
 * int >= 0 given as n 32-bit words, least significant first (pool size 4,
 * no spawn key). */
void cal_np_seedseq_state(const uint32_t *entropy, size_t n, uint32_t *out, size_t nwords);
/* np.random.default_rng(seed) (= Generator(PCG64(seed))). */
void cal_np_seed(cal_pcg64 *g, uint64_t seed);
/* default_rng(a) for any int a >= 0 given as 32-bit words (as above). */
void cal_np_seed_words(cal_pcg64 *g, const uint32_t *words, size_t n);
/* The bit generator's next_uint64 / next_uint32. */
uint64_t cal_pcg64_next64(cal_pcg64 *g);
uint32_t cal_pcg64_next32(cal_pcg64 *g);
/* Generator.random(): (next_uint64 >> 11) * 2^-53. */
double cal_np_random(cal_pcg64 *g);
/* numpy's random_bounded_uint64_fill for one value: off + a value in
 * [0, rng] (inclusive). rng = 0 draws nothing; rng < 2^32 - 1 is Lemire's
 * method on next_uint32; rng = 2^32 - 1 one next_uint32; rng = 2^64 - 1 one
 * next_uint64; else Lemire's method on next_uint64. */
uint64_t cal_np_bounded(cal_pcg64 *g, uint64_t off, uint64_t rng);
/* Generator.integers(low, high) for the default int64 dtype, low < high. */
int64_t cal_np_integers(cal_pcg64 *g, int64_t low, int64_t high);
/* random_interval(max): a value in [0, max] by masked rejection (next_uint32
 * when max < 2^32, else next_uint64); max = 0 draws nothing. */
uint64_t cal_np_interval(cal_pcg64 *g, uint64_t max);
/* Generator.shuffle(x) on n elements of `size` bytes: for i = n-1 .. 1, swap
 * x[i] with x[random_interval(i)]. */
void cal_np_shuffle(cal_pcg64 *g, void *base, size_t n, size_t size);
/* Generator.permutation(n): shuffle(arange(n)). */
void cal_np_permutation(cal_pcg64 *g, size_t n, uint64_t *out);

#endif
