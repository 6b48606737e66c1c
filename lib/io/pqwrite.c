/* pqwrite.c - see pqwrite.h. The footer and page headers are Thrift
 * compact protocol, written by the few helpers below (the format's
 * parquet.thrift names each field id used). */
#include "io/pqwrite.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/outfile.h"

#define PAGE_BYTES (1u << 20)
#define GROUP_BYTES (128u << 20)

enum { T_I32 = 5, T_I64 = 6, T_BINARY = 8, T_LIST = 9, T_STRUCT = 12 }; /* compact type ids */

/* ---- Thrift compact protocol -------------------------------------------- */

static void varint(cal_buf *b, uint64_t v) {
    do {
        uint8_t c = v & 0x7f;
        v >>= 7;
        cal_buf_addc(b, (char)(c | (v ? 0x80 : 0)));
    } while (v);
}

/* A field header: the id as a delta from the last one in its struct. */
static void field(cal_buf *b, int *last, int id, int type) {
    if (id > *last && id - *last <= 15) cal_buf_addc(b, (char)((id - *last) << 4 | type));
    else cal_buf_addc(b, (char)type), varint(b, (uint64_t)((id << 1) ^ (id >> 15)));
    *last = id;
}
static void f_i32(cal_buf *b, int *last, int id, int32_t v) {
    field(b, last, id, T_I32);
    varint(b, (uint32_t)((v << 1) ^ (v >> 31)));
}
static void f_i64(cal_buf *b, int *last, int id, int64_t v) {
    field(b, last, id, T_I64);
    varint(b, (uint64_t)(((uint64_t)v << 1) ^ (uint64_t)(v >> 63)));
}
static void bin(cal_buf *b, const char *s, size_t n) {
    varint(b, n);
    cal_buf_add(b, s, n);
}
static void f_str(cal_buf *b, int *last, int id, const char *s) {
    field(b, last, id, T_BINARY);
    bin(b, s, strlen(s));
}
static void list_head(cal_buf *b, size_t n, int type) {
    if (n < 15) cal_buf_addc(b, (char)(n << 4 | type));
    else cal_buf_addc(b, (char)(0xF0 | type)), varint(b, n);
}
static void stop(cal_buf *b) { cal_buf_addc(b, 0); }

/* ---- the file ------------------------------------------------------------ */

typedef struct {
    uint64_t offset, rows, bytes; /* first page, rows, bytes with page headers */
} group;

struct cal_pqw {
    cal_file *f;
    char *column;
    uint64_t at;          /* bytes written so far */
    cal_buf page;         /* values of the page being filled (PLAIN) */
    uint64_t page_rows;
    group *g;             /* finished row groups, and the one being filled */
    size_t ng;
    uint64_t rows;
    char **kv;            /* key_value_metadata: key, value, ... */
    size_t nkv;
};

static void put(cal_pqw *w, const void *p, size_t n) {
    cal_file_write(w->f, p, n);
    w->at += n;
}

cal_pqw *cal_pqw_open(const char *path, const char *column) {
    cal_pqw *w = cal_xcalloc(1, sizeof *w);
    w->f = cal_file_create(path);
    w->column = cal_xstrdup(column);
    put(w, "PAR1", 4);
    return w;
}

size_t cal_pqw_rows(const cal_pqw *w) { return (size_t)w->rows; }

void cal_pqw_meta(cal_pqw *w, const char *key, const char *value) {
    w->kv = cal_xrealloc(w->kv, (w->nkv + 2) * sizeof *w->kv);
    w->kv[w->nkv++] = cal_xstrdup(key);
    w->kv[w->nkv++] = cal_xstrdup(value);
}

/* The page being filled, after its header: a data page v1 of PLAIN values
 * (a REQUIRED column at the top level has no levels). */
static void flush_page(cal_pqw *w) {
    if (!w->page_rows) return;
    if (!w->ng || !w->g[w->ng - 1].rows || w->g[w->ng - 1].bytes >= GROUP_BYTES) {
        w->g = cal_xrealloc(w->g, (w->ng + 1) * sizeof *w->g);
        w->g[w->ng++] = (group){w->at, 0, 0};
    }
    cal_buf h = {0};
    int last = 0, l2 = 0;
    f_i32(&h, &last, 1, 0);                      /* type: DATA_PAGE */
    f_i32(&h, &last, 2, (int32_t)w->page.n);     /* uncompressed_page_size */
    f_i32(&h, &last, 3, (int32_t)w->page.n);     /* compressed_page_size */
    field(&h, &last, 5, T_STRUCT);               /* data_page_header */
    f_i32(&h, &l2, 1, (int32_t)w->page_rows);    /* num_values */
    f_i32(&h, &l2, 2, 0);                        /* encoding: PLAIN */
    f_i32(&h, &l2, 3, 3);                        /* definition_level_encoding: RLE */
    f_i32(&h, &l2, 4, 3);                        /* repetition_level_encoding: RLE */
    stop(&h);
    stop(&h);
    group *g = &w->g[w->ng - 1];
    put(w, h.p, h.n);
    put(w, w->page.p, w->page.n);
    g->rows += w->page_rows, g->bytes += h.n + w->page.n;
    w->page.n = 0, w->page_rows = 0;
    cal_buf_free(&h);
}

void cal_pqw_add(cal_pqw *w, const char *s, size_t n) {
    if (n > INT32_MAX - 8) cal_die("Parquet: a string of %zu bytes is too long for one page", n);
    if (w->page.n && w->page.n + 4 + n > PAGE_BYTES) flush_page(w);
    uint8_t len[4] = {(uint8_t)n, (uint8_t)(n >> 8), (uint8_t)(n >> 16), (uint8_t)(n >> 24)};
    cal_buf_add(&w->page, len, 4);
    cal_buf_add(&w->page, s, n);
    w->page_rows++, w->rows++;
    if (w->page.n >= PAGE_BYTES) flush_page(w);
}

/* FileMetaData: the schema (a root and the one column), the row groups,
 * the key/value pairs, the writer. */
static void footer(cal_pqw *w, cal_buf *b) {
    int last = 0;
    f_i32(b, &last, 1, 1); /* version */
    field(b, &last, 2, T_LIST); /* schema */
    list_head(b, 2, T_STRUCT);
    int s1 = 0;
    f_str(b, &s1, 4, "schema");
    f_i32(b, &s1, 5, 1); /* num_children */
    stop(b);
    int s2 = 0;
    f_i32(b, &s2, 1, 6); /* type: BYTE_ARRAY */
    f_i32(b, &s2, 3, 0); /* repetition_type: REQUIRED */
    f_str(b, &s2, 4, w->column);
    f_i32(b, &s2, 6, 0); /* converted_type: UTF8 */
    field(b, &s2, 10, T_STRUCT); /* logicalType: STRING (an empty StringType) */
    int lt = 0;
    field(b, &lt, 1, T_STRUCT);
    stop(b);
    stop(b);
    stop(b);
    f_i64(b, &last, 3, (int64_t)w->rows); /* num_rows */
    field(b, &last, 4, T_LIST); /* row_groups */
    list_head(b, w->ng, T_STRUCT);
    for (size_t i = 0; i < w->ng; i++) {
        const group *g = &w->g[i];
        int r = 0;
        field(b, &r, 1, T_LIST); /* columns */
        list_head(b, 1, T_STRUCT);
        int c = 0;
        f_i64(b, &c, 2, (int64_t)g->offset); /* file_offset */
        field(b, &c, 3, T_STRUCT); /* meta_data */
        int m = 0;
        f_i32(b, &m, 1, 6); /* type: BYTE_ARRAY */
        field(b, &m, 2, T_LIST); /* encodings: PLAIN, RLE */
        list_head(b, 2, T_I32);
        varint(b, 0), varint(b, 6); /* zigzag(0), zigzag(3) */
        field(b, &m, 3, T_LIST); /* path_in_schema */
        list_head(b, 1, T_BINARY);
        bin(b, w->column, strlen(w->column));
        f_i32(b, &m, 4, 0); /* codec: UNCOMPRESSED */
        f_i64(b, &m, 5, (int64_t)g->rows); /* num_values */
        f_i64(b, &m, 6, (int64_t)g->bytes); /* total_uncompressed_size */
        f_i64(b, &m, 7, (int64_t)g->bytes); /* total_compressed_size */
        f_i64(b, &m, 9, (int64_t)g->offset); /* data_page_offset */
        stop(b);
        stop(b); /* ColumnChunk */
        f_i64(b, &r, 2, (int64_t)g->bytes); /* total_byte_size */
        f_i64(b, &r, 3, (int64_t)g->rows); /* num_rows */
        stop(b);
    }
    if (w->nkv) {
        field(b, &last, 5, T_LIST); /* key_value_metadata */
        list_head(b, w->nkv / 2, T_STRUCT);
        for (size_t i = 0; i < w->nkv; i += 2) {
            int k = 0;
            f_str(b, &k, 1, w->kv[i]);
            f_str(b, &k, 2, w->kv[i + 1]);
            stop(b);
        }
    }
    f_str(b, &last, 6, "calkit " CAL_VERSION); /* created_by */
    stop(b);
}

void cal_pqw_close(cal_pqw *w) {
    flush_page(w);
    cal_buf b = {0};
    footer(w, &b);
    uint8_t len[4] = {(uint8_t)b.n, (uint8_t)(b.n >> 8), (uint8_t)(b.n >> 16), (uint8_t)(b.n >> 24)};
    put(w, b.p, b.n);
    put(w, len, 4);
    put(w, "PAR1", 4);
    cal_file_commit(w->f);
    cal_buf_free(&b);
    cal_buf_free(&w->page);
    for (size_t i = 0; i < w->nkv; i++) free(w->kv[i]);
    free(w->kv), free(w->g), free(w->column), free(w);
}
