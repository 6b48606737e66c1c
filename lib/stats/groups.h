/* groups.h - which of psyrk's tiles may share one BLAS call, and a check
 * that this BLAS gives the same bits when they do (psyrk.h: Groups).
 *
 * A group is a run of off-diagonal tiles of one block and lane added in one
 * call: neighbours in a column of C (BLAS view) in even lanes, in a row in
 * odd lanes, which keep their tiles transposed. Either way the call grows
 * along its first dimension (M). */
#ifndef CAL_STATS_GROUPS_H
#define CAL_STATS_GROUPS_H

#include <stddef.h>
#include <stdint.h>

#include "stats/psyrk.h"

#define CAL_GROUP_NONE SIZE_MAX

/* For each of the n tiles t, the tile a group of an even (odd = 0) or odd
 * lane may join before it (prev) and after it (next) in memory, or
 * CAL_GROUP_NONE. */
void cal_group_neighbours(const cal_psyrk_tile *t, size_t n, int odd, size_t *prev, size_t *next);

/* A tile's extent along a group: rows in even lanes, columns in odd. */
static inline size_t cal_group_extent(const cal_psyrk_tile *t, int odd) { return odd ? t->nj : t->ni; }

/* The longest run of neighbours in prev and next (of one parity): its
 * length (1 where no tile has a neighbour), and its first tile in *first
 * (CAL_GROUP_NONE where none). */
size_t cal_group_longest(const size_t *prev, const size_t *next, size_t n, size_t *first);

/* Doubles of scratch cal_groups_exact needs for width d. */
size_t cal_groups_scratch(size_t d);

/* Whether the BLAS in use adds each element the same in a group as in its
 * tile's own call, tried on the longest group of each kind (prev and next
 * for even [0] and odd [1] lanes). Single-threaded BLAS calls. */
int cal_groups_exact(const cal_psyrk_tile *t, size_t *const prev[2], size_t *const next[2], size_t ntiles,
                     double *scratch);

#endif
