/* dedup.c - see dedup.h. */
#include "text/dedup.h"

#include <stdlib.h>

#include "base/err.h"

/* The home slot: the top bits of id times 2^64/phi, so ids that differ
 * only in some bits (any bits) still spread over the table. */
static size_t home(uint64_t id, size_t cap) {
    int bits = 0;
    while (((size_t)1 << bits) < cap) bits++;
    return (size_t)((id * 0x9E3779B97F4A7C15ull) >> (64 - bits));
}

static void put(uint64_t *t, size_t cap, uint64_t id) {
    size_t j = home(id, cap);
    while (t[j]) j = (j + 1) & (cap - 1);
    t[j] = id;
}

int cal_dedup_seen(cal_dedup *s, uint64_t id) {
    if (id == 0) {
        int was = s->has_zero;
        s->has_zero = 1;
        return was;
    }
    if (2 * (s->n + 1) > s->cap) { /* at most half full */
        size_t nc = s->cap ? 2 * s->cap : 1024;
        uint64_t *nt = cal_xcalloc(nc, sizeof *nt);
        for (size_t i = 0; i < s->cap; i++)
            if (s->slot[i]) put(nt, nc, s->slot[i]);
        free(s->slot);
        s->slot = nt, s->cap = nc;
    }
    size_t j = home(id, s->cap);
    for (; s->slot[j]; j = (j + 1) & (s->cap - 1))
        if (s->slot[j] == id) return 1;
    s->slot[j] = id;
    s->n++;
    return 0;
}

void cal_dedup_free(cal_dedup *s) {
    free(s->slot);
    *s = (cal_dedup){0};
}
