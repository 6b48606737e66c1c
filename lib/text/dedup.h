/* dedup.h - the set of document ids seen so far (--dedup drops a document
 * whose id, the XXH3-64 of its text, is already in it): open addressing
 * with linear probing, at most half full. */
#ifndef CAL_TEXT_DEDUP_H
#define CAL_TEXT_DEDUP_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t *slot; /* 0: empty (the id 0 is kept in has_zero) */
    size_t cap, n;
    int has_zero;
} cal_dedup;

/* Adds id; returns 1 when it was there already. */
int cal_dedup_seen(cal_dedup *s, uint64_t id);
void cal_dedup_free(cal_dedup *s);

#endif
