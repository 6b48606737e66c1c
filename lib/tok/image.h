/* image.h - a prepared tokenizer as one file of tables that a later process
 * maps instead of parsing the tokenizer again (tok/cache.h decides where).
 *
 * Why: loading llama3's tokenizer.json costs ~0.3 s and gemma3's ~0.8 s of
 * JSON parsing and hash-table building, paid again by every shard of a
 * fan-out; the tables those steps build are the same every time, so they
 * are written once and mapped (milliseconds).
 *
 * The file: a header (magic, format, build id, the content key it was made
 * for, its size, a checksum of the header and section table, a checksum of
 * the body), a table of sections (tag, element size, count, offset) and the
 * sections, 64-byte aligned. A file is verified, never trusted: every field
 * of the header, every section's bounds and both XXH3-64 checksums are
 * checked before any section is handed out, and the readers of the sections
 * (hf_image.c) bound every index and offset they follow, so a damaged or
 * forged file is refused (and rebuilt by the cache) or at worst gives wrong
 * ids, never a crash or a hang.
 *
 * The body checksum (22 MB for Llama 3: about half the CPU of a cached
 * load) may be skipped for a file whose identity (tok_file_identity) is
 * the one it had when its body was last verified (tok_image_open_known;
 * cache.h says when the cache trusts that). Everything else is still
 * checked, and the readers bound every offset whatever the bytes, so a
 * file damaged behind that identity can give wrong ids, as a forged one
 * can, but no crash or hang. */
#ifndef CAL_TOK_IMAGE_H
#define CAL_TOK_IMAGE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "io/mapfile.h"

#define TOK_IMAGE_MAXSEC 64

/* Sections to write: references to the caller's arrays, copied when written. */
typedef struct {
    struct tok_image_part { uint32_t tag, elem; const void *p; uint64_t count; } part[TOK_IMAGE_MAXSEC];
    size_t n;
} tok_image_parts;
void tok_image_add(tok_image_parts *w, uint32_t tag, uint32_t elem, const void *p, uint64_t count);

/* Writes the image to path atomically (a temp file beside it, then rename:
 * concurrent writers of the same image each rename a complete file). build
 * is the build id (at most 47 bytes), key the content key. 0, or -1 with
 * the reason in err (the caller goes on without a cache). */
int tok_image_write(const char *path, const char *build, const uint64_t key[2], const tok_image_parts *w,
                    char *err, size_t errlen);

/* A file's identity as the cache records it: 1 (present), device, inode,
 * size, modification and change times (seconds, nanoseconds). Any write,
 * truncation or rename over it gives another identity (the change time
 * moves; a new file has its own inode), except a change within the clock
 * tick of the last one: callers trust an identity only once its times are
 * over two seconds old. */
void tok_file_identity(const struct stat *st, uint64_t v[8]);

/* A mapped, verified image. */
typedef struct tok_image {
    cal_mapfile map;
    uint64_t id[8];  /* the mapped file's identity (all 0 in memory) */
    int body_hashed; /* its body checksum was computed (not skipped) */
    size_t nsec;
    struct tok_image_sec { uint32_t tag, elem; uint64_t off, count; } sec[TOK_IMAGE_MAXSEC];
} tok_image;

/* Maps path and verifies it against build and key: 1 when usable, 0 when
 * absent, -1 when present but damaged, forged or of another build (why in
 * err). */
int tok_image_open(tok_image *im, const char *path, const char *build, const uint64_t key[2], char *err,
                   size_t errlen);
/* As tok_image_open, but when known is not NULL and the mapped file's
 * identity equals it, the body checksum is not computed (the header, its
 * checksum and the section table still are). */
int tok_image_open_known(tok_image *im, const char *path, const char *build, const uint64_t key[2],
                         const uint64_t known[8], char *err, size_t errlen);
void tok_image_close(tok_image *im);

/* The section tag with elements of elem bytes: its bytes and *count, or NULL
 * when there is none (or its element size differs). */
const void *tok_image_get(const tok_image *im, uint32_t tag, uint32_t elem, uint64_t *count);

/* For tests: tok_image_open of an image held in memory (bytes must
 * outlive im; closing it frees nothing). */
int tok_image_open_mem(tok_image *im, const void *bytes, size_t len, const char *build, const uint64_t key[2],
                       char *err, size_t errlen);
/* For tests: tok_image_open_mem without the body checksum, as a load
 * that trusts the file's identity does. */
int tok_image_open_mem_unhashed(tok_image *im, const void *bytes, size_t len, const char *build,
                                const uint64_t key[2], char *err, size_t errlen);
/* For tests: recomputes both checksums of an image held in memory (as a
 * forger would after changing its bytes). 0, or -1 when too short. */
int tok_image_reseal(void *bytes, size_t len);

#endif
