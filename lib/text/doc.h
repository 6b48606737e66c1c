/* doc.h - a document as a reader hands it on: its bytes and where they came
 * from, so that a later step (hygiene, the record limit) can name the file
 * and byte offset of what it rejects. */
#ifndef CAL_TEXT_DOC_H
#define CAL_TEXT_DOC_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *file; /* the input's name, for messages */
    const char *text; /* the bytes as read (not NUL-terminated) */
    size_t n;
    uint64_t off;     /* offset of the document in the decompressed input; for
                       * JSON Lines the offset of its line, for Parquet of its page */
    int mapped;       /* 1: byte i of text is byte off + i of the input */
    int chat;         /* 1: a chat laid out by a template (special tokens meant) */
    const uint32_t *spans; /* --assistant-mask: byte spans (start, end) of the
                            * assistant's output in text, or NULL */
    size_t nspans;
} cal_doc;

/* Receives each document; returns nonzero to stop the reading. */
typedef int (*cal_doc_fn)(void *ctx, const cal_doc *d);

#endif
