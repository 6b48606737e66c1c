/* alloc.h - largest-remainder allocation of a total among weighted parts.
 * Used by cal-blend (-n TOTAL with weights), cal-pack (--stratify) and
 * cal-select (representatives per cluster). */
#ifndef CAL_ALLOC_H
#define CAL_ALLOC_H

#include <stddef.h>
#include <stdint.h>

/* Splits `total` into n counts proportional to w[] (w[i] >= 0, sum > 0):
 * each part gets floor(total * w[i] / sum), then the parts with the largest
 * remainders get one more until the counts sum to `total` exactly. Ties go
 * to the earlier part, so the result is the same on every machine. */
void cal_alloc_largest_remainder(uint64_t total, const double *w, size_t n, uint64_t *out);

/* The same with a cap per part (cal-select: representatives per cluster, at
 * most the cluster's size): parts whose share exceeds their cap get the cap,
 * and the rest of the total is shared again among the others by the same
 * rule, until no share exceeds its cap. Needs sum(cap) >= total; parts of
 * weight 0 get nothing unless the others cannot take the total, then the
 * rest is shared equally among the parts with room. */
void cal_alloc_capped(uint64_t total, const double *w, const uint64_t *cap, size_t n, uint64_t *out);

#endif
