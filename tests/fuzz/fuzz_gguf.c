/* fuzz_gguf.c - libFuzzer target: the GGUF reader and the imatrix reading
 * over arbitrary bytes (both only read from the image and report errors,
 * never die), touching every tensor's first and last byte. */
#include <stddef.h>
#include <stdint.h>

#include "io/gguf.h"
#include "stats/imatrix.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char err[1024];
    volatile uint64_t sink = 0;
    cal_gguf_file *f = cal_gguf_open_mem(data, size, "fuzz", err, sizeof err);
    if (!f) return 0;
    for (size_t i = 0; i < cal_gguf_ntensors(f); i++) {
        const cal_gguf_tensor *t = cal_gguf_tensor_at(f, i);
        if (t->nbytes) sink += t->data[0] + t->data[t->nbytes - 1];
    }
    for (size_t i = 0; i < cal_gguf_nkv(f); i++) {
        const cal_gguf_kv *k = cal_gguf_kv_at(f, i);
        if (k->str && k->n && k->str[k->n - 1].n) sink += (uint8_t)k->str[k->n - 1].p[0];
    }
    cal_imatrix m = {0};
    if (cal_imatrix_add_gguf(&m, f, err, sizeof err)) {
        cal_buf out = {0};
        cal_imatrix_serialize(&m, &out);
        sink += out.n;
        cal_buf_free(&out);
    }
    cal_imatrix_free(&m);
    cal_gguf_close(f);
    (void)sink;
    return 0;
}
