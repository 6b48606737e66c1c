/* hash.c - content hashes (XXH3-64): document ids, fingerprints. */
#include "base/hash.h"

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

uint64_t cal_hash(const void *p, size_t n) { return XXH3_64bits(p, n); }

uint64_t cal_hash_seed(const void *p, size_t n, uint64_t seed) {
    return XXH3_64bits_withSeed(p, n, seed);
}
