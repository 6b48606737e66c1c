/* collect.h - Hessians and statistics from cal-streams (man/cal-hessian.1).
 *
 * VECTORS records are added as they are; TOKENS and ROW records become rows
 * of an embedding table (stats/embed.h), padding and noise rows left out and
 * counted. By default every record feeds one accumulator; with by_label each
 * VECTORS record feeds the accumulator of its label (the weight its rows are
 * the inputs of), created when the label first appears.
 *
 *     cal_collect *c = cal_collect_new(&opts);
 *     cal_collect_read(c, "a.cal"); cal_collect_read(c, "-");
 *     cal_collect_finish(c, &result);   // entries in order of first appearance
 *     cal_collect_free(c);
 * Errors in the input end the program with the file and byte offset. */
#ifndef CAL_STATS_COLLECT_H
#define CAL_STATS_COLLECT_H

#include <stddef.h>
#include <stdint.h>

#include "stats/result.h"

typedef struct {
    size_t block;            /* rows per BLAS block (0: default; 256 with by_label) */
    int threads;             /* workers per accumulator (0: one per CPU) */
    int skip_nonfinite;      /* skip and count vectors holding NaN or Inf */
    int per_position;        /* embeddings: one update per position */
    int by_label;            /* one accumulator per VECTORS label */
    int sketch;              /* percentile sketches and min/max (stats/sketch.h) */
    const char *embed;       /* MODEL[:TENSOR] for TOKENS/ROW input, or NULL */
    const char *rmsnorm;     /* RMSNorm weight applied to embedding rows, or NULL */
    double eps;
    int progress;            /* progress on standard error */
} cal_collect_opts;

typedef struct cal_collect cal_collect;

cal_collect *cal_collect_new(const cal_collect_opts *o);
/* Reads one stream to its end ("-": standard input). The metadata of the
 * streams is merged (cal_meta_merge). */
void cal_collect_read(cal_collect *c, const char *path);
/* Completes every accumulator and moves it into r (with the metadata and,
 * with an embedding, hessian_input). Dies when no vector was read. */
void cal_collect_finish(cal_collect *c, cal_result *r);
/* Worker threads of an accumulator; the embedding tensor used (or NULL). */
int cal_collect_threads(const cal_collect *c);
/* The shards every input met (stream/shards.h), for the caller to check. */
struct cal_shards *cal_collect_shards(cal_collect *c);
void cal_collect_free(cal_collect *c);

#endif
