/* insrc.h - a streaming byte source over a file or stdin, with gzip, zstd,
 * xz (liblzma) and bzip2 (libbz2) decompression detected by magic bytes
 * (several concatenated members, frames or streams are read one after the
 * other). Offsets are in decompressed bytes.
 * Every I/O or decompression problem ends the program with
 * "PROG: NAME: byte OFF: ..." (OFF: compressed offset for a corrupt block). */
#ifndef CAL_INSRC_H
#define CAL_INSRC_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

typedef struct cal_insrc cal_insrc;

/* "-" = stdin (named "stdin"). Dies when the file cannot be opened. */
cal_insrc *cal_insrc_open(const char *path);
/* Over memory (not copied). */
cal_insrc *cal_insrc_mem(const void *p, size_t n, const char *name);
/* Instead of ending the program, a damaged input calls fn, which must not
 * return (it longjmps; then close the source). For the fuzzer. */
void cal_insrc_on_error(cal_insrc *s, void (*fn)(void *ctx, uint64_t off, const char *msg), void *ctx);
const char *cal_insrc_name(const cal_insrc *s);
/* "gzip", "zstd", "xz", "bzip2" or "none". */
const char *cal_insrc_codec(const cal_insrc *s);
/* From now on (the first chunk included) an XXH3-64 of the raw bytes as
 * read: the fingerprint of an input that cannot be read twice (stdin). */
void cal_insrc_hash_raw(cal_insrc *s);
/* That hash (0 without cal_insrc_hash_raw) and the raw bytes read so far.
 * Nothing more is read after it (a decompression thread is ended). */
uint64_t cal_insrc_raw_digest(cal_insrc *s, uint64_t *bytes);
/* Up to n of the first decompressed bytes without consuming them (n <= 4096);
 * returns how many are available. Only before the first read (later, once a
 * decompression thread runs, it sees only the unread bytes of its buffer). */
size_t cal_insrc_peek(cal_insrc *s, const uint8_t **p, size_t n);
/* Next chunk of decompressed bytes: pointer and length, 0 at the end. */
size_t cal_insrc_chunk(cal_insrc *s, const uint8_t **p);
/* Next line without its '\n' into line (replacing its content). Returns 1,
 * 0 at the end, or -1 when the line holds more than max bytes (so memory
 * stays bounded; line then holds a part of it); *off = offset of the line's
 * first byte. */
int cal_insrc_line(cal_insrc *s, cal_buf *line, uint64_t *off, size_t max);
/* As cal_insrc_line, but without a copy when it can: *p, *n point into the
 * source's own buffer when the whole line lies in it (most lines: cal-read
 * copied every JSON line before it decoded it), otherwise into spill. Valid
 * until the next call. */
int cal_insrc_line_view(cal_insrc *s, cal_buf *spill, const char **p, size_t *n, uint64_t *off, size_t max);
/* Skips a UTF-8 byte order mark at the current position; 1 if there was one. */
int cal_insrc_skip_bom(cal_insrc *s);
/* Offset of the next unread decompressed byte. */
uint64_t cal_insrc_offset(const cal_insrc *s);
void cal_insrc_close(cal_insrc *s);

#endif
