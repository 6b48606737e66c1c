/* imatrix_gguf.h - write llama.cpp's importance matrix in its GGUF form.
 *
 * A GGUF v3 file (little-endian) with the keys general.type = "imatrix",
 * imatrix.datasets (array of strings), imatrix.chunk_count and
 * imatrix.chunk_size (u32), and for one tensor NAME two F32 tensors:
 * NAME.in_sum2 (ne = [d, 1], the per-channel sums of x^2) and NAME.counts
 * (ne = [1, 1], the number of activation rows), as llama-imatrix writes them
 * and llama-quantize reads them (it divides in_sum2 by counts). */
#ifndef CAL_IMATRIX_GGUF_H
#define CAL_IMATRIX_GGUF_H

#include <stddef.h>
#include <stdint.h>

void cal_imatrix_write(const char *path, const char *name, const double *sumsq, size_t d,
                       double count, const char *const *datasets, size_t ndatasets,
                       uint32_t chunk_count, uint32_t chunk_size);

#endif
