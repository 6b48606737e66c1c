/* jinja_mem.c - the interpreter's arena, buffers and error unwinding, and the
 * constructors of the simple values every other file builds. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jinja/jinja_int.h"


/* Under AddressSanitizer the unused and released parts of chunks are
 * poisoned, so a block used after its iteration released it is reported. */
#if defined(__SANITIZE_ADDRESS__)
#define JJ_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define JJ_ASAN 1
#endif
#endif
#ifdef JJ_ASAN
void __asan_poison_memory_region(void const volatile *addr, size_t size);
void __asan_unpoison_memory_region(void const volatile *addr, size_t size);
#define POISON(p, n) __asan_poison_memory_region((p), (n))
#define UNPOISON(p, n) __asan_unpoison_memory_region((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define JJ_ALIGN 16
#define JJ_CHUNK (64 * 1024)

static CAL_NORETURN void over_budget(jj_arena *a) {
    a->err->fatal = 1;
    jj_raise(a->err, a->line ? *a->line : 0,
             "the template used more than its budget of %llu work units (a loop iteration, a call, an "
             "element handled or 256 bytes of text built or searched is one)",
             (unsigned long long)a->max_work);
}

void jj_charge(jj_arena *a, uint64_t units) {
    a->work += units;
    if (a->max_work && a->work > a->max_work) over_budget(a);
}

void jj_charge_bytes(jj_arena *a, size_t bytes) {
    a->work_bytes += bytes;
    if (a->work_bytes >= 256) {
        uint64_t k = a->work_bytes >> 8;
        a->work_bytes &= 255;
        jj_charge(a, k);
    }
}

void *jj_alloc(jj_arena *a, size_t n) {
    if (n > SIZE_MAX - 2 * JJ_ALIGN) n = SIZE_MAX - 2 * JJ_ALIGN; /* fails below */
    n = (n + JJ_ALIGN - 1) & ~(size_t)(JJ_ALIGN - 1);
    if (n == 0) n = JJ_ALIGN;
    jj_charge_bytes(a, n);
    jj_chunk *c = a->cur;
    if (!c || c->cap - c->used < n) {
        /* Chunks grow with the total (64 KiB to 4 MiB); a block bigger than
         * a quarter of that gets a chunk of its own, and the current chunk
         * stays current so its free room stays in use. Every chunk goes to
         * the head of the list: those made since a mark are a prefix. */
        jj_arena *acct = a->owner ? a->owner : a; /* whose limit this counts against */
        size_t cap = a->total / 2;
        if (cap < JJ_CHUNK) cap = JJ_CHUNK;
        if (cap > 4 * 1024 * 1024) cap = 4 * 1024 * 1024;
        int big = n > cap / 4;
        if (big) cap = n;
        if (cap > acct->limit || acct->total > acct->limit - cap || cap > SIZE_MAX - sizeof *c)
            a->err->fatal = 1, jj_raise(a->err, a->line ? *a->line : 0, "the template needs more than %zu MiB of memory",
                     acct->limit >> 20);
        jj_chunk *nc = malloc(sizeof *nc + cap);
        if (!nc) a->err->fatal = 1, jj_raise(a->err, a->line ? *a->line : 0, "out of memory");
        nc->cap = cap;
        nc->used = 0;
        nc->seq = ++a->seq;
        nc->next = a->head;
        a->head = nc;
        a->total += cap;
        if (a->owner) a->owner->total += cap;
        POISON(nc->mem, cap);
        if (!big || !c) a->cur = nc;
        c = nc;
    }
    void *p = c->mem + c->used;
    c->used += n;
    UNPOISON(p, n);
    return p;
}

jj_mark jj_arena_mark(const jj_arena *a) {
    jj_mark m = {a->cur, a->cur ? a->cur->used : 0, a->seq};
    return m;
}

void jj_arena_release(jj_arena *a, jj_mark m) {
    while (a->head && a->head->seq > m.seq) {
        jj_chunk *c = a->head;
        a->head = c->next;
        a->total -= c->cap;
        if (a->owner) a->owner->total -= c->cap;
        free(c);
    }
    a->cur = m.cur;
    if (m.cur) {
        POISON(m.cur->mem + m.used, m.cur->used - m.used);
        m.cur->used = m.used;
    }
}

static int by_lo(const void *x, const void *y) {
    uintptr_t a = (*(const uintptr_t(*)[3])x)[0], b = (*(const uintptr_t(*)[3])y)[0];
    return a < b ? -1 : a > b;
}

size_t jj_arena_since(const jj_arena *a, jj_mark m, uintptr_t (**r)[3], size_t n, uintptr_t tag) {
    size_t k = n + 1;
    for (jj_chunk *c = a->head; c && c->seq > m.seq; c = c->next) k++;
    uintptr_t(*v)[3] = realloc(*r, k * sizeof *v);
    if (!v) return SIZE_MAX;
    *r = v;
    for (jj_chunk *c = a->head; c && c->seq > m.seq; c = c->next) {
        if (!c->used) continue;
        v[n][0] = (uintptr_t)c->mem;
        v[n][1] = (uintptr_t)(c->mem + c->used);
        v[n++][2] = tag;
    }
    if (m.cur && m.cur->used > m.used) {
        v[n][0] = (uintptr_t)(m.cur->mem + m.used);
        v[n][1] = (uintptr_t)(m.cur->mem + m.cur->used);
        v[n++][2] = tag;
    }
    qsort(v, n, sizeof *v, by_lo);
    return n;
}

void jj_arena_adopt(jj_arena *a, jj_arena *from) {
    jj_chunk *c = from->head, *rev = NULL;
    while (c) { /* oldest first, so that the newest ends at the head */
        jj_chunk *nx = c->next;
        c->next = rev;
        rev = c;
        c = nx;
    }
    while (rev) {
        jj_chunk *nx = rev->next;
        rev->seq = ++a->seq;
        rev->next = a->head;
        a->head = rev;
        rev = nx;
    }
    if (from->owner != a) { /* an owned arena's chunks are counted by its owner already */
        a->total += from->total;
        if (from->owner) from->owner->total -= from->total;
        if (a->owner) a->owner->total += from->total;
    }
    from->head = from->cur = NULL;
    from->total = 0;
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
    if (a->owner) a->owner->total -= a->total;
    a->head = a->cur = NULL;
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
    size_t bn = strlen(msg) < sizeof e->bare - 1 ? strlen(msg) : sizeof e->bare - 1;
    memcpy(e->bare, msg, bn);
    e->bare[bn] = 0;
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

void jj_limit(jj_rt *rt, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    rt->err.fatal = 1;
    jj_raise(&rt->err, rt->line, "%s", msg);
}

void jj_step(jj_rt *rt) {
    rt->ar.work++;
    if (rt->ar.max_work && rt->ar.work > rt->ar.max_work) over_budget(&rt->ar);
}

void jj_buf_add(jj_rt *rt, jj_buf *b, const void *p, size_t n) {
    if (n == 0) return;
    if (n > rt->max_output || b->n > rt->max_output - n)
        jj_limit(rt, "the output is larger than %zu bytes", rt->max_output);
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
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (k < 0) jj_fail(rt, "internal error: a format the C library refuses");
    if ((size_t)k < sizeof tmp) {
        jj_buf_add(rt, b, tmp, (size_t)k);
        return;
    }
    /* longer: formatted again into a block of its size */
    if ((size_t)k > rt->max_output || b->n > rt->max_output - (size_t)k)
        jj_limit(rt, "the output is larger than %zu bytes", rt->max_output);
    char *big = jj_alloc(&rt->ar, (size_t)k + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)k + 1, fmt, ap);
    va_end(ap);
    jj_buf_add(rt, b, big, (size_t)k);
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
    jj_charge(&rt->ar, 1);
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
