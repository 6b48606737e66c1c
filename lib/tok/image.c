/* image.c - the prepared-tokenizer file (see image.h). */
#include "tok/image.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#if defined(__x86_64__)
#include <xxh_x86dispatch.h> /* XXH3 on AVX2/AVX-512 where the CPU has them: 1.6x less CPU for an image */
#endif

#include "base/err.h"

#define MAGIC "calkitTI"
#define FORMAT 1u
#define ALIGN 64u

/* little-endian fields, as this machine lays them out (a big-endian reader
 * refuses the magic's format check below and rebuilds) */
typedef struct {
    char magic[8];
    uint32_t format, nsec;
    uint64_t size;
    uint64_t key[2];
    char build[48];
    uint64_t body_hash, head_hash;
} head;
typedef struct { uint32_t tag, elem; uint64_t off, count; } entry;

_Static_assert(sizeof(head) == 104, "the header has no padding");
_Static_assert(sizeof(entry) == 24, "a section entry has no padding");

static int endian_ok(void)
{
    uint32_t x = 1;
    unsigned char c;
    memcpy(&c, &x, 1);
    return c == 1;
}

void tok_image_add(tok_image_parts *w, uint32_t tag, uint32_t elem, const void *p, uint64_t count)
{
    if (w->n == TOK_IMAGE_MAXSEC) cal_die("tok_image_add: more than %d sections", TOK_IMAGE_MAXSEC);
    w->part[w->n++] = (struct tok_image_part){ tag, elem, count ? p : NULL, p ? count : 0 };
}

static uint64_t up(uint64_t x) { return (x + ALIGN - 1) / ALIGN * ALIGN; }

static int write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t k = write(fd, c, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        c += k;
        n -= (size_t)k;
    }
    return 0;
}

int tok_image_write(const char *path, const char *build, const uint64_t key[2], const tok_image_parts *w,
                    char *err, size_t errlen)
{
    if (!endian_ok()) {
        snprintf(err, errlen, "images are written on little-endian machines only");
        return -1;
    }
    head h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, MAGIC, 8);
    h.format = FORMAT;
    h.nsec = (uint32_t)w->n;
    h.key[0] = key[0];
    h.key[1] = key[1];
    snprintf(h.build, sizeof h.build, "%s", build);
    entry e[TOK_IMAGE_MAXSEC];
    uint64_t off = up(sizeof h + w->n * sizeof(entry));
    XXH3_state_t *st = XXH3_createState();
    XXH3_64bits_reset(st);
    static const char zero[ALIGN];
    for (size_t i = 0; i < w->n; i++) {
        e[i] = (entry){ w->part[i].tag, w->part[i].elem, off, w->part[i].count };
        uint64_t bytes = w->part[i].count * w->part[i].elem;
        XXH3_64bits_update(st, w->part[i].p ? w->part[i].p : zero, bytes);
        XXH3_64bits_update(st, zero, up(bytes) - bytes);
        off += up(bytes);
    }
    h.size = off;
    h.body_hash = XXH3_64bits_digest(st);
    XXH3_freeState(st);
    XXH3_state_t *hs = XXH3_createState();
    XXH3_64bits_reset(hs);
    XXH3_64bits_update(hs, &h, sizeof h);
    XXH3_64bits_update(hs, e, w->n * sizeof *e);
    h.head_hash = XXH3_64bits_digest(hs);
    XXH3_freeState(hs);

    size_t pl = strlen(path);
    char *tmp = cal_xmalloc(pl + 32);
    snprintf(tmp, pl + 32, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        free(tmp);
        return -1;
    }
    size_t lead = sizeof h + w->n * sizeof *e;
    int bad = write_all(fd, &h, sizeof h) || write_all(fd, e, w->n * sizeof *e) ||
              write_all(fd, zero, up(lead) - lead);
    for (size_t i = 0; i < w->n && !bad; i++) {
        uint64_t bytes = w->part[i].count * w->part[i].elem;
        bad = (bytes && write_all(fd, w->part[i].p, (size_t)bytes)) || write_all(fd, zero, up(bytes) - bytes);
    }
    int saved = errno;
    if (close(fd) && !bad) bad = 1, saved = errno;
    /* no fsync: a file cut short by a crash fails its checksum (or its size
     * its identity, cache.h) and is rebuilt */
    if (!bad && rename(tmp, path)) bad = 1, saved = errno;
    if (bad) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(saved));
        unlink(tmp);
    }
    free(tmp);
    return bad ? -1 : 0;
}

static int refuse(tok_image *im, char *err, size_t errlen, const char *path, const char *why)
{
    snprintf(err, errlen, "%s: %s", path, why);
    cal_mapfile_close(&im->map);
    memset(im, 0, sizeof *im);
    return -1;
}

static int verify(tok_image *im, const char *path, const char *build, const uint64_t key[2], int hash_body,
                  char *err, size_t errlen);

void tok_file_identity(const struct stat *st, uint64_t v[8])
{
    v[0] = 1;
    v[1] = (uint64_t)st->st_dev;
    v[2] = (uint64_t)st->st_ino;
    v[3] = (uint64_t)st->st_size;
    v[4] = (uint64_t)st->st_mtim.tv_sec;
    v[5] = (uint64_t)st->st_mtim.tv_nsec;
    v[6] = (uint64_t)st->st_ctim.tv_sec;
    v[7] = (uint64_t)st->st_ctim.tv_nsec;
}

int tok_image_open_known(tok_image *im, const char *path, const char *build, const uint64_t key[2],
                         const uint64_t known[8], char *err, size_t errlen)
{
    memset(im, 0, sizeof *im);
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return errno == ENOENT ? 0 : -1;
    }
    /* the identity of the bytes mapped (fstat of the descriptor), so that a
     * file renamed over the path in between is not taken for the known one */
    if (!cal_mapfile_open_stat(&im->map, path, &st, err, errlen)) return -1;
    tok_file_identity(&st, im->id);
    return verify(im, path, build, key, !known || memcmp(known, im->id, sizeof im->id), err, errlen);
}

int tok_image_open(tok_image *im, const char *path, const char *build, const uint64_t key[2], char *err,
                   size_t errlen)
{
    return tok_image_open_known(im, path, build, key, NULL, err, errlen);
}

int tok_image_open_mem(tok_image *im, const void *bytes, size_t len, const char *build, const uint64_t key[2],
                       char *err, size_t errlen)
{
    memset(im, 0, sizeof *im);
    im->map.p = bytes;
    im->map.len = len;
    return verify(im, "(memory)", build, key, 1, err, errlen);
}

int tok_image_open_mem_unhashed(tok_image *im, const void *bytes, size_t len, const char *build,
                                const uint64_t key[2], char *err, size_t errlen)
{
    memset(im, 0, sizeof *im);
    im->map.p = bytes;
    im->map.len = len;
    return verify(im, "(memory)", build, key, 0, err, errlen);
}

static int verify(tok_image *im, const char *path, const char *build, const uint64_t key[2], int hash_body,
                  char *err, size_t errlen)
{
    size_t len = im->map.len;
    const char *p = im->map.p;
    head h;
    if (!endian_ok()) return refuse(im, err, errlen, path, "a big-endian machine reads no image");
    if (len < sizeof h) return refuse(im, err, errlen, path, "shorter than a header");
    memcpy(&h, p, sizeof h);
    if (memcmp(h.magic, MAGIC, 8) || h.format != FORMAT) return refuse(im, err, errlen, path, "not an image of this format");
    if (h.nsec > TOK_IMAGE_MAXSEC || sizeof h + (uint64_t)h.nsec * sizeof(entry) > len)
        return refuse(im, err, errlen, path, "bad section count");
    if (h.size != len) return refuse(im, err, errlen, path, "its size is not the one recorded (cut short?)");
    char b[48] = {0};
    snprintf(b, sizeof b, "%s", build);
    if (memcmp(h.build, b, sizeof b)) return refuse(im, err, errlen, path, "made by another build of calkit");
    if (h.key[0] != key[0] || h.key[1] != key[1]) return refuse(im, err, errlen, path, "made for other tokenizer files");
    entry e[TOK_IMAGE_MAXSEC];
    memcpy(e, p + sizeof h, h.nsec * sizeof *e);
    uint64_t want = h.head_hash;
    h.head_hash = 0;
    XXH3_state_t *hs = XXH3_createState();
    XXH3_64bits_reset(hs);
    XXH3_64bits_update(hs, &h, sizeof h);
    XXH3_64bits_update(hs, e, h.nsec * sizeof *e);
    uint64_t got = XXH3_64bits_digest(hs);
    XXH3_freeState(hs);
    if (got != want) return refuse(im, err, errlen, path, "header checksum mismatch");
    /* sections: in order, aligned, inside the file, not overlapping; the
     * padding before the first one (under no checksum) zero */
    uint64_t at = up(sizeof h + h.nsec * sizeof *e);
    if (at > len) return refuse(im, err, errlen, path, "bad section count");
    for (uint64_t i = sizeof h + h.nsec * sizeof *e; i < at; i++)
        if (p[i]) return refuse(im, err, errlen, path, "bytes in the header's padding");
    for (uint32_t i = 0; i < h.nsec; i++) {
        if (e[i].off != at || e[i].elem == 0 || e[i].elem > 4096 || e[i].count > len / e[i].elem ||
            up(e[i].count * e[i].elem) > len - at)
            return refuse(im, err, errlen, path, "a section lies outside the file");
        at += up(e[i].count * e[i].elem);
        im->sec[i] = (struct tok_image_sec){ e[i].tag, e[i].elem, e[i].off, e[i].count };
    }
    if (at != len) return refuse(im, err, errlen, path, "bytes after the last section");
    uint64_t first = up(sizeof h + h.nsec * sizeof *e);
    if (hash_body && XXH3_64bits(p + first, len - first) != h.body_hash)
        return refuse(im, err, errlen, path, "checksum mismatch");
    im->body_hashed = hash_body;
    im->nsec = h.nsec;
    return 1;
}

void tok_image_close(tok_image *im)
{
    cal_mapfile_close(&im->map);
    memset(im, 0, sizeof *im);
}

const void *tok_image_get(const tok_image *im, uint32_t tag, uint32_t elem, uint64_t *count)
{
    for (size_t i = 0; i < im->nsec; i++)
        if (im->sec[i].tag == tag) {
            if (im->sec[i].elem != elem) return NULL;
            *count = im->sec[i].count;
            return (const char *)im->map.p + im->sec[i].off;
        }
    return NULL;
}

int tok_image_reseal(void *bytes, size_t len)
{
    head h;
    if (len < sizeof h) return -1;
    memcpy(&h, bytes, sizeof h);
    if (h.nsec > TOK_IMAGE_MAXSEC || sizeof h + (uint64_t)h.nsec * sizeof(entry) > len) return -1;
    uint64_t first = up(sizeof h + h.nsec * sizeof(entry));
    if (first > len) return -1;
    h.body_hash = XXH3_64bits((char *)bytes + first, len - first);
    h.head_hash = 0;
    XXH3_state_t *hs = XXH3_createState();
    XXH3_64bits_reset(hs);
    XXH3_64bits_update(hs, &h, sizeof h);
    XXH3_64bits_update(hs, (char *)bytes + sizeof h, h.nsec * sizeof(entry));
    h.head_hash = XXH3_64bits_digest(hs);
    XXH3_freeState(hs);
    memcpy(bytes, &h, sizeof h);
    return 0;
}
