/* like.h - choose rows of a pool whose distribution matches a target sample:
 * greedy minimisation of the maximum mean discrepancy (kernel herding).
 *
 * Why this method: a user with a sample of their own traffic (production
 * prompts) wants calibration documents distributed like it, not the few
 * nearest to its mean. MMD with a Gaussian kernel compares whole
 * distributions (every moment), and its greedy minimisation spreads the
 * choice over the target's modes in proportion to their mass (Chen, Welling
 * and Smola 2010, "Super-samples from kernel herding"; Kim et al. 2016,
 * "MMD-critic"). The rules, for a reference to follow:
 *   k(x, y) = exp(-d2(x, y) / h), d2 fmat.h's squared distance; h = the
 *   median of d2 over the pairs (a < b) of the target's first min(m, 1000)
 *   rows (1 when that median is 0).
 *   mu(x) = (1/m) sum over target rows t of k(x, t).
 *   Step j = 0, 1, ... chooses the pool row x not yet chosen that maximises
 *   (j + 1) mu(x) - sum over chosen s of k(x, s) (the lower row on a tie):
 *   the row whose addition lowers MMD^2(chosen, target) the most. */
#ifndef CAL_STATS_LIKE_H
#define CAL_STATS_LIKE_H

#include <stddef.h>
#include <stdint.h>

#include "base/par.h"
#include "stats/fmat.h"

typedef struct {
    double h;        /* the bandwidth used */
    double mmd2;     /* MMD^2(chosen, target) without the target's own term */
    double mmd2_tt;  /* the target's own term (1/m^2) sum k(t, t'), when m <= 4096; else NAN */
} cal_like_info;

/* k rows (1 <= k <= pool rows) of X toward target T (same width) into
 * chosen, in the order chosen. */
void cal_like(const cal_fmat *X, const cal_fmat *T, size_t k, cal_par *p, size_t *chosen, cal_like_info *info);

/* The bandwidth rule above, alone (for references and -v). */
double cal_like_bandwidth(const cal_fmat *T);

#endif
