/* test_text_docfile.c - lib/text/docfile.c: the format told from the name
 * and the first bytes (also through gzip), --sep, the documents and offsets
 * of JSON Lines with nulls counted, and the one-line errors: malformed
 * records with file and byte, a JSON line over the limit, Parquet from a
 * pipe or compressed. (Parquet contents: tests/sh/test_read_parquet.sh.) */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "base/buf.h"
#include "base/err.h"
#include "child.h"
#include "test.h"
#include "text/docfile.h"
#include "text/format.h"

static void put(const char *name, const char *text, size_t n) {
    FILE *f = fopen(name, "wb");
    if (f) fwrite(text, 1, n, f), fclose(f);
}
#define PUT(name, text) put(name, text, strlen(text))

static void put_gz(const char *name, const char *text) {
    gzFile g = gzopen(name, "wb");
    if (g) gzwrite(g, text, (unsigned)strlen(text)), gzclose(g);
}

static int stop_at, calls;
static int collect(void *ctx, const cal_doc *d) {
    cal_buf *b = ctx;
    cal_buf_add(b, d->text, d->n);
    cal_buf_addf(b, "@%llu%s|", (unsigned long long)d->off, d->mapped ? "m" : "");
    return ++calls == stop_at;
}

static cal_docfile R;
/* "TEXT@OFF[m]|..." for the documents of path. */
static const char *docs(const char *path, int fmt, const char *field) {
    static cal_buf b;
    b.n = 0;
    calls = 0;
    int r = cal_docfile_read(&R, path, fmt, field, collect, &b);
    cal_buf_addf(&b, "%s", r ? "STOPPED" : "");
    return b.p ? b.p : "";
}

typedef struct {
    const char *path;
    int fmt;
    size_t max;
} bad_case;
static void bad_run(void *arg) {
    bad_case *c = arg;
    cal_docfile r = {.max = c->max};
    cal_buf b = {0};
    cal_docfile_read(&r, c->path, c->fmt, "text", collect, &b);
}
static const char *fails(const char *path, int fmt, size_t max, int *st) {
    static char msg[512];
    bad_case c = {path, fmt, max};
    *st = t_child(bad_run, &c, msg, sizeof msg);
    return msg;
}

int main(void) {
    cal_set_progname("t");
    char dir[] = "/tmp/test_text_docfile.XXXXXX";
    if (!mkdtemp(dir) || chdir(dir) != 0) return 1;
    R.max = 1000;
    const char *jl = "{\"text\": \"one\"}\n{\"text\": null}\n\n{\"text\": \"two\"}\n";
    PUT("a.jsonl", jl);
    put_gz("a.json.gz", jl);
    PUT("noext", jl);
    PUT("t.txt", "x | y|\n");
    PUT("w", " = A = \n a \n = B = \n b \n");
    CHECK(!strcmp(docs("a.jsonl", CAL_FMT_AUTO, "text"), "one@0|two@32|") && R.nulls == 1 && R.files == 1,
          "JSON Lines: documents at their lines, a null counted");
    CHECK(!strcmp(docs("a.json.gz", CAL_FMT_AUTO, "text"), "one@0|two@32|"), "gzip JSON Lines by name");
    CHECK(!strcmp(docs("noext", CAL_FMT_AUTO, "text"), "one@0|two@32|"), "JSON Lines by content");
    CHECK(!strcmp(docs("noext", CAL_FMT_LINES, "text"), "{\"text\": \"one\"}@0m|{\"text\": null}@16m|{\"text\": \"two\"}@32m|"),
          "-f lines reads the same file as lines");
    CHECK(!strcmp(docs("t.txt", CAL_FMT_AUTO, "text"), "x | y|\n@0m|"), "text by content");
    CHECK(!strcmp(docs("w", CAL_FMT_AUTO, "text"), "= A = \n a@1m|= B = \n b@13m|"), "wikitext by content");
    R.sep = "|";
    CHECK(!strcmp(docs("t.txt", CAL_FMT_AUTO, "text"), "x@0m|y@4m|"), "--sep splits text");
    CHECK(!strcmp(docs("t.txt", CAL_FMT_TEXT, "text"), "x@0m|y@4m|"), "--sep with -f text");
    CHECK(!strcmp(docs("a.jsonl", CAL_FMT_AUTO, "text"), "one@0|two@32|"), "--sep leaves JSON Lines alone");
    R.sep = NULL;
    stop_at = 1;
    CHECK(!strcmp(docs("a.jsonl", CAL_FMT_AUTO, "text"), "one@0|STOPPED"), "stops when the callback says so");
    stop_at = 0;
    CHECK(R.files == 10 && R.nulls == 4, "files and nulls counted (%llu, %llu)", (unsigned long long)R.files,
          (unsigned long long)R.nulls);

    int st;
    PUT("bad.jsonl", "{\"text\": \"ok\"}\n{\"text\": \"broken\n");
    const char *m = fails("bad.jsonl", CAL_FMT_AUTO, 1000, &st);
    CHECK(st == 1 && !strcmp(m, "t: bad.jsonl: byte 31: invalid JSON: premature end of input near '\"broken'"),
          "invalid JSON: file and byte: %s", m);
    PUT("chat.jsonl", "{\"text\": \"ok\"}\n{\"messages\":\"hi\"}\n");
    m = fails("chat.jsonl", CAL_FMT_AUTO, 1000, &st);
    CHECK(st == 1 && !strcmp(m, "t: chat.jsonl: byte 15: no field 'text', and 'messages' is not a chat list"),
          "{\"messages\":\"hi\"} is an error naming its line: %s", m);
    PUT("long.jsonl", "{\"text\": \"ok\"}\n{\"text\": \"0123456789\"}\n");
    m = fails("long.jsonl", CAL_FMT_JSONL, 20, &st);
    CHECK(st == 1 && !strcmp(m, "t: long.jsonl: byte 15: line of more than 20 bytes (the record limit)"),
          "a JSON line over the limit: %s", m);
    m = fails("-", CAL_FMT_PARQUET, 1000, &st);
    CHECK(st == 1 && !strcmp(m, "t: stdin: Parquet input must be a file, not a pipe"), "Parquet from a pipe: %s", m);
    put_gz("p.bin", "PAR1 and more");
    m = fails("p.bin", CAL_FMT_AUTO, 1000, &st);
    CHECK(st == 1 && !strcmp(m, "t: p.bin: compressed Parquet files are not supported"), "compressed Parquet: %s", m);
    PUT("x.parquet", "PAR1 not really");
    m = fails("x.parquet", CAL_FMT_AUTO, 1000, &st);
    CHECK(st == 1 && !strncmp(m, "t: x.parquet: byte ", 19) && !strchr(m, '\n'), "a damaged Parquet file: %s", m);
    cal_docfile_free(&R);
    const char *rm[] = {"a.jsonl", "a.json.gz", "noext", "t.txt", "w", "bad.jsonl", "chat.jsonl", "long.jsonl", "p.bin",
                        "x.parquet"};
    for (size_t i = 0; i < sizeof rm / sizeof *rm; i++) unlink(rm[i]);
    if (chdir("/") == 0) rmdir(dir);
    TEST_END();
}
