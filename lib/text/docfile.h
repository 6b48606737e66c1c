/* docfile.h - the documents of one file, whatever its format: the format
 * told from the name and first bytes (text/format.h) unless given, then
 * plain-text layouts (text/split.h), JSON Lines (text/jsonl.h) or a Parquet
 * string column (io/parquet.h); Parquet list and struct columns, and
 * templates of fields, read rows (io/parquet_rec.h) as JSON Lines records;
 * so are the records of a JSON document (io/jsonsplit.h: a list of records
 * streamed element by element, an object of records, records printed over
 * several lines) and the rows of CSV/TSV (io/csv.h) under their header.
 * gzip, zstd, xz and bzip2 are removed on the way. Unless the format is
 * given, an input that is not text (an image, an archive, an executable,
 * binary data: text/format.h) is refused with one line saying what it
 * looks like. */
#ifndef CAL_TEXT_DOCFILE_H
#define CAL_TEXT_DOCFILE_H

#include <stddef.h>
#include <stdint.h>

#include "text/doc.h"
#include "text/jsonl.h"

typedef struct {
    const char *sep; /* --sep: text is split at this literal, or NULL */
    size_t max;      /* bytes of a document or line at most (the record limit) */
    cal_jsonl json;  /* JSON Lines: template, strict, counters (field: per file) */
    uint64_t files;  /* files read */
    uint64_t nulls;  /* null values skipped (JSON Lines and Parquet) */
    int skip_bad;    /* --skip-bad: a record the chat template refuses, or
                      * (--chat) one that holds no conversation, is skipped */
    uint64_t bad;    /* records skipped so: refused by the template */
    uint64_t nochat; /* records skipped so: no conversation under --chat */
    char first_bad[2][600]; /* the first of each: "FILE: line N: why" */
    cal_buf fix;     /* scratch: a CSV field's repaired UTF-8 */
    /* the last file read: the XXH3-64 of its raw bytes, how many, and
     * whether it was read to its end */
    uint64_t file_fp, file_bytes;
    int file_whole;
} cal_docfile;

/* Reads the file at path ("-": stdin) in format fmt (CAL_FMT_AUTO: from the
 * name, then the first bytes; AUTO or TEXT with a sep is SEP), the text
 * being the JSON/Parquet field path `field`, and calls fn for each document
 * until it returns nonzero (then returns 1; else 0). Bad data ends the
 * program with one line naming the file and byte offset; a chat record the
 * template refuses, naming the file, the line and the template's message
 * (or it is counted in bad, with skip_bad); so is a record that is not a
 * conversation under --chat (counted in nochat). A document's chat is 1 when it is
 * a chat laid out by a template (CAL_TEXT_CHAT). */
int cal_docfile_read(cal_docfile *r, const char *path, int fmt, const char *field, cal_doc_fn fn, void *ctx);
void cal_docfile_free(cal_docfile *r);

#endif
