/* buf.c - growable byte buffers and id arrays. */
#include "base/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"

void cal_ids_reserve(cal_ids *a, size_t cap) {
    if (cap <= a->cap) return;
    size_t c = a->cap ? a->cap : 64;
    while (c < cap) c *= 2;
    a->v = cal_xrealloc(a->v, c * sizeof *a->v);
    a->cap = c;
}

void cal_ids_push(cal_ids *a, uint32_t x) {
    if (a->n == a->cap) cal_ids_reserve(a, a->n + 1);
    a->v[a->n++] = x;
}

void cal_ids_free(cal_ids *a) {
    free(a->v);
    a->v = NULL;
    a->n = a->cap = 0;
}

void cal_buf_reserve(cal_buf *b, size_t cap) {
    if (cap <= b->cap) return;
    size_t c = b->cap ? b->cap : 256;
    while (c < cap) c *= 2;
    b->p = cal_xrealloc(b->p, c);
    b->cap = c;
}

void cal_buf_add(cal_buf *b, const void *p, size_t n) {
    cal_buf_reserve(b, b->n + n + 1);
    if (n) memcpy(b->p + b->n, p, n);
    b->n += n;
    b->p[b->n] = 0;
}

void cal_buf_addc(cal_buf *b, char c) { cal_buf_add(b, &c, 1); }

void cal_buf_addf(cal_buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (k < 0) return;
    cal_buf_reserve(b, b->n + (size_t)k + 1);
    va_start(ap, fmt);
    vsnprintf(b->p + b->n, (size_t)k + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)k;
}

void cal_buf_free(cal_buf *b) {
    free(b->p);
    b->p = NULL;
    b->n = b->cap = 0;
}

