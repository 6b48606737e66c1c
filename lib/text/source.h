/* source.h - what a SOURCE operand of cal-read names (a built-in corpus, a
 * file, a directory or "-"), the label its records get, and the files a
 * directory gives, in sorted order. */
#ifndef CAL_TEXT_SOURCE_H
#define CAL_TEXT_SOURCE_H

#include "stream/stream.h"

typedef struct {
    const char *path;               /* the file, directory or "-" to read */
    char label[CAL_MAX_LABEL + 1];  /* the records' label */
    int corpus;                     /* 1: a built-in corpus (JSON Lines, field "text") */
    char *owned;                    /* the corpus file's path (freed by close) */
} cal_source;

/* Resolves src. A corpus name (or alias) means the built corpus unless a
 * file of that name exists. The label is label when not NULL, else the
 * name as written for a corpus, "stdin" for "-", or cal_label_from_path.
 * Ends the program with one line when the corpus is not built or the path
 * does not exist (naming the corpora when src looks like a corpus name). */
void cal_source_open(cal_source *s, const char *src, const char *label);
void cal_source_close(cal_source *s);

/* Calls fn(ctx, file) for path itself, or, for a directory, for every entry
 * (hidden ones skipped) in strcmp order, descending into subdirectories where
 * they sort. Stops at the first nonzero fn result and returns it. */
int cal_source_files(const char *path, int (*fn)(void *ctx, const char *file), void *ctx);

/* The content fingerprint of what path holds: the XXH3-64 of a file's bytes
 * (0 for what is not a regular file); for a folder, of each file's path
 * below it and fingerprint, in the order cal_source_files reads them. The
 * bytes hashed go to *bytes. Shards of a fan-out are checked against it
 * where they meet (cal-read's `input` metadata lines, stream/shards.h). */
uint64_t cal_source_fingerprint(const char *path, uint64_t *bytes);

#endif
