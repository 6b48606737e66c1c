/* safetensors.h - read and write .safetensors files (and sharded checkpoints).
 *
 * Format: u64 little-endian N, then N bytes of JSON header
 *   {"__metadata__":{"k":"v",...}, "NAME":{"dtype":"F32","shape":[..],
 *    "data_offsets":[BEGIN,END]}, ...}
 * then the data; offsets are relative to the first byte after the header.
 *
 * Reading maps the file and validates every tensor against it:
 *     cal_st_file *f = cal_st_open("model.safetensors");   // dies on bad input
 *     const cal_st_tensor *t = cal_st_find(f, "input_ids");
 *     if (!t) cal_die("no tensor input_ids%s", cal_st_hint(f, "input_ids"));
 *     ... t->data, t->size, t->shape[0..ndim) ...
 *     cal_st_close(f);
 * Writing (tensors in insertion order, data contiguous after the header,
 * the header padded with spaces so the data starts 8-byte aligned):
 *     cal_st_writer *w = cal_st_writer_new();
 *     cal_st_add_meta(w, "format", "pt");
 *     cal_st_add(w, "input_ids", "I64", 2, shape, data);
 *     cal_st_write(w, "out.safetensors");   // atomic (cal_file)
 *     cal_st_writer_free(w);
 * A caller that produces data on the fly passes data = NULL, then calls
 * cal_st_write_header(w, file) and writes each tensor's bytes itself, in
 * insertion order. */
#ifndef CAL_SAFETENSORS_H
#define CAL_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/outfile.h"
#include "stream/stream.h"

#define CAL_ST_MAX_DIM 8
#define CAL_ST_MAX_HEADER (100u << 20) /* same bound as the reference reader */

typedef struct {
    const char *name;
    char dtype[8];                  /* as in the file: "F32", "I64", "BOOL", ... */
    int ndim;
    uint64_t shape[CAL_ST_MAX_DIM];
    uint64_t numel;                 /* product of shape (1 for a scalar) */
    const uint8_t *data;            /* into the mapping; not aligned in general */
    uint64_t size;                  /* bytes */
    uint64_t offset;                /* absolute byte offset of data in the file */
} cal_st_tensor;

typedef struct cal_st_file cal_st_file;

/* Bytes per element of a safetensors dtype name, 0 when unknown. */
size_t cal_st_dtype_size(const char *dtype);

/* Maps and validates PATH. Dies with "PROG: PATH: byte OFF: what" and exit 1. */
cal_st_file *cal_st_open(const char *path);
/* Same, but returns NULL and fills err ("PATH: byte OFF: what") instead. */
cal_st_file *cal_st_open_soft(const char *path, char *err, size_t errlen);
/* Parses a file image in memory (not copied; must outlive the result). */
cal_st_file *cal_st_open_mem(const void *p, size_t n, const char *name, char *err,
                             size_t errlen);
void cal_st_close(cal_st_file *f);

const char *cal_st_name(const cal_st_file *f);
size_t cal_st_count(const cal_st_file *f);
const cal_st_tensor *cal_st_tensor_at(const cal_st_file *f, size_t i); /* file order */
const cal_st_tensor *cal_st_find(const cal_st_file *f, const char *name);
#define CAL_ST_NCLOSE 3
/* "; close names: 'A', 'B', 'C'" naming up to CAL_ST_NCLOSE tensor names
 * close to `name` (see cal_st_suggest), or "" (static buffer). */
const char *cal_st_hint(const cal_st_file *f, const char *name);
/* Puts up to k of the n names close to `name` in out[], best first, and
 * returns how many: the names containing it (shortest first), then those
 * within an edit distance of a third of its length (nearest first); ties
 * in name order. */
size_t cal_st_suggest(const char *const *names, size_t n, const char *name, const char **out, size_t k);

/* __metadata__ (string values only, as the format requires). */
size_t cal_st_meta_count(const cal_st_file *f);
const char *cal_st_meta_key(const cal_st_file *f, size_t i);
const char *cal_st_meta_val(const cal_st_file *f, size_t i);
const char *cal_st_meta_get(const cal_st_file *f, const char *key); /* NULL if absent */

/* ---- sharded checkpoints ------------------------------------------------ */
/* PATH is a .safetensors file, a model.safetensors.index.json, or a directory
 * holding one of them (index preferred). Shards are opened when first used. */
typedef struct cal_st_model cal_st_model;
cal_st_model *cal_st_model_open(const char *path);
/* The tensor, or NULL; *file (if not NULL) receives its shard's path. */
const cal_st_tensor *cal_st_model_find(cal_st_model *m, const char *name, const char **file);
/* Like cal_st_model_find but dies "PATH: no tensor 'NAME'; close names: ...". */
const cal_st_tensor *cal_st_model_get(cal_st_model *m, const char *name);
/* Every tensor name of the model: for an index its weight_map keys, in
 * index order, without opening a shard; for a single file its tensors, in
 * file order. The names live until cal_st_model_close. */
size_t cal_st_model_count(const cal_st_model *m);
const char *cal_st_model_name_at(const cal_st_model *m, size_t i);
void cal_st_model_close(cal_st_model *m);

/* ---- writing ------------------------------------------------------------ */
typedef struct cal_st_writer cal_st_writer;
cal_st_writer *cal_st_writer_new(void);
/* data is not copied (may be NULL, see above); shape has ndim entries. */
void cal_st_add(cal_st_writer *w, const char *name, const char *dtype, int ndim,
                const uint64_t *shape, const void *data);
void cal_st_add_meta(cal_st_writer *w, const char *key, const char *val);
/* The header bytes (length prefix included) as they will be written. */
void cal_st_header(cal_st_writer *w, cal_buf *out);
void cal_st_write_header(cal_st_writer *w, cal_file *f);
/* Header and every tensor's data (all must have data) to PATH atomically. */
void cal_st_write(cal_st_writer *w, const char *path);
void cal_st_writer_free(cal_st_writer *w);

#endif
