/* csv.c - see csv.h. The states are those of Python's csv reader: the
 * start of a field, inside an unquoted field, inside quotes, and just after
 * a quote inside quotes (a second quote is a quote; anything else closes). */
#include "io/csv.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"

enum { START, PLAIN, QUOTED, QUOTE_IN_QUOTED };

struct cal_csv {
    cal_insrc *s;
    const char *name;
    char delim;
    size_t max;
    const uint8_t *p, *e;
    uint64_t base; /* offset of e */
    int eof, cr;   /* cr: the last byte taken was a '\r' ending a row */
    uint64_t line; /* lines seen before p */
    cal_buf row;   /* the fields' bytes, one after the other */
    size_t *start, nf, cap;
    const char **fp;
    size_t *fl;
};

cal_csv *cal_csv_new(cal_insrc *s, char delim, size_t max) {
    cal_csv *c = cal_xcalloc(1, sizeof *c);
    c->s = s, c->name = cal_insrc_name(s), c->delim = delim, c->max = max, c->line = 1;
    cal_insrc_skip_bom(s);
    c->base = cal_insrc_offset(s);
    return c;
}

static int more(cal_csv *c) {
    if (c->p == c->e && !c->eof) {
        size_t n = cal_insrc_chunk(c->s, &c->p);
        c->e = c->p + n;
        c->base = cal_insrc_offset(c->s);
        if (n == 0) c->eof = 1;
    }
    return c->p < c->e;
}

static void field_start(cal_csv *c) {
    if (c->nf == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 16;
        c->start = cal_xrealloc(c->start, (c->cap + 1) * sizeof *c->start);
    }
    c->start[c->nf++] = c->row.n;
}

int cal_csv_next(cal_csv *c, size_t *nf, const char *const **field, const size_t **len, uint64_t *line, uint64_t *off) {
    int st = START;
    uint64_t quote_line = 0, quote_off = 0;
    for (;;) { /* blank lines are no rows */
        c->row.n = 0, c->nf = 0;
        *line = c->line;
        if (!more(c)) return 0;
        *off = c->base - (uint64_t)(c->e - c->p);
        if (c->cr && *c->p == '\n') { /* the '\n' of a "\r\n" that ended the last row */
            c->p++, c->cr = 0;
            continue;
        }
        c->cr = 0;
        if (*c->p == '\n' || *c->p == '\r') {
            c->cr = *c->p++ == '\r';
            c->line++;
            continue;
        }
        break;
    }
    field_start(c);
    int done = 0;
    while (!done) {
        if (!more(c)) {
            if (st == QUOTED)
                cal_die_at(c->name, quote_off, "line %llu: a quoted field still open at the end of the input",
                           (unsigned long long)quote_line);
            break;
        }
        for (; c->p < c->e && !done; c->p++) {
            int b = *c->p;
            if (st == QUOTED) {
                if (b == '"') st = QUOTE_IN_QUOTED;
                else {
                    if (b == '\n') c->line++;
                    cal_buf_addc(&c->row, (char)b);
                }
                continue;
            }
            if (st == QUOTE_IN_QUOTED && b == '"') {
                cal_buf_addc(&c->row, '"'), st = QUOTED;
                continue;
            }
            if (b == c->delim) {
                field_start(c), st = START;
            } else if (b == '\n' || b == '\r') {
                c->cr = b == '\r', c->line++, done = 1;
            } else if (st == START && b == '"') {
                st = QUOTED, quote_line = c->line, quote_off = c->base - (uint64_t)(c->e - c->p);
            } else {
                cal_buf_addc(&c->row, (char)b), st = PLAIN;
            }
        }
        if (c->row.n > c->max)
            cal_die_at(c->name, *off, "line %llu: a row of more than %zu bytes (the record limit)",
                       (unsigned long long)*line, c->max);
    }
    c->fp = cal_xrealloc(c->fp, c->nf * sizeof *c->fp);
    c->fl = cal_xrealloc(c->fl, c->nf * sizeof *c->fl);
    c->start[c->nf] = c->row.n;
    for (size_t i = 0; i < c->nf; i++) {
        c->fp[i] = (c->row.p ? c->row.p : "") + c->start[i];
        c->fl[i] = c->start[i + 1] - c->start[i];
    }
    *nf = c->nf, *field = c->fp, *len = c->fl;
    return 1;
}

void cal_csv_free(cal_csv *c) {
    if (!c) return;
    cal_buf_free(&c->row);
    free(c->start), free(c->fp), free(c->fl);
    free(c);
}
