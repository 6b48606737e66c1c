/* segments.c - see segments.h. */
#include "rows/segments.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/hash.h"
#include "base/num.h"

int cal_segments_rows(const cal_docstore *s, const cal_segments_opts *o, cal_row_sink sink, void *ctx,
                      cal_drops *drops, char *err, size_t errlen) {
    /* EXL2 first cuts its stream to whole rows, then into segments */
    uint64_t usable = o->whole_rows ? s->all.n / o->len * o->len : s->all.n;
    uint64_t nseg = usable / o->seg, per = (o->len + o->seg - 1) / o->seg;
    char why[80];
    snprintf(why, sizeof why, "as the partial last %s (--segments %llu)", o->whole_rows ? "row" : "segment",
             (unsigned long long)o->seg);
    cal_drops_add(drops, why, 0, s->all.n - nseg * o->seg);
    if (o->rows && nseg < per) {
        snprintf(err, errlen, "%zu tokens make %llu segments of %llu; a row of %llu needs %llu (0 rows possible)",
                 s->all.n, (unsigned long long)nseg, (unsigned long long)o->seg, (unsigned long long)o->len,
                 (unsigned long long)per);
        return -1;
    }
    if (o->no_replace && nseg < o->rows * per) {
        snprintf(err, errlen,
                 "%zu tokens make %llu segments of %llu; %llu rows of %llu need %llu without replacement "
                 "(%llu rows possible)",
                 s->all.n, (unsigned long long)nseg, (unsigned long long)o->seg, (unsigned long long)o->rows,
                 (unsigned long long)o->len, (unsigned long long)(o->rows * per), (unsigned long long)(nseg / per));
        return -1;
    }
    cal_anyrng rng;
    cal_anyrng_init(&rng, o->kind, o->seed, "segments");
    uint64_t *perm = NULL;
    if (o->no_replace) {
        perm = cal_xmalloc(nseg * sizeof *perm);
        for (uint64_t i = 0; i < nseg; i++) perm[i] = i;
    }
    uint32_t *row = cal_xmalloc(o->len * 4);
    uint8_t *picked = cal_xmalloc(per * 8), b[8];
    cal_st64(b, o->seed);
    uint64_t seed_hash = cal_hash(b, 8), first = 0, used = 0;
    for (uint64_t r = 0; r < o->rows; r++) {
        for (uint64_t k = 0; k < per; k++) {
            uint64_t g;
            if (o->no_replace) { /* partial Fisher-Yates over all segments */
                uint64_t j = used + cal_anyrng_below(&rng, nseg - used);
                g = perm[j];
                perm[j] = perm[used];
                perm[used++] = g;
            } else {
                g = cal_anyrng_below(&rng, nseg);
            }
            cal_st64(picked + 8 * k, g);
            if (k == 0) first = g;
            uint64_t at = k * o->seg, n = o->seg < o->len - at ? o->seg : o->len - at;
            memcpy(row + at, s->all.v + g * o->seg, n * 4);
        }
        size_t d = cal_docstore_at(s, first * o->seg);
        cal_row_out out = {row, NULL, (uint32_t)o->len, 0, cal_docstore_label(s, d),
                           cal_hash_seed(picked, per * 8, seed_hash ^ s->docs[d].id), NULL};
        sink(ctx, &out);
    }
    free(perm), free(row), free(picked);
    return 0;
}
