/* parquet.h - reads the values of one BYTE_ARRAY (string) column of an
 * Apache Parquet file, row group by row group (memory: one column chunk).
 * Codecs UNCOMPRESSED, SNAPPY, GZIP, ZSTD; encodings PLAIN,
 * PLAIN_DICTIONARY/RLE_DICTIONARY, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY;
 * data pages v1 and v2; nullable columns (nulls skipped and counted).
 * Errors never exit: functions return NULL/-1 with a one-line message
 * "byte OFF: what" in err (OFF = offset in the file). */
#ifndef CAL_PARQUET_H
#define CAL_PARQUET_H

#include <stddef.h>
#include <stdint.h>

typedef struct cal_pq cal_pq;

/* From a file (read with pread) or from memory (not copied). column: name of
 * a top-level column, or a dotted path into nested groups. */
cal_pq *cal_pq_open(const char *path, const char *column, char *err, size_t errlen);
cal_pq *cal_pq_open_mem(const void *p, size_t n, const char *column, char *err, size_t errlen);
/* Next non-null value: 1 (*p,*n valid until the next call; *off = offset of
 * its page), 0 at the end, -1 on error (message in err). */
int cal_pq_next(cal_pq *q, const uint8_t **p, size_t *n, uint64_t *off, char *err, size_t errlen);
uint64_t cal_pq_rows(const cal_pq *q);   /* rows in the file (from the footer) */
uint64_t cal_pq_nulls(const cal_pq *q);  /* null values skipped so far */
void cal_pq_close(cal_pq *q);

#endif
