/* fuzz_rowfile.c - libFuzzer target: the .safetensors and .npy parsers over
 * arbitrary bytes (both only read from the image, never die). */
#include <stdint.h>
#include <stddef.h>

#include "io/npy.h"
#include "io/safetensors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char err[1024];
    volatile uint64_t sink = 0;
    cal_st_file *f = cal_st_open_mem(data, size, "fuzz", err, sizeof err);
    if (f) {
        for (size_t i = 0; i < cal_st_count(f); i++) {
            const cal_st_tensor *t = cal_st_tensor_at(f, i);
            if (t->size) sink += t->data[0] + t->data[t->size - 1];
        }
        for (size_t i = 0; i < cal_st_meta_count(f); i++) sink += (uint8_t)cal_st_meta_val(f, i)[0];
        sink += cal_st_find(f, "input_ids") != NULL;
        sink += cal_st_hint(f, "input_ids")[0];
        cal_st_close(f);
    }
    cal_npy a;
    if (cal_npy_parse(&a, data, size, "fuzz", err, sizeof err)) {
        uint64_t n = a.shape[0] * a.shape[1];
        if (n) sink += (uint64_t)cal_npy_at(&a, n - 1);
    }
    (void)sink;
    return 0;
}
