/* stream_read.c - buffered, validating cal-stream reader. */
/* madvise(2) (MADV_SEQUENTIAL, MADV_DONTNEED) is not POSIX. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/dtype.h"
#include "base/err.h"
#include "base/mapguard.h"
#include "base/modelfile.h"
#include "base/num.h"
#include "base/oshint.h"
#include "base/outfile.h"
#include "base/relay.h"
#include "base/utf8.h"
#include "stream/internal.h"
#include "stream/shards.h"

#define READ_CHUNK (1u << 20)
/* A stream file opened by name of at least MAP_MIN bytes is mapped, not
 * read: the read's copy was most of what checking a file cost (cal-cat
 * --pass F > /dev/null: 0.79x cat F by CPU read, see bench/passthrough.sh).
 * Pages behind the reader are let go every MAP_TRIM bytes (MADV_DONTNEED: a
 * later touch reads the file again), so that the resident size does not
 * grow with the file. */
#define MAP_MIN (4u << 20)
#define MAP_TRIM ((size_t)16 << 20)

struct cal_reader {
    int fd;            /* -1 for a memory reader */
    int own_fd;
    char *name;
    uint8_t *buf;      /* owned unless memory reader */
    size_t cap, pos, end;
    uint64_t base;     /* input offset of buf[0] */
    int eof;
    cal_meta meta;
    unsigned headers;
    int seg_open;          /* a header was read and its END not yet */
    uint64_t seg_records;  /* records of the open segment */
    cal_shards *shards;    /* every header's shards (stream/shards.h) */
    int shards_check, shards_whole, shards_allow, shards_done;
    int continues;         /* the last header had CAL_HDR_CONTINUES */
    unsigned streams;      /* headers without it */
    void (*refill)(void *); /* cal_reader_on_refill */
    void *refill_ctx;
    cal_relay *relay;      /* cal_reader_relay: reads that keep the bytes for a send */
    int mapped;            /* buf is the whole file, mapped (MAP_MIN) */
    int trim;              /* buf is a file mapping: pages behind may be let go (mapped, cal_reader_mem_trim) */
    size_t trimmed;        /* trim: bytes before this were let go */
};

static void reader_init(cal_reader *r, const char *name) {
    r->name = cal_xstrdup(name);
    r->shards = cal_shards_new();
    r->shards_check = 1;
}

/* Make at least `need` bytes available at pos; returns how many are. */
static size_t fill(cal_reader *r, size_t need, char *err, size_t errlen, int *ioerr) {
    size_t have = r->end - r->pos;
    if (have >= need || r->fd < 0 || r->eof) return have;
    if (r->refill) r->refill(r->refill_ctx); /* the records returned so far are used up */
    if (r->pos > 0) {
        memmove(r->buf, r->buf + r->pos, have);
        r->base += r->pos;
        r->end = have;
        r->pos = 0;
    }
    if (need > r->cap) {
        size_t c = r->cap;
        while (c < need) c *= 2;
        /* From 2 MiB on whole huge pages: records of megabytes would
         * otherwise fault a fresh 4 KiB page at a time. */
        uint8_t *b = cal_huge_zalloc(c);
        memcpy(b, r->buf, r->end);
        cal_huge_free(r->buf, r->cap);
        r->buf = b;
        r->cap = c;
    }
    while (r->end < need && !r->eof) {
        /* Read what is needed and at most a chunk more: a full buffer after a
         * large record would be moved to the front again by the next fill. */
        size_t want = need - r->end < READ_CHUNK ? READ_CHUNK : need - r->end;
        if (want > r->cap - r->end) want = r->cap - r->end;
        ssize_t k = r->relay ? cal_relay_read(r->relay, r->buf + r->end, want) : read(r->fd, r->buf + r->end, want);
        if (k < 0) {
            if (errno == EINTR) continue;
            snprintf(err, errlen, "read error: %s", strerror(errno));
            *ioerr = 1;
            return r->end;
        }
        if (k == 0) r->eof = 1;
        r->end += (size_t)k;
    }
    return r->end - r->pos;
}

#define FAIL(off, ...) do { snprintf(err, errlen, __VA_ARGS__); *erroff = (off); return -1; } while (0)

/* Reads a header at pos into `into`. 0 ok, -1 error. */
static int read_header(cal_reader *r, cal_meta *into, char *err, size_t errlen, uint64_t *erroff) {
    int ioerr = 0;
    uint64_t off = r->base + r->pos;
    size_t have = fill(r, 16, err, errlen, &ioerr);
    if (ioerr) { *erroff = off + have; return -1; }
    if (have == 0 && off == 0) FAIL(0, "empty input: not a cal-stream");
    if (have < CAL_MAGIC_LEN && have > 0 && !memcmp(r->buf + r->pos, CAL_MAGIC, have))
        FAIL(off + have, "truncated stream header");
    if (have < CAL_MAGIC_LEN || memcmp(r->buf + r->pos, CAL_MAGIC, CAL_MAGIC_LEN)) {
        const uint8_t *b = r->buf + r->pos;
        int texty = have > 0;
        for (size_t i = 0; i < have && i < 16; i++)
            if (b[i] < 0x09 || (b[i] > 0x0d && b[i] < 0x20)) texty = 0;
        if (texty) FAIL(off, "not a cal-stream (looks like text; read it with cal-read)");
        FAIL(off, "not a cal-stream (bad magic)");
    }
    if (have < 16) FAIL(off + have, "truncated stream header");
    const uint8_t *h = r->buf + r->pos;
    unsigned version = h[8] | (unsigned)h[9] << 8;
    if (version != CAL_FORMAT_VERSION)
        FAIL(off + 8, "unsupported cal-stream version %u (this program reads version %d)", version,
             CAL_FORMAT_VERSION);
    if ((h[10] & ~CAL_HDR_CONTINUES) || h[11])
        FAIL(off + 10, "unknown stream header flags 0x%02x%02x", h[11], h[10]);
    unsigned flags = h[10];
    if ((flags & CAL_HDR_CONTINUES) && r->headers == 0)
        FAIL(off + 10, "the stream starts with a continuation header (a piece cut from a longer stream?)");
    uint32_t mlen = cal_ld32(h + 12);
    if (mlen > CAL_MAX_META) FAIL(off + 12, "stream metadata length %u exceeds the limit %u", mlen, CAL_MAX_META);
    size_t total = 16 + (size_t)mlen + 8;
    have = fill(r, total, err, errlen, &ioerr);
    if (ioerr) { *erroff = off + have; return -1; }
    if (have < total) FAIL(off + have, "truncated stream header (%zu of %zu bytes)", have, total);
    h = r->buf + r->pos;
    if (cal_hash(h, 16 + mlen) != cal_ld64(h + 16 + mlen))
        FAIL(off + 16 + mlen, "stream header checksum mismatch");
    if (!cal_meta_parse((const char *)h + 16, mlen, into, err, errlen)) { *erroff = off; return -1; }
    cal_shards_header(r->shards, into, flags & CAL_HDR_CONTINUES);
    r->continues = (flags & CAL_HDR_CONTINUES) != 0;
    r->streams += !r->continues;
    r->pos += total;
    r->headers++;
    r->seg_open = 1;
    r->seg_records = 0;
    return 0;
}

static int check_payload(const uint8_t *p, size_t n, int kind, unsigned flags, char *err, size_t errlen, uint64_t off,
                         uint64_t *erroff) {
    switch (kind) {
    case CAL_TEXT: {
        if (!(flags & CAL_TEXT_SPANS)) return 0;
        if (n < 4) FAIL(off, "TEXT payload of %zu bytes has no room for its span count", n);
        uint64_t ns = cal_ld32(p + n - 4);
        if (8 * ns + 4 > n) FAIL(off + n - 4, "TEXT span count %llu needs %llu bytes, the payload has %zu",
                                 (unsigned long long)ns, (unsigned long long)(8 * ns + 4), n);
        uint64_t tn = n - 8 * ns - 4, prev = 0;
        for (uint64_t i = 0; i < ns; i++) {
            uint64_t a = cal_ld32(p + tn + 8 * i), b = cal_ld32(p + tn + 8 * i + 4);
            if (a < prev || b <= a || b > tn)
                FAIL(off + tn + 8 * i, "TEXT span %llu [%llu, %llu) is not inside the %llu-byte text, after the last one",
                     (unsigned long long)i, (unsigned long long)a, (unsigned long long)b, (unsigned long long)tn);
            prev = b;
        }
        return 0;
    }
    case CAL_TOKENS:
        if (flags & CAL_TOKENS_ROLE) {
            if (n % 5) FAIL(off, "TOKENS payload of %zu bytes with a role mask is not a multiple of 5", n);
            for (size_t i = 4 * (n / 5); i < n; i++)
                if (p[i] > 1) FAIL(off + i, "TOKENS role value %u is not 0 or 1", p[i]);
            return 0;
        }
        if (n % 4) FAIL(off, "TOKENS payload of %zu bytes is not a multiple of 4", n);
        return 0;
    case CAL_ROW: {
        if (n < 8) FAIL(off, "ROW payload of %zu bytes is shorter than its 8-byte head", n);
        uint32_t len = cal_ld32(p), flags = cal_ld32(p + 4);
        if (flags & ~(uint32_t)(CAL_ROW_NOISE | CAL_ROW_MASK | CAL_ROW_ROLE))
            FAIL(off + 4, "unknown ROW flags 0x%x", flags);
        int parts = ((flags & CAL_ROW_MASK) != 0) + ((flags & CAL_ROW_ROLE) != 0);
        uint64_t want = 8 + 4ull * len + (uint64_t)parts * len;
        if (want != n) FAIL(off, "ROW of length %u needs %llu payload bytes, has %zu", len,
                            (unsigned long long)want, n);
        for (int k = 0; k < parts; k++) { /* the attention mask, then the role mask */
            uint64_t at = 8 + 4ull * len + (uint64_t)k * len;
            const char *what = k == 0 && (flags & CAL_ROW_MASK) ? "mask" : "role";
            for (uint32_t i = 0; i < len; i++)
                if (p[at + i] > 1) FAIL(off + at + i, "ROW %s value %u is not 0 or 1", what, p[at + i]);
        }
        return 0;
    }
    case CAL_VECTORS: {
        if (n < CAL_VEC_HEAD) FAIL(off, "VECTORS payload of %zu bytes is shorter than its head", n);
        uint32_t rows = cal_ld32(p), d = cal_ld32(p + 4);
        size_t es = cal_dtype_size(p[8]);
        if (!es) FAIL(off + 8, "unknown VECTORS dtype %u", p[8]);
        if (p[9] || p[10] || p[11] || cal_ld32(p + 12)) FAIL(off + 9, "VECTORS reserved bytes are not zero");
        /* rows * d < 2^64 (both are u32), but times es it may wrap: compare
         * values, not bytes, and never form the byte count unchecked. */
        uint64_t vals = (uint64_t)rows * d;
        if (vals > (CAL_MAX_PAYLOAD - CAL_VEC_HEAD) / es)
            FAIL(off, "VECTORS %u x %u %s exceeds the %u-byte payload limit", rows, d, cal_dtype_name(p[8]),
                 CAL_MAX_PAYLOAD);
        uint64_t want = CAL_VEC_HEAD + vals * es;
        if (want != n) FAIL(off, "VECTORS %u x %u %s needs %llu payload bytes, has %zu", rows, d,
                            cal_dtype_name(p[8]), (unsigned long long)want, n);
        return 0;
    }
    }
    return 0;
}

static int next_rec(cal_reader *r, cal_rec *rec, char *err, size_t errlen, uint64_t *erroff) {
    for (;;) {
        int ioerr = 0;
        uint64_t off = r->base + r->pos;
        size_t have = fill(r, CAL_REC_HEAD, err, errlen, &ioerr);
        if (ioerr) { *erroff = off + have; return -1; }
        if (have == 0) {
            if (r->seg_open)
                FAIL(off, "truncated stream: no end record after %llu records (did the producer fail?)",
                     (unsigned long long)r->seg_records);
            if (r->shards_check && !r->shards_done) {
                r->shards_done = 1;
                cal_buf why = {0};
                if (cal_shards_check(r->shards, r->shards_whole, &why)) {
                    if (!r->shards_allow) {
                        snprintf(err, errlen, "%s (--allow-partial accepts them)", why.p);
                        cal_buf_free(&why);
                        *erroff = off;
                        return -1;
                    }
                    cal_warn("warning: %s: %s; accepted (--allow-partial)", r->name, why.p);
                }
                cal_buf_free(&why);
            }
            return 0;
        }
        const uint8_t *h = r->buf + r->pos;
        if (h[0] == 0x89) {
            if (r->seg_open)
                FAIL(off, "stream header before the end record of the previous stream "
                          "(truncated stream after %llu records)", (unsigned long long)r->seg_records);
            cal_meta m = {0};
            int rc = read_header(r, &m, err, errlen, erroff);
            if (rc == 0 && !cal_meta_merge(&r->meta, &m, err, errlen)) {
                *erroff = off;
                rc = -1;
            }
            cal_meta_free(&m);
            if (rc) return -1;
            continue;
        }
        if (h[0] < CAL_TEXT || h[0] > CAL_END) FAIL(off, "bad record kind 0x%02x (not a cal-stream record)", h[0]);
        if (!r->seg_open) FAIL(off, "record after the end record (missing stream header)");
        if (have < CAL_REC_HEAD) FAIL(off + have, "truncated record header (%zu of 16 bytes)", have);
        unsigned allowed = h[0] == CAL_TEXT ? CAL_TEXT_CHAT | CAL_TEXT_SPANS : h[0] == CAL_TOKENS ? CAL_TOKENS_ROLE : 0u;
        if (h[1] & ~allowed) FAIL(off + 1, "unknown record flags 0x%02x", h[1]);
        size_t llen = h[2] | (size_t)h[3] << 8;
        uint32_t plen = cal_ld32(h + 4);
        if (llen > CAL_MAX_LABEL) FAIL(off + 2, "label length %zu exceeds %u", llen, CAL_MAX_LABEL);
        if (plen > CAL_MAX_PAYLOAD) FAIL(off + 4, "payload length %u exceeds %u", plen, CAL_MAX_PAYLOAD);
        size_t total = CAL_REC_HEAD + llen + plen + 8;
        have = fill(r, total, err, errlen, &ioerr);
        if (ioerr) { *erroff = off + have; return -1; }
        h = r->buf + r->pos; /* fill() may have moved the buffer */
        if (have < total)
            FAIL(off + have, "truncated %s record (%zu of %zu bytes)", cal_kind_name(h[0]), have, total);
        if (cal_hash(h, total - 8) != cal_ld64(h + total - 8))
            FAIL(off, "%s record checksum mismatch", cal_kind_name(h[0]));
        for (size_t i = 0; i < llen; i++)
            if (h[CAL_REC_HEAD + i] < 0x20 || h[CAL_REC_HEAD + i] == 0x7f)
                FAIL(off + CAL_REC_HEAD + i, "label has a control character");
        size_t good = cal_utf8_valid_prefix((const char *)h + CAL_REC_HEAD, llen);
        if (good < llen) FAIL(off + CAL_REC_HEAD + good, "label is not UTF-8");
        const uint8_t *payload = h + CAL_REC_HEAD + llen;
        if (h[0] == CAL_END) {
            if (llen || plen != 8 || cal_ld64(h + 8))
                FAIL(off, "malformed end record");
            if (cal_ld64(payload) != r->seg_records)
                FAIL(off, "end record counts %llu records, the stream had %llu",
                     (unsigned long long)cal_ld64(payload), (unsigned long long)r->seg_records);
            r->seg_open = 0;
            r->pos += total;
            continue;
        }
        if (check_payload(payload, plen, h[0], h[1], err, errlen, off + CAL_REC_HEAD + llen, erroff)) return -1;
        rec->kind = h[0];
        rec->id = cal_ld64(h + 8);
        rec->flags = h[1];
        rec->label = (const char *)h + CAL_REC_HEAD;
        rec->label_len = llen;
        rec->payload = payload;
        rec->payload_len = plen;
        rec->raw = h;
        rec->raw_len = total;
        rec->offset = off;
        r->pos += total;
        r->seg_records++;
        if (r->trim && r->pos - r->trimmed >= 2 * MAP_TRIM) { /* keep the last MAP_TRIM: records lent */
            size_t to = (r->pos - MAP_TRIM) & ~(size_t)((1u << 21) - 1);
            madvise(r->buf + r->trimmed, to - r->trimmed, MADV_DONTNEED);
            r->trimmed = to;
        }
        return 1;
    }
}

static cal_reader *open_common(cal_reader *r) {
    char err[256];
    uint64_t off = 0;
    if (read_header(r, &r->meta, err, sizeof err, &off)) {
        /* Freed before dying, so a bad input leaks nothing (LeakSanitizer). */
        char name[1024];
        snprintf(name, sizeof name, "%s", r->name);
        cal_reader_close(r);
        cal_die_at(name, off, "%s", err);
    }
    return r;
}

/* The first buffer: one huge page for a regular file of 2 MiB or more
 * (fresh 4 KiB pages cost a fault each, ~14 us on a VM: 3.6 ms a MiB),
 * 4 KiB pages touched as needed for anything shorter or unknown. */
static void first_buffer(cal_reader *r) {
    struct stat st;
    int big = !fstat(r->fd, &st) && S_ISREG(st.st_mode) && st.st_size >= 2 * READ_CHUNK;
    r->cap = big ? 2 * READ_CHUNK : READ_CHUNK;
    r->buf = cal_huge_zalloc(r->cap);
}

/* A regular file of MAP_MIN bytes or more, opened by name, as one mapped
 * buffer: 1, or 0 to read it (mmap refused, e.g. under ulimit -v). */
static int map_input(cal_reader *r) {
    struct stat st;
    if (fstat(r->fd, &st) || !S_ISREG(st.st_mode) || st.st_size < (off_t)MAP_MIN ||
        (uint64_t)st.st_size > SIZE_MAX / 2 || lseek(r->fd, 0, SEEK_CUR) != 0)
        return 0;
    size_t n = (size_t)st.st_size;
    void *m = mmap(NULL, n, PROT_READ, MAP_PRIVATE, r->fd, 0);
    if (m == MAP_FAILED) return 0;
    madvise(m, n, MADV_SEQUENTIAL);
    cal_map_guard(m, n, r->name); /* cut short while read: one line, not SIGBUS */
    r->buf = m;
    r->cap = r->end = n;
    r->eof = 1;
    r->mapped = r->trim = 1;
    return 1;
}

cal_reader *cal_reader_fdopen(int fd, const char *name) {
    cal_reader *r = cal_xcalloc(1, sizeof *r);
    reader_init(r, name);
    r->fd = fd;
    cal_pipe_grow(fd);
    first_buffer(r);
    return open_common(r);
}

cal_reader *cal_reader_open(const char *path) {
    if (!path || !strcmp(path, "-")) return cal_reader_fdopen(0, "stdin");
    int fd = open(path, O_RDONLY);
    char why[4200];
    if (fd < 0) cal_die("%s: %s", path, cal_open_error(path, errno, why, sizeof why));
    cal_reader *r = cal_xcalloc(1, sizeof *r);
    reader_init(r, path);
    r->fd = fd;
    r->own_fd = 1;
    if (!map_input(r)) first_buffer(r);
    return open_common(r);
}

cal_reader *cal_reader_open_soft(const char *path, char *err, size_t errlen) {
    int std = !path || !strcmp(path, "-");
    int fd = std ? 0 : open(path, O_RDONLY);
    if (fd < 0) {
        char why[4200];
        snprintf(err, errlen, "%s: %s", path, cal_open_error(path, errno, why, sizeof why));
        return NULL;
    }
    cal_reader *r = cal_xcalloc(1, sizeof *r);
    reader_init(r, std ? "stdin" : path);
    r->fd = fd;
    r->own_fd = !std;
    if (std || !map_input(r)) first_buffer(r);
    char e[384];
    uint64_t off = 0;
    if (read_header(r, &r->meta, e, sizeof e, &off)) {
        snprintf(err, errlen, "%s: byte %llu: %s", r->name, (unsigned long long)off, e);
        cal_reader_close(r);
        return NULL;
    }
    return r;
}

cal_reader *cal_reader_mem(const void *p, size_t n, const char *name) {
    cal_reader *r = cal_xcalloc(1, sizeof *r);
    reader_init(r, name);
    r->fd = -1;
    r->buf = (uint8_t *)p;
    r->end = r->cap = n;
    return r; /* header read lazily by cal_read_soft so the fuzzer never dies */
}

void cal_reader_mem_trim(cal_reader *r) { r->trim = 1; }

/* A mapped input (ours, or a memory reader's mapping: cal-blend's) that
 * reads as bad may have been cut short under us: the part of its last page
 * past the new end reads as zeros. Then that is the error. */
static void blame_shrink(cal_reader *r, char *err, size_t errlen, uint64_t *off) {
    uint64_t at;
    if ((r->mapped || r->fd < 0) && r->end && cal_map_shrank(r->buf, r->end, NULL, 0, &at)) {
        snprintf(err, errlen, "%s", CAL_MAP_SHRANK_WHY);
        *off = at;
    }
}

int cal_read_soft(cal_reader *r, cal_rec *rec, char *err, size_t errlen) {
    uint64_t off = 0;
    if (r->headers == 0 && read_header(r, &r->meta, err, errlen, &off)) goto fail;
    int rc = next_rec(r, rec, err, errlen, &off);
    if (rc >= 0) return rc;
fail:;
    blame_shrink(r, err, errlen, &off);
    /* Prefix the byte offset so soft errors read like hard ones. */
    char tmp[1200];
    snprintf(tmp, sizeof tmp, "%s: byte %llu: %s", r->name, (unsigned long long)off, err);
    snprintf(err, errlen, "%s", tmp);
    return -1;
}

int cal_read(cal_reader *r, cal_rec *rec) {
    char err[1024];
    uint64_t off = 0;
    if (r->headers == 0 && read_header(r, &r->meta, err, sizeof err, &off))
        blame_shrink(r, err, sizeof err, &off), cal_die_at(r->name, off, "%s", err);
    int rc = next_rec(r, rec, err, sizeof err, &off);
    if (rc < 0) blame_shrink(r, err, sizeof err, &off), cal_die_at(r->name, off, "%s", err);
    return rc;
}

void cal_reader_on_refill(cal_reader *r, void (*fn)(void *ctx), void *ctx) {
    r->refill = fn;
    r->refill_ctx = ctx;
}

void cal_reader_relay(cal_reader *r, int out_fd) {
    if (r->fd < 0 || r->relay) return;
    r->relay = cal_relay_new(r->fd, out_fd, r->mapped ? 0 : r->base + r->end); /* mapped: nothing read by read(2) */
}

void cal_reader_send(cal_reader *r, uint64_t off, const void *p, size_t n, int fd, const char *name) {
    size_t unsent = r->relay ? cal_relay_send(r->relay, off, p, n, name) : n;
    if (unsent && r->relay && r->mapped) { /* p is the mapping: its pages past the new end are gone */
        cal_die_at(r->name, off + n - unsent, "%s", CAL_MAP_SHRANK_WHY);
    }
    if (unsent) cal__write_all(fd, (const uint8_t *)p + n - unsent, unsent, name);
}

uint64_t cal_reader_spliced(const cal_reader *r) { return cal_relay_spliced(r->relay); }

const cal_meta *cal_reader_meta(cal_reader *r) { return &r->meta; }
unsigned cal_reader_headers(cal_reader *r) { return r->headers; }
int cal_reader_continues(cal_reader *r) { return r->continues; }
unsigned cal_reader_streams(cal_reader *r) { return r->streams; }

void cal_reader_shards_mode(cal_reader *r, int check, int whole, int allow_partial) {
    r->shards_check = check, r->shards_whole = whole, r->shards_allow = allow_partial;
}

cal_shards *cal_reader_shards(cal_reader *r) { return r->shards; }

int cal_reader_tail_meta(cal_reader *r, cal_meta *out) {
    struct stat st;
    /* the end: HEADER END(0); END is a 16-byte head, 8 bytes of count, 8 of checksum */
    const size_t endlen = CAL_REC_HEAD + 8 + 8, most = 16 + CAL_MAX_META + 8 + endlen;
    uint64_t size;
    if (r->fd < 0) size = r->end; /* a memory reader: its memory is the whole input */
    else if (fstat(r->fd, &st) || !S_ISREG(st.st_mode)) return 0;
    else size = (uint64_t)st.st_size;
    size_t n = size < most ? (size_t)size : most;
    if (n < 16 + 8 + endlen) return 0;
    uint8_t *b = cal_xmalloc(n);
    size_t got = 0;
    if (r->fd < 0) memcpy(b, r->buf + r->end - n, n), got = n;
    while (got < n) {
        ssize_t k = pread(r->fd, b + got, n - got, (off_t)(size - n + got));
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        got += (size_t)k;
    }
    int found = 0;
    const uint8_t *e = b + n - endlen;
    if (got == n && e[0] == CAL_END && !e[1] && !e[2] && !e[3] && cal_ld32(e + 4) == 8 && !cal_ld64(e + 16) &&
        cal_hash(e, endlen - 8) == cal_ld64(e + endlen - 8)) {
        /* the last header: the magic nearest the end whose header ends at e */
        for (size_t i = n - endlen; i-- > 0 && !found;) {
            if (b[i] != 0x89 || i + 16 > n - endlen || memcmp(b + i, CAL_MAGIC, CAL_MAGIC_LEN)) continue;
            uint32_t mlen = cal_ld32(b + i + 12);
            if (i + 16 + (size_t)mlen + 8 != n - endlen || !(b[i + 10] & CAL_HDR_CONTINUES)) continue;
            if (cal_hash(b + i, 16 + mlen) != cal_ld64(b + i + 16 + mlen)) continue;
            char err[256];
            cal_meta m = {0};
            if (cal_meta_parse((const char *)b + i + 16, mlen, &m, err, sizeof err)) {
                cal_meta_copy(out, &m);
                found = 1;
            }
            cal_meta_free(&m);
        }
    }
    free(b);
    return found;
}

void cal_reader_accept_partial(cal_reader *r, cal_meta *m) {
    if (r->shards_allow) cal_shards_accept(r->shards, r->shards_whole, m);
}
const char *cal_reader_name(cal_reader *r) { return r->name; }
uint64_t cal_reader_offset(cal_reader *r) { return r->base + r->pos; }

void cal_reader_die(cal_reader *r, const cal_rec *rec, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cal_die_at(r->name, rec ? rec->offset : cal_reader_offset(r), "%s", msg);
}

void cal_reader_close(cal_reader *r) {
    if (!r) return;
    if (r->refill) r->refill(r->refill_ctx);
    cal_relay_free(r->relay);
    if (r->own_fd) close(r->fd);
    if (r->mapped) {
        cal_map_unguard(r->buf);
        munmap(r->buf, r->cap);
    } else if (r->fd >= 0) {
        cal_huge_free(r->buf, r->cap);
    }
    cal_meta_free(&r->meta);
    cal_shards_free(r->shards);
    free(r->name);
    free(r);
}
