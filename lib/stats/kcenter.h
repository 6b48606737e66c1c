/* kcenter.h - greedy farthest-first traversal (Gonzalez 1985): the k-center
 * choice of documents, a 2-approximation of the smallest radius that
 * covers every row with k centres.
 *
 * Why: it spreads a selection over everything the pool holds, outliers
 * included (the prototype of issue 26 found it picking mostly the rarest
 * domain), which is what a user wants when coverage, not typicality,
 * matters. The rules, for a reference to follow:
 *   the first centre is row below(n) of the generator given; every further
 *   centre is the row farthest (fmat.h's squared distance) from its nearest
 *   centre so far, the lower row on a tie, never a row already chosen;
 *   each row belongs to its nearest centre (the earlier centre on a tie). */
#ifndef CAL_STATS_KCENTER_H
#define CAL_STATS_KCENTER_H

#include <stddef.h>
#include <stdint.h>

#include "base/par.h"
#include "base/rng.h"
#include "stats/fmat.h"

/* k centres (1 <= k <= n) into centers, in the order chosen; owner[i] (n
 * entries): the centre (0 .. k-1) row i belongs to; dist2[i] (or NULL) its
 * squared distance to it. */
void cal_kcenter(const cal_fmat *X, size_t k, cal_rng *rng, cal_par *p, size_t *centers, uint32_t *owner,
                 double *dist2);

#endif
