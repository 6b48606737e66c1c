/* parquet.h - reads the values of one BYTE_ARRAY (string) column of an
 * Apache Parquet file, row group by row group (memory: one column chunk).
 * Codecs UNCOMPRESSED, SNAPPY, GZIP, ZSTD; encodings PLAIN,
 * PLAIN_DICTIONARY/RLE_DICTIONARY, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY;
 * data pages v1 and v2; nullable columns (nulls skipped and counted).
 * Columns inside lists and structs are read as their level entries (the
 * Dremel repetition and definition levels, cal_pq_level_next), which
 * io/parquet_rec.h assembles into records; the schema is cal_pq_schema.
 * Errors never exit: functions return NULL/-1 with a one-line message
 * "byte OFF: what" in err (OFF = offset in the file). */
#ifndef CAL_PARQUET_H
#define CAL_PARQUET_H

#include <stddef.h>
#include <stdint.h>

typedef struct cal_pq cal_pq;

/* From a file (read with pread) or from memory (not copied). column: name of
 * a top-level column, or a dotted path into nested groups, of a leaf (its
 * values are read); NULL opens the footer only (the schema). */
cal_pq *cal_pq_open(const char *path, const char *column, char *err, size_t errlen);
cal_pq *cal_pq_open_mem(const void *p, size_t n, const char *column, char *err, size_t errlen);
/* Next non-null value of a column that is not repeated: 1 (*p,*n valid until the next call; *off = offset of
 * its page), 0 at the end, -1 on error (message in err). */
int cal_pq_next(cal_pq *q, const uint8_t **p, size_t *n, uint64_t *off, char *err, size_t errlen);
uint64_t cal_pq_rows(const cal_pq *q);   /* rows in the file (from the footer) */
uint64_t cal_pq_nulls(const cal_pq *q);  /* null values skipped so far */
void cal_pq_close(cal_pq *q);

/* One level entry of a leaf column: the repetition level (0: a new row
 * starts), the definition level and, when def is the column's maximum, the
 * value (p valid until the next call; else p is NULL). */
typedef struct {
    int rep, def;
    const uint8_t *p;
    size_t n;
    uint64_t off; /* of its page */
} cal_pq_level;
/* Next level entry: 1, 0 at the end, -1 on error (a level above its
 * maximum, a row group that starts inside a row, ...: message in err). */
int cal_pq_level_next(cal_pq *q, cal_pq_level *lv, char *err, size_t errlen);
int cal_pq_max_def(const cal_pq *q);
int cal_pq_max_rep(const cal_pq *q);
size_t cal_pq_row_groups(const cal_pq *q);

/* A schema element. name is not NUL-terminated (name_len bytes). */
typedef struct {
    const char *name;
    size_t name_len;
    int type;     /* physical type of a leaf (6: BYTE_ARRAY), -1 for a group */
    int rep;      /* 0 REQUIRED, 1 OPTIONAL, 2 REPEATED */
    int children; /* of a group */
    int list, map; /* annotated LIST / MAP (converted or logical type) */
} cal_pq_node;
/* The schema in the file's order (preorder; element 0 is the root); valid
 * until cal_pq_close. */
const cal_pq_node *cal_pq_schema(const cal_pq *q, size_t *n);

#endif
