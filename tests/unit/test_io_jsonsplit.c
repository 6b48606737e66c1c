/* test_io_jsonsplit.c - lib/io/jsonsplit.c and lib/io/csv.c: the exact
 * bytes and offsets of each value and row, every list shape and CSV state,
 * with the source's chunk boundary (256 KiB) put at every byte of a value
 * and of a row; the lone-object flag; and each error as one line naming the
 * byte (in a child process). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "child.h"
#include "io/csv.h"
#include "io/insrc.h"
#include "io/jsonsplit.h"
#include "test.h"

#define CHUNK (256u << 10)

/* The values of in, each as "OFF:BYTES" then '|' (a lone one marked "L"). */
static const char *values(const char *in, size_t n) {
    static cal_buf out;
    out.n = 0;
    cal_insrc *s = cal_insrc_mem(in, n, "mem");
    cal_jsonsplit *j = cal_jsonsplit_new(s, 1u << 20);
    const char *p;
    size_t k;
    uint64_t off;
    int lone;
    while (cal_jsonsplit_next(j, &p, &k, &off, &lone)) {
        cal_buf_addf(&out, "%s%llu:", lone ? "L" : "", (unsigned long long)off);
        cal_buf_add(&out, p, k);
        cal_buf_addc(&out, '|');
    }
    cal_jsonsplit_free(j);
    cal_insrc_close(s);
    cal_buf_addc(&out, 0);
    return out.p;
}

/* The rows of in as "LINE@OFF:f1,f2|" (fields in brackets). */
static const char *rows(const char *in, size_t n, char delim) {
    static cal_buf out;
    out.n = 0;
    cal_insrc *s = cal_insrc_mem(in, n, "mem");
    cal_csv *c = cal_csv_new(s, delim, 1u << 20);
    size_t nf;
    const char *const *f;
    const size_t *len;
    uint64_t line, off;
    while (cal_csv_next(c, &nf, &f, &len, &line, &off)) {
        cal_buf_addf(&out, "%llu@%llu:", (unsigned long long)line, (unsigned long long)off);
        for (size_t i = 0; i < nf; i++) {
            cal_buf_addc(&out, '[');
            cal_buf_add(&out, f[i], len[i]);
            cal_buf_addc(&out, ']');
        }
        cal_buf_addc(&out, '|');
    }
    cal_csv_free(c);
    cal_insrc_close(s);
    cal_buf_addc(&out, 0);
    return out.p;
}

static const char *err_in;
static void run_values(void *a) {
    (void)a;
    values(err_in, strlen(err_in));
}
static void run_rows(void *a) {
    (void)a;
    rows(err_in, strlen(err_in), ',');
}

static void error_case(void (*fn)(void *), const char *in, const char *want) {
    char msg[512];
    err_in = in;
    int st = t_child(fn, NULL, msg, sizeof msg);
    CHECK(st == 1 && strstr(msg, want) && !strchr(msg, '\n'), "error for %s: %s (got %d: %s)", in, want, st, msg);
}

int main(void) {
    const char *in = "[1, \"a\\\"]\" ,{\"k\": [1, {\"x\": \"}\"}]}, null,[2,3] ,true]";
    CHECK(!strcmp(values(in, strlen(in)), "1:1|4:\"a\\\"]\"|12:{\"k\": [1, {\"x\": \"}\"}]}|36:null|41:[2,3]|48:true|"),
          "list elements: scalars, strings with escapes and brackets, nested values (%s)", values(in, strlen(in)));
    in = "\xEF\xBB\xBF {\"a\": {\"b\": 1}\n}\n";
    CHECK(!strcmp(values(in, strlen(in)), "L4:{\"a\": {\"b\": 1}\n}|"), "a lone object after a BOM (%s)", values(in, strlen(in)));
    in = "{\"a\": 1}\n{\n \"b\": 2}\n\"s\" 7";
    CHECK(!strcmp(values(in, strlen(in)), "0:{\"a\": 1}|9:{\n \"b\": 2}|20:\"s\"|24:7|"), "values over lines (%s)",
          values(in, strlen(in)));
    in = "[] [{\"a\":1}]\n[ ]";
    CHECK(!strcmp(values(in, strlen(in)), "4:{\"a\":1}|"), "empty lists and a list after a list (%s)", values(in, strlen(in)));
    CHECK(!strcmp(values("  \n", 3), ""), "nothing but space");

    /* the chunk boundary at every byte of a value */
    const char *v = "{\"t\": \"a\\\\\\\"b\\u00e9]}\", \"n\": [1, [2]]}";
    size_t vn = strlen(v), ok = 0;
    for (size_t k = 0; k <= vn; k++) {
        size_t pad = CHUNK - k;
        char *b = malloc(pad + vn + 8);
        b[0] = '[';
        memset(b + 1, ' ', pad - 1);
        memcpy(b + pad, v, vn);
        memcpy(b + pad + vn, ",\"z\"]", 5);
        cal_buf want = {0};
        cal_buf_addf(&want, "%zu:%s|%zu:\"z\"|", pad, v, pad + vn + 1);
        cal_buf_addc(&want, 0);
        ok += !strcmp(values(b, pad + vn + 5), want.p);
        cal_buf_free(&want);
        free(b);
    }
    CHECK(ok == vn + 1, "the read chunk ends at each of the %zu bytes of a value (%zu right)", vn + 1, ok);

    error_case(run_values, "[1,]", "byte 3: a trailing ',' before ']'");
    error_case(run_values, "[1 2]", "byte 3: '2' after record 0 of the list (expected ',' or ']')");
    error_case(run_values, "  [1,\n2", "byte 2: the JSON list that starts here is not closed");
    error_case(run_values, "[{\"a\": \"]}", "byte 1: the JSON value that starts here is not closed");
    error_case(run_values, "]", "byte 0: ']' where a JSON value should start");
    error_case(run_values, "{} :", "byte 3: ':' where a JSON value should start");

    /* CSV: every state */
    in = "a,b,c\r\n\"x,\"\"y\"\"\r\nz\",,\"\"\n\"q\"r,s\"t, \"u\"\r\rlast";
    CHECK(!strcmp(rows(in, strlen(in), ','),
                  "1@0:[a][b][c]|2@7:[x,\"y\"\r\nz][][]|4@24:[qr][s\"t][ \"u\"]|6@39:[last]|"),
          "quotes, doubled quotes, line ends in quotes, text after a quote, blank lines (%s)", rows(in, strlen(in), ','));
    in = "a\tb\n\"x\ty\"\t\n";
    CHECK(!strcmp(rows(in, strlen(in), '\t'), "1@0:[a][b]|2@4:[x\ty][]|"), "tabs (%s)", rows(in, strlen(in), '\t'));
    CHECK(!strcmp(rows("\n\r\n\r", 4, ','), ""), "blank lines are no rows");
    const char *r = "\"a\"\"b\r\nc\",d\r\n";
    size_t rn = strlen(r);
    ok = 0;
    for (size_t k = 0; k <= rn; k++) {
        size_t pad = CHUNK - k;
        char *b = malloc(pad + rn + 8);
        memset(b, '\n', pad);
        memcpy(b + pad, r, rn);
        memcpy(b + pad + rn, "e", 1);
        cal_buf want = {0};
        cal_buf_addf(&want, "%zu@%zu:[a\"b\r\nc][d]|%zu@%zu:[e]|", pad + 1, pad, pad + 3, pad + rn);
        cal_buf_addc(&want, 0);
        ok += !strcmp(rows(b, pad + rn + 1, ','), want.p);
        cal_buf_free(&want);
        free(b);
    }
    CHECK(ok == rn + 1, "the read chunk ends at each of the %zu bytes of a row (%zu right)", rn + 1, ok);
    error_case(run_rows, "a\nb,\"c\nd", "byte 4: line 2: a quoted field still open at the end of the input");
    TEST_END();
}
