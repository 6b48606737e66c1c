/* imatrix_stats.h - the per-tensor statistics of an importance matrix that
 * llama-imatrix --show-statistics prints (tools/imatrix/imatrix.cpp
 * compute_statistics, compute_cossim and show_statistics at llama.cpp
 * 80fb11a, written anew), so that a user can see which tensors a
 * calibration set exercises without building llama.cpp.
 *
 * Per tensor, over its mean squared activations a_j = in_sum2_j / count
 * (matrices with count 0 left out): the sum, min, max, mean and standard
 * deviation of a; the share of a_j > 1e-5 (% Active); N; the entropy of
 * a / sum(a) in bits and as a share of log2 N; the share of z-scores above
 * 1 (ZD); the cosine similarity of the raw sums with the same tensor of the
 * previous block. Then per block the averages of the sum, ZD and CosSim
 * weighted by N. Rows sorted by the tensor's short name (attn_q, ...), then
 * by the sum, largest first; arithmetic in float, in llama.cpp's order, so
 * the printed digits agree. */
#ifndef CAL_STATS_IMATRIX_STATS_H
#define CAL_STATS_IMATRIX_STATS_H

#include <stdio.h>

#include "stats/imatrix.h"

/* Prints the tables for m (read from file name) to out in llama-imatrix's
 * layout. Returns the number of tensors shown (0: none has data). */
size_t cal_imatrix_statistics(const cal_imatrix *m, const char *name, FILE *out);

#endif
