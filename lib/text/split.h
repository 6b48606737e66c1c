/* split.h - documents of plain text: the layouts of cal-read's text formats
 * (the whole input, lines, paragraphs, a literal separator, WikiExtractor
 * articles, wikitext-2/103 articles). Memory stays bounded: a document or a
 * line longer than the record limit is an error, found while reading. */
#ifndef CAL_TEXT_SPLIT_H
#define CAL_TEXT_SPLIT_H

#include <stddef.h>

#include "io/insrc.h"
#include "text/doc.h"

/* Reads s in layout fmt (CAL_FMT_TEXT, LINES, PARAGRAPHS, SEP with the
 * non-empty separator sep, WIKIEXTRACTOR, WIKITEXT; see man/cal-read.1) and
 * calls fn for each non-empty document, in order, until fn returns nonzero
 * (then returns 1; else 0 at the end). A UTF-8 BOM at the start is skipped.
 * Every document is mapped (cal_doc.mapped). A document or line of more than
 * max bytes ends the program with "FILE: byte OFF: ..." naming its start. */
int cal_split(cal_insrc *s, int fmt, const char *sep, size_t max, cal_doc_fn fn, void *ctx);

#endif
