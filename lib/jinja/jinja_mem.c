/* jinja_mem.c - the interpreter's arena, buffers and error unwinding, and the
 * constructors of the simple values every other file builds. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jinja/jinja_int.h"

struct jj_chunk {
    jj_chunk *next;
    size_t cap, used, pad_;
    char mem[];
};

#define JJ_ALIGN 16
#define JJ_CHUNK (64 * 1024)

void *jj_alloc(jj_arena *a, size_t n) {
    n = (n + JJ_ALIGN - 1) & ~(size_t)(JJ_ALIGN - 1);
    if (n == 0) n = JJ_ALIGN;
    jj_chunk *c = a->head;
    if (!c || c->cap - c->used < n) {
        /* Chunks grow with the total (64 KiB to 4 MiB); a block bigger than
         * a quarter of that gets a chunk of its own, put behind the current
         * one so the current one's free room stays in use. */
        size_t cap = a->total / 2;
        if (cap < JJ_CHUNK) cap = JJ_CHUNK;
        if (cap > 4 * 1024 * 1024) cap = 4 * 1024 * 1024;
        int big = n > cap / 4;
        if (big) cap = n;
        if (cap > a->limit || a->total > a->limit - cap || cap > SIZE_MAX - sizeof *c)
            jj_raise(a->err, a->line ? *a->line : 0, "the template needs more than %zu MiB of memory",
                     a->limit >> 20);
        jj_chunk *nc = malloc(sizeof *nc + cap);
        if (!nc) jj_raise(a->err, a->line ? *a->line : 0, "out of memory");
        nc->cap = cap;
        nc->used = 0;
        a->total += cap;
        if (big && c) {
            nc->next = c->next;
            c->next = nc;
        } else {
            nc->next = c;
            a->head = nc;
        }
        c = nc;
    }
    void *p = c->mem + c->used;
    c->used += n;
    return p;
}

char *jj_strndup(jj_arena *a, const char *s, size_t n) {
    char *p = jj_alloc(a, n + 1);
    if (n) memcpy(p, s, n);
    p[n] = 0;
    return p;
}

void jj_arena_free(jj_arena *a) {
    jj_chunk *c = a->head;
    while (c) {
        jj_chunk *nx = c->next;
        free(c);
        c = nx;
    }
    a->head = NULL;
    a->total = 0;
}

/* Appends s to out (at most cap - 1 bytes), control characters escaped so
 * the message stays one line. */
static size_t put_escaped(char *out, size_t cap, size_t o, const char *s) {
    for (; *s && o + 5 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '\n') o += (size_t)snprintf(out + o, cap - o, "\\n");
        else if (c == '\t') o += (size_t)snprintf(out + o, cap - o, "\\t");
        else if (c == '\r') o += (size_t)snprintf(out + o, cap - o, "\\r");
        else if (c < 0x20 || c == 0x7f) o += (size_t)snprintf(out + o, cap - o, "\\x%02x", c);
        else out[o++] = (char)c;
    }
    if (o < cap) out[o] = 0;
    return o;
}

void jj_raise(jj_err *e, int line, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (e->msg && e->cap) {
        size_t o = put_escaped(e->msg, e->cap, 0, e->name ? e->name : "template");
        char head[32];
        if (line > 0) snprintf(head, sizeof head, ": line %d: ", line);
        else snprintf(head, sizeof head, ": ");
        o = put_escaped(e->msg, e->cap, o, head);
        put_escaped(e->msg, e->cap, o, msg);
    }
    longjmp(e->jb, 1);
}

void jj_fail(jj_rt *rt, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    jj_raise(&rt->err, rt->line, "%s", msg);
}

void jj_step(jj_rt *rt) {
    if (++rt->steps > rt->max_steps)
        jj_fail(rt, "the template ran more than %llu steps (loop iterations and calls)",
                (unsigned long long)rt->max_steps);
}

void jj_buf_add(jj_rt *rt, jj_buf *b, const void *p, size_t n) {
    if (n == 0) return;
    if (n > rt->max_output || b->n > rt->max_output - n)
        jj_fail(rt, "the output is larger than %zu bytes", rt->max_output);
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64;
        while (cap < b->n + n + 1) cap *= 2;
        char *np = jj_alloc(&rt->ar, cap);
        if (b->n) memcpy(np, b->p, b->n);
        b->p = np;
        b->cap = cap;
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
    b->p[b->n] = 0;
}

void jj_buf_adds(jj_rt *rt, jj_buf *b, const char *s) { jj_buf_add(rt, b, s, strlen(s)); }

void jj_buf_addc(jj_rt *rt, jj_buf *b, char c) { jj_buf_add(rt, b, &c, 1); }

void jj_buf_addf(jj_rt *rt, jj_buf *b, const char *fmt, ...) {
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (k < 0) return;
    jj_buf_add(rt, b, tmp, (size_t)k < sizeof tmp ? (size_t)k : sizeof tmp - 1);
}

/* ---- simple values ---- */

const jj_val jj_undefined = {JJ_UNDEF, 0, {0}};
const jj_val jj_none = {JJ_NONE, 0, {0}};

jj_val jj_bool(int b) { jj_val v = {JJ_BOOL, 0, {.i = b ? 1 : 0}}; return v; }
jj_val jj_int(int64_t i) { jj_val v = {JJ_INT, 0, {.i = i}}; return v; }
jj_val jj_float(double f) { jj_val v = {JJ_FLOAT, 0, {.f = f}}; return v; }
jj_val jj_strv(jj_str *s) { jj_val v = {JJ_STR, 0, {.s = s}}; return v; }
jj_val jj_listv(jj_list *l, int tuple) {
    jj_val v = {(uint8_t)(tuple ? JJ_TUPLE : JJ_LIST), 0, {.l = l}};
    return v;
}

jj_list *jj_list_new(jj_rt *rt, size_t n) {
    jj_list *l = jj_alloc(&rt->ar, sizeof *l);
    memset(l, 0, sizeof *l);
    if (n > SIZE_MAX / sizeof(jj_val)) jj_fail(rt, "list too long");
    l->v = n ? jj_alloc(&rt->ar, n * sizeof(jj_val)) : NULL;
    l->n = n;
    return l;
}

void jj_list_push(jj_rt *rt, jj_list *l, size_t *cap, jj_val v) {
    if (l->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 8;
        if (nc > SIZE_MAX / sizeof(jj_val)) jj_fail(rt, "list too long");
        jj_val *nv = jj_alloc(&rt->ar, nc * sizeof(jj_val));
        if (l->n) memcpy(nv, l->v, l->n * sizeof(jj_val));
        l->v = nv;
        *cap = nc;
    }
    l->v[l->n++] = v;
}
