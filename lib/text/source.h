/* source.h - what a SOURCE operand of cal-read names (a built-in corpus, a
 * file, a directory or "-"), the label its records get, and the files a
 * directory gives, in sorted order. */
#ifndef CAL_TEXT_SOURCE_H
#define CAL_TEXT_SOURCE_H

#include "stream/drops.h"
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
 * they sort. Stops at the first nonzero fn result and returns it. In a
 * folder only regular files are read: FIFOs (which would block), sockets
 * and devices are skipped and counted in drops (may be NULL), as are links
 * back to a folder being walked (a cycle); a symbolic link loop or a
 * dangling link ends the program with one line saying so. A path named
 * itself is read whatever it is (a FIFO from `<(cmd)`, /dev/stdin). */
int cal_source_files(const char *path, int (*fn)(void *ctx, const char *file), void *ctx, cal_drops *drops);

/* The fingerprint of what a SOURCE operand held, for its `input` metadata
 * line: shards of a fan-out are checked against it where they meet
 * (stream/shards.h). Each file's raw bytes are hashed as they are read
 * (io/insrc.h); a folder's fingerprint is the XXH3-64 of each file's path
 * below it and hash, in reading order. */
typedef struct {
    struct XXH3_state_s *st;
    uint64_t fp, bytes;
    size_t files, skip;
    int whole; /* every file read to its end */
} cal_source_fp;
void cal_source_fp_begin(cal_source_fp *f, const char *operand);
/* One file of the operand: its hash, bytes, and whether it was read to
 * the end (-n stops early). */
void cal_source_fp_file(cal_source_fp *f, const char *file, uint64_t fp, uint64_t bytes, int whole);
/* The line "FP16 BYTES OPERAND" (the operand quoted as stage lines quote
 * arguments), or "- - OPERAND" when a file was not read to its end (what
 * was read then depends on read sizes: no fingerprint is better than a
 * varying one); dir: the operand is a folder. Frees f's state. */
void cal_source_fp_end(cal_source_fp *f, const char *operand, int dir, cal_buf *line);
/* The XXH3-64 of a regular file's bytes, read (0 for anything else). */
uint64_t cal_source_file_hash(const char *file, uint64_t *bytes);

#endif