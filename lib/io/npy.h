/* npy.h - NumPy .npy files: write int64 arrays, read int64/int32 arrays.
 *
 * Written files are format version 1.0, little-endian '<i8' (or '<f4'), C order, with
 * the header padded by spaces to a multiple of 64 bytes - the bytes np.save
 * writes for the same array. Reading accepts versions 1.0-3.0, '<i8' and
 * '<i4', 1-D and 2-D, C order (a 1-D array of n reads as shape [n, 1]). */
#ifndef CAL_NPY_H
#define CAL_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/num.h"
#include "io/mapfile.h"
#include "stream/stream.h"

/* The header bytes for an int64 array of ndim (1 or 2) dimensions. */
void cal_npy_header_i64(cal_buf *out, int ndim, const uint64_t *shape);
/* The same for a float32 array ('<f4'; cal-select --save-features). */
void cal_npy_header_f32(cal_buf *out, int ndim, const uint64_t *shape);

typedef struct {
    int ndim;              /* 1 or 2 */
    uint64_t shape[2];     /* shape[1] is 1 for 1-D arrays */
    int elem;              /* 8 (int64) or 4 (int32) */
    const uint8_t *data;   /* shape[0] * shape[1] little-endian values */
    uint64_t data_offset;  /* byte offset of data in the file */
    cal_mapfile map;
} cal_npy;

/* Maps and checks PATH; returns 0 and fills err ("PATH: byte OFF: what")
 * on a bad file. */
int cal_npy_open(cal_npy *a, const char *path, char *err, size_t errlen);
/* Parses a file image in memory (not copied). */
int cal_npy_parse(cal_npy *a, const void *p, size_t n, const char *name, char *err, size_t errlen);
static inline int64_t cal_npy_at(const cal_npy *a, uint64_t i) {
    return a->elem == 8 ? (int64_t)cal_ld64(a->data + 8 * i) : (int64_t)(int32_t)cal_ld32(a->data + 4 * i);
}
void cal_npy_close(cal_npy *a);

#endif
