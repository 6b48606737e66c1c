/* zipstore.h - a ZIP archive of stored (uncompressed) members, as NumPy's
 * np.savez writes: the container of .npz files. Each member's size and
 * CRC-32 are given before its bytes (the caller computes them in a first
 * pass), so no data descriptors are needed. No ZIP64: an archive or member
 * of 4 GiB or more is an error naming the path. */
#ifndef CAL_ZIPSTORE_H
#define CAL_ZIPSTORE_H

#include <stdint.h>

#include "base/buf.h"
#include "base/outfile.h"

typedef struct {
    cal_file *f;
    const char *path; /* for errors */
    uint64_t off;     /* bytes written so far */
    cal_buf cd;       /* the central directory */
    unsigned n;       /* members */
} cal_zip;

void cal_zip_begin(cal_zip *z, cal_file *f, const char *path);
/* Starts member NAME of SIZE bytes with CRC-32 crc; then write exactly SIZE
 * bytes with cal_zip_write. */
void cal_zip_member(cal_zip *z, const char *name, uint32_t crc, uint64_t size);
void cal_zip_write(cal_zip *z, const void *p, size_t n);
/* Writes the central directory (the cal_file is left to commit). */
void cal_zip_end(cal_zip *z);

#endif
