/* parquet.c - the values of one BYTE_ARRAY column of a Parquet file.
 * Footer and page headers are Thrift compact (thrift.c); the integer
 * encodings are in parquet_enc.c. Errors longjmp back to the API function
 * that was called, which returns -1/NULL with the message. */
#include "io/parquet.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <snappy-c.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "base/err.h"
#include "base/mapguard.h"
#include "base/num.h"
#include "base/oshint.h"
#include "io/mapfile.h"
#include "io/parquet_internal.h"
#include "io/thrift.h"

#define PQ_MAX_ALLOC ((uint64_t)1 << 30)  /* no chunk or page above 1 GiB */

enum { CODEC_NONE = 0, CODEC_SNAPPY = 1, CODEC_GZIP = 2, CODEC_LZO = 3, CODEC_BROTLI = 4,
       CODEC_LZ4 = 5, CODEC_ZSTD = 6, CODEC_LZ4_RAW = 7 };
enum { ENC_PLAIN = 0, ENC_PLAIN_DICT = 2, ENC_RLE = 3, ENC_BIT_PACKED = 4, ENC_DELTA_BP = 5,
       ENC_DELTA_LBA = 6, ENC_DELTA_BA = 7, ENC_RLE_DICT = 8 };
enum { PAGE_DATA = 0, PAGE_INDEX = 1, PAGE_DICT = 2, PAGE_DATA_V2 = 3 };

typedef struct {
    int64_t start, size, num_values, total_uncompressed;
    int64_t rows;      /* the row group's num_rows (-1 until read) */
    int codec, type;
} pq_chunk;

struct cal_pq {
    jmp_buf jb;
    char *err;
    size_t errlen;
    int fd;
    const uint8_t *mem;
    uint64_t size;
    /* footer */
    uint8_t *footer;
    pq_chunk *chunks;  /* one per row group */
    size_t nchunks;
    int max_def, max_rep;
    uint64_t rows, nulls;
    /* current row group */
    size_t rg;
    uint8_t *chunk;    /* column chunk bytes (the buffer is kept for the next) */
    const uint8_t *cbytes; /* the current chunk: chunk, or its place in mem */
    cal_mapfile mf;    /* cal_pq_open: the file mapped (mem), when it could be */
    size_t chunk_cap;
    int in_chunk;
    int64_t chunk_len, chunk_pos, chunk_values;
    int codec;
    uint8_t *dict_buf; /* decompressed dictionary page */
    pq_val *dict;
    size_t ndict;
    int have_dict;
    /* current page */
    uint8_t *page;     /* decompressed page bytes */
    size_t page_cap;
    pq_val *vals;
    size_t nvals, vals_cap, vi;
    uint32_t *levels;  /* dictionary indices */
    size_t levels_cap;
    uint32_t *reps, *defs; /* the page's levels */
    size_t reps_cap, defs_cap, nlv, li;
    int chunk_first;   /* the next level is the first of its column chunk */
    int64_t chunk_rows; /* rows (levels with repetition 0) of the chunk so far */
    cal_pq_node *nodes; /* the schema, in preorder */
    size_t nnodes;
    int64_t *ints, *ints2;
    size_t ints_cap, ints2_cap;
    struct pq_schema *sch;   /* while the footer is parsed */
    uint8_t *arena;    /* DELTA_BYTE_ARRAY values */
    size_t arena_cap;
    uint64_t page_off;
    ZSTD_DCtx *zd;     /* one context for every page: ZSTD_decompress would
                        * allocate (and fault in) a new one per page */
    /* a zstd PLAIN page read a window at a time (see win_need) */
    int one_at_a_time; /* cal_pq_next: a value is done with at the next call */
    int streaming;     /* the current page's values come from win */
    uint8_t *win;
    size_t win_cap, wbeg, wend; /* unread bytes: win[wbeg..wend) */
    ZSTD_inBuffer zin;
    uint64_t wout, wwant, woff; /* bytes decompressed so far, the page's size, its body's offset */
    size_t zret;       /* the last ZSTD_decompressStream hint (0: a frame ended) */
};

/* The size of the mapped file when it is now shorter than mapped, else
 * UINT64_MAX. The rest of its last page then reads as zeros (pages past it
 * fault, and mapguard says so): what fails there is not the data. */
static uint64_t shrunk_to(const cal_pq *q) {
    struct stat sb; /* the mapped file itself (fstat), not what its name now holds */
    if (!q->mf.map || q->mem != q->mf.p || fstat(q->fd, &sb) != 0 || (uint64_t)sb.st_size >= q->size) return UINT64_MAX;
    return (uint64_t)sb.st_size;
}

static CAL_NORETURN void fail_at(cal_pq *q, uint64_t off, const char *fmt, ...) CAL_PRINTF(3, 4);
static void fail_at(cal_pq *q, uint64_t off, const char *fmt, ...) {
    int k = snprintf(q->err, q->errlen, "byte %llu: ", (unsigned long long)off);
    if (k < 0) k = 0;
    if ((size_t)k < q->errlen && shrunk_to(q) != UINT64_MAX) /* as mapguard says it */
        snprintf(q->err + k, q->errlen - (size_t)k, "%s", CAL_MAP_SHRANK_WHY);
    else if ((size_t)k < q->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(q->err + k, q->errlen - (size_t)k, fmt, ap);
        va_end(ap);
    }
    longjmp(q->jb, 1);
}

static void hook(void *ctx, uint64_t off, const char *what) { fail_at(ctx, off, "%s", what); }

static void *grow(cal_pq *q, void *p, size_t *cap, size_t want, size_t elem, uint64_t off) {
    if (want <= *cap) return p;
    if (want > PQ_MAX_ALLOC / elem) fail_at(q, off, "size %zu too large", want);
    size_t nc = want + want / 2 + 16;
    if (nc > PQ_MAX_ALLOC / elem) nc = want;
    void *np = realloc(p, nc * elem);
    if (!np) fail_at(q, off, "out of memory (%zu bytes)", nc * elem);
    cal_hugepages(np, nc * elem); /* pages of tens of MB: see oshint.h */
    *cap = nc;
    return np;
}

static void read_at(cal_pq *q, uint64_t off, uint64_t len, uint8_t *dst) {
    if (off > q->size || len > q->size - off) fail_at(q, off, "range of %llu bytes beyond the end of the file", (unsigned long long)len);
    if (q->mem) { memcpy(dst, q->mem + off, (size_t)len); return; }
    uint64_t done = 0;
    while (done < len) {
        ssize_t n = pread(q->fd, dst + done, (size_t)(len - done), (off_t)(off + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) fail_at(q, off + done, "read error: %s", n < 0 ? strerror(errno) : "unexpected end of file");
        done += (uint64_t)n;
    }
}

static tc_reader tcr(cal_pq *q, const uint8_t *p, size_t n, uint64_t base) {
    tc_reader r = {p, p, p + n, base, hook, q, 0};
    return r;
}

/* ---- footer ------------------------------------------------------------------ */
typedef struct pq_schema {
    const uint8_t *name;
    size_t name_len;
    int type, rep, children, converted, logical;
} pq_schema;

/* LogicalType is a union: the id of its one field (3 LIST, 2 MAP, ...). */
static int logical_kind(tc_reader *r) {
    int16_t id = 0, kind = 0;
    int t;
    while ((t = tc_field(r, &id)) != TC_STOP) {
        kind = id;
        tc_skip(r, t);
    }
    return kind;
}

static void parse_chunk_meta(cal_pq *q, tc_reader *r, pq_chunk *c) {
    int16_t id = 0;
    int t;
    while ((t = tc_field(r, &id)) != TC_STOP) {
        if (id == 1 && t == TC_I32) c->type = tc_i32(r);
        else if (id == 4 && t == TC_I32) c->codec = tc_i32(r);
        else if (id == 5 && t == TC_I64) c->num_values = tc_zigzag(r);
        else if (id == 6 && t == TC_I64) c->total_uncompressed = tc_zigzag(r);
        else if (id == 7 && t == TC_I64) c->size = tc_zigzag(r);
        else if (id == 9 && t == TC_I64) { int64_t v = tc_zigzag(r); if (!c->start || v < c->start) c->start = v; }
        else if (id == 11 && t == TC_I64) { int64_t v = tc_zigzag(r); if (v > 0 && (!c->start || v < c->start)) c->start = v; }
        else tc_skip(r, t);
    }
    (void)q;
}

static void parse_footer(cal_pq *q, const uint8_t *p, size_t n, uint64_t base, const char *column) {
    tc_reader r = tcr(q, p, n, base);
    pq_schema *sch = NULL;
    size_t nsch = 0;
    int16_t id = 0;
    int t;
    long leaf = -1;
    size_t ncols = 0;
    int have_rows = 0;
    int list_hit = 0;
    /* schema first (field 2), row groups (field 4) later: the leaf index is known by then */
    while ((t = tc_field(&r, &id)) != TC_STOP) {
        if (id == 2 && t == TC_LIST) {
            size_t k;
            if (tc_list(&r, &k) != TC_STRUCT) fail_at(q, tc_offset(&r), "bad schema list");
            sch = q->sch = calloc(k ? k : 1, sizeof *sch);
            if (!sch) fail_at(q, tc_offset(&r), "out of memory");
            nsch = k;
            for (size_t i = 0; i < k; i++) {
                int16_t fid = 0;
                int ft;
                sch[i].type = sch[i].converted = -1;
                while ((ft = tc_field(&r, &fid)) != TC_STOP) {
                    if (fid == 1 && ft == TC_I32) sch[i].type = tc_i32(&r);
                    else if (fid == 6 && ft == TC_I32) sch[i].converted = tc_i32(&r);
                    else if (fid == 10 && ft == TC_STRUCT) sch[i].logical = logical_kind(&r);
                    else if (fid == 3 && ft == TC_I32) sch[i].rep = tc_i32(&r);
                    else if (fid == 4 && ft == TC_BINARY) sch[i].name = tc_binary(&r, &sch[i].name_len);
                    else if (fid == 5 && ft == TC_I32) {
                        sch[i].children = tc_i32(&r);
                        if (sch[i].children < 0) fail_at(q, tc_offset(&r), "negative num_children in schema");
                    } else tc_skip(&r, ft);
                }
                if (sch[i].rep < 0 || sch[i].rep > 2) fail_at(q, tc_offset(&r), "bad repetition type in schema");
            }
            if (q->nodes) fail_at(q, tc_offset(&r), "second schema");
            q->nodes = calloc(k ? k : 1, sizeof *q->nodes);
            if (!q->nodes) fail_at(q, tc_offset(&r), "out of memory");
            q->nnodes = k;
            for (size_t i = 0; i < k; i++) {
                cal_pq_node *d = &q->nodes[i];
                d->name = sch[i].name ? (const char *)sch[i].name : "", d->name_len = sch[i].name_len;
                d->type = sch[i].children > 0 ? -1 : sch[i].type, d->rep = sch[i].rep, d->children = sch[i].children;
                d->list = sch[i].converted == 3 || sch[i].logical == 3;
                d->map = sch[i].converted == 1 || sch[i].converted == 2 || sch[i].logical == 2;
            }
            /* Walk the flattened tree: find the leaf whose dotted path is column. */
            struct { int left, def, rep; size_t plen; } stack[64];
            int depth = 0;
            char path[4096];
            size_t plen = 0;
            for (size_t i = 0; i < nsch; i++) {
                int children = sch[i].children;
                int rep = sch[i].rep;
                size_t nl = sch[i].name_len;
                if (i == 0) {  /* the root */
                    if (children <= 0) fail_at(q, base, "schema root without children");
                    stack[0].left = children, stack[0].def = 0, stack[0].rep = 0, stack[0].plen = 0;
                    depth = 1;
                    continue;
                }
                while (depth > 0 && stack[depth - 1].left == 0) depth--;
                if (depth == 0) fail_at(q, base, "schema has more elements than its tree");
                stack[depth - 1].left--;
                plen = stack[depth - 1].plen;
                if (plen + nl + 2 >= sizeof path) fail_at(q, base, "schema path too long");
                if (plen) path[plen++] = '.';
                if (nl) memcpy(path + plen, sch[i].name, nl);
                plen += nl;
                path[plen] = 0;
                int def = stack[depth - 1].def + (rep != 0);
                int rp = stack[depth - 1].rep + (rep == 2);
                if (children > 0) {
                    if (depth >= 64) fail_at(q, base, "schema nested too deeply");
                    stack[depth].left = children, stack[depth].def = def, stack[depth].rep = rp;
                    stack[depth].plen = plen;
                    depth++;
                } else if (column) {
                    size_t cl = strlen(column);
                    if (rp > 0 && strncmp(path, column, cl) == 0 && path[cl] == '.') list_hit = 1;
                    if (strcmp(path, column) == 0) {
                        leaf = (long)ncols;
                        q->max_def = def, q->max_rep = rp;
                        if (sch[i].type != 6) fail_at(q, base, "column '%s' is not a string (BYTE_ARRAY) column", column);
                    }
                    ncols++;
                } else {
                    ncols++;
                }
            }
            free(sch);
            sch = q->sch = NULL;
            if (!column) continue;
            if (leaf < 0 && list_hit) fail_at(q, base, "column '%s' is a list or struct column, not a string column", column);
            if (leaf < 0) fail_at(q, base, "no column '%s' in the file", column);
        } else if (id == 3 && t == TC_I64) {
            int64_t v = tc_zigzag(&r);
            if (v < 0) fail_at(q, tc_offset(&r), "negative num_rows %lld in the footer", (long long)v);
            q->rows = (uint64_t)v;
            have_rows = 1;
        } else if (id == 4 && t == TC_LIST && !column) { /* the schema only */
            tc_skip(&r, t);
        } else if (id == 4 && t == TC_LIST) {
            if (leaf < 0) fail_at(q, tc_offset(&r), "row groups before the schema");
            size_t k;
            if (q->chunks) fail_at(q, tc_offset(&r), "second row group list");
            if (tc_list(&r, &k) != TC_STRUCT) fail_at(q, tc_offset(&r), "bad row group list");
            q->chunks = calloc(k ? k : 1, sizeof *q->chunks);
            if (!q->chunks) fail_at(q, tc_offset(&r), "out of memory");
            q->nchunks = k;
            for (size_t g = 0; g < k; g++) {
                int16_t gid = 0;
                int gt;
                int found = 0;
                q->chunks[g].rows = -1;
                while ((gt = tc_field(&r, &gid)) != TC_STOP) {
                    if (gid == 1 && gt == TC_LIST) {
                        size_t nc;
                        if (tc_list(&r, &nc) != TC_STRUCT) fail_at(q, tc_offset(&r), "bad column chunk list");
                        if (nc != ncols) fail_at(q, tc_offset(&r), "row group %zu has %zu columns, schema %zu", g, nc, ncols);
                        for (size_t c = 0; c < nc; c++) {
                            int16_t cid = 0;
                            int ct;
                            while ((ct = tc_field(&r, &cid)) != TC_STOP) {
                                if (cid == 3 && ct == TC_STRUCT && (long)c == leaf) {
                                    parse_chunk_meta(q, &r, &q->chunks[g]);
                                    found = 1;
                                } else if (cid == 1 && ct == TC_BINARY && (long)c == leaf) {
                                    fail_at(q, tc_offset(&r), "column chunk in another file: unsupported");
                                } else tc_skip(&r, ct);
                            }
                        }
                    } else if (gid == 3 && gt == TC_I64) {
                        q->chunks[g].rows = tc_zigzag(&r);
                        if (q->chunks[g].rows < 0) fail_at(q, tc_offset(&r), "row group %zu: negative num_rows", g);
                    } else tc_skip(&r, gt);
                }
                if (!found) fail_at(q, tc_offset(&r), "row group %zu has no metadata for the column", g);
                if (q->chunks[g].rows < 0) fail_at(q, tc_offset(&r), "row group %zu has no num_rows", g);
            }
        } else tc_skip(&r, t);
    }
    if (!q->nodes || (column && leaf < 0)) fail_at(q, base, "footer without a schema");
    if (!have_rows) fail_at(q, base, "footer without num_rows");
    if (!column) return;
    /* A damaged footer must not read as a shorter file: the rows the
     * footer announces are the rows its row groups hold. */
    uint64_t sum = 0;
    for (size_t g = 0; g < q->nchunks; g++) {
        if ((uint64_t)q->chunks[g].rows > UINT64_MAX - sum) fail_at(q, base, "row group sizes overflow");
        sum += (uint64_t)q->chunks[g].rows;
    }
    if (sum != q->rows)
        fail_at(q, base, "footer says %llu rows, its %zu row groups hold %llu", (unsigned long long)q->rows,
                q->nchunks, (unsigned long long)sum);
}

static void open_common(cal_pq *q, const char *column) {
    if (q->size < 12) fail_at(q, 0, "not a Parquet file (too short)");
    uint8_t head[4], tail[8];
    read_at(q, 0, 4, head);
    read_at(q, q->size - 8, 8, tail);
    if (memcmp(head, "PAR1", 4) != 0) fail_at(q, 0, "not a Parquet file (bad magic)");
    if (memcmp(tail + 4, "PAR1", 4) != 0) fail_at(q, q->size - 4, "bad Parquet footer magic (truncated file?)");
    uint64_t flen = cal_ld32(tail);
    if (flen > q->size - 12) fail_at(q, q->size - 8, "footer length %llu larger than the file", (unsigned long long)flen);
    uint64_t foff = q->size - 8 - flen;
    q->footer = malloc(flen ? flen : 1);
    if (!q->footer) fail_at(q, foff, "out of memory");
    read_at(q, foff, flen, q->footer);
    parse_footer(q, q->footer, (size_t)flen, foff, column);
    for (size_t g = 0; g < q->nchunks; g++) {
        pq_chunk *c = &q->chunks[g];
        if (c->type != 6) fail_at(q, foff, "row group %zu: column is not BYTE_ARRAY", g);
        if (c->start < 4 || c->size < 0 || (uint64_t)c->start > q->size || (uint64_t)c->size > q->size - (uint64_t)c->start)
            fail_at(q, foff, "row group %zu: column chunk outside the file", g);
        if (c->num_values < 0) fail_at(q, foff, "row group %zu: negative value count", g);
        /* a flat column (max_rep 0) has one value, or null, per row (a
         * repeated one is checked as its levels are read) */
        if (q->max_rep == 0 && c->num_values != c->rows)
            fail_at(q, foff, "row group %zu: the column has %lld values for %lld rows", g, (long long)c->num_values,
                    (long long)c->rows);
    }
}

static int guarded_open(cal_pq *q, const char *column) {
    if (setjmp(q->jb)) return -1;
    open_common(q, column);
    return 0;
}

static cal_pq *make(char *err, size_t errlen) {
    cal_pq *q = calloc(1, sizeof *q);
    if (!q) { snprintf(err, errlen, "out of memory"); return NULL; }
    q->err = err, q->errlen = errlen, q->fd = -1;
    return q;
}

cal_pq *cal_pq_open(const char *path, const char *column, char *err, size_t errlen) {
    cal_pq *q = make(err, errlen);
    if (!q) return NULL;
    q->fd = open(path, O_RDONLY);
    struct stat sb;
    if (q->fd < 0 || fstat(q->fd, &sb) != 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        cal_pq_close(q);
        return NULL;
    }
    if (!S_ISREG(sb.st_mode)) {
        snprintf(err, errlen, "Parquet input must be a regular file");
        cal_pq_close(q);
        return NULL;
    }
    q->size = (uint64_t)sb.st_size;
    /* mapped, the column chunks are read in place (pread copied each into
     * fresh memory: 13% of cal-read's CPU on bench/read.sh in the kernel);
     * a file that cannot be mapped is read with pread */
    char merr[64];
    if (q->size && cal_mapfile_open(&q->mf, path, merr, sizeof merr)) {
        if (q->mf.len == q->size) q->mem = q->mf.p;
        else cal_mapfile_close(&q->mf); /* it changed since fstat: read with pread, and not kept mapped */
    }
    if (guarded_open(q, column) < 0) { cal_pq_close(q); return NULL; }
    return q;
}

cal_pq *cal_pq_open_mem(const void *p, size_t n, const char *column, char *err, size_t errlen) {
    cal_pq *q = make(err, errlen);
    if (!q) return NULL;
    q->mem = p ? p : (const uint8_t *)"", q->size = n;
    if (guarded_open(q, column) < 0) { cal_pq_close(q); return NULL; }
    return q;
}

/* ---- pages ------------------------------------------------------------------- */
static void decompress(cal_pq *q, const uint8_t *src, size_t n, uint8_t *dst, size_t want, uint64_t off) {
    switch (q->codec) {
    case CODEC_NONE:
        if (n != want) fail_at(q, off, "uncompressed page size mismatch");
        memcpy(dst, src, n);
        return;
    case CODEC_SNAPPY: {
        size_t got;
        if (snappy_uncompressed_length((const char *)src, n, &got) != SNAPPY_OK || got != want)
            fail_at(q, off, "corrupt snappy block (bad length)");
        if (snappy_uncompress((const char *)src, n, (char *)dst, &got) != SNAPPY_OK || got != want)
            fail_at(q, off, "corrupt snappy block");
        return;
    }
    case CODEC_GZIP: {
        z_stream z;
        memset(&z, 0, sizeof z);
        if (inflateInit2(&z, 32 + MAX_WBITS) != Z_OK) fail_at(q, off, "zlib init failed");
        z.next_in = (uint8_t *)(uintptr_t)src, z.avail_in = (uInt)n;
        z.next_out = dst, z.avail_out = (uInt)want;
        int rc = inflate(&z, Z_FINISH);
        size_t got = want - z.avail_out;
        inflateEnd(&z);
        if (rc != Z_STREAM_END || got != want) fail_at(q, off, "corrupt gzip block");
        return;
    }
    case CODEC_ZSTD: {
        if (!q->zd && !(q->zd = ZSTD_createDCtx())) fail_at(q, off, "out of memory (zstd)");
        size_t got = ZSTD_decompressDCtx(q->zd, dst, want, src, n);
        if (ZSTD_isError(got)) fail_at(q, off, "corrupt zstd block (%s)", ZSTD_getErrorName(got));
        if (got != want) fail_at(q, off, "zstd block size mismatch");
        return;
    }
    default: {
        static const char *const names[] = {"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "BROTLI", "LZ4", "ZSTD", "LZ4_RAW"};
        fail_at(q, off, "unsupported codec %s", q->codec >= 0 && q->codec < 8 ? names[q->codec] : "(unknown)");
    }
    }
}

/* ---- a zstd page a window at a time --------------------------------------------
 * DuckDB writes a whole column chunk as one page (84 MB for 84 MB of text):
 * decompressed whole, it is written once to fresh memory (page faults and
 * zeroing were 30% of cal-read's CPU on bench/read.sh) and read back from
 * RAM. cal_pq_next, whose value lives only until the next call, takes the
 * PLAIN values of a zstd page from a window of WIN bytes instead, the way
 * `zstd -dc` decompresses: in cache, in a buffer used again. */
#define WIN (256u << 10)

static void win_start(cal_pq *q, const uint8_t *src, size_t n, size_t want, uint64_t off) {
    if (!q->zd && !(q->zd = ZSTD_createDCtx())) fail_at(q, off, "out of memory (zstd)");
    ZSTD_DCtx_reset(q->zd, ZSTD_reset_session_only);
    q->zin.src = src, q->zin.size = n, q->zin.pos = 0;
    q->wbeg = q->wend = 0, q->wout = 0, q->wwant = want, q->woff = off, q->zret = 1;
    q->win = grow(q, q->win, &q->win_cap, WIN, 1, off);
}

/* Decompresses more of the page into win[wend..); 0 when the page has no
 * more (every frame ended, the input used up). */
static int win_more(cal_pq *q) {
    if (q->zret == 0 && q->zin.pos == q->zin.size) return 0;
    ZSTD_outBuffer ob = {q->win, q->win_cap, q->wend};
    size_t in0 = q->zin.pos, r = ZSTD_decompressStream(q->zd, &ob, &q->zin);
    if (ZSTD_isError(r)) fail_at(q, q->woff, "corrupt zstd block (%s)", ZSTD_getErrorName(r));
    q->zret = r;
    q->wout += ob.pos - q->wend;
    if (q->wout > q->wwant) fail_at(q, q->woff, "zstd block size mismatch");
    if (ob.pos == q->wend && q->zin.pos == in0 && r != 0) /* no progress: the input ends inside a frame */
        fail_at(q, q->woff, "corrupt zstd block (%s)", "truncated");
    q->wend = ob.pos;
    return 1;
}

/* The next k bytes of the page (what: the failure when it has fewer). */
static const uint8_t *win_need(cal_pq *q, size_t k, uint64_t off, const char *what) {
    if (q->wend - q->wbeg >= k) return q->win + q->wbeg;
    if (k > q->wwant - (q->wout - (q->wend - q->wbeg))) fail_at(q, off, "%s", what);
    memmove(q->win, q->win + q->wbeg, q->wend - q->wbeg);
    q->wend -= q->wbeg, q->wbeg = 0;
    q->win = grow(q, q->win, &q->win_cap, k, 1, off); /* a value longer than the window */
    while (q->wend < k)
        if (!win_more(q)) fail_at(q, off, "%s", what);
    return q->win;
}

/* The page's values are read: the rest of it must decompress to its size. */
static void win_finish(cal_pq *q) {
    q->streaming = 0;
    do q->wbeg = q->wend = 0; while (win_more(q));
    if (q->wout != q->wwant) fail_at(q, q->woff, "zstd block size mismatch");
}

/* The next PLAIN value of a streamed page. */
static void win_value(cal_pq *q, cal_pq_level *lv) {
    const uint8_t *b = win_need(q, 4, q->page_off, "truncated PLAIN value");
    uint32_t len = cal_ld32(b);
    q->wbeg += 4;
    lv->p = win_need(q, len, q->page_off, "PLAIN value longer than its page"), lv->n = len;
    q->wbeg += len;
}

/* PLAIN BYTE_ARRAY values: 4-byte length + bytes each. */
static void plain_values(cal_pq *q, pq_span *s, pq_val *out, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (s->end - s->p < 4) fail_at(q, s->off, "truncated PLAIN value");
        uint32_t len = cal_ld32(s->p);
        s->p += 4;
        if (len > (size_t)(s->end - s->p)) fail_at(q, s->off, "PLAIN value longer than its page");
        out[i].p = s->p, out[i].n = len;
        s->p += len;
    }
}

static void delta_lengths(cal_pq *q, pq_span *s, size_t n) {
    q->ints = grow(q, q->ints, &q->ints_cap, n + 1, sizeof *q->ints, s->off);
    pq_delta_binary(s, q->ints, n);
}

/* n non-null values of a data page into q->vals. */
static void decode_values(cal_pq *q, int enc, pq_span *s, size_t n) {
    q->vals = grow(q, q->vals, &q->vals_cap, n + 1, sizeof *q->vals, s->off);
    q->nvals = n, q->vi = 0;
    if (enc == ENC_PLAIN) {
        plain_values(q, s, q->vals, n);
    } else if (enc == ENC_PLAIN_DICT || enc == ENC_RLE_DICT) {
        if (!q->have_dict) fail_at(q, s->off, "dictionary-encoded page without a dictionary");
        if (n == 0) return;
        if (s->p >= s->end) fail_at(q, s->off, "truncated dictionary indices");
        int w = *s->p++;
        q->levels = grow(q, q->levels, &q->levels_cap, n + 1, sizeof *q->levels, s->off);
        pq_rle_hybrid(s, w, q->levels, n);
        for (size_t i = 0; i < n; i++) {
            if (q->levels[i] >= q->ndict) fail_at(q, s->off, "dictionary index %u out of range", q->levels[i]);
            q->vals[i] = q->dict[q->levels[i]];
        }
    } else if (enc == ENC_DELTA_LBA) {
        delta_lengths(q, s, n);
        for (size_t i = 0; i < n; i++) {
            int64_t len = q->ints[i];
            if (len < 0 || len > s->end - s->p) fail_at(q, s->off, "bad DELTA_LENGTH_BYTE_ARRAY length");
            q->vals[i].p = s->p, q->vals[i].n = (uint32_t)len;
            s->p += len;
        }
    } else if (enc == ENC_DELTA_BA) {
        /* prefix lengths, then suffixes as DELTA_LENGTH_BYTE_ARRAY */
        q->ints2 = grow(q, q->ints2, &q->ints2_cap, n + 1, sizeof *q->ints2, s->off);
        pq_delta_binary(s, q->ints2, n);
        delta_lengths(q, s, n);
        pq_val *v = q->vals;
        size_t total = 0, prev = 0;
        const uint8_t *sp = s->p;
        for (size_t i = 0; i < n; i++) {
            int64_t sl = q->ints[i], pl = q->ints2[i];
            if (sl < 0 || pl < 0 || sl > s->end - sp || (i == 0 && pl) || (i && (uint64_t)pl > prev))
                fail_at(q, s->off, "bad DELTA_BYTE_ARRAY lengths");
            sp += sl;
            prev = (size_t)(pl + sl);
            total += prev;
            if (total > PQ_MAX_ALLOC) fail_at(q, s->off, "DELTA_BYTE_ARRAY page too large");
        }
        q->arena = grow(q, q->arena, &q->arena_cap, total + 1, 1, s->off);
        size_t pos = 0;
        for (size_t i = 0; i < n; i++) {
            size_t sl = (size_t)q->ints[i], pl = (size_t)q->ints2[i];
            if (pl) memcpy(q->arena + pos, v[i - 1].p, pl);
            if (sl) memcpy(q->arena + pos + pl, s->p, sl);
            s->p += sl;
            v[i].p = q->arena + pos, v[i].n = (uint32_t)(pl + sl);
            pos += pl + sl;
        }
    } else {
        fail_at(q, s->off, "unsupported encoding %d for a string column", enc);
    }
}

/* The `n` levels of a page, each at most max (all 0 when max is 0): from
 * v2's separate bytes [v2, v2 + v2len) or, for v1 (v2 NULL), from s after a
 * 4-byte length, advancing s. */
static void levels(cal_pq *q, pq_span *s, const uint8_t *v2, size_t v2len, int max, uint32_t **outp, size_t *cap,
                   size_t n, const char *what) {
    uint32_t *out = *outp = grow(q, *outp, cap, n + 1, sizeof *out, s->off);
    if (max == 0) {
        memset(out, 0, n * sizeof *out);
        return;
    }
    pq_span ls = *s;
    if (v2) {
        ls.p = v2, ls.end = v2 + v2len;
    } else {
        if (s->end - s->p < 4) fail_at(q, s->off, "truncated %s levels", what);
        uint32_t dl = cal_ld32(s->p);
        if (dl > (size_t)(s->end - s->p) - 4) fail_at(q, s->off, "%s levels longer than the page", what);
        ls.p = s->p + 4, ls.end = s->p + 4 + dl;
        s->p += 4 + dl;
    }
    int w = 0;
    while ((1 << w) <= max) w++;
    pq_rle_hybrid(&ls, w, out, n);
    for (size_t i = 0; i < n; i++)
        if (out[i] > (uint32_t)max) fail_at(q, s->off, "%s level %u above the maximum %d", what, out[i], max);
}

/* Reads the next page of the current chunk; returns 0 when the chunk is done. */
static int next_page(cal_pq *q) {
    while (q->chunk_pos < q->chunk_len && q->chunk_values > 0) {
        uint64_t hoff = (uint64_t)q->chunks[q->rg].start + (uint64_t)q->chunk_pos;
        tc_reader r = tcr(q, q->cbytes + q->chunk_pos, (size_t)(q->chunk_len - q->chunk_pos), hoff);
        int32_t type = -1, usize = -1, csize = -1;
        int32_t nv = -1, enc = -1, nnulls = -1, deflen = -1, replen = -1, is_comp = 1;
        int16_t id = 0;
        int t;
        while ((t = tc_field(&r, &id)) != TC_STOP) {
            if (id == 1 && t == TC_I32) type = tc_i32(&r);
            else if (id == 2 && t == TC_I32) usize = tc_i32(&r);
            else if (id == 3 && t == TC_I32) csize = tc_i32(&r);
            else if ((id == 5 || id == 7 || id == 8) && t == TC_STRUCT) {
                int16_t sid = 0;
                int st;
                r.depth++;
                while ((st = tc_field(&r, &sid)) != TC_STOP) {
                    if (sid == 1 && st == TC_I32) nv = tc_i32(&r);
                    else if (id != 8 && sid == 2 && st == TC_I32) enc = tc_i32(&r);
                    else if (id == 8 && sid == 2 && st == TC_I32) nnulls = tc_i32(&r);
                    else if (id == 8 && sid == 4 && st == TC_I32) enc = tc_i32(&r);
                    else if (id == 8 && sid == 5 && st == TC_I32) deflen = tc_i32(&r);
                    else if (id == 8 && sid == 6 && st == TC_I32) replen = tc_i32(&r);
                    else if (id == 8 && sid == 7 && (st == TC_TRUE || st == TC_FALSE)) is_comp = st == TC_TRUE;
                    else tc_skip(&r, st);
                }
                r.depth--;
            } else tc_skip(&r, t);
        }
        q->chunk_pos += (int64_t)(r.p - r.start);
        if (usize < 0 || csize < 0 || csize > q->chunk_len - q->chunk_pos)
            fail_at(q, hoff, "bad page header (sizes %d/%d)", usize, csize);
        /* a page never holds more than its column chunk says it does */
        int64_t tu = q->chunks[q->rg].total_uncompressed;
        if ((tu > 0 && usize > tu) || (uint64_t)usize >= PQ_MAX_ALLOC)
            fail_at(q, hoff, "page of %d bytes larger than its column chunk", usize);
        const uint8_t *body = q->cbytes + q->chunk_pos;
        uint64_t boff = hoff + (uint64_t)(r.p - r.start);
        q->chunk_pos += csize;
        q->page_off = hoff;
        if (type == PAGE_INDEX) continue;
        if (type != PAGE_DATA && type != PAGE_DICT && type != PAGE_DATA_V2)
            fail_at(q, hoff, "unknown page type %d", type);
        if (nv < 0) fail_at(q, hoff, "page header without a value count");
        if (type == PAGE_DICT) {
            if (q->have_dict) fail_at(q, hoff, "second dictionary page");
            if (enc != ENC_PLAIN && enc != ENC_PLAIN_DICT) fail_at(q, hoff, "unsupported dictionary encoding %d", enc);
            q->dict_buf = malloc((size_t)usize + 1);
            if (!q->dict_buf) fail_at(q, hoff, "out of memory");
            decompress(q, body, (size_t)csize, q->dict_buf, (size_t)usize, boff);
            if ((size_t)nv > (size_t)usize / 4) fail_at(q, hoff, "dictionary of %d values in %d bytes", nv, usize);
            q->dict = malloc(((size_t)nv + 1) * sizeof *q->dict);
            if (!q->dict) fail_at(q, hoff, "out of memory");
            pq_span s = {q->dict_buf, q->dict_buf + usize, hoff, hook, q};
            plain_values(q, &s, q->dict, (size_t)nv);
            q->ndict = (size_t)nv, q->have_dict = 1;
            continue;
        }
        if (nv > q->chunk_values) fail_at(q, hoff, "page holds more values than its column chunk");
        q->chunk_values -= nv;
        /* levels and values */
        const uint8_t *lv = NULL;
        size_t vlen;
        int stream = q->one_at_a_time && q->max_rep == 0 && q->codec == CODEC_ZSTD && enc == ENC_PLAIN &&
                     (type == PAGE_DATA || is_comp);
        if (stream) {
            size_t pre = type == PAGE_DATA_V2 ? (size_t)deflen + (size_t)replen : 0;
            if (type == PAGE_DATA_V2 && (deflen < 0 || replen < 0 || (int64_t)pre > csize || (int64_t)pre > usize))
                fail_at(q, hoff, "bad level lengths in data page v2");
            win_start(q, body + pre, (size_t)csize - pre, (size_t)usize - pre, boff + pre);
            pq_span s = {NULL, NULL, hoff, hook, q};
            if (type == PAGE_DATA_V2) lv = body;
            else if (q->max_def > 0) { /* v1: the definition levels (4-byte length + bytes) lead the page */
                const uint8_t *b = win_need(q, 4, hoff, "truncated definition levels");
                uint32_t dl = cal_ld32(b);
                if ((uint64_t)dl > q->wwant) fail_at(q, hoff, "definition levels longer than the page");
                s.p = win_need(q, 4 + (size_t)dl, hoff, "definition levels longer than the page");
                s.end = s.p + 4 + dl;
            }
            levels(q, &s, lv, (size_t)(replen > 0 ? replen : 0), q->max_rep, &q->reps, &q->reps_cap, (size_t)nv,
                   "repetition");
            levels(q, &s, type == PAGE_DATA_V2 ? lv + (replen > 0 ? replen : 0) : NULL,
                   (size_t)(deflen > 0 ? deflen : 0), q->max_def, &q->defs, &q->defs_cap, (size_t)nv, "definition");
            if (s.p) q->wbeg = (size_t)(s.p - q->win);
            size_t present = 0;
            for (int32_t i = 0; i < nv; i++) present += q->defs[i] == (uint32_t)q->max_def;
            q->nulls += (uint64_t)nv - present;
            if (type == PAGE_DATA_V2 && nnulls >= 0 && (size_t)nnulls != (size_t)nv - present)
                fail_at(q, hoff, "null count does not match the definition levels");
            q->chunk_first = 0;
            q->nlv = (size_t)nv, q->li = 0;
            q->nvals = present, q->vi = 0, q->streaming = 1;
            return 1;
        }
        q->page = grow(q, q->page, &q->page_cap, (size_t)usize + 1, 1, hoff);
        if (type == PAGE_DATA_V2) {
            if (deflen < 0 || replen < 0 || (int64_t)deflen + replen > csize || (int64_t)deflen + replen > usize)
                fail_at(q, hoff, "bad level lengths in data page v2");
            lv = body;
            size_t pre = (size_t)deflen + (size_t)replen;
            vlen = (size_t)usize - pre;
            if (is_comp && q->codec != CODEC_NONE)
                decompress(q, body + pre, (size_t)csize - pre, q->page, vlen, boff + pre);
            else {
                if ((size_t)csize - pre != vlen) fail_at(q, hoff, "page size mismatch");
                memcpy(q->page, body + pre, vlen);
            }
        } else {
            decompress(q, body, (size_t)csize, q->page, (size_t)usize, boff);
            vlen = (size_t)usize;
        }
        pq_span s = {q->page, q->page + vlen, hoff, hook, q};
        /* v1: repetition then definition levels, each after a 4-byte length;
         * v2: both uncompressed before the values, lengths in the header */
        levels(q, &s, type == PAGE_DATA_V2 ? lv : NULL, (size_t)(replen > 0 ? replen : 0), q->max_rep, &q->reps,
               &q->reps_cap, (size_t)nv, "repetition");
        levels(q, &s, type == PAGE_DATA_V2 ? lv + (replen > 0 ? replen : 0) : NULL, (size_t)(deflen > 0 ? deflen : 0),
               q->max_def, &q->defs, &q->defs_cap, (size_t)nv, "definition");
        size_t present = 0;
        for (int32_t i = 0; i < nv; i++) present += q->defs[i] == (uint32_t)q->max_def;
        q->nulls += (uint64_t)nv - present;
        if (type == PAGE_DATA_V2 && nnulls >= 0 && q->max_rep == 0 && (size_t)nnulls != (size_t)nv - present)
            fail_at(q, hoff, "null count does not match the definition levels");
        if (q->chunk_first && nv > 0 && q->reps[0] != 0)
            fail_at(q, hoff, "column chunk starts inside a row (repetition level %u)", q->reps[0]);
        q->chunk_first = 0;
        q->nlv = (size_t)nv, q->li = 0;
        decode_values(q, enc, &s, present);
        return 1;
    }
    if (q->chunk_values > 0) fail_at(q, q->page_off, "column chunk ends before all its values");
    return 0;
}

static void free_chunk(cal_pq *q) {
    q->in_chunk = 0;
    free(q->dict_buf), q->dict_buf = NULL;
    free(q->dict), q->dict = NULL;
    q->have_dict = 0, q->ndict = 0, q->nvals = q->vi = 0, q->nlv = q->li = 0;
}

/* The next level entry, across pages and row groups: 1, or 0 at the end. */
static int next_level(cal_pq *q, cal_pq_level *lv) {
    for (;;) {
        if (q->li < q->nlv) {
            lv->rep = (int)q->reps[q->li], lv->def = (int)q->defs[q->li++];
            q->chunk_rows += lv->rep == 0;
            lv->off = q->page_off;
            if (lv->def == q->max_def) {
                if (q->vi >= q->nvals) fail_at(q, q->page_off, "page has fewer values than its levels");
                if (q->streaming) win_value(q, lv);
                else lv->p = q->vals[q->vi].p, lv->n = q->vals[q->vi].n;
                q->vi++;
            } else {
                lv->p = NULL, lv->n = 0;
            }
            return 1;
        }
        if (q->streaming) win_finish(q);
        if (q->in_chunk && next_page(q)) continue;
        if (q->in_chunk) {
            if (q->chunk_rows != q->chunks[q->rg].rows)
                fail_at(q, (uint64_t)q->chunks[q->rg].start, "row group %zu: the column has %lld rows, the footer %lld",
                        q->rg, (long long)q->chunk_rows, (long long)q->chunks[q->rg].rows);
            free_chunk(q);
            q->rg++;
        }
        if (q->rg >= q->nchunks) {
            uint64_t now = shrunk_to(q); /* zeros read as values: said, not handed on in silence */
            if (now != UINT64_MAX) fail_at(q, now, "the file shrank");
            return 0;
        }
        pq_chunk *c = &q->chunks[q->rg];
        q->chunk_rows = 0;
        if ((uint64_t)c->size > PQ_MAX_ALLOC) fail_at(q, (uint64_t)c->start, "column chunk too large");
        q->in_chunk = 1;
        if (q->mem) { /* in place (open_common checked it lies in the file): no copy, no fresh memory */
            q->cbytes = q->mem + c->start;
        } else {
            q->chunk = grow(q, q->chunk, &q->chunk_cap, (size_t)c->size + 1, 1, (uint64_t)c->start);
            read_at(q, (uint64_t)c->start, (uint64_t)c->size, q->chunk);
            q->cbytes = q->chunk;
        }
        q->chunk_len = c->size, q->chunk_pos = 0, q->chunk_values = c->num_values;
        q->codec = c->codec, q->chunk_first = 1;
        q->page_off = (uint64_t)c->start;
    }
}

int cal_pq_level_next(cal_pq *q, cal_pq_level *lv, char *err, size_t errlen) {
    q->err = err, q->errlen = errlen;
    if (setjmp(q->jb)) return -1;
    return next_level(q, lv);
}

int cal_pq_next(cal_pq *q, const uint8_t **p, size_t *n, uint64_t *off, char *err, size_t errlen) {
    q->err = err, q->errlen = errlen;
    if (setjmp(q->jb)) return -1;
    if (q->max_rep > 0) fail_at(q, q->page_off, "column is repeated (a list): read it as records");
    q->one_at_a_time = 1;
    cal_pq_level lv;
    while (next_level(q, &lv))
        if (lv.p) {
            *p = lv.p, *n = lv.n, *off = lv.off;
            return 1;
        }
    return 0;
}

uint64_t cal_pq_rows(const cal_pq *q) { return q->rows; }
uint64_t cal_pq_nulls(const cal_pq *q) { return q->nulls; }
int cal_pq_max_def(const cal_pq *q) { return q->max_def; }
int cal_pq_max_rep(const cal_pq *q) { return q->max_rep; }
size_t cal_pq_row_groups(const cal_pq *q) { return q->nchunks; }

const cal_pq_node *cal_pq_schema(const cal_pq *q, size_t *n) {
    *n = q->nnodes;
    return q->nodes;
}

void cal_pq_close(cal_pq *q) {
    if (!q) return;
    if (q->fd >= 0) close(q->fd);
    free_chunk(q);
    ZSTD_freeDCtx(q->zd);
    free(q->chunk), free(q->footer), free(q->chunks), free(q->page), free(q->vals), free(q->levels);
    free(q->ints), free(q->ints2), free(q->arena), free(q->sch);
    free(q->reps), free(q->defs), free(q->nodes), free(q->win);
    cal_mapfile_close(&q->mf);
    free(q);
}
