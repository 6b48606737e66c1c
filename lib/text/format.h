/* format.h - what a file holds and what its records are called, told from
 * its name and first bytes: the input formats of cal-read (-f) and the label
 * a file gives its records. */
#ifndef CAL_TEXT_FORMAT_H
#define CAL_TEXT_FORMAT_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    CAL_FMT_AUTO,          /* not known yet */
    CAL_FMT_TEXT,          /* the whole file is one document */
    CAL_FMT_LINES,         /* one document a line */
    CAL_FMT_PARAGRAPHS,    /* documents separated by blank lines */
    CAL_FMT_SEP,           /* documents separated by a literal string */
    CAL_FMT_WIKIEXTRACTOR, /* <doc ...> ... </doc> */
    CAL_FMT_WIKITEXT,      /* wikitext-2/103: " = Title = " starts an article */
    CAL_FMT_JSONL,
    CAL_FMT_PARQUET
} cal_fmt;

/* The format -f names: text, lines, paragraphs, wikiextractor, wikitext,
 * jsonl or parquet; -1 for any other name ("sep" and "auto" included). */
int cal_fmt_parse(const char *name);

/* From the file name: PARQUET for .parquet/.pq, JSONL for .jsonl, .json or
 * .ndjson (before a .gz, .gzip, .zst, .zstd, .xz or .bz2), else AUTO. */
int cal_fmt_from_name(const char *path);

/* From the first (decompressed) bytes: PARQUET for the magic PAR1, JSONL
 * when the first non-blank byte (after a BOM) is '{', WIKIEXTRACTOR for
 * "<doc " at the start, WIKITEXT when the first non-blank line is
 * " = Title = ", else TEXT. */
int cal_fmt_from_content(const uint8_t *p, size_t n);

/* What the first (decompressed) bytes of an input are when they are not
 * text: "a PNG image", "a ZIP archive (...)", "UTF-16 text (...)", "binary
 * data (...)" when a quarter of the bytes or more are not UTF-8, ...;
 * NULL for text (control characters and NUL bytes included). */
const char *cal_fmt_binary(const uint8_t *p, size_t n);

/* The label of a file's records: its base name without a trailing '/' and
 * without compression and format extensions (.jsonl.gz, .parquet, .txt,
 * .raw, .tokens, ...), cut to cap - 1 bytes; out is NUL-terminated. */
void cal_label_from_path(const char *path, char *out, size_t cap);

#endif
