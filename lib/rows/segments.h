/* segments.h - EXL2's shuffled rows: the token stream cut into K-token
 * segments, each row made of ceil(LENGTH/K) segments drawn uniformly (with
 * or without replacement), the last one cut to fit. With kind python and
 * seed 69420 the draws are exllamav2's random.randint(0, segments - 1).
 *
 * A row's label is that of the document its first segment starts in; its id
 * is XXH3-64 of the drawn segment numbers (64-bit little-endian each), with
 * XXH3-64(seed) ^ that document's id as the seed. */
#ifndef CAL_ROWS_SEGMENTS_H
#define CAL_ROWS_SEGMENTS_H

#include <stddef.h>
#include <stdint.h>

#include "base/anyrng.h"
#include "rows/docstore.h"
#include "stream/drops.h"
#include "rows/sink.h"

typedef struct {
    uint64_t seg;    /* K: segment length in tokens */
    uint64_t rows;   /* rows to make */
    uint64_t len;    /* row length in tokens */
    int no_replace;  /* draw each segment at most once */
    uint64_t seed;
    int whole_rows;  /* segments only from the first floor(T/len)*len tokens (EXL2) */
    cal_rng_kind kind; /* whose generator draws: segment = below(number of segments) */
} cal_segments_opts;

/* Makes o->rows rows from the documents of s; the tokens after the last
 * whole segment are counted in drops. 0, or -1 with a one-line message in
 * err when the stream has too few segments: fewer than one row takes, or
 * without replacement fewer than all rows take. */
int cal_segments_rows(const cal_docstore *s, const cal_segments_opts *o, cal_row_sink sink, void *ctx,
                      cal_drops *drops, char *err, size_t errlen);

#endif
