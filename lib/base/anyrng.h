/* anyrng.h - one RNG interface over calkit's generator and the peers' ones,
 * chosen by name (the value of a program's --rng option).
 *
 *   calkit  calkit's documented xoshiro256** (base/rng.h), the default
 *   python  CPython's random.Random (base/pyrandom.h)
 *   numpy   numpy's default_rng, PCG64 (base/nprandom.h)
 *   torch   torch's CPU generator, MT19937 (base/torchrandom.h)
 *
 * A filter keeps one cal_anyrng per random purpose and calls only these
 * entry points; with a peer's kind and the peer's seed, a recipe that makes
 * the peer's calls in the peer's order gets the peer's numbers:
 *
 *   entry point          calkit               python                numpy                        torch
 *   init(kind, seed, p)  cal_rng_init2(seed,p) random.seed(seed)    rng = default_rng(seed)      torch.manual_seed(seed)
 *   below(n)             cal_rng_below(n)     random.randrange(n)   rng.integers(0, n)           torch.randint(0, n, (1,))
 *   randint(a, b)        a + below(b-a+1)     random.randint(a, b)  rng.integers(a, b + 1)       torch.randint(a, b + 1, (1,))
 *   shuffle(x, n)        forward Fisher-Yates random.shuffle(x)     rng.shuffle(x)               x = x[torch.randperm(n)]
 *   permutation(n)       shuffle(arange(n))   shuffle(list(range(n))) rng.permutation(n)        torch.randperm(n)
 *
 * Consequences that recipes rely on:
 * - randint(a, b) is a + below(b - a + 1) for every kind, as it is in each peer.
 * - k draws of below(n) are torch.randint(0, n, (k,)) (torch fills in order)
 *   and rng.integers(0, n, size=k) (numpy's buffered 32-bit halves live in
 *   the generator, so array and one-at-a-time draws agree).
 * - numpy's below(1) draws nothing; python's and torch's below(1) use a draw.
 * - shuffle(x) leaves x[i] = x_before[permutation(n)[i]] for every kind:
 *   datasets' Dataset.shuffle(seed=s) is row i = old row permutation(n)[i]
 *   of kind numpy with seed s.
 * - calkit's shuffle is forward Fisher-Yates (for i = 0 .. n-2 swap x[i] and
 *   x[i + below(n - i)]), so its first q elements are the partial shuffle
 *   calkit's filters already take; `purpose` separates calkit's streams and
 *   is ignored by the peers' kinds, which each seed directly as the peer's
 *   code does (seed a fresh cal_anyrng where the peer calls seed()).
 * Bounds: 1 <= n < 2^64 and a <= b with b - a < 2^64 - 1 (numpy and torch
 * themselves stop at int64's range). */
#ifndef CAL_BASE_ANYRNG_H
#define CAL_BASE_ANYRNG_H

#include <stddef.h>
#include <stdint.h>

#include "base/nprandom.h"
#include "base/pyrandom.h"
#include "base/rng.h"
#include "base/torchrandom.h"

typedef enum { CAL_RNG_CALKIT, CAL_RNG_PYTHON, CAL_RNG_NUMPY, CAL_RNG_TORCH } cal_rng_kind;

/* The names --rng accepts, for help texts and errors. */
#define CAL_RNG_KIND_NAMES "calkit, python, numpy, torch"

/* 0 and *kind set when name is one of CAL_RNG_KIND_NAMES, else -1. */
int cal_rng_kind_parse(const char *name, cal_rng_kind *kind);
/* The option value, or a usage error naming opt (exit 2). */
cal_rng_kind cal_rng_kind_opt(const char *opt, const char *name);
const char *cal_rng_kind_name(cal_rng_kind kind);

typedef struct {
    cal_rng_kind kind;
    union {
        cal_rng calkit;
        cal_pyrandom py;
        cal_pcg64 np;
        cal_torchgen torch;
    } g;
} cal_anyrng;

void cal_anyrng_init(cal_anyrng *r, cal_rng_kind kind, uint64_t seed, const char *purpose);
/* Uniform in [0, n), n >= 1. */
uint64_t cal_anyrng_below(cal_anyrng *r, uint64_t n);
/* Uniform in [a, b], a <= b. */
int64_t cal_anyrng_randint(cal_anyrng *r, int64_t a, int64_t b);
/* Shuffles n elements of `size` bytes at base in place. */
void cal_anyrng_shuffle(cal_anyrng *r, void *base, size_t n, size_t size);
/* out[0 .. n) = a random permutation of 0 .. n-1. */
void cal_anyrng_permutation(cal_anyrng *r, size_t n, uint64_t *out);

#endif
