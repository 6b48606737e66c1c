/* shuffle.c - see shuffle.h. */
#include "rows/shuffle.h"

#include <stdlib.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/hash.h"
#include "base/num.h"
#include "base/rng.h"

uint64_t cal_shuffle_key(uint64_t v, uint64_t seed) {
    uint8_t b[8];
    cal_st64(b, v);
    return cal_hash_seed(b, 8, seed);
}

struct cal_window_shuffle {
    cal_rng rng;
    cal_buf *slot;
    size_t w, have;
    cal_bytes_sink sink;
    void *ctx;
};

cal_window_shuffle *cal_window_shuffle_new(uint64_t w, uint64_t seed, cal_bytes_sink sink, void *ctx) {
    cal_window_shuffle *s = cal_xcalloc(1, sizeof *s);
    cal_rng_init2(&s->rng, seed, "window");
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
        j = (size_t)cal_rng_below(&s->rng, s->w);
        s->sink(s->ctx, s->slot[j].p, s->slot[j].n);
    }
    s->slot[j].n = 0;
    cal_buf_add(&s->slot[j], p, n);
}

void cal_window_shuffle_end(cal_window_shuffle *s) {
    while (s->have) {
        size_t j = (size_t)cal_rng_below(&s->rng, s->have);
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
