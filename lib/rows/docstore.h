/* docstore.h - documents held in memory as one token stream.
 *
 * The recipes that draw from anywhere in their input (cal-pack's windows and
 * stratified samples, cal-shuffle's segments) keep every document: its
 * tokens appended to one array, its id, label and where it starts, so a
 * position in the stream maps back to the document (and label) it is in. */
#ifndef CAL_ROWS_DOCSTORE_H
#define CAL_ROWS_DOCSTORE_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

typedef struct {
    uint64_t id;     /* the document's record id */
    size_t start;    /* its first token in the stream */
    size_t len;      /* its number of tokens */
    size_t label;    /* offset of its NUL-terminated label in labels */
} cal_doc;

typedef struct {
    cal_ids all;     /* every document's tokens, in input order */
    cal_doc *docs;
    size_t n, cap;
    cal_buf labels;
} cal_docstore;

/* Appends a document (label of label_len bytes, not NUL-terminated). */
void cal_docstore_add(cal_docstore *s, const uint32_t *ids, size_t n, uint64_t id, const char *label,
                      size_t label_len);
/* The document that holds stream position pos (< s->all.n): the last one
 * starting at or before it. */
size_t cal_docstore_at(const cal_docstore *s, size_t pos);
static inline const char *cal_docstore_label(const cal_docstore *s, size_t d) { return s->labels.p + s->docs[d].label; }
void cal_docstore_free(cal_docstore *s);

#endif
