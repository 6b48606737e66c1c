/* alloc.h - largest-remainder allocation of a total among weighted parts.
 * Used by cal-blend (-n TOTAL with weights) and cal-pack (--stratify). */
#ifndef CAL_ALLOC_H
#define CAL_ALLOC_H

#include <stddef.h>
#include <stdint.h>

/* Splits `total` into n counts proportional to w[] (w[i] >= 0, sum > 0):
 * each part gets floor(total * w[i] / sum), then the parts with the largest
 * remainders get one more until the counts sum to `total` exactly. Ties go
 * to the earlier part, so the result is the same on every machine. */
void cal_alloc_largest_remainder(uint64_t total, const double *w, size_t n, uint64_t *out);

#endif
