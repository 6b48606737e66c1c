/* gguf.h - the GGUF container (ggml's model and imatrix files): keys and
 * tensors, read and written as ggml does.
 *
 * Layout (little-endian): "GGUF", u32 version (2 or 3), i64 tensor count,
 * i64 key count; the keys (string key, u32 type, value; an array is u32
 * element type, u64 count, values; a string is u64 length + bytes); the
 * tensor infos (string name, u32 n_dims, i64 ne[n_dims], i32 ggml type,
 * u64 offset into the data section); zero padding to the alignment
 * (general.alignment, default 32); then the data section: each tensor's
 * bytes padded with zeros to the alignment, the last one too.
 *
 * The reader is at least as strict as ggml's gguf_init_from_file with data
 * loading, which is what llama.cpp runs on every file it opens: the magic,
 * the version, counts that fit the file, known key types, string and array
 * lengths within ggml's limits and the file, no empty or repeated key,
 * general.alignment a u32 power of two, tensor names under 64 bytes and
 * unique, at most 4 dimensions, no negative dimension, a known ggml type whose
 * block size divides ne[0], every size product checked for overflow, each
 * offset exactly where the previous tensor's padded data ends (so every
 * tensor is aligned), and the data section, padded after the last tensor,
 * inside the file. Beyond ggml it also rejects booleans other than 0/1 and
 * NUL bytes in keys and tensor names.
 *
 *     char err[512];
 *     cal_gguf_file *f = cal_gguf_open_soft("imatrix.gguf", err, sizeof err);
 *     const cal_gguf_kv *k = cal_gguf_find_kv(f, "general.type");
 *     const cal_gguf_tensor *t = cal_gguf_find_tensor(f, "blk.0.attn_q.weight.in_sum2");
 *     ... t->data, t->nbytes, t->ne[0..ndim) ...
 *     cal_gguf_close(f);
 *
 * The writer emits the same bytes as ggml's gguf_write_to_file: keys and
 * tensors in the order added, n_dims without trailing dimensions of 1 (at
 * least 1), data padded to the alignment after every tensor. */
#ifndef CAL_IO_GGUF_H
#define CAL_IO_GGUF_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

/* Value types of keys (gguf_type). */
enum {
    CAL_GGUF_U8, CAL_GGUF_I8, CAL_GGUF_U16, CAL_GGUF_I16, CAL_GGUF_U32, CAL_GGUF_I32,
    CAL_GGUF_F32, CAL_GGUF_BOOL, CAL_GGUF_STRING, CAL_GGUF_ARRAY, CAL_GGUF_U64,
    CAL_GGUF_I64, CAL_GGUF_F64,
};
/* Tensor types (ggml_type) used by calkit; the reader knows them all. */
enum { CAL_GGML_F32 = 0, CAL_GGML_F16 = 1 };

#define CAL_GGUF_ALIGNMENT 32 /* default of general.alignment */
#define CAL_GGUF_MAX_NAME 64  /* tensor names are shorter (GGML_MAX_NAME) */
#define CAL_GGUF_MAX_DIMS 4

typedef struct {
    const char *p; /* not NUL-terminated */
    uint64_t n;
} cal_gguf_str;

typedef struct {
    char *key;
    int type;        /* element type for arrays */
    int is_array;
    uint64_t n;      /* 1 for a scalar, else the array length */
    const uint8_t *val;  /* numbers: n little-endian values in the file */
    cal_gguf_str *str;   /* strings: n of them */
    uint64_t offset;     /* of the key in the file */
} cal_gguf_kv;

typedef struct {
    char *name;
    uint32_t ndim;
    int64_t ne[CAL_GGUF_MAX_DIMS]; /* 1 beyond ndim */
    int type;                      /* ggml_type */
    uint64_t nelements, nbytes;
    uint64_t offset;               /* in the data section, as in the file */
    uint64_t pos;                  /* of the data in the file */
    const uint8_t *data;
} cal_gguf_tensor;

typedef struct cal_gguf_file cal_gguf_file;

/* Maps and checks a file; NULL with "PATH: byte OFF: what" in err. */
cal_gguf_file *cal_gguf_open_soft(const char *path, char *err, size_t errlen);
/* The same on bytes in memory (kept by the caller while f is open). */
cal_gguf_file *cal_gguf_open_mem(const void *p, size_t n, const char *name, char *err, size_t errlen);
void cal_gguf_close(cal_gguf_file *f);
/* 1 when the bytes, or the file at path, begin with the GGUF magic. */
int cal_gguf_is_gguf(const void *p, size_t n);
int cal_gguf_sniff(const char *path);

const char *cal_gguf_name(const cal_gguf_file *f);
uint32_t cal_gguf_version(const cal_gguf_file *f);
size_t cal_gguf_alignment(const cal_gguf_file *f);
size_t cal_gguf_nkv(const cal_gguf_file *f);
const cal_gguf_kv *cal_gguf_kv_at(const cal_gguf_file *f, size_t i);
const cal_gguf_kv *cal_gguf_find_kv(const cal_gguf_file *f, const char *key); /* NULL if absent */
size_t cal_gguf_ntensors(const cal_gguf_file *f);
const cal_gguf_tensor *cal_gguf_tensor_at(const cal_gguf_file *f, size_t i);
const cal_gguf_tensor *cal_gguf_find_tensor(const cal_gguf_file *f, const char *name);

/* The ggml type's name ("f32", "q4_K"), or NULL for an unknown type. */
const char *cal_ggml_type_name(int type);

typedef struct cal_gguf_writer cal_gguf_writer;
cal_gguf_writer *cal_gguf_writer_new(void);
void cal_gguf_add_str(cal_gguf_writer *w, const char *key, const char *val);
/* "general.alignment" sets the alignment (a power of two). */
void cal_gguf_add_u32(cal_gguf_writer *w, const char *key, uint32_t val);
void cal_gguf_add_str_array(cal_gguf_writer *w, const char *key, const char *const *val, size_t n);
/* A tensor of ne[0] x ... x ne[ndim-1] values (ne[0] varies fastest) of an
 * unquantized ggml type (F32, F16); data is read at cal_gguf_serialize.
 * Dies on a name of CAL_GGUF_MAX_NAME bytes or more, or a repeated one. */
void cal_gguf_add_tensor(cal_gguf_writer *w, const char *name, int type, uint32_t ndim,
                         const int64_t *ne, const void *data);
/* Appends the whole file to out. */
void cal_gguf_serialize(const cal_gguf_writer *w, cal_buf *out);
void cal_gguf_writer_free(cal_gguf_writer *w);

#endif
