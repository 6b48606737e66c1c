/* hash.c - content hashes (XXH3-64): document ids, fingerprints, and the
 * checksums of every cal-stream record. */
#include "base/hash.h"

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

/* libxxhash's x86 dispatcher (xxh_x86dispatch.h) runs XXH3 on AVX2 or
 * AVX-512 when the CPU has them: about twice the speed of the plain entry
 * points, which a distribution builds for the baseline SSE2 (measured 21 vs
 * 12 GB/s on 10 kB records). Declared weak, so that a library built without
 * the dispatcher still links and the plain functions are used. Same values:
 * XXH3 is defined independently of the code path. */
#if defined(__GNUC__) && defined(__x86_64__)
XXH64_hash_t XXH3_64bits_dispatch(const void *p, size_t n) __attribute__((weak));
#define DISPATCH(f) (f##_dispatch ? f##_dispatch : f)
#else
#define DISPATCH(f) f
#endif

uint64_t cal_hash(const void *p, size_t n) { return DISPATCH(XXH3_64bits)(p, n); }

uint64_t cal_hash_seed(const void *p, size_t n, uint64_t seed) {
    return XXH3_64bits_withSeed(p, n, seed);
}
