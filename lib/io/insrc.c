/* insrc.c - file/stdin/memory byte source with transparent gzip, zstd, xz
 * and bzip2. */
#include "io/insrc.h"
#include "base/buf.h"
#include "base/err.h"
#include "base/modelfile.h"
#include "base/num.h"
#include "stream/stream.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bzlib.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#define IN_CAP (256u << 10)
#define OUT_CAP (256u << 10)

enum { C_NONE, C_GZIP, C_ZSTD, C_XZ, C_BZ2 };

struct cal_insrc {
    char *name;
    int fd;                    /* -1 for memory */
    const uint8_t *mem;        /* memory source */
    size_t mem_n, mem_pos;
    uint8_t *in;               /* compressed bytes */
    size_t in_pos, in_len;
    uint64_t raw_read;         /* raw bytes read so far */
    int raw_eof;
    int codec;
    z_stream z;
    int z_live;                /* inside a gzip member */
    ZSTD_DCtx *zd;
    size_t zret;               /* last ZSTD_decompressStream hint (0 = frame end) */
    lzma_stream xz;            /* C_XZ: every stream of the file (LZMA_CONCATENATED) */
    bz_stream bz;              /* C_BZ2 */
    int bz_live;               /* inside a bzip2 stream */
    XXH3_state_t *hash;        /* cal_insrc_hash_raw: the raw bytes read */
    uint8_t *out;
    size_t pos, len, cap;
    uint64_t base;             /* decompressed offset of out[0] */
    int eof;
    void (*on_error)(void *ctx, uint64_t off, const char *msg);
    void *ctx;
};

/* "NAME: byte OFF: msg" and exit 1, or the caller's hook (which must not return). */
static CAL_NORETURN void fail(const cal_insrc *s, uint64_t off, const char *fmt, ...) CAL_PRINTF(3, 4);
static void fail(const cal_insrc *s, uint64_t off, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (s->on_error) s->on_error(s->ctx, off, msg);
    cal_die_at(s->name, off, "%s", msg);
}

/* Raw bytes: refill s->in when it is empty. Returns 0 at end of input. */
static int raw_fill(cal_insrc *s) {
    if (s->in_pos < s->in_len) return 1;
    if (s->raw_eof) return 0;
    if (s->fd < 0) {
        size_t n = s->mem_n - s->mem_pos;
        if (n > IN_CAP) n = IN_CAP;
        s->in = (uint8_t *)s->mem + s->mem_pos;  /* read-only use */
        s->mem_pos += n;
        s->in_pos = 0, s->in_len = n;
    } else {
        ssize_t n;
        do n = read(s->fd, s->in, IN_CAP); while (n < 0 && errno == EINTR);
        if (n < 0) fail(s, s->raw_read, "read error: %s", strerror(errno));
        s->in_pos = 0, s->in_len = (size_t)n;
    }
    s->raw_read += s->in_len;
    if (s->hash && s->in_len) XXH3_64bits_update(s->hash, s->in, s->in_len);
    if (s->in_len == 0) s->raw_eof = 1;
    return s->in_len > 0;
}

static uint64_t raw_off(const cal_insrc *s) { return s->raw_read - (s->in_len - s->in_pos); }

/* Decodes more bytes into out[len..cap). Sets eof at the clean end. */
static void refill(cal_insrc *s) {
    if (s->pos == s->len) {
        s->base += s->len;
        s->pos = s->len = 0;
    }
    while (!s->eof && s->len < s->cap) {
        if (!raw_fill(s)) {
            if (s->codec == C_GZIP && s->z_live)
                fail(s, raw_off(s), "truncated gzip data");
            if (s->codec == C_ZSTD && s->zret != 0)
                fail(s, raw_off(s), "truncated zstd data");
            if (s->codec == C_BZ2 && s->bz_live)
                fail(s, raw_off(s), "truncated bzip2 data");
            if (s->codec == C_XZ) { /* the end of the last stream: LZMA_FINISH says whether it is whole */
                size_t had = s->len;
                s->xz.next_in = NULL, s->xz.avail_in = 0;
                s->xz.next_out = s->out + s->len, s->xz.avail_out = s->cap - s->len;
                lzma_ret rc = lzma_code(&s->xz, LZMA_FINISH);
                s->len = s->cap - s->xz.avail_out;
                if (rc == LZMA_OK && s->len > had) break; /* more output first; then finish again */
                if (rc != LZMA_STREAM_END) fail(s, raw_off(s), "truncated xz data");
            }
            s->eof = 1;
            break;
        }
        size_t before = s->len;
        if (s->codec == C_NONE) {
            size_t n = s->in_len - s->in_pos;
            if (n > s->cap - s->len) n = s->cap - s->len;
            memcpy(s->out + s->len, s->in + s->in_pos, n);
            s->in_pos += n, s->len += n;
        } else if (s->codec == C_GZIP) {
            if (!s->z_live) {
                if (inflateReset(&s->z) != Z_OK) fail(s, raw_off(s), "inflateReset failed");
                s->z_live = 1;
            }
            s->z.next_in = s->in + s->in_pos;
            s->z.avail_in = (uInt)(s->in_len - s->in_pos);
            s->z.next_out = s->out + s->len;
            s->z.avail_out = (uInt)(s->cap - s->len);
            int rc = inflate(&s->z, Z_NO_FLUSH);
            s->in_pos = s->in_len - s->z.avail_in;
            s->len = s->cap - s->z.avail_out;
            if (rc == Z_STREAM_END) s->z_live = 0;
            else if (rc != Z_OK && rc != Z_BUF_ERROR)
                fail(s, raw_off(s), "corrupt gzip data (%s)", s->z.msg ? s->z.msg : "inflate error");
        } else if (s->codec == C_XZ) {
            s->xz.next_in = s->in + s->in_pos;
            s->xz.avail_in = s->in_len - s->in_pos;
            s->xz.next_out = s->out + s->len;
            s->xz.avail_out = s->cap - s->len;
            lzma_ret rc = lzma_code(&s->xz, LZMA_RUN);
            s->in_pos = s->in_len - s->xz.avail_in;
            s->len = s->cap - s->xz.avail_out;
            if (rc != LZMA_OK && rc != LZMA_STREAM_END && rc != LZMA_BUF_ERROR)
                fail(s, raw_off(s), "corrupt xz data (%s)",
                     rc == LZMA_MEM_ERROR ? "out of memory" : rc == LZMA_FORMAT_ERROR ? "not xz" :
                     rc == LZMA_DATA_ERROR ? "damaged data" : rc == LZMA_OPTIONS_ERROR ? "unsupported options" :
                     "lzma error");
        } else if (s->codec == C_BZ2) {
            if (!s->bz_live) { /* another stream follows (pbzip2, cat a.bz2 b.bz2) */
                BZ2_bzDecompressEnd(&s->bz);
                memset(&s->bz, 0, sizeof s->bz);
                if (BZ2_bzDecompressInit(&s->bz, 0, 0) != BZ_OK) cal_die("out of memory (bzip2)");
                s->bz_live = 1;
            }
            s->bz.next_in = (char *)(s->in + s->in_pos);
            s->bz.avail_in = (unsigned)(s->in_len - s->in_pos);
            s->bz.next_out = (char *)(s->out + s->len);
            s->bz.avail_out = (unsigned)(s->cap - s->len);
            int rc = BZ2_bzDecompress(&s->bz);
            s->in_pos = s->in_len - s->bz.avail_in;
            s->len = s->cap - s->bz.avail_out;
            if (rc == BZ_STREAM_END) s->bz_live = 0;
            else if (rc != BZ_OK)
                fail(s, raw_off(s), "corrupt bzip2 data (%s)", rc == BZ_DATA_ERROR_MAGIC ? "not bzip2" :
                     rc == BZ_MEM_ERROR ? "out of memory" : "damaged data");
        } else {
            ZSTD_inBuffer ib = {s->in, s->in_len, s->in_pos};
            ZSTD_outBuffer ob = {s->out, s->cap, s->len};
            size_t r = ZSTD_decompressStream(s->zd, &ob, &ib);
            if (ZSTD_isError(r))
                fail(s, raw_off(s), "corrupt zstd data (%s)", ZSTD_getErrorName(r));
            s->zret = r;
            s->in_pos = ib.pos, s->len = ob.pos;
        }
        if (s->len > before) break;  /* something to hand out */
    }
}

static cal_insrc *make(const char *name) {
    cal_insrc *s = cal_xcalloc(1, sizeof *s);
    s->name = cal_xstrdup(name);
    s->cap = OUT_CAP;
    s->out = cal_xmalloc(s->cap);
    s->zret = 0;
    return s;
}

/* Looks at the first raw bytes and sets up the decoder. */
static void detect(cal_insrc *s) {
    raw_fill(s);
    const uint8_t *b = s->in + s->in_pos;
    size_t n = s->in_len - s->in_pos;
    if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b) {
        s->codec = C_GZIP;
        if (inflateInit2(&s->z, 16 + MAX_WBITS) != Z_OK) cal_die("out of memory (zlib)");
        s->z_live = 1;
    } else if (n >= 4 && (cal_ld32(b) == 0xFD2FB528u || (cal_ld32(b) & 0xFFFFFFF0u) == 0x184D2A50u)) {
        /* a zstd frame, or a skippable frame (pzstd starts every file with one) */
        s->codec = C_ZSTD;
        s->zd = ZSTD_createDCtx();
        if (!s->zd) cal_die("out of memory (zstd)");
        s->zret = 1;
    } else if (n >= 6 && !memcmp(b, "\xFD" "7zXZ\0", 6)) {
        s->codec = C_XZ;
        lzma_stream init = LZMA_STREAM_INIT;
        s->xz = init;
        /* no memory limit of our own: a file may need what xz -d needs */
        if (lzma_stream_decoder(&s->xz, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) cal_die("out of memory (xz)");
    } else if (n >= 10 && b[0] == 'B' && b[1] == 'Z' && b[2] == 'h' && b[3] >= '1' && b[3] <= '9' &&
               !memcmp(b + 4, "\x31\x41\x59\x26\x53\x59", 6)) { /* a block's magic (pi) after the header */
        s->codec = C_BZ2;
        if (BZ2_bzDecompressInit(&s->bz, 0, 0) != BZ_OK) cal_die("out of memory (bzip2)");
        s->bz_live = 1;
    }
}

cal_insrc *cal_insrc_open(const char *path) {
    int std = !path || strcmp(path, "-") == 0;
    /* Opened before anything is allocated: dying here leaks nothing. */
    int fd = std ? 0 : open(path, O_RDONLY);
    char why[4200];
    if (fd < 0) cal_die("%s: %s", path, cal_open_error(path, errno, why, sizeof why));
    cal_insrc *s = make(std ? "stdin" : path);
    s->fd = fd;
    s->in = cal_xmalloc(IN_CAP);
    detect(s);
    return s;
}

cal_insrc *cal_insrc_mem(const void *p, size_t n, const char *name) {
    cal_insrc *s = make(name);
    s->fd = -1;
    s->mem = p, s->mem_n = n;
    detect(s);
    return s;
}

void cal_insrc_on_error(cal_insrc *s, void (*fn)(void *ctx, uint64_t off, const char *msg), void *ctx) {
    s->on_error = fn;
    s->ctx = ctx;
}

const char *cal_insrc_name(const cal_insrc *s) { return s->name; }

const char *cal_insrc_codec(const cal_insrc *s) {
    static const char *const names[] = {"none", "gzip", "zstd", "xz", "bzip2"};
    return names[s->codec];
}

void cal_insrc_hash_raw(cal_insrc *s) {
    if (s->hash) return;
    if (!(s->hash = XXH3_createState())) cal_die("out of memory");
    XXH3_64bits_reset(s->hash);
    if (s->in && s->in_len) XXH3_64bits_update(s->hash, s->in, s->in_len); /* detect() read the first chunk */
}

uint64_t cal_insrc_raw_digest(const cal_insrc *s, uint64_t *bytes) {
    *bytes = s->raw_read;
    return s->hash ? XXH3_64bits_digest(s->hash) : 0;
}

size_t cal_insrc_peek(cal_insrc *s, const uint8_t **p, size_t n) {
    while (s->len - s->pos < n && !s->eof) {
        size_t had = s->len;
        refill(s);
        if (s->len == had && s->eof) break;
    }
    *p = s->out + s->pos;
    size_t have = s->len - s->pos;
    return have < n ? have : n;
}

size_t cal_insrc_chunk(cal_insrc *s, const uint8_t **p) {
    if (s->pos == s->len) refill(s);
    *p = s->out + s->pos;
    size_t n = s->len - s->pos;
    s->pos = s->len;
    return n;
}

int cal_insrc_line(cal_insrc *s, cal_buf *line, uint64_t *off, size_t max) {
    line->n = 0;
    if (s->pos == s->len) refill(s);
    if (s->pos == s->len) return 0;
    *off = s->base + s->pos;
    for (;;) {
        const uint8_t *b = s->out + s->pos;
        size_t n = s->len - s->pos;
        const uint8_t *nl = memchr(b, '\n', n);
        size_t take = nl ? (size_t)(nl - b) : n;
        if (take > max - line->n) return -1;
        if (nl) {
            cal_buf_add(line, b, take);
            s->pos += take + 1;
            return 1;
        }
        cal_buf_add(line, b, n);
        s->pos = s->len;
        refill(s);
        if (s->pos == s->len) return 1;
    }
}

int cal_insrc_line_view(cal_insrc *s, cal_buf *spill, const char **p, size_t *n, uint64_t *off, size_t max) {
    if (s->pos == s->len) refill(s);
    const uint8_t *b = s->out + s->pos;
    const uint8_t *nl = s->pos < s->len ? memchr(b, '\n', s->len - s->pos) : NULL;
    if (nl && (size_t)(nl - b) <= max) {
        *off = s->base + s->pos;
        *p = (const char *)b, *n = (size_t)(nl - b);
        s->pos += *n + 1;
        return 1;
    }
    int r = cal_insrc_line(s, spill, off, max);
    *p = spill->p ? spill->p : "", *n = spill->n;
    return r;
}

int cal_insrc_skip_bom(cal_insrc *s) {
    const uint8_t *p;
    if (cal_insrc_peek(s, &p, 3) == 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) {
        s->pos += 3;
        return 1;
    }
    return 0;
}

uint64_t cal_insrc_offset(const cal_insrc *s) { return s->base + s->pos; }

void cal_insrc_close(cal_insrc *s) {
    if (!s) return;
    if (s->fd > 0) close(s->fd);
    if (s->codec == C_GZIP) inflateEnd(&s->z);
    if (s->zd) ZSTD_freeDCtx(s->zd);
    if (s->codec == C_XZ) lzma_end(&s->xz);
    if (s->codec == C_BZ2) BZ2_bzDecompressEnd(&s->bz);
    if (s->hash) XXH3_freeState(s->hash);
    if (s->fd >= 0) free(s->in);
    free(s->out);
    free(s->name);
    free(s);
}
