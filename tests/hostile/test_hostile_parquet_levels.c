/* test_hostile_parquet_levels.c - rows of a list column (io/parquet_rec.h)
 * against repetition and definition levels that lie: a level above its
 * maximum, a row group that starts inside a row, more rows in the levels
 * than in the footer, values the levels announce but the page lacks;
 * truncation at every byte and every one-bit change of the page. The file is
 * encoded by hand from the parquet-format definitions (a three-level LIST
 * of optional strings, one PLAIN data page v1 with RLE levels): any outcome
 * but the rows or a one-line "byte OFF: ..." error is a failure, and
 * sanitizers (SANITIZE=1) catch any read outside the page. */
#include <jansson.h>
#include <stdio.h>

#include "base/num.h"
#include "hostile.h"
#include "thrift_write.h"
#include "io/parquet_rec.h"

/* A schema element: name, repetition (0 required, 1 optional, 2 repeated),
 * children (0: a BYTE_ARRAY leaf), converted type (-1: none; 3 LIST). */
static void element(cal_buf *b, const char *name, int rep, int children, int converted) {
    int last = 0;
    if (!children) f_int(b, 1, T_I32, 6), last = 1;  /* 1: type BYTE_ARRAY */
    f_int(b, 3 - last, T_I32, rep);                    /* 3: repetition_type */
    f_bin(b, 1, name);                                 /* 4: name */
    last = 4;
    if (children) f_int(b, 1, T_I32, children), last = 5; /* 5: num_children */
    if (converted >= 0) f_int(b, 6 - last, T_I32, converted);
    stop(b);
}

/* Rows ["a","b"], [], null, [null,"c"]: entries (rep, def) and values. */
#define NE 6
static const int REPS[NE] = {0, 1, 0, 0, 0, 1}, DEFS[NE] = {3, 3, 1, 0, 2, 3};
static const char *const VALS[] = {"a", "b", "c"};
static const char *const WANT = "[{\"tags\":[\"a\",\"b\"]},{\"tags\":[]},{\"tags\":null},{\"tags\":[null,\"c\"]}]";

typedef struct {
    int reps[NE], defs[NE];
    int nvals;              /* values written in the page */
    int64_t rows;           /* num_rows of the file and the row group */
} page_spec;

/* Levels as RLE runs of one value each: header (1 << 1), the value byte. */
static void levels(cal_buf *b, const int *lv) {
    h_le(b, 2 * NE, 4);
    for (int i = 0; i < NE; i++) cal_buf_addc(b, 2), cal_buf_addc(b, (char)lv[i]);
}

static void file(cal_buf *b, const page_spec *s) {
    cal_buf body = {0};
    levels(&body, s->reps);
    levels(&body, s->defs);
    for (int i = 0; i < s->nvals; i++) h_le(&body, strlen(VALS[i]), 4), cal_buf_add(&body, VALS[i], strlen(VALS[i]));
    size_t chunk = pq_head_and_page(b, &body, NE); /* num_values: level entries */
    size_t foot = b->n;
    f_int(b, 1, T_I32, 1);                       /* 1: version */
    fh(b, 1, T_LIST), list_head(b, 4, T_STRUCT); /* 2: schema */
    element(b, "schema", 0, 1, -1);
    element(b, "tags", 1, 1, 3);
    element(b, "list", 2, 1, -1);
    element(b, "element", 1, 0, -1);
    f_int(b, 1, T_I64, s->rows);                 /* 3: num_rows */
    fh(b, 1, T_LIST), list_head(b, 1, T_STRUCT); /* 4: row_groups */
    static const char *const path[] = {"tags", "list", "element"};
    pq_column_chunk(b, path, 3, NE, chunk);
    f_int(b, 1, T_I64, (int64_t)chunk);          /* RowGroup 2: total_byte_size */
    f_int(b, 1, T_I64, s->rows);                 /* 3: num_rows */
    stop(b);
    stop(b);
    h_le(b, b->n - foot, 4);
    cal_buf_add(b, "PAR1", 4);
    cal_buf_free(&body);
}

/* The rows as one JSON array, or "!" and the error; 1 in *one_line when
 * an error is one line "byte OFF: ...". */
static char out[1024];
static const char *rows(const cal_buf *b, int *one_line) {
    char err[512] = "";
    const char *cols[] = {"tags"};
    cal_pqrec *r = cal_pqrec_open_mem(b->p, b->n, cols, 1, err, sizeof err);
    json_t *all = json_array(), *row;
    uint64_t off;
    int rc = -1;
    if (r) {
        while ((rc = cal_pqrec_next(r, &row, &off, err, sizeof err)) == 1) json_array_append(all, row);
        cal_pqrec_close(r);
    }
    if (rc == 0) {
        char *s = json_dumps(all, JSON_COMPACT);
        snprintf(out, sizeof out, "%s", s);
        free(s);
    } else {
        snprintf(out, sizeof out, "!%s", err);
    }
    json_decref(all);
    *one_line = rc == 0 || (!strncmp(err, "byte ", 5) && !strchr(err, '\n'));
    return out;
}

int main(void) {
    cal_buf b = {0};
    page_spec truth = {{0}, {0}, 3, 4}, s;
    memcpy(truth.reps, REPS, sizeof REPS), memcpy(truth.defs, DEFS, sizeof DEFS);
    int one;
    file(&b, &truth);
    CHECK(!strcmp(rows(&b, &one), WANT), "the hand-encoded list<string> reads as its rows: %s", out);

    s = truth, s.reps[1] = 2;
    file(&b, &s);
    CHECK(strstr(rows(&b, &one), "repetition level 2 above the maximum 1") && one, "a repetition level too high: %s", out);
    s = truth, s.defs[2] = 4;
    file(&b, &s);
    CHECK(strstr(rows(&b, &one), "definition level 4 above the maximum 3") && one, "a definition level too high: %s", out);
    s = truth, s.reps[0] = 1;
    file(&b, &s);
    CHECK(strstr(rows(&b, &one), "column chunk starts inside a row") && one, "a chunk that starts inside a row: %s", out);
    s = truth, s.rows = 3;
    file(&b, &s);
    CHECK(strstr(rows(&b, &one), "row group 0: the column has 4 rows, the footer 3") && one,
          "more rows in the levels than in the footer: %s", out);
    s = truth, s.rows = 5;
    file(&b, &s);
    CHECK(strstr(rows(&b, &one), "the column has 4 rows, the footer 5") && one, "fewer rows: %s", out);
    s = truth, s.nvals = 2;
    file(&b, &s);
    CHECK(rows(&b, &one)[0] == '!' && one, "3 values announced by the levels, 2 in the page: %s", out);

    file(&b, &truth);
    size_t bad = 0, lines = 0;
    for (size_t n = 0; n < b.n; n++) {
        cal_buf c = {b.p, n, n};
        bad += rows(&c, &one)[0] != '!';
        lines += !one;
    }
    CHECK(bad == 0 && lines == 0, "each of %zu proper prefixes fails with one line (%zu read, %zu other messages)", b.n,
          bad, lines);
    size_t failed = 0, same = 0;
    lines = 0;
    for (size_t i = 4; i < b.n - 8; i++)
        for (int bit = 0; bit < 8; bit++) {
            b.p[i] ^= (char)(1 << bit);
            const char *o = rows(&b, &one);
            b.p[i] ^= (char)(1 << bit);
            failed += o[0] == '!', same += !strcmp(o, WANT), lines += !one;
        }
    CHECK(lines == 0, "every one-bit change of the file reads or fails with one line (%zu fail, %zu read the same)",
          failed, same);
    cal_buf_free(&b);
    TEST_END();
}
