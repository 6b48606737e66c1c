/* imatrix.h - llama.cpp's importance matrix: per-weight sums of the inputs'
 * squares (and values) with their counts, written and merged as
 * llama-imatrix does.
 *
 * An entry is one weight (blk.0.attn_q.weight) with nmat matrices of d
 * input channels: nmat is 1 for a dense weight and the number of experts
 * for a 3-D expert weight (blk.0.ffn_up_exps.weight). It holds
 *   in_sum2[m*d + j]  sum of x_j^2 over the rows that fed matrix m
 *   in_sum[m*d + j]   sum of x_j (NULL once an input lacked it)
 *   counts[m]         the number of those rows
 * All are exact sums (float64 here, f32 in the file); llama-quantize divides
 * in_sum2 by counts.
 *
 * The file (GGUF, see io/gguf.h) is what current llama-imatrix writes: the
 * keys general.type = "imatrix", imatrix.datasets (strings),
 * imatrix.chunk_count and imatrix.chunk_size (u32); per entry, in byte order
 * of the names, the F32 tensors NAME.in_sum2 [d] (or [d, nmat]),
 * NAME.counts [1] (or [1, nmat]) and NAME.in_sum like in_sum2.
 * Merging adds the sums and counts, as llama-imatrix --in-file does
 * (a single count is broadcast over the experts of an older file). */
#ifndef CAL_STATS_IMATRIX_H
#define CAL_STATS_IMATRIX_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "io/gguf.h"
#include "stream/stream.h"

typedef struct {
    char *name;
    size_t d, nmat;
    double *in_sum2, *in_sum; /* nmat * d */
    uint64_t *counts;         /* nmat */
} cal_imatrix_entry;

typedef struct {
    cal_imatrix_entry *e;
    size_t n, cap;
    char **datasets;
    size_t ndatasets;
    uint64_t chunk_count; /* chunks (calkit: rows) of every input */
} cal_imatrix;

/* Longest weight name whose tensors fit ggml's names ("NAME.in_sum2"). */
#define CAL_IMATRIX_MAX_NAME (CAL_GGUF_MAX_NAME - 1 - 8)

/* Adds one weight's sums (in_sum may be NULL: the entry then has none).
 * Returns 0 with the reason in err when the entry exists with another d or
 * number of matrices. */
int cal_imatrix_add(cal_imatrix *m, const char *name, size_t d, size_t nmat, const double *in_sum2,
                    const double *in_sum, const uint64_t *counts, char *err, size_t errlen);
/* Adds every entry of a GGUF imatrix (llama-imatrix's or calkit's), its
 * datasets and chunk count. Returns 0 with "FILE: byte OFF: what" in err on
 * a file that is not an imatrix: a wrong general.type or key type, a missing
 * in_sum2/counts partner, a tensor that is not F32 or has the wrong shape,
 * and values no writer makes: NaN or Inf, a negative sum of squares, a
 * count that is negative or not a whole number. */
int cal_imatrix_add_gguf(cal_imatrix *m, const cal_gguf_file *f, char *err, size_t errlen);
void cal_imatrix_add_dataset(cal_imatrix *m, const char *name);
/* The datasets of a stream with metadata meta (NULL: none), as
 * llama-imatrix names its text file: the names of its input lines
 * (input=<fingerprint> <bytes> <name>, cal-read's, each name once), else
 * its cal-read stage lines as run (cal-read wiki -n 40); returns how many
 * were added (0: the caller names the files read, or stdin). So a set piped
 * from a named source is not "stdin" in llama-quantize's model metadata. */
size_t cal_imatrix_add_sources(cal_imatrix *m, const cal_meta *meta);
/* The GGUF file; imatrix.chunk_size is the largest count per chunk. */
void cal_imatrix_serialize(const cal_imatrix *m, cal_buf *out);
void cal_imatrix_free(cal_imatrix *m);

#endif
