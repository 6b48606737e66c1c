/* imatrix_gguf.c - GGUF v3 writer for one imatrix entry (see imatrix_gguf.h). */
#include <string.h>

#include "stats/imatrix_gguf.h"
#include "base/buf.h"
#include "base/num.h"
#include "base/outfile.h"
#include "stream/stream.h"

#define GGUF_ALIGN 32
enum { T_U32 = 4, T_STRING = 8, T_ARRAY = 9 }; /* gguf_type values */
#define GGML_F32 0

static void u32(cal_buf *b, uint32_t x) {
    uint8_t t[4];
    cal_st32(t, x);
    cal_buf_add(b, t, 4);
}
static void u64(cal_buf *b, uint64_t x) {
    uint8_t t[8];
    cal_st64(t, x);
    cal_buf_add(b, t, 8);
}
static void str(cal_buf *b, const char *s) {
    u64(b, strlen(s));
    cal_buf_add(b, s, strlen(s));
}
static void f32(cal_buf *b, float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    u32(b, u);
}
static void pad(cal_buf *b) {
    while (b->n % GGUF_ALIGN) cal_buf_addc(b, 0);
}
/* Tensor info: name, n_dims, ne[], type, offset into the data section. */
static void tinfo(cal_buf *b, const char *name, uint64_t ne0, uint64_t ne1, uint64_t off) {
    str(b, name);
    u32(b, 2);
    u64(b, ne0);
    u64(b, ne1);
    u32(b, GGML_F32);
    u64(b, off);
}

void cal_imatrix_write(const char *path, const char *name, const double *sumsq, size_t d,
                       double count, const char *const *datasets, size_t ndatasets,
                       uint32_t chunk_count, uint32_t chunk_size) {
    cal_buf b = {0}, n1 = {0}, n2 = {0};
    cal_buf_addf(&n1, "%s.in_sum2", name);
    cal_buf_addf(&n2, "%s.counts", name);
    cal_buf_add(&b, "GGUF", 4);
    u32(&b, 3);
    u64(&b, 2); /* tensors */
    u64(&b, 4); /* key-value pairs */
    str(&b, "general.type");
    u32(&b, T_STRING);
    str(&b, "imatrix");
    str(&b, "imatrix.datasets");
    u32(&b, T_ARRAY);
    u32(&b, T_STRING);
    u64(&b, ndatasets);
    for (size_t i = 0; i < ndatasets; i++) str(&b, datasets[i]);
    str(&b, "imatrix.chunk_count");
    u32(&b, T_U32);
    u32(&b, chunk_count);
    str(&b, "imatrix.chunk_size");
    u32(&b, T_U32);
    u32(&b, chunk_size);
    uint64_t sz1 = 4 * (uint64_t)d, off2 = (sz1 + GGUF_ALIGN - 1) / GGUF_ALIGN * GGUF_ALIGN;
    tinfo(&b, n1.p, d, 1, 0);
    tinfo(&b, n2.p, 1, 1, off2);
    pad(&b);
    size_t data0 = b.n;
    for (size_t j = 0; j < d; j++) f32(&b, (float)sumsq[j]);
    while (b.n - data0 < off2) cal_buf_addc(&b, 0);
    f32(&b, (float)count);
    cal_file *f = cal_file_create(path);
    cal_file_write(f, b.p, b.n);
    cal_file_commit(f);
    cal_buf_free(&b);
    cal_buf_free(&n1);
    cal_buf_free(&n2);
}
