/* fuzz_npy.c - libFuzzer target: the .npy header (a Python dict literal,
 * parsed, not searched) and the shape against the data. Whatever it
 * accepts, every value it promises must be readable. */
#include <stddef.h>
#include <stdint.h>

#include "io/npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char err[512];
    cal_npy a;
    volatile int64_t sink = 0;
    if (cal_npy_parse(&a, data, size, "fuzz", err, sizeof err)) {
        uint64_t n = a.shape[0] * a.shape[1];
        if (n) sink += cal_npy_at(&a, 0) + cal_npy_at(&a, n - 1);
    }
    (void)sink;
    return 0;
}
