/* test_text_split.c - lib/text/split.c: the documents of every plain-text
 * layout (exact texts; each document's bytes are the input's at its offset),
 * separators across read chunks, stopping, and the record limit found while
 * reading (a child process checks each one-line error). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "child.h"
#include "stream/stream.h"
#include "test.h"
#include "text/format.h"
#include "text/split.h"

typedef struct {
    const char *in;
    size_t in_n;
    int mapped_ok, stop_after;
    size_t n;
    cal_buf all; /* the documents, each followed by '|' */
} got;

static int collect(void *ctx, const cal_doc *d) {
    got *g = ctx;
    g->mapped_ok &= d->mapped && d->off + d->n <= g->in_n && !memcmp(g->in + d->off, d->text, d->n) &&
                    !strcmp(d->file, "mem") && d->n > 0;
    cal_buf_add(&g->all, d->text, d->n);
    cal_buf_addc(&g->all, '|');
    return ++g->n == (size_t)g->stop_after;
}

/* The documents of in (layout fmt) joined by '|', or "BAD OFFSETS". */
static const char *docs(int fmt, const char *sep, const char *in, size_t n, size_t max, int stop_after) {
    static cal_buf out;
    got g = {in, n, 1, stop_after, 0, {0}};
    cal_insrc *s = cal_insrc_mem(in, n, "mem");
    int r = cal_split(s, fmt, sep, max, collect, &g);
    cal_insrc_close(s);
    out.n = 0;
    cal_buf_add(&out, g.all.p ? g.all.p : "", g.all.n);
    if (r != (stop_after > 0 && g.n == (size_t)stop_after)) cal_buf_add(&out, "BAD RETURN", 10);
    if (!g.mapped_ok) cal_buf_add(&out, "BAD OFFSETS", 11);
    cal_buf_free(&g.all);
    return out.p;
}
#define DOCS(fmt, in) docs(fmt, NULL, in, strlen(in), CAL_MAX_PAYLOAD, 0)

typedef struct {
    int fmt;
    const char *in;
    size_t max;
} limit_case;
static void run_limit(void *arg) {
    limit_case *c = arg;
    docs(c->fmt, "|", c->in, strlen(c->in), c->max, 0);
}
static int limit(int fmt, const char *in, size_t max, char *msg, size_t n) {
    limit_case c = {fmt, in, max};
    return t_child(run_limit, &c, msg, n);
}

int main(void) {
    cal_set_progname("t");
    const char *a = "first line\n\nsecond  para\nstill second\n\n\n third\n";
    CHECK(!strcmp(DOCS(CAL_FMT_TEXT, a), "first line\n\nsecond  para\nstill second\n\n\n third\n|"), "text: whole");
    CHECK(!strcmp(DOCS(CAL_FMT_TEXT, "\xEF\xBB\xBF" "bom\n"), "bom\n|"), "text: BOM skipped (offset 3)");
    CHECK(!strcmp(DOCS(CAL_FMT_TEXT, ""), ""), "text: an empty input has no document");
    CHECK(!strcmp(docs(CAL_FMT_TEXT, NULL, "a\0b\x1f\x7f", 5, 100, 0), "a\0b\x1f\x7f|") &&
              !memcmp(docs(CAL_FMT_TEXT, NULL, "a\0b\x1f\x7f", 5, 100, 0), "a\0b\x1f\x7f|", 6),
          "text: NUL and controls are bytes like any other");
    CHECK(!strcmp(DOCS(CAL_FMT_LINES, "a\n\n \t\r\nb\r\n c\n\x0b\n"), "a|b\r| c|\x0b|"),
          "lines: blank lines (spaces, tabs, CR) skipped, the rest kept as is");
    CHECK(!strcmp(DOCS(CAL_FMT_LINES, "\xEF\xBB\xBF" "x\ny"), "x|y|"), "lines: BOM, last line without newline");
    CHECK(!strcmp(DOCS(CAL_FMT_PARAGRAPHS, a), "first line|second  para\nstill second|third|"),
          "paragraphs: joined by newlines, trimmed");
    CHECK(!strcmp(DOCS(CAL_FMT_PARAGRAPHS, "\n \n"), ""), "paragraphs: only blank lines");
    CHECK(!strcmp(docs(CAL_FMT_SEP, "<|endoftext|>", "one story<|endoftext|>\ntwo story\n<|endoftext|><|endoftext|>three",
                       64, 1000, 0),
                  "one story|two story|three|"),
          "sep: trimmed, empty documents skipped");
    CHECK(!strcmp(docs(CAL_FMT_SEP, "<|e", "a<<|e<|<|eb<|", 13, 1000, 0), "a<|<||b<||"),
          "sep: a partial separator before a whole one");
    const char *wx = "<doc id=\"1\" url=\"u\" title=\"A\">\nA\n\nAlpha text.\n</doc>\nstray\n"
                     "<doc id=\"2\" url=\"v\" title=\"B\">\nB\n\nBeta.\n</doc>\n<doc id=\"3\">\nunclosed\n";
    CHECK(!strcmp(DOCS(CAL_FMT_WIKIEXTRACTOR, wx), "A\n\nAlpha text.|B\n\nBeta.|"),
          "wikiextractor: articles, text outside and an unclosed article dropped");
    const char *wt = " \n = Valkyria = \n \n Senj\xC5\x8D no Valkyria . \n = = Gameplay = = \n Text . \n = Tower = \n Built . \n";
    CHECK(!strcmp(DOCS(CAL_FMT_WIKITEXT, wt),
                  "= Valkyria = \n \n Senj\xC5\x8D no Valkyria . \n = = Gameplay = = \n Text .|= Tower = \n Built .|"),
          "wikitext: one article per ' = Title = ', sections inside");
    CHECK(!strcmp(docs(CAL_FMT_LINES, NULL, "a\nb\nc\n", 6, 100, 2), "a|b|"), "stops when the callback says so");
    CHECK(!strcmp(docs(CAL_FMT_SEP, "|", "a|b|c", 5, 100, 1), "a|"), "sep: stops when the callback says so");

    /* A separator across the 256 KiB read chunks: documents as strstr finds them. */
    size_t big = 700000;
    char *in = malloc(big + 1);
    for (size_t i = 0; i < big; i++) in[i] = (char)('a' + i % 23);
    size_t at[] = {10, 262140, 262143, 262144, 524286, 524288 + 3, 699990};
    for (size_t k = 0; k < sizeof at / sizeof *at; k++) memcpy(in + at[k], "@@#", 3);
    in[big] = 0;
    cal_buf want = {0};
    for (char *p = in, *q; *p; p = q + 3) {
        q = strstr(p, "@@#");
        if (!q) q = p + strlen(p) - 3;
        cal_buf_add(&want, p, (size_t)(q + (q[3] ? 0 : 3) - p));
        cal_buf_addc(&want, '|');
        if (!q[3]) break;
    }
    const char *g = docs(CAL_FMT_SEP, "@@#", in, big, CAL_MAX_PAYLOAD, 0);
    CHECK(strlen(g) == want.n && !memcmp(g, want.p, want.n), "sep across chunk boundaries");
    cal_buf_free(&want);
    free(in);

    char msg[512];
    int st = limit(CAL_FMT_TEXT, "0123456789", 10, msg, sizeof msg);
    CHECK(st == 0, "a document of exactly the limit is read: %s", msg);
    st = limit(CAL_FMT_TEXT, "0123456789A", 10, msg, sizeof msg);
    CHECK(st == 1 && !strcmp(msg, "t: mem: byte 0: document of more than 10 bytes (the record limit)"),
          "text: the limit while reading: %s", msg);
    st = limit(CAL_FMT_LINES, "ok\n0123456789A\n", 10, msg, sizeof msg);
    CHECK(st == 1 && !strcmp(msg, "t: mem: byte 3: line of more than 10 bytes (the record limit)"),
          "lines: a long line names its offset: %s", msg);
    st = limit(CAL_FMT_PARAGRAPHS, "x\n\nabc\nabc\nabc\n", 10, msg, sizeof msg);
    CHECK(st == 1 && !strcmp(msg, "t: mem: byte 3: document of more than 10 bytes (the record limit)"),
          "paragraphs: a long paragraph of short lines: %s", msg);
    st = limit(CAL_FMT_WIKITEXT, " = A = \n aaaa \n bbbb \n", 10, msg, sizeof msg);
    CHECK(st == 1 && strstr(msg, "byte 0: document of more than 10 bytes"), "wikitext: a long article: %s", msg);
    st = limit(CAL_FMT_WIKIEXTRACTOR, "<doc i>\naaaa\nbbbb\ncccc\n</doc>\n", 10, msg, sizeof msg);
    CHECK(st == 1 && strstr(msg, "byte 8: document of more than 10 bytes"), "wikiextractor: a long article: %s", msg);
    st = limit(CAL_FMT_SEP, "aaaa|bbbb|cccc|0123456789A", 10, msg, sizeof msg);
    CHECK(st == 1 && !strcmp(msg, "t: mem: byte 15: document of more than 10 bytes (the record limit)"),
          "sep: a long document names its start: %s", msg);
    st = limit(CAL_FMT_SEP, "aaaa|bbbb|cccc|dddd|eeee|ffff", 10, msg, sizeof msg);
    CHECK(st == 0, "sep: many short documents are within the limit: %s", msg);
    TEST_END();
}
