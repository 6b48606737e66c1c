/* jsonsplit.c - see jsonsplit.h. A small state machine over the source's
 * chunks: outside values it reads the list punctuation; inside a value it
 * follows strings (and their escapes) and nesting until the value closes. */
#include "io/jsonsplit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"

enum { TOP, FIRST, NEED, AFTER }; /* outside a list; after '[', after ',', after an element */

struct cal_jsonsplit {
    cal_insrc *s;
    const char *name;
    size_t max;
    const uint8_t *p, *e; /* the unread part of the current chunk */
    uint64_t base;        /* offset of e (the end of the chunk) */
    int state, eof;
    uint64_t list_off, count, values;
    cal_buf cur;
};

cal_jsonsplit *cal_jsonsplit_new(cal_insrc *s, size_t max) {
    cal_jsonsplit *j = cal_xcalloc(1, sizeof *j);
    j->s = s, j->name = cal_insrc_name(s), j->max = max;
    cal_insrc_skip_bom(s);
    j->base = cal_insrc_offset(s);
    return j;
}

uint64_t cal_jsonsplit_count(const cal_jsonsplit *j) { return j->count; }

static uint64_t offset(const cal_jsonsplit *j) { return j->base - (uint64_t)(j->e - j->p); }

/* The next byte without taking it, or -1 at the end. */
static int peek(cal_jsonsplit *j) {
    if (j->p == j->e && !j->eof) {
        size_t n = cal_insrc_chunk(j->s, &j->p);
        j->e = j->p + n;
        j->base = cal_insrc_offset(j->s);
        if (n == 0) j->eof = 1;
    }
    return j->p < j->e ? *j->p : -1;
}

static int space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static int skip_space(cal_jsonsplit *j) {
    int c;
    while ((c = peek(j)) >= 0 && space(c)) j->p++;
    return c;
}

static const char *shown(int c, char *t) {
    if (c > 0x20 && c < 0x7f) t[0] = '\'', t[1] = (char)c, t[2] = '\'', t[3] = 0;
    else snprintf(t, 16, "0x%02X", (unsigned)c & 0xFFu);
    return t;
}

static void take(cal_jsonsplit *j, const uint8_t *a, size_t n, uint64_t start) {
    if (n > j->max - j->cur.n)
        cal_die_at(j->name, start, "a JSON value of more than %zu bytes (the record limit)", j->max);
    cal_buf_add(&j->cur, a, n);
}

/* Reads the value starting at the next byte into cur. */
static void read_value(cal_jsonsplit *j, uint64_t start) {
    j->cur.n = 0;
    int c = peek(j), depth = 0, in_str = 0, esc = 0;
    int scalar = c != '{' && c != '[' && c != '"';
    for (;;) {
        if (peek(j) < 0) {
            if (scalar) return;
            cal_die_at(j->name, start, "the JSON value that starts here is not closed at the end of the input");
        }
        const uint8_t *a = j->p, *q = a;
        int done = 0;
        for (; q < j->e && !done; q++) {
            if (in_str && !esc) { /* text runs: only '"' and '\\' matter */
                while (q < j->e && *q != '"' && *q != '\\') q++;
                if (q == j->e) break;
            }
            int b = *q;
            if (scalar) {
                if (space(b) || strchr(",]}[{\"", b)) { done = 1; q--; } /* the delimiter is not taken */
            } else if (in_str) {
                if (esc) esc = 0;
                else if (b == '\\') esc = 1;
                else if (b == '"') { in_str = 0; done = depth == 0; }
            } else if (b == '"') {
                in_str = 1;
            } else if (b == '{' || b == '[') {
                depth++;
            } else if (b == '}' || b == ']') {
                done = --depth == 0;
            }
        }
        take(j, a, (size_t)(q - a), start);
        j->p = q;
        if (done) return;
    }
}

int cal_jsonsplit_next(cal_jsonsplit *j, const char **p, size_t *n, uint64_t *off, int *lone) {
    char t[16];
    *lone = 0;
    for (;;) {
        int c = skip_space(j);
        uint64_t at = offset(j);
        if (c < 0) {
            if (j->state != TOP)
                cal_die_at(j->name, j->list_off, "the JSON list that starts here is not closed at the end of the input");
            return 0;
        }
        if (j->state == AFTER) {
            if (c != ',' && c != ']')
                cal_die_at(j->name, at, "%s after record %llu of the list (expected ',' or ']')", shown(c, t),
                           (unsigned long long)j->count - 1);
            j->p++;
            j->state = c == ',' ? NEED : TOP;
            continue;
        }
        if (j->state == FIRST && c == ']') {
            j->p++, j->state = TOP;
            continue;
        }
        if (j->state == NEED && c == ']') cal_die_at(j->name, at, "a trailing ',' before ']' (expected a value)");
        if (c == ',' || c == ']' || c == '}' || c == ':')
            cal_die_at(j->name, at, "%s where a JSON value should start", shown(c, t));
        if (j->state == TOP && c == '[') {
            j->p++, j->state = FIRST, j->list_off = at, j->values++;
            continue;
        }
        read_value(j, at);
        if (j->state != TOP) {
            j->state = AFTER;
        } else if (j->values++ == 0 && j->cur.p[0] == '{' && skip_space(j) < 0) {
            *lone = 1; /* the only value of the input */
        }
        j->count++;
        *p = j->cur.p, *n = j->cur.n, *off = at;
        return 1;
    }
}

void cal_jsonsplit_free(cal_jsonsplit *j) {
    if (!j) return;
    cal_buf_free(&j->cur);
    free(j);
}
