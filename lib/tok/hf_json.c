/* tok_hf_json.c - arena JSON parser (see tok_hf_json.h). */
#include "tok/hf_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <utf8proc.h>

#include "base/buf.h"

typedef struct blk {
    struct blk *next;
    size_t used, cap;
    char *mem;
} blk;

struct tj_doc {
    blk *blocks;
    tj root;
};

typedef struct {
    const char *s, *p, *end;
    tj_doc *d;
    tj *stack;          /* pending values of open containers */
    size_t sn, scap;
    char *err;
    size_t errlen;
    int failed;
} parser;

static void *arena(tj_doc *d, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    blk *b = d->blocks;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > (4u << 20) ? n : (4u << 20);
        b = malloc(sizeof *b);
        if (!b) return NULL;
        b->mem = malloc(cap);
        if (!b->mem) { free(b); return NULL; }
        b->used = 0; b->cap = cap; b->next = d->blocks; d->blocks = b;
    }
    void *r = b->mem + b->used;
    b->used += n;
    return r;
}

static int fail(parser *ps, const char *what)
{
    if (!ps->failed)
        snprintf(ps->err, ps->errlen, "byte %zu: %s", (size_t)(ps->p - ps->s), what);
    ps->failed = 1;
    return -1;
}

static int push(parser *ps, tj v)
{
    if (ps->sn == ps->scap) {
        size_t cap = ps->scap ? ps->scap * 2 : 1024;
        tj *n = realloc(ps->stack, cap * sizeof *n);
        if (!n) return fail(ps, "out of memory");
        ps->stack = n; ps->scap = cap;
    }
    ps->stack[ps->sn++] = v;
    return 0;
}

static void ws(parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\n' || *ps->p == '\r' || *ps->p == '\t'))
        ps->p++;
}

static int hex4(const char *p, unsigned *v)
{
    *v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                   : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 99;
        if (d > 15) return -1;
        *v = *v * 16 + d;
    }
    return 0;
}

static size_t put_utf8(char *o, unsigned c)
{
    if (c < 0x80) { o[0] = (char)c; return 1; }
    if (c < 0x800) { o[0] = (char)(0xC0 | c >> 6); o[1] = (char)(0x80 | (c & 63)); return 2; }
    if (c < 0x10000) { o[0] = (char)(0xE0 | c >> 12); o[1] = (char)(0x80 | (c >> 6 & 63)); o[2] = (char)(0x80 | (c & 63)); return 3; }
    o[0] = (char)(0xF0 | c >> 18); o[1] = (char)(0x80 | (c >> 12 & 63));
    o[2] = (char)(0x80 | (c >> 6 & 63)); o[3] = (char)(0x80 | (c & 63));
    return 4;
}

static int string(parser *ps, tj *v)
{
    const char *q = ++ps->p; /* after the quote */
    int esc = 0;
    while (q < ps->end && *q != '"') {
        if (*q == '\\') { esc = 1; q++; }
        else if ((unsigned char)*q < 0x20) { ps->p = q; return fail(ps, "control character in string"); }
        else if ((unsigned char)*q >= 0x80) {
            /* JSON text is UTF-8 (the reference's parser refuses anything else);
             * invalid bytes would otherwise reach the tokenizer's tables. */
            utf8proc_int32_t cp;
            utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)q, ps->end - q, &cp);
            if (k <= 0) { ps->p = q; return fail(ps, "invalid UTF-8 in string"); }
            q += k;
            continue;
        }
        q++;
    }
    if (q >= ps->end) return fail(ps, "unterminated string");
    v->type = TJ_STR;
    if (!esc) {
        v->u.s = ps->p; v->n = (uint32_t)(q - ps->p);
        ps->p = q + 1;
        return 0;
    }
    char *o = arena(ps->d, (size_t)(q - ps->p) + 4), *o0 = o;
    if (!o) return fail(ps, "out of memory");
    const char *p = ps->p;
    while (p < q) {
        if (*p != '\\') { *o++ = *p++; continue; }
        p++;
        switch (*p) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '/': *o++ = '/'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            unsigned c, c2;
            if (q - p < 5 || hex4(p + 1, &c)) { ps->p = p; return fail(ps, "bad \\u escape"); }
            p += 4;
            if (c >= 0xD800 && c < 0xDC00) {
                if (q - p >= 7 && p[1] == '\\' && p[2] == 'u' && !hex4(p + 3, &c2) && c2 >= 0xDC00 && c2 < 0xE000) {
                    c = 0x10000 + ((c - 0xD800) << 10) + (c2 - 0xDC00);
                    p += 6;
                } else c = 0xFFFD; /* lone surrogate, as serde_json lossy would not accept; be lenient */
            } else if (c >= 0xDC00 && c < 0xE000) c = 0xFFFD;
            o += put_utf8(o, c);
            break;
        }
        default: ps->p = p; return fail(ps, "bad escape in string");
        }
        p++;
    }
    v->u.s = o0; v->n = (uint32_t)(o - o0);
    ps->p = q + 1;
    return 0;
}

static int number(parser *ps, tj *v)
{
    char buf[64];
    size_t k = 0;
    const char *p = ps->p;
    while (p < ps->end && k < sizeof buf - 1 && strchr("+-0123456789.eE", *p) && *p) buf[k++] = *p++;
    buf[k] = 0;
    char *e;
    double d = strtod(buf, &e);
    if (k == 0 || *e) return fail(ps, "bad number");
    v->type = TJ_NUM; v->u.num = d; v->n = 0;
    ps->p = p;
    return 0;
}

/* Iterative parse: containers keep their start index on a small frame stack. */
static int value(parser *ps, tj *out)
{
    size_t fstack[256];
    uint8_t fobj[256];
    int depth = 0;
    for (;;) {
        ws(ps);
        if (ps->p >= ps->end) return fail(ps, "unexpected end of input");
        tj v;
        memset(&v, 0, sizeof v);
        char c = *ps->p;
        int opened = 0;
        if (depth > 0 && fobj[depth - 1]) {
            /* expecting a key (or '}' handled below) */
            if (c == '}' && ps->sn == fstack[depth - 1]) goto close;
            if (c != '"') return fail(ps, "expected a string key");
            if (string(ps, &v) || push(ps, v)) return -1;
            ws(ps);
            if (ps->p >= ps->end || *ps->p != ':') return fail(ps, "expected ':'");
            ps->p++;
            ws(ps);
            if (ps->p >= ps->end) return fail(ps, "unexpected end of input");
            c = *ps->p;
            memset(&v, 0, sizeof v);
        } else if (depth > 0 && c == ']' && ps->sn == fstack[depth - 1]) {
            goto close;
        }
        if (c == '{' || c == '[') {
            if (depth == 256) return fail(ps, "nesting too deep");
            fstack[depth] = ps->sn;
            fobj[depth] = c == '{';
            depth++;
            ps->p++;
            opened = 1;
        } else if (c == '"') { if (string(ps, &v)) return -1; }
        else if (c == 't' && ps->end - ps->p >= 4 && !memcmp(ps->p, "true", 4)) { v.type = TJ_TRUE; ps->p += 4; }
        else if (c == 'f' && ps->end - ps->p >= 5 && !memcmp(ps->p, "false", 5)) { v.type = TJ_FALSE; ps->p += 5; }
        else if (c == 'n' && ps->end - ps->p >= 4 && !memcmp(ps->p, "null", 4)) { v.type = TJ_NULL; ps->p += 4; }
        else if (c == '-' || (c >= '0' && c <= '9')) { if (number(ps, &v)) return -1; }
        else return fail(ps, "unexpected character");
        if (opened) continue;
        if (depth == 0) { *out = v; return 0; }
        if (push(ps, v)) return -1;
    after:
        ws(ps);
        if (ps->p >= ps->end) return fail(ps, "unexpected end of input");
        if (*ps->p == ',') { ps->p++; continue; }
        if (*ps->p != (fobj[depth - 1] ? '}' : ']')) return fail(ps, "expected ',' or closing bracket");
    close: {
            ps->p++;
            size_t start = fstack[--depth], k = ps->sn - start;
            tj cv;
            memset(&cv, 0, sizeof cv);
            cv.type = fobj[depth] ? TJ_OBJ : TJ_ARR;
            cv.n = (uint32_t)(fobj[depth] ? k / 2 : k);
            if (k) {
                cv.u.kids = arena(ps->d, k * sizeof(tj));
                if (!cv.u.kids) return fail(ps, "out of memory");
                memcpy(cv.u.kids, ps->stack + start, k * sizeof(tj));
            }
            ps->sn = start;
            if (depth == 0) { *out = cv; return 0; }
            if (push(ps, cv)) return -1;
            goto after;
        }
    }
}

tj_doc *tj_parse(const char *s, size_t len, tj **root, char *err, size_t errlen)
{
    parser ps = {0};
    ps.s = ps.p = s; ps.end = s + len;
    ps.err = err; ps.errlen = errlen;
    ps.d = calloc(1, sizeof *ps.d);
    if (!ps.d) { snprintf(err, errlen, "out of memory"); return NULL; }
    int r = value(&ps, &ps.d->root);
    if (!r) {
        ws(&ps);
        if (ps.p != ps.end) r = fail(&ps, "trailing data after JSON value");
    }
    free(ps.stack);
    if (r) { tj_free(ps.d); return NULL; }
    *root = &ps.d->root;
    return ps.d;
}

void tj_free(tj_doc *d)
{
    if (!d) return;
    for (blk *b = d->blocks, *n; b; b = n) { n = b->next; free(b->mem); free(b); }
    free(d);
}

const tj *tj_get(const tj *o, const char *key)
{
    if (!o || o->type != TJ_OBJ) return NULL;
    size_t kl = strlen(key);
    const tj *r = NULL;
    for (uint32_t i = 0; i < o->n; i++) {
        const tj *k = &o->u.kids[2 * i];
        if (k->n == kl && !memcmp(k->u.s, key, kl)) r = &o->u.kids[2 * i + 1]; /* last wins, as serde */
    }
    return r;
}

int tj_streq(const tj *v, const char *s)
{
    return v && v->type == TJ_STR && v->n == strlen(s) && !memcmp(v->u.s, s, v->n);
}

void tj_emit(const tj *v, cal_buf *out)
{
    if (!v) { cal_buf_add(out, "null", 4); return; }
    switch (v->type) {
    case TJ_NULL: cal_buf_add(out, "null", 4); break;
    case TJ_FALSE: cal_buf_add(out, "false", 5); break;
    case TJ_TRUE: cal_buf_add(out, "true", 4); break;
    case TJ_NUM: cal_buf_addf(out, "%.17g", v->u.num); break;
    case TJ_STR:
        cal_buf_addc(out, '"');
        for (uint32_t i = 0; i < v->n; i++) {
            unsigned char c = (unsigned char)v->u.s[i];
            if (c == '"' || c == '\\') cal_buf_addc(out, '\\'), cal_buf_addc(out, (char)c);
            else if (c < 0x20) cal_buf_addf(out, "\\u%04x", c);
            else cal_buf_addc(out, (char)c);
        }
        cal_buf_addc(out, '"');
        break;
    case TJ_ARR:
        cal_buf_addc(out, '[');
        for (uint32_t i = 0; i < v->n; i++) {
            if (i) cal_buf_addc(out, ',');
            tj_emit(&v->u.kids[i], out);
        }
        cal_buf_addc(out, ']');
        break;
    case TJ_OBJ:
        cal_buf_addc(out, '{');
        for (uint32_t i = 0; i < v->n; i++) {
            if (i) cal_buf_addc(out, ',');
            tj_emit(&v->u.kids[2 * i], out);
            cal_buf_addc(out, ':');
            tj_emit(&v->u.kids[2 * i + 1], out);
        }
        cal_buf_addc(out, '}');
        break;
    }
}
