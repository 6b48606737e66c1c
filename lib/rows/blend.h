/* blend.h - cal-blend's mix: which records each source gives and in what
 * order.
 *
 * A SPEC is FILE[:rows=N|:weight=W][:label=NAME], its options read from the
 * right so that FILE may contain ':'. With -n TOTAL, the records not fixed
 * by rows= are split among the other sources by weight (default 1) with
 * largest-remainder rounding (alloc.h), so the counts sum to TOTAL exactly.
 * The interleave schedule draws, at each step, a source with probability
 * proportional to what it still owes: a uniformly random order of the
 * multiset of source slots, fixed by the seed. */
#ifndef CAL_ROWS_BLEND_H
#define CAL_ROWS_BLEND_H

#include <stddef.h>
#include <stdint.h>

#include "base/anyrng.h"

#define CAL_BLEND_ALL UINT64_MAX /* want: every record of the source */

typedef struct {
    const char *spec; /* as given */
    char *path;       /* FILE */
    char *label;      /* label=NAME, or NULL */
    int64_t rows;     /* rows=N, or -1 */
    double weight;    /* weight=W, or -1 */
    uint64_t want;    /* set by cal_blend_allocate */
} cal_blend_spec;

/* Parses spec into s; a bad SPEC is a usage error (exit 2) naming it. */
void cal_blend_parse(cal_blend_spec *s, const char *spec);
void cal_blend_spec_free(cal_blend_spec *s);
/* Sets every spec's want: rows=, else its share of total (have_total), else
 * with grouped CAL_BLEND_ALL. 0, or -1 with a usage message in err. */
int cal_blend_allocate(cal_blend_spec *s, size_t n, int have_total, uint64_t total, int grouped, char *err,
                       size_t errlen);

typedef struct {
    cal_anyrng rng;
    uint64_t *left, rem;
    size_t n;
} cal_blend_schedule;

/* The schedule draws below(records still owed) at each step from a generator
 * of kind `kind` (base/anyrng.h) seeded with seed. */
void cal_blend_schedule_init(cal_blend_schedule *s, const uint64_t *counts, size_t n, cal_rng_kind kind,
                             uint64_t seed);
/* The source of the next record, or -1 when every count is spent. */
long cal_blend_schedule_next(cal_blend_schedule *s);
void cal_blend_schedule_free(cal_blend_schedule *s);

#endif
