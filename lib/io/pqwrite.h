/* pqwrite.h - a Parquet file of one string column, written as it streams.
 *
 * Why: exllamav2's convert.py takes its calibration text only as
 * `-c FILE.parquet` (read with pandas + fastparquet; every row's columns
 * joined with spaces, then tokenized by exllamav2 itself), so a calkit text
 * set reaches it as a Parquet file of one column. The file is the plainest
 * Parquet every reader takes: format version 1, one REQUIRED BYTE_ARRAY
 * column with the UTF8 converted type and the STRING logical type, PLAIN
 * encoding, no compression, data pages (v1) of about 1 MiB, row groups of
 * about 128 MiB; the footer's key_value_metadata holds what the caller gives
 * (calkit: the stream's metadata). Written atomically (base/outfile.h). */
#ifndef CAL_IO_PQWRITE_H
#define CAL_IO_PQWRITE_H

#include <stddef.h>

typedef struct cal_pqw cal_pqw;

/* Starts PATH ("-": standard output) with the column named column. */
cal_pqw *cal_pqw_open(const char *path, const char *column);
/* One row: the string s[0..n), which must be UTF-8 (the caller checks). */
void cal_pqw_add(cal_pqw *w, const char *s, size_t n);
/* A key_value_metadata pair of the footer (UTF-8 strings). */
void cal_pqw_meta(cal_pqw *w, const char *key, const char *value);
/* Writes the last row group and the footer, and commits the file. */
void cal_pqw_close(cal_pqw *w);
size_t cal_pqw_rows(const cal_pqw *w);

#endif
