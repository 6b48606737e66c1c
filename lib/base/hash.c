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
/* Debian's libxxhash 0.8.1 returns from its AVX2 and AVX-512 code without
 * vzeroupper, so the upper halves of the vector registers stay dirty and
 * every SSE instruction after it (the compiler's moves of small structs)
 * waits on them: cal-cat --pass spent a fifth of its CPU time on the
 * first such instruction after each record's checksum (perf annotate:
 * 0.0384 s for 256 MB, 0.0308 with this; medians of 15). Only where the
 * CPU has AVX, else the instruction would not exist. */
#define CLEAN_UPPER() do { if (__builtin_cpu_supports("avx")) __asm__ volatile("vzeroupper"); } while (0)
#else
#define DISPATCH(f) f
#define CLEAN_UPPER() do { } while (0)
#endif

uint64_t cal_hash(const void *p, size_t n) {
    uint64_t h = DISPATCH(XXH3_64bits)(p, n);
    /* XXH3 reaches its vector loop only past 240 bytes (XXH3_MIDSIZE_MAX):
     * shorter inputs (a token, a word) leave the upper halves clean and
     * skip the check */
    if (n > 240) CLEAN_UPPER();
    return h;
}

uint64_t cal_hash_seed(const void *p, size_t n, uint64_t seed) {
    return XXH3_64bits_withSeed(p, n, seed);
}
