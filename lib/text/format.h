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
    CAL_FMT_PARQUET,
    CAL_FMT_JSON,          /* a JSON document: a list of records, an object of
                            * records, or records over several lines */
    CAL_FMT_CSV,           /* RFC 4180 rows under a header row */
    CAL_FMT_TSV            /* the same, separated by tabs */
} cal_fmt;

/* The format -f names: text, lines, paragraphs, wikiextractor, wikitext,
 * jsonl, json, csv, tsv or parquet; -1 for any other name ("sep" and "auto"
 * included). */
int cal_fmt_parse(const char *name);

/* From the file name: PARQUET for .parquet/.pq, JSONL for .jsonl or .ndjson,
 * JSON for .json (its first bytes then tell JSON from JSON Lines:
 * cal_fmt_json_layout), CSV for .csv, TSV for .tsv or .tab (before a .gz,
 * .gzip, .zst, .zstd, .xz or .bz2), else AUTO. */
int cal_fmt_from_name(const char *path);

/* JSON or JSONL for the first bytes of a JSON file: JSON when the first
 * non-blank byte (after a BOM) is '[', or is '{' opening a value that goes
 * on past the end of its line (a pretty-printed record or object) or is
 * the whole of the n < 4096 bytes (one object: maybe an object of records);
 * JSONL when that value ends on its line (or cannot be told within n). */
int cal_fmt_json_layout(const uint8_t *p, size_t n);

/* From the first (decompressed) bytes: PARQUET for the magic PAR1, JSON or
 * JSONL (cal_fmt_json_layout) when the first non-blank byte (after a BOM)
 * is '{' or '[', WIKIEXTRACTOR for
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
