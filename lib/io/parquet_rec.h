/* parquet_rec.h - rows of a Parquet file as JSON objects, for columns that
 * are not plain strings: lists and structs (e.g. Hugging Face chat data,
 * `messages: list<struct<role: string, content: string>>`, or list<string>).
 * Each leaf column is read as its level entries (io/parquet.h) and the rows
 * are put together again from the repetition and definition levels (the
 * Dremel record assembly): a struct is an object, a LIST-annotated group or a
 * repeated field an array, a null (at any depth) JSON null. Leaves must be
 * strings (BYTE_ARRAY). Errors never exit: -1/NULL with a one-line
 * "byte OFF: what" in err. */
#ifndef CAL_PARQUET_REC_H
#define CAL_PARQUET_REC_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

typedef struct cal_pqrec cal_pqrec;

/* What the dotted path names in the file's schema: */
enum {
    CAL_PQ_NONE,   /* nothing (no such column) */
    CAL_PQ_STRING, /* a string leaf outside any list: read it with cal_pq_open */
    CAL_PQ_OTHER   /* a group, a list, or a leaf inside a list: read rows */
};
/* The kind of `path` in the file, or -1 (message in err) when the file
 * cannot be opened. */
int cal_pqrec_kind(const char *file, const char *path, char *err, size_t errlen);

/* Opens the top-level columns cols[0..ncols) of the file (each once). */
cal_pqrec *cal_pqrec_open(const char *file, const char *const *cols, size_t ncols, char *err, size_t errlen);
/* The same over the bytes of a file in memory (not copied). */
cal_pqrec *cal_pqrec_open_mem(const void *p, size_t n, const char *const *cols, size_t ncols, char *err,
                              size_t errlen);
/* The next row: 1 with *row an object of the opened columns (owned by the
 * reader, valid until the next call) and *off the offset of its first page,
 * 0 at the end, -1 on error. */
int cal_pqrec_next(cal_pqrec *r, json_t **row, uint64_t *off, char *err, size_t errlen);
/* The number of rows returned so far (the current row is number rows - 1). */
uint64_t cal_pqrec_rows(const cal_pqrec *r);
void cal_pqrec_close(cal_pqrec *r);

#endif
