/* drops.h - what a filter left out of its output, and why.
 *
 * Every filter that drops documents or tokens (a length filter, the
 * remainder of a stream too short for one more row, a truncation) counts
 * them here under the option that made it drop them, and reports the counts
 * on standard error in one line whenever any is nonzero, with or without
 * -v: nothing is lost without a word.
 *
 *     cal_drops d = {0};
 *     cal_drops_add(&d, "by --max-tokens 512", 1, 900);  // documents, tokens
 *     cal_drops_add(&d, "as the last partial row (--tail drop)", 0, 27);
 *     cal_drops_report(&d, NULL); // "cal-pack: 1 documents dropped by
 *                            //  --max-tokens 512 (900 tokens), 27 tokens
 *                            //  dropped as the last partial row (--tail drop)" */
#ifndef CAL_ROWS_DROPS_H
#define CAL_ROWS_DROPS_H

#include <stdint.h>

#include "base/buf.h"

#define CAL_DROPS_MAX 8

typedef struct {
    char why[96];
    int whole;     /* whole documents were dropped (else only tokens) */
    uint64_t docs, tokens;
} cal_drop;

typedef struct {
    cal_drop v[CAL_DROPS_MAX];
    size_t n;
} cal_drops;

/* The index of reason `why` ("by --min-tokens 5": what follows "dropped"),
 * added when new. Reasons are reported in the order they were added. */
size_t cal_drops_reason(cal_drops *d, const char *why);
/* Counts docs whole documents holding `tokens` tokens (docs = 0: tokens cut
 * from documents that were kept) under reason i; counts add up. */
void cal_drops_count(cal_drops *d, size_t i, uint64_t docs, uint64_t tokens);
/* cal_drops_count(d, cal_drops_reason(d, why), docs, tokens) */
void cal_drops_add(cal_drops *d, const char *why, uint64_t docs, uint64_t tokens);
uint64_t cal_drops_docs(const cal_drops *d);
uint64_t cal_drops_tokens(const cal_drops *d);
/* Appends "N documents dropped WHY (T tokens), T tokens dropped WHY" for
 * every nonzero reason, joined by ", "; appends nothing when none is. */
void cal_drops_format(const cal_drops *d, cal_buf *out);
/* One line on standard error: "PROG: SUMMARY; <format>", where SUMMARY
 * (-v's summary, or NULL) and the drops each appear when not empty; no line
 * when both are. */
void cal_drops_report(const cal_drops *d, const char *summary);

#endif
