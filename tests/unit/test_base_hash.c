/* test_base_hash.c - lib/base/hash.c: cal_hash (libxxhash's x86 dispatcher
 * where it has one) gives the values of the library's portable XXH3-64 for
 * every length class (0-16, 17-128, 129-240, long, and lengths across the
 * 1 kB stripes), on unaligned inputs too. */
#include <stdlib.h>

#include <xxhash.h>

#include "base/hash.h"
#include "test.h"

int main(void) {
    size_t n = (1 << 20) + 64;
    unsigned char *b = malloc(n);
    uint64_t s = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        b[i] = (unsigned char)s;
    }
    int bad = 0;
    size_t tried = 0;
    for (size_t len = 0; len <= 4096; len++)
        for (size_t off = 0; off < 3; off++, tried++) bad += cal_hash(b + off, len) != XXH3_64bits(b + off, len);
    const size_t big[] = {8191, 65536, 100003, (size_t)1 << 20};
    for (size_t k = 0; k < 4; k++, tried++) bad += cal_hash(b + 1, big[k]) != XXH3_64bits(b + 1, big[k]);
    CHECK(!bad, "cal_hash = XXH3_64bits on %zu inputs of 0 to 1 MiB bytes", tried);
    CHECK(cal_hash("", 0) == 0x2D06800538D394C2ull, "XXH3-64 of the empty input is 2D06800538D394C2");
    free(b);
    TEST_END();
}
