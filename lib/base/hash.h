/* hash.h - content hashes. */
#ifndef CAL_BASE_HASH_H
#define CAL_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>

/* Document id of content: XXH3-64 of the bytes. */
uint64_t cal_hash(const void *p, size_t n);
uint64_t cal_hash_seed(const void *p, size_t n, uint64_t seed);

#endif
