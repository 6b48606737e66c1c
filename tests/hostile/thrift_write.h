/* thrift_write.h - a Thrift compact writer for the hostile suite's
 * hand-encoded Parquet files (the tests' own, from the Thrift compact
 * protocol spec and parquet-format's PageHeader and ColumnChunk, so that
 * footers and page headers can lie). */
#ifndef CAL_THRIFT_WRITE_H
#define CAL_THRIFT_WRITE_H

#include <stdint.h>
#include <string.h>

#include "base/buf.h"

enum { T_I32 = 5, T_I64 = 6, T_BIN = 8, T_LIST = 9, T_STRUCT = 12 };

static inline void varint(cal_buf *b, uint64_t v) {
    while (v >= 0x80) cal_buf_addc(b, (char)(v | 0x80)), v >>= 7;
    cal_buf_addc(b, (char)v);
}
static inline uint64_t zz(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
/* Field header with a delta of 1..15 from the previous id. */
static inline void fh(cal_buf *b, int delta, int type) { cal_buf_addc(b, (char)(delta << 4 | type)); }
static inline void f_int(cal_buf *b, int delta, int type, int64_t v) { fh(b, delta, type), varint(b, zz(v)); }
static inline void f_bin(cal_buf *b, int delta, const char *s) {
    fh(b, delta, T_BIN), varint(b, strlen(s)), cal_buf_add(b, s, strlen(s));
}
static inline void list_head(cal_buf *b, int n, int type) { cal_buf_addc(b, (char)(n << 4 | type)); }
static inline void stop(cal_buf *b) { cal_buf_addc(b, 0); }

/* PAR1, then the header of a PLAIN uncompressed data page v1 of num_values
 * values (levels RLE) and its body; returns the column chunk's size. */
static inline size_t pq_head_and_page(cal_buf *b, const cal_buf *body, int64_t num_values) {
    cal_buf page = {0};
    f_int(&page, 1, T_I32, 0);                 /* type DATA_PAGE */
    f_int(&page, 1, T_I32, (int64_t)body->n);  /* uncompressed_page_size */
    f_int(&page, 1, T_I32, (int64_t)body->n);  /* compressed_page_size */
    fh(&page, 2, T_STRUCT);                    /* 5: data_page_header */
    f_int(&page, 1, T_I32, num_values);        /* num_values */
    f_int(&page, 1, T_I32, 0);                 /* encoding PLAIN */
    f_int(&page, 1, T_I32, 3);                 /* definition_level_encoding RLE */
    f_int(&page, 1, T_I32, 3);                 /* repetition_level_encoding RLE */
    stop(&page), stop(&page);
    b->n = 0;
    cal_buf_add(b, "PAR1", 4);
    cal_buf_add(b, page.p, page.n);
    cal_buf_add(b, body->p, body->n);
    size_t chunk = page.n + body->n;
    cal_buf_free(&page);
    return chunk;
}

/* A row group's column list with one BYTE_ARRAY ColumnChunk at byte 4:
 * path (npath names), num_values, the chunk's size. */
static inline void pq_column_chunk(cal_buf *b, const char *const *path, int npath, int64_t num_values, size_t chunk) {
    fh(b, 1, T_LIST), list_head(b, 1, T_STRUCT); /* RowGroup 1: columns */
    f_int(b, 2, T_I64, 4);                       /* ColumnChunk 2: file_offset */
    fh(b, 1, T_STRUCT);                          /* 3: meta_data */
    f_int(b, 1, T_I32, 6);                       /* type BYTE_ARRAY */
    fh(b, 1, T_LIST), list_head(b, 1, T_I32), varint(b, zz(0)); /* encodings [PLAIN] */
    fh(b, 1, T_LIST), list_head(b, npath, T_BIN); /* path_in_schema */
    for (int i = 0; i < npath; i++) varint(b, strlen(path[i])), cal_buf_add(b, path[i], strlen(path[i]));
    f_int(b, 1, T_I32, 0);                       /* codec UNCOMPRESSED */
    f_int(b, 1, T_I64, num_values);              /* num_values */
    f_int(b, 1, T_I64, (int64_t)chunk);          /* total_uncompressed_size */
    f_int(b, 1, T_I64, (int64_t)chunk);          /* total_compressed_size */
    f_int(b, 2, T_I64, 4);                       /* 9: data_page_offset */
    stop(b), stop(b);                            /* ColumnMetaData, ColumnChunk */
}

#endif
