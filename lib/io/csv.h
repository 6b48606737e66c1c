/* csv.h - rows of CSV and TSV (RFC 4180), streamed from a byte source.
 *
 * Why: CSV is the other "use your own data" format of the quantizers
 * (datasets' csv builder behind llm-compressor); a row is read as Python's
 * csv module reads it (the excel dialect, or excel-tab's tab delimiter):
 * a field in double quotes may hold the delimiter, line ends and doubled
 * quotes ("" for "); a quote inside an unquoted field is a character;
 * text after a closing quote joins the field (as csv does unless strict);
 * rows end at \n, \r\n or \r outside quotes; an empty line is no row.
 * A quoted field still open at the end of the input is an error (Python:
 * "unexpected end of data"). Fields are bytes as read (the caller checks
 * UTF-8). */
#ifndef CAL_IO_CSV_H
#define CAL_IO_CSV_H

#include <stddef.h>
#include <stdint.h>

#include "io/insrc.h"

typedef struct cal_csv cal_csv;

/* Rows of s (a UTF-8 BOM at the start is skipped) separated by delim
 * (',' or '\t'); a row of more than max bytes ends the program naming
 * its line. */
cal_csv *cal_csv_new(cal_insrc *s, char delim, size_t max);

/* The next row: 1 with its nf fields in field[i], len[i] (valid until the
 * next call), *line the line it starts on (from 1) and *off its offset in
 * the decompressed input; 0 at the end. */
int cal_csv_next(cal_csv *c, size_t *nf, const char *const **field, const size_t **len, uint64_t *line, uint64_t *off);

void cal_csv_free(cal_csv *c);

#endif
