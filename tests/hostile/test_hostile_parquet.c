/* test_hostile_parquet.c - the Parquet reader against footers that lie
 * (row counts, value counts, row groups), truncation at every byte and
 * every one-bit change of the footer, on a small file encoded by hand from
 * the parquet-format Thrift definitions (FileMetaData, RowGroup,
 * ColumnChunk, ColumnMetaData, PageHeader; compact protocol). A damaged
 * footer may fail; it must never read as a file with other values. */
#include <stdio.h>

#include "base/num.h"
#include "hostile.h"
#include "thrift_write.h"
#include "io/parquet.h"

/* What the footer says, so that each field can lie. */
typedef struct {
    int64_t file_rows, group_rows, col_values, page_values;
    int groups; /* row groups listed: 0 or 1 */
} lies;

static const char *const vals[] = {"alpha", "", "gamma ray"};
#define NV 3

/* PAR1, one PLAIN uncompressed data page of a REQUIRED BYTE_ARRAY column
 * "text", the footer, its length, PAR1. */
static void file(cal_buf *b, lies l) {
    cal_buf body = {0};
    for (int i = 0; i < NV; i++) h_le(&body, strlen(vals[i]), 4), cal_buf_add(&body, vals[i], strlen(vals[i]));
    size_t chunk = pq_head_and_page(b, &body, l.page_values);
    size_t foot = b->n;
    f_int(b, 1, T_I32, 1);                     /* 1: version */
    fh(b, 1, T_LIST), list_head(b, 2, T_STRUCT); /* 2: schema */
    f_bin(b, 4, "schema"), f_int(b, 1, T_I32, 1), stop(b);                 /* root: name, num_children */
    f_int(b, 1, T_I32, 6), f_int(b, 2, T_I32, 0), f_bin(b, 1, "text"), stop(b); /* BYTE_ARRAY REQUIRED text */
    f_int(b, 1, T_I64, l.file_rows);           /* 3: num_rows */
    if (l.groups) {
        fh(b, 1, T_LIST), list_head(b, 1, T_STRUCT); /* 4: row_groups */
        static const char *const path[] = {"text"};
        pq_column_chunk(b, path, 1, l.col_values, chunk);
        f_int(b, 1, T_I64, (int64_t)chunk);        /* RowGroup 2: total_byte_size */
        f_int(b, 1, T_I64, l.group_rows);          /* 3: num_rows */
        stop(b);
    }
    stop(b);
    h_le(b, b->n - foot, 4);
    cal_buf_add(b, "PAR1", 4);
    cal_buf_free(&body);
}

/* Reads every value: their count, 1 when they are exactly vals[], and the
 * error (if any). */
typedef struct {
    int ok, same;
    size_t n;
    char err[512];
} outcome;

static outcome read_pq(const cal_buf *b) {
    outcome o = {0, 0, 0, ""};
    cal_pq *q = cal_pq_open_mem(b->p, b->n, "text", o.err, sizeof o.err);
    if (!q) return o;
    const uint8_t *p;
    size_t n;
    uint64_t off;
    int rc, same = 1;
    while ((rc = cal_pq_next(q, &p, &n, &off, o.err, sizeof o.err)) == 1) {
        same &= o.n < NV && n == strlen(vals[o.n]) && !memcmp(p, vals[o.n], n);
        o.n++;
    }
    cal_pq_close(q);
    o.ok = rc == 0;
    o.same = o.ok && same && o.n == NV;
    return o;
}

int main(void) {
    cal_buf b = {0};
    lies truth = {NV, NV, NV, NV, 1};
    file(&b, truth);
    outcome o = read_pq(&b);
    CHECK(o.same, "the hand-encoded file reads as its 3 values (%zu; %s)", o.n, o.err);

    lies l = truth;
    l.file_rows = 0, l.groups = 0; /* a footer that lost its row groups and its count */
    file(&b, l);
    o = read_pq(&b);
    CHECK(o.ok && o.n == 0, "0 rows and no row groups is an empty file (%s)", o.err);
    l.file_rows = NV;
    file(&b, l);
    o = read_pq(&b);
    CHECK(!o.ok && strstr(o.err, "footer says 3 rows, its 0 row groups hold 0"),
          "3 rows announced, no row groups: an error, not 0 documents (%s)", o.err);
    l = truth, l.file_rows = 4;
    file(&b, l);
    o = read_pq(&b);
    CHECK(!o.ok && strstr(o.err, "footer says 4 rows, its 1 row groups hold 3"), "num_rows 4 for 3 rows: %s", o.err);
    l = truth, l.file_rows = 2, l.group_rows = 2;
    file(&b, l);
    o = read_pq(&b);
    CHECK(!o.ok && strstr(o.err, "row group 0: the column has 3 values for 2 rows"), "2 rows holding 3 values: %s", o.err);
    l = truth, l.file_rows = l.group_rows = l.col_values = 2;
    file(&b, l);
    o = read_pq(&b);
    CHECK(!o.ok && strstr(o.err, "page holds more values than its column chunk"), "a page with more values: %s", o.err);
    l = truth, l.page_values = 2;
    file(&b, l);
    o = read_pq(&b);
    CHECK(!o.ok && strstr(o.err, "ends before all its values"), "a page with fewer values: %s", o.err);
    l = truth, l.file_rows = -3;
    file(&b, l);
    o = read_pq(&b);
    CHECK(!o.ok && strstr(o.err, "negative num_rows"), "negative num_rows: %s", o.err);
    l = truth, l.file_rows = l.group_rows = l.col_values = INT64_MAX;
    file(&b, l);
    o = read_pq(&b);
    CHECK(!o.ok, "2^63-1 rows in a 150-byte file fail (%s)", o.err);

    file(&b, truth);
    size_t bad = 0;
    for (size_t n = 0; n < b.n; n++) {
        cal_buf c = {b.p, n, n};
        o = read_pq(&c);
        if (o.ok) bad++;
    }
    CHECK(bad == 0, "each of %zu proper prefixes fails (%zu do not)", b.n, bad);
    size_t foot = b.n - 8 - cal_ld32(b.p + b.n - 8), changed = 0, failed = 0;
    for (size_t i = foot; i < b.n; i++)
        for (int bit = 0; bit < 8; bit++) {
            b.p[i] ^= (char)(1 << bit);
            o = read_pq(&b);
            b.p[i] ^= (char)(1 << bit);
            if (o.ok && !o.same) changed++;
            failed += !o.ok;
        }
    CHECK(changed == 0, "no one-bit change of the %zu-byte footer and tail reads as other values (%zu fail, %zu read as "
                        "others)", b.n - foot, failed, changed);
    cal_buf_free(&b);
    TEST_END();
}
