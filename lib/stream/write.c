/* stream_write.c - buffered cal-stream writer; the header goes out lazily,
 * and again whenever the metadata changed since the last one. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "base/buf.h"
#include "base/dtype.h"
#include "base/err.h"
#include "base/num.h"
#include "base/outfile.h"
#include "base/oshint.h"
#include "stream/internal.h"

#define WRITE_BUF (1u << 20)
/* cal_write_raw_kept: references per writev, with the buffer in front of
 * them one less than IOV_MAX (1024 on Linux): writev refuses more (EINVAL) */
#define KEPT_MAX 1023

struct cal_writer {
    int fd;
    char *name, *tmp, *final;
    uint8_t *buf;
    size_t n;
    cal_meta meta, written;   /* current metadata, and that of the last header */
    int header_out, dirty, named; /* named: not stdout */
    uint64_t seg_records;     /* records since the last header */
    uint64_t off;             /* bytes written or buffered: where the next record goes */
    const uint8_t *lent;      /* cal_write_raw_lent: bytes to write after buf, not copied */
    size_t nlent;
    uint64_t lent_off;        /* their offset in the lender's input */
    cal_reader *lender;       /* cal_writer_lend_from: sends them (splice where it can) */
    struct iovec kept[KEPT_MAX + 1]; /* cal_write_raw_kept: [0] is buf, then the records */
    int nkept;
    size_t kept_bytes;        /* their bytes: flushed at WRITE_BUF, so output flows and memory stays bounded */
};

uint64_t cal__writev_fallbacks; /* see internal.h */

/* A record or header this writer cannot write: "PROG: OUT: byte OFF: msg". */
static CAL_NORETURN void writer_die(cal_writer *w, const char *fmt, ...) CAL_PRINTF(2, 3);
static void writer_die(cal_writer *w, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cal_die_at(w->name, w->off, "%s", msg);
}

cal_writer *cal_writer_open(const char *path) {
    int named = path && strcmp(path, "-");
    char *tmp = NULL, *final = NULL;
    /* Opened before anything is allocated: dying here leaks nothing. */
    int fd = named ? cal__open_out(path, &tmp, &final) : 1;
    if (isatty(fd))
        cal_usage_error("%s: refusing to write a binary cal-stream to a terminal (pipe it or use -o FILE)",
                        named ? path : "stdout");
    if (!named) cal__ignore_sigpipe();
    cal_writer *w = cal_xcalloc(1, sizeof *w);
    w->fd = fd, w->tmp = tmp, w->final = final, w->named = named;
    w->name = cal_xstrdup(named ? path : "stdout");
    if (!named) cal_pipe_grow(1);
    w->buf = cal_xmalloc(WRITE_BUF);
    return w;
}

cal_meta *cal_writer_meta(cal_writer *w) {
    w->dirty = 1; /* the caller may change it; compared before the next record */
    return &w->meta;
}

/* writev(2) of iov[0..n) whole, with cal__write_all's error convention. */
static void writev_all(cal_writer *w, struct iovec *iov, int n) {
    while (n) {
        ssize_t k = writev(w->fd, iov, n);
        if (k < 0) {
            if (errno == EINTR) continue;
            cal__writev_fallbacks++;
            /* the first part again by write(2): it reports the error as every writer does */
            cal__write_all(w->fd, iov->iov_base, iov->iov_len, w->name);
            iov++, n--;
            continue;
        }
        size_t left = (size_t)k;
        for (; n && left >= iov->iov_len; iov++, n--) left -= iov->iov_len;
        if (n && left) iov->iov_base = (char *)iov->iov_base + left, iov->iov_len -= left;
    }
}

static void flush(cal_writer *w) {
    if (w->nkept) { /* the buffer, then the kept records, in one call */
        w->kept[0].iov_base = w->buf, w->kept[0].iov_len = w->n;
        writev_all(w, w->kept, w->nkept + 1);
        w->nkept = 0;
        w->kept_bytes = 0;
        w->n = 0;
        if (w->tmp) cal_writeback(w->fd);
    }
    cal__write_all(w->fd, w->buf, w->n, w->name);
    w->n = 0;
    if (w->nlent && w->lender) cal_reader_send(w->lender, w->lent_off, w->lent, w->nlent, w->fd, w->name);
    else if (w->nlent) cal__write_all(w->fd, w->lent, w->nlent, w->name);
    w->nlent = 0;
    if (w->tmp) cal_writeback(w->fd); /* the commit's fsync waits less */
}

static void put(cal_writer *w, const void *p, size_t n) {
    if (n == 0) return; /* p may be NULL */
    if (w->nlent || w->nkept) flush(w); /* lent bytes go out before anything after them */
    w->off += n;
    if (w->n + n > WRITE_BUF) {
        flush(w);
        if (n > WRITE_BUF / 2) {
            cal__write_all(w->fd, p, n, w->name);
            if (w->tmp) cal_writeback(w->fd);
            return;
        }
    }
    memcpy(w->buf + w->n, p, n);
    w->n += n;
}

typedef struct {
    const void *p;
    size_t n;
} part;

/* Writes head (with its flags byte) + label + payload (given in up to three
 * parts) + checksum. */
static void write_parts(cal_writer *w, int kind, unsigned flags, const char *label, size_t llen, uint64_t id,
                        const part *pp, int np);

static void write_rec2(cal_writer *w, int kind, unsigned flags, const char *label, size_t llen, uint64_t id,
                       const void *p1, size_t n1, const void *p2, size_t n2) {
    part pp[2] = {{p1, n1}, {p2, n2}};
    write_parts(w, kind, flags, label, llen, id, pp, 2);
}

static void write_end(cal_writer *w) {
    uint8_t count[8];
    cal_st64(count, w->seg_records);
    write_rec2(w, CAL_END, 0, "", 0, 0, count, 8, NULL, 0);
}

static void maybe_header(cal_writer *w) {
    if (w->header_out && !w->dirty) return;
    w->dirty = 0;
    if (w->header_out && cal_meta_equal(&w->meta, &w->written)) return;
    int again = w->header_out;
    if (again) write_end(w);
    w->seg_records = 0;
    char err[400];
    if (cal__meta_check(&w->meta, err, sizeof err)) writer_die(w, "%s", err);
    cal_buf h = {0};
    if (cal__header_encode(&w->meta, again ? CAL_HDR_CONTINUES : 0, &h)) writer_die(w, "stream metadata is over the %u-byte limit", CAL_MAX_META);
    put(w, h.p, h.n);
    cal_buf_free(&h);
    cal_meta_copy(&w->written, &w->meta);
    w->header_out = 1;
}

/* A record's fixed 16-byte head. */
static void rec_head(uint8_t head[CAL_REC_HEAD], int kind, unsigned flags, size_t llen, size_t plen, uint64_t id) {
    head[0] = (uint8_t)kind;
    head[1] = (uint8_t)flags;
    head[2] = (uint8_t)llen;
    head[3] = (uint8_t)(llen >> 8);
    cal_st32(head + 4, (uint32_t)plen);
    cal_st64(head + 8, id);
}

/* Assembles a whole record of plen payload bytes at o (room for
 * CAL_REC_HEAD + llen + plen + 8 bytes) and hashes it in one pass; returns
 * its size. */
static size_t rec_assemble(uint8_t *o, int kind, unsigned flags, const char *label, size_t llen, uint64_t id,
                           const part *pp, int np, size_t plen) {
    size_t total = CAL_REC_HEAD + llen + plen + 8;
    uint8_t *q = o + CAL_REC_HEAD + llen;
    rec_head(o, kind, flags, llen, plen, id);
    if (llen) memcpy(o + CAL_REC_HEAD, label, llen);
    for (int k = 0; k < np; k++)
        if (pp[k].n) memcpy(q, pp[k].p, pp[k].n), q += pp[k].n;
    cal_st64(o + total - 8, cal_hash(o, total - 8));
    return total;
}

static void write_parts(cal_writer *w, int kind, unsigned flags, const char *label, size_t llen, uint64_t id,
                        const part *pp, int np) {
    char err[400];
    if (cal_label_check(label, llen, err, sizeof err)) writer_die(w, "%s", err);
    size_t plen = 0;
    for (int k = 0; k < np; k++) plen += pp[k].n;
    if (plen > CAL_MAX_PAYLOAD)
        writer_die(w, "%s record %016llx of %zu bytes exceeds the %u-byte limit", cal_kind_name(kind),
                   (unsigned long long)id, plen, CAL_MAX_PAYLOAD);
    if (kind != CAL_END) {
        maybe_header(w);
        w->seg_records++;
    }
    size_t total = CAL_REC_HEAD + llen + plen + 8;
    if (total <= WRITE_BUF) { /* the common case: assembled in the buffer */
        if (w->n + total > WRITE_BUF || w->nlent || w->nkept) flush(w);
        rec_assemble(w->buf + w->n, kind, flags, label, llen, id, pp, np, plen);
        w->n += total;
        w->off += total;
        return;
    }
    uint8_t head[CAL_REC_HEAD], sum[8];
    rec_head(head, kind, flags, llen, plen, id);
    XXH3_state_t st;
    XXH3_64bits_reset(&st);
    XXH3_64bits_update(&st, head, CAL_REC_HEAD);
    if (llen) XXH3_64bits_update(&st, label, llen);
    for (int k = 0; k < np; k++)
        if (pp[k].n) XXH3_64bits_update(&st, pp[k].p, pp[k].n);
    cal_st64(sum, XXH3_64bits_digest(&st));
    put(w, head, CAL_REC_HEAD);
    put(w, label, llen);
    for (int k = 0; k < np; k++) put(w, pp[k].p, pp[k].n);
    put(w, sum, 8);
}

void cal_write_rec(cal_writer *w, int kind, const char *label, size_t label_len, uint64_t id,
                   const void *payload, size_t payload_len) {
    write_rec2(w, kind, 0, label, label_len, id, payload, payload_len, NULL, 0);
}

void cal_write_rec_flags(cal_writer *w, int kind, unsigned flags, const char *label, size_t label_len, uint64_t id,
                         const void *payload, size_t payload_len) {
    unsigned keep = kind == CAL_TEXT ? CAL_TEXT_CHAT | CAL_TEXT_SPANS : kind == CAL_TOKENS ? CAL_TOKENS_ROLE : 0;
    write_rec2(w, kind, flags & keep, label, label_len, id, payload, payload_len, NULL, 0);
}

void cal_write_text_spans(cal_writer *w, const char *label, uint64_t id, const char *text, size_t len, unsigned flags,
                          const uint32_t *spans, size_t nspans) {
    cal_buf t = {0};
    cal_buf_reserve(&t, 8 * nspans + 4);
    for (size_t i = 0; i < 2 * nspans; i++) cal_st32((uint8_t *)t.p + 4 * i, spans[i]);
    cal_st32((uint8_t *)t.p + 8 * nspans, (uint32_t)nspans);
    write_rec2(w, CAL_TEXT, (flags & CAL_TEXT_CHAT) | CAL_TEXT_SPANS, label, strlen(label), id, text, len, t.p,
               8 * nspans + 4);
    cal_buf_free(&t);
}

void cal_write_text(cal_writer *w, const char *label, uint64_t id, const char *text, size_t len) {
    write_rec2(w, CAL_TEXT, 0, label, strlen(label), id, text, len, NULL, 0);
}

void cal_write_text_flags(cal_writer *w, const char *label, uint64_t id, const char *text, size_t len,
                          unsigned flags) {
    write_rec2(w, CAL_TEXT, flags & CAL_TEXT_CHAT, label, strlen(label), id, text, len, NULL, 0);
}

/* Token ids as little-endian bytes: on little-endian hosts the array as is. */
static const void *le_ids(const uint32_t *ids, size_t n, cal_buf *tmp) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    (void)n;
    (void)tmp;
    return ids;
#else
    cal_buf_reserve(tmp, 4 * n);
    for (size_t i = 0; i < n; i++) cal_st32(tmp->p + 4 * i, ids[i]);
    return tmp->p;
#endif
}

/* 0, or -1 with err when n ids do not fit one TOKENS record. */
static int too_many_ids(uint64_t id, size_t n, char *err, size_t errlen) {
    if (n <= CAL_MAX_PAYLOAD / 4) return 0;
    return cal_errf(err, errlen, "TOKENS record %016llx of %zu ids exceeds the limit of %u", (unsigned long long)id,
                    n, CAL_MAX_PAYLOAD / 4);
}

void cal_write_tokens(cal_writer *w, const char *label, uint64_t id, const uint32_t *ids, size_t n) {
    cal_buf tmp = {0};
    char err[128];
    if (too_many_ids(id, n, err, sizeof err)) writer_die(w, "%s", err);
    write_rec2(w, CAL_TOKENS, 0, label, strlen(label), id, le_ids(ids, n, &tmp), 4 * n, NULL, 0);
    cal_buf_free(&tmp);
}

int cal_encode_tokens(cal_buf *out, const char *label, size_t llen, uint64_t id, const uint32_t *ids, size_t n,
                      char *err, size_t errlen) {
    return cal_encode_tokens_role(out, label, llen, id, ids, NULL, n, err, errlen);
}

int cal_encode_tokens_role(cal_buf *out, const char *label, size_t llen, uint64_t id, const uint32_t *ids,
                           const uint8_t *role, size_t n, char *err, size_t errlen) {
    if (cal_label_check(label, llen, err, errlen) || too_many_ids(id, n, err, errlen)) return -1;
    if (role && n > CAL_MAX_PAYLOAD / 5)
        return cal_errf(err, errlen, "TOKENS record %016llx of %zu ids and a role mask exceeds the limit of %u",
                        (unsigned long long)id, n, CAL_MAX_PAYLOAD / 5);
    cal_buf tmp = {0};
    uint8_t *r01 = NULL;
    if (role) {
        r01 = cal_xmalloc(n ? n : 1);
        for (size_t i = 0; i < n; i++) r01[i] = role[i] ? 1 : 0;
    }
    part pp[2] = {{le_ids(ids, n, &tmp), 4 * n}, {r01, role ? n : 0}};
    size_t plen = pp[0].n + pp[1].n;
    cal_buf_reserve(out, out->n + CAL_REC_HEAD + llen + plen + 8);
    out->n += rec_assemble((uint8_t *)out->p + out->n, CAL_TOKENS, role ? CAL_TOKENS_ROLE : 0, label, llen, id, pp, 2,
                           plen);
    free(r01);
    cal_buf_free(&tmp);
    return 0;
}

void cal_write_encoded(cal_writer *w, const void *recs, size_t n, uint64_t nrecs) {
    if (!nrecs) return;
    maybe_header(w);
    w->seg_records += nrecs;
    /* copied into the buffer even when large: write(2) from a buffer that
     * another thread just filled cost cal-encode's main thread more than
     * the copy (measured) */
    put(w, recs, n);
}

void cal_write_row(cal_writer *w, const char *label, uint64_t id, const uint32_t *ids,
                   const uint8_t *mask, uint32_t len, uint32_t flags) {
    cal_write_row_role(w, label, id, ids, mask, NULL, len, flags);
}

/* len bytes of v as 0/1 (a new buffer), or NULL. */
static uint8_t *bits01(const uint8_t *v, uint32_t len) {
    if (!v) return NULL;
    uint8_t *m = cal_xmalloc(len ? len : 1);
    for (uint32_t i = 0; i < len; i++) m[i] = v[i] ? 1 : 0;
    return m;
}

void cal_write_row_role(cal_writer *w, const char *label, uint64_t id, const uint32_t *ids, const uint8_t *mask,
                        const uint8_t *role, uint32_t len, uint32_t flags) {
    flags &= CAL_ROW_NOISE;
    if (mask) flags |= CAL_ROW_MASK;
    if (role) flags |= CAL_ROW_ROLE;
    uint32_t limit = (CAL_MAX_PAYLOAD - 8) / (role ? 6 : 5);
    if (len > limit)
        writer_die(w, "ROW record %016llx of %u ids exceeds the limit of %u", (unsigned long long)id, len, limit);
    uint8_t head[8], *m = bits01(mask, len), *ro = bits01(role, len);
    cal_buf tmp = {0};
    cal_st32(head, len);
    cal_st32(head + 4, flags);
    /* The parts go straight into the output buffer: no copy of the row (ids
     * may be NULL when len is 0: a part of 0 bytes is never read). */
    part pp[4] = {{head, 8}, {len ? le_ids(ids, len, &tmp) : NULL, 4 * (size_t)len}, {m, mask ? len : 0},
                  {ro, role ? len : 0}};
    write_parts(w, CAL_ROW, 0, label, strlen(label), id, pp, 4);
    free(ro);
    cal_buf_free(&tmp);
    free(m);
}

void cal_write_vectors(cal_writer *w, const char *label, uint64_t id, uint32_t n, uint32_t d,
                       int dtype, const void *data) {
    size_t es = cal_dtype_size(dtype);
    if (!es) writer_die(w, "unknown VECTORS dtype %d", dtype);
    uint64_t vals = (uint64_t)n * d; /* < 2^64; times es it could wrap */
    if (vals > (CAL_MAX_PAYLOAD - CAL_VEC_HEAD) / es)
        writer_die(w, "VECTORS record %016llx of %u x %u exceeds the %u-byte limit", (unsigned long long)id, n, d,
                   CAL_MAX_PAYLOAD);
    uint8_t head[CAL_VEC_HEAD] = {0};
    cal_st32(head, n);
    cal_st32(head + 4, d);
    head[8] = (uint8_t)dtype;
    write_rec2(w, CAL_VECTORS, 0, label, strlen(label), id, head, CAL_VEC_HEAD, data, (size_t)(vals * es));
}

void cal_write_raw(cal_writer *w, const cal_rec *rec) {
    maybe_header(w);
    w->seg_records++;
    put(w, rec->raw, rec->raw_len);
}

void cal_write_raw_lent(cal_writer *w, const cal_rec *rec) {
    maybe_header(w);
    w->seg_records++;
    w->off += rec->raw_len;
    if (w->nlent && rec->raw == w->lent + w->nlent && w->nlent < WRITE_BUF) { /* the next in the reader's buffer */
        w->nlent += rec->raw_len;
        return;
    }
    if (w->nlent || w->nkept) flush(w);
    w->lent = rec->raw;
    w->nlent = rec->raw_len;
    w->lent_off = rec->offset;
}

void cal_write_raw_kept(cal_writer *w, const cal_rec *rec) {
    maybe_header(w);
    w->seg_records++;
    w->off += rec->raw_len;
    if (w->nlent) flush(w);
    struct iovec *last = w->kept + w->nkept;
    if (w->nkept && (const char *)last->iov_base + last->iov_len == (const char *)rec->raw) { /* the next in memory */
        last->iov_len += rec->raw_len;
    } else {
        if (w->nkept == KEPT_MAX) flush(w);
        w->nkept++;
        w->kept[w->nkept].iov_base = (void *)(uintptr_t)rec->raw;
        w->kept[w->nkept].iov_len = rec->raw_len;
    }
    w->kept_bytes += rec->raw_len;
    if (w->kept_bytes >= WRITE_BUF) flush(w); /* not held to the end: downstream reads as we go */
}

void cal_writer_flush(cal_writer *w) { flush(w); }

static void flush_hook(void *w) { flush(w); }

void cal_writer_lend_from(cal_writer *w, cal_reader *r) {
    cal_reader_on_refill(r, flush_hook, w);
    w->lender = r;
    cal_reader_relay(r, w->fd);
}

void cal_writer_close(cal_writer *w) {
    maybe_header(w);
    write_end(w);
    flush(w);
    if (w->named) cal__commit_out(w->fd, w->tmp, w->final, w->name);
    free(w->tmp);
    free(w->final);
    free(w->name);
    free(w->buf);
    cal_meta_free(&w->meta);
    cal_meta_free(&w->written);
    free(w);
}
