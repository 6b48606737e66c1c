/* shuffle.c - see shuffle.h. */
#include "rows/shuffle.h"

#include <stdlib.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/hash.h"
#include "base/num.h"

uint64_t cal_shuffle_key(uint64_t v, uint64_t seed) {
    uint8_t b[8];
    cal_st64(b, v);
    return cal_hash_seed(b, 8, seed);
}

struct cal_window_shuffle {
    cal_anyrng rng;
    cal_buf *slot;
    size_t w, have;
    cal_bytes_sink sink;
    void *ctx;
};

cal_window_shuffle *cal_window_shuffle_new(uint64_t w, cal_rng_kind kind, uint64_t seed, cal_bytes_sink sink,
                                           void *ctx) {
    cal_window_shuffle *s = cal_xcalloc(1, sizeof *s);
    cal_anyrng_init(&s->rng, kind, seed, "window");
    s->w = (size_t)w;
    s->slot = cal_xcalloc(s->w, sizeof *s->slot);
    s->sink = sink;
    s->ctx = ctx;
    return s;
}

void cal_window_shuffle_add(cal_window_shuffle *s, const void *p, size_t n) {
    size_t j = s->have;
    if (s->have < s->w) {
        s->have++;
    } else {
        j = (size_t)cal_anyrng_below(&s->rng, s->w);
        s->sink(s->ctx, s->slot[j].p, s->slot[j].n);
    }
    s->slot[j].n = 0;
    cal_buf_add(&s->slot[j], p, n);
}

void cal_window_shuffle_end(cal_window_shuffle *s) {
    while (s->have) {
        size_t j = (size_t)cal_anyrng_below(&s->rng, s->have);
        s->sink(s->ctx, s->slot[j].p, s->slot[j].n);
        cal_buf t = s->slot[j];
        s->slot[j] = s->slot[--s->have];
        s->slot[s->have] = t;
    }
}

void cal_window_shuffle_free(cal_window_shuffle *s) {
    if (!s) return;
    for (size_t i = 0; i < s->w; i++) cal_buf_free(&s->slot[i]);
    free(s->slot);
    free(s);
}

struct cal_perm_shuffle {
    cal_buf bytes;     /* every record, back to back */
    size_t *off, n, cap;
};

cal_perm_shuffle *cal_perm_shuffle_new(void) { return cal_xcalloc(1, sizeof(cal_perm_shuffle)); }

void cal_perm_shuffle_add(cal_perm_shuffle *s, const void *p, size_t n) {
    if (s->n + 2 > s->cap) {
        s->cap = s->cap ? 2 * s->cap : 1024;
        s->off = cal_xrealloc(s->off, s->cap * sizeof *s->off);
    }
    s->off[s->n++] = s->bytes.n;
    cal_buf_add(&s->bytes, p, n);
}

void cal_perm_shuffle_end(cal_perm_shuffle *s, cal_rng_kind kind, uint64_t seed, cal_bytes_sink sink, void *ctx) {
    cal_anyrng r;
    cal_anyrng_init(&r, kind, seed, "shuffle");
    uint64_t *perm = cal_xmalloc((s->n ? s->n : 1) * sizeof *perm);
    cal_anyrng_permutation(&r, s->n, perm);
    if (s->off) s->off[s->n] = s->bytes.n;
    for (size_t i = 0; i < s->n; i++) {
        size_t k = (size_t)perm[i];
        sink(ctx, s->bytes.p + s->off[k], s->off[k + 1] - s->off[k]);
    }
    free(perm);
}

void cal_perm_shuffle_free(cal_perm_shuffle *s) {
    if (!s) return;
    cal_buf_free(&s->bytes);
    free(s->off);
    free(s);
}
