/* split.c - see split.h. */
#include "text/split.h"

#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "text/format.h"

typedef struct {
    cal_insrc *s;
    const char *name;
    size_t max;
    cal_doc_fn fn;
    void *ctx;
} splitter;

static CAL_NORETURN void too_long(const splitter *sp, uint64_t off, const char *what) {
    cal_die_at(sp->name, off, "%s of more than %zu bytes (the record limit)", what, sp->max);
}

static int emit(const splitter *sp, const char *p, size_t n, uint64_t off) {
    if (n == 0) return 0;
    cal_doc d = {sp->name, p, n, off, 1, 0, NULL, 0};
    return sp->fn(sp->ctx, &d);
}

static int space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

/* Emits p[0..n) without surrounding whitespace (offsets follow). */
static int emit_trimmed(const splitter *sp, const char *p, size_t n, uint64_t off) {
    if (n == 0) return 0;
    size_t a = 0;
    while (a < n && space(p[a])) a++;
    while (n > a && space(p[n - 1])) n--;
    return emit(sp, p + a, n - a, off + a);
}

static int blank(const char *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r') return 0;
    return 1;
}

static int whole(const splitter *sp) {
    cal_buf b = {0};
    const uint8_t *p;
    uint64_t off = cal_insrc_offset(sp->s);
    for (size_t n; (n = cal_insrc_chunk(sp->s, &p)) > 0;) {
        if (n > sp->max - b.n) too_long(sp, off, "document");
        cal_buf_add(&b, p, n);
    }
    int stop = emit(sp, b.p, b.n, off);
    cal_buf_free(&b);
    return stop;
}

static int separated(const splitter *sp, const char *sep) {
    size_t sl = strlen(sep), scan = 0;
    cal_buf b = {0};
    uint64_t b_off = cal_insrc_offset(sp->s);
    int stop = 0;
    for (int end = 0; !stop && !end;) {
        const uint8_t *p;
        size_t n = cal_insrc_chunk(sp->s, &p);
        if (n == 0) end = 1;
        else cal_buf_add(&b, p, n);
        size_t start = 0;
        for (size_t i = scan; !stop && i + sl <= b.n;) {
            const char *hit = memchr(b.p + i, sep[0], b.n - sl + 1 - i);
            if (!hit) break;
            i = (size_t)(hit - b.p);
            if (memcmp(hit, sep, sl) == 0) {
                stop = emit_trimmed(sp, b.p + start, i - start, b_off + start);
                start = i += sl;
            } else i++;
        }
        if (b.n - start > sp->max) too_long(sp, b_off + start, "document");
        if (end && !stop) stop = emit_trimmed(sp, b.p + start, b.n - start, b_off + start);
        if (start) memmove(b.p, b.p + start, b.n - start);
        b.n -= start, b_off += start;
        scan = b.n >= sl ? b.n - sl + 1 : 0;
    }
    cal_buf_free(&b);
    return stop;
}

/* " = Title = " (one '=' on each side) starts a wikitext article. */
static int wikitext_title(const char *p, size_t n) {
    return n >= 5 && p[0] == ' ' && p[1] == '=' && p[2] == ' ' && p[3] != '=' &&
           (memcmp(p + n - 3, " = ", 3) == 0 || memcmp(p + n - 2, " =", 2) == 0);
}

/* Adds to a document that began at doc_off, within the limit. */
static void gather(const splitter *sp, cal_buf *doc, uint64_t doc_off, const char *p, size_t n) {
    if (n > sp->max - doc->n) too_long(sp, doc_off, "document");
    cal_buf_add(doc, p, n);
}

/* The line-based layouts: a document is one line or gathers lines in doc. */
static int by_lines(const splitter *sp, int fmt) {
    cal_buf line = {0}, doc = {0};
    uint64_t off = 0, doc_off = 0;
    int in_doc = 0, stop = 0, r;
    while (!stop && (r = cal_insrc_line(sp->s, &line, &off, sp->max)) != 0) {
        if (r < 0) too_long(sp, off, "line");
        const char *p = line.p;
        size_t n = line.n;
        if (fmt == CAL_FMT_LINES) {
            if (!blank(p, n)) stop = emit(sp, p, n, off);
        } else if (fmt == CAL_FMT_PARAGRAPHS) {
            if (blank(p, n)) {
                stop = emit_trimmed(sp, doc.p, doc.n, doc_off);
                doc.n = 0;
            } else {
                if (!doc.n) doc_off = off;
                else gather(sp, &doc, doc_off, "\n", 1);
                gather(sp, &doc, doc_off, p, n);
            }
        } else if (fmt == CAL_FMT_WIKIEXTRACTOR) {
            if (n >= 5 && memcmp(p, "<doc ", 5) == 0 && p[n - 1] == '>') {
                in_doc = 1, doc.n = 0, doc_off = off + n + 1;
            } else if (n >= 6 && memcmp(p, "</doc>", 6) == 0) {
                if (in_doc) stop = emit_trimmed(sp, doc.p, doc.n, doc_off);
                in_doc = 0, doc.n = 0;
            } else if (in_doc) {
                gather(sp, &doc, doc_off, p, n);
                gather(sp, &doc, doc_off, "\n", 1);
            }
        } else { /* wikitext */
            if (wikitext_title(p, n)) {
                stop = emit_trimmed(sp, doc.p, doc.n, doc_off);
                doc.n = 0, doc_off = off;
            }
            if (doc.n || !blank(p, n)) {
                if (!doc.n) doc_off = off;
                gather(sp, &doc, doc_off, p, n);
                gather(sp, &doc, doc_off, "\n", 1);
            }
        }
    }
    /* an unclosed WikiExtractor article is dropped */
    if (!stop && fmt != CAL_FMT_WIKIEXTRACTOR) stop = emit_trimmed(sp, doc.p, doc.n, doc_off);
    cal_buf_free(&line), cal_buf_free(&doc);
    return stop;
}

int cal_split(cal_insrc *s, int fmt, const char *sep, size_t max, cal_doc_fn fn, void *ctx) {
    splitter sp = {s, cal_insrc_name(s), max, fn, ctx};
    cal_insrc_skip_bom(s);
    if (fmt == CAL_FMT_TEXT) return whole(&sp);
    if (fmt == CAL_FMT_SEP) return separated(&sp, sep);
    return by_lines(&sp, fmt);
}
