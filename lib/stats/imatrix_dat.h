/* imatrix_dat.h - llama.cpp's legacy importance matrix file (.dat), which
 * llama-imatrix --output-format dat still writes and llama-quantize and
 * llama-imatrix --in-file still read (common/imatrix-loader.cpp and
 * tools/imatrix/imatrix.cpp save_imatrix_legacy at llama.cpp 80fb11a), so
 * that cal-hessian --merge takes such files instead of misreading them as
 * safetensors, and --imatrix FILE.dat writes one.
 *
 * Layout, little-endian: i32 entries; per entry (names in byte order)
 * i32 name length, the name, i32 ncall, i32 nval, nval f32 values; then,
 * optional, i32 chunk count, i32 length and the dataset name. A value is
 * the mean square of its channel times ncall (sum / count * ncall, ncall =
 * ceil(largest count / chunk size)), so the file keeps the means, not the
 * counts: reading multiplies back by a chunk size, as llama-imatrix does
 * with its own -c (512 unless given). */
#ifndef CAL_STATS_IMATRIX_DAT_H
#define CAL_STATS_IMATRIX_DAT_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "stats/imatrix.h"

/* llama-imatrix's default -c: the chunk size a .dat is read back with. */
#define CAL_IMATRIX_DAT_CHUNK 512

/* Whether the file at path is a legacy .dat: its name ends in .dat, or it
 * starts as one (entries >= 1, a name of printable ASCII) and so is no
 * safetensors file (whose first 8 bytes, a header length, would point past
 * the end). */
int cal_imatrix_dat_sniff(const char *path);
/* Adds the entries of a .dat file of n bytes at p (named name in errors):
 * in_sum2 = value * chunk, counts = ncall * chunk, one matrix per entry, no
 * in_sum; its chunk count and dataset. Returns 0 with "NAME: byte OFF:
 * what" in err on a file that is not one: no entries, a length past the
 * end, a name of 0 or more than CAL_IMATRIX_MAX_NAME bytes, a negative
 * ncall, nval < 1, a value that is NaN, infinite or negative, or bytes left
 * after the trailer. */
int cal_imatrix_add_dat(cal_imatrix *m, const uint8_t *p, size_t n, const char *name, uint32_t chunk, char *err,
                        size_t errlen);
/* The same for the file at path (mapped; "PATH: why" in err when it cannot
 * be read). */
int cal_imatrix_add_dat_file(cal_imatrix *m, const char *path, uint32_t chunk, char *err, size_t errlen);
/* The .dat file of m, as save_imatrix_legacy writes it: entries whose
 * counts are all 0 left out, a matrix with count 0 stored as 1, the chunk
 * size that of the GGUF form (largest count / chunk count), the last
 * dataset. */
void cal_imatrix_serialize_dat(const cal_imatrix *m, cal_buf *out);

#endif
