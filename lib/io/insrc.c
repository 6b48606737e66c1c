/* insrc.c - file/stdin/memory byte source with transparent gzip, zstd, xz
 * and bzip2. */
#define _DEFAULT_SOURCE /* getloadavg (glibc, musl and the BSDs have it) */
#include "io/insrc.h"
#include "base/buf.h"
#include "base/err.h"
#include "base/modelfile.h"
#include "base/num.h"
#include "base/par.h"
#include "stream/stream.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
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
#define NSLOT_MAX 4
typedef struct islot islot;

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
    uint8_t *out;              /* the bytes being handed out: own_out, or a thread's buffer */
    uint8_t *own_out;
    size_t pos, len, cap;
    unsigned fills;            /* refills in this thread (a thread starts at the third: not for small inputs) */
    /* the decompression thread (see producer) */
    int threaded, stopped;
    int decided;               /* whether to start the thread was asked (idle_cpu reads /sys and the load once) */
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct islot {
        uint8_t *buf;
        size_t len;
        int full, last, err;   /* full: the thread's until the reader takes it; last: the input ends with it */
        uint64_t err_off;
        char msg[512];
    } slots[NSLOT_MAX];
    unsigned head, tail;       /* the reader's next slot; the thread's next slot */
    int held, taken_last, stop;
    islot *failed;             /* handed out, and its error said at the next take_next */
    jmp_buf pjb;               /* the thread's way out of fail() */
    uint64_t base;             /* decompressed offset of out[0] */
    int eof;
    void (*on_error)(void *ctx, uint64_t off, const char *msg);
    void *ctx;
};

static _Thread_local cal_insrc *producing; /* in a decompression thread: its source */

/* "NAME: byte OFF: msg" and exit 1, or the caller's hook (which must not return). */
static CAL_NORETURN void fail(cal_insrc *s, uint64_t off, const char *fmt, ...) CAL_PRINTF(3, 4);
static void fail(cal_insrc *s, uint64_t off, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (producing == s) { /* in the decompression thread: said by the reader when it gets there */
        islot *sl = &s->slots[s->tail];
        snprintf(sl->msg, sizeof sl->msg, "%s", msg);
        sl->err = 1, sl->err_off = off;
        longjmp(s->pjb, 1);
    }
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
        if (producing == s) pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL); /* stop_thread while it waits */
        do n = read(s->fd, s->in, IN_CAP); while (n < 0 && errno == EINTR);
        if (producing == s) pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
        if (n < 0) fail(s, s->raw_read, "read error: %s", strerror(errno));
        s->in_pos = 0, s->in_len = (size_t)n;
    }
    s->raw_read += s->in_len;
    if (s->hash && s->in_len) XXH3_64bits_update(s->hash, s->in, s->in_len);
    if (s->in_len == 0) s->raw_eof = 1;
    return s->in_len > 0;
}

static uint64_t raw_off(const cal_insrc *s) { return s->raw_read - (s->in_len - s->in_pos); }

/* Decodes more bytes into out[*len..cap), at least one unless the input
 * ends. Sets eof at the clean end. */
static void decode(cal_insrc *s, uint8_t *out, size_t *len, size_t cap) {
    while (!s->eof && *len < cap) {
        if (!raw_fill(s)) {
            if (s->codec == C_GZIP && s->z_live)
                fail(s, raw_off(s), "truncated gzip data");
            if (s->codec == C_ZSTD && s->zret != 0)
                fail(s, raw_off(s), "truncated zstd data");
            if (s->codec == C_BZ2 && s->bz_live)
                fail(s, raw_off(s), "truncated bzip2 data");
            if (s->codec == C_XZ) { /* the end of the last stream: LZMA_FINISH says whether it is whole */
                size_t had = *len;
                s->xz.next_in = NULL, s->xz.avail_in = 0;
                s->xz.next_out = out + *len, s->xz.avail_out = cap - *len;
                lzma_ret rc = lzma_code(&s->xz, LZMA_FINISH);
                *len = cap - s->xz.avail_out;
                if (rc == LZMA_OK && *len > had) break; /* more output first; then finish again */
                if (rc != LZMA_STREAM_END) fail(s, raw_off(s), "truncated xz data");
            }
            s->eof = 1;
            break;
        }
        size_t before = *len;
        if (s->codec == C_NONE) {
            size_t n = s->in_len - s->in_pos;
            if (n > cap - *len) n = cap - *len;
            memcpy(out + *len, s->in + s->in_pos, n);
            s->in_pos += n, *len += n;
        } else if (s->codec == C_GZIP) {
            if (!s->z_live) {
                if (inflateReset(&s->z) != Z_OK) fail(s, raw_off(s), "inflateReset failed");
                s->z_live = 1;
            }
            s->z.next_in = s->in + s->in_pos;
            s->z.avail_in = (uInt)(s->in_len - s->in_pos);
            s->z.next_out = out + *len;
            s->z.avail_out = (uInt)(cap - *len);
            int rc = inflate(&s->z, Z_NO_FLUSH);
            s->in_pos = s->in_len - s->z.avail_in;
            *len = cap - s->z.avail_out;
            if (rc == Z_STREAM_END) s->z_live = 0;
            else if (rc != Z_OK && rc != Z_BUF_ERROR)
                fail(s, raw_off(s), "corrupt gzip data (%s)", s->z.msg ? s->z.msg : "inflate error");
        } else if (s->codec == C_XZ) {
            s->xz.next_in = s->in + s->in_pos;
            s->xz.avail_in = s->in_len - s->in_pos;
            s->xz.next_out = out + *len;
            s->xz.avail_out = cap - *len;
            lzma_ret rc = lzma_code(&s->xz, LZMA_RUN);
            s->in_pos = s->in_len - s->xz.avail_in;
            *len = cap - s->xz.avail_out;
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
            s->bz.next_out = (char *)(out + *len);
            s->bz.avail_out = (unsigned)(cap - *len);
            int rc = BZ2_bzDecompress(&s->bz);
            s->in_pos = s->in_len - s->bz.avail_in;
            *len = cap - s->bz.avail_out;
            if (rc == BZ_STREAM_END) s->bz_live = 0;
            else if (rc != BZ_OK)
                fail(s, raw_off(s), "corrupt bzip2 data (%s)", rc == BZ_DATA_ERROR_MAGIC ? "not bzip2" :
                     rc == BZ_MEM_ERROR ? "out of memory" : "damaged data");
        } else {
            ZSTD_inBuffer ib = {s->in, s->in_len, s->in_pos};
            ZSTD_outBuffer ob = {out, cap, *len};
            size_t r = ZSTD_decompressStream(s->zd, &ob, &ib);
            if (ZSTD_isError(r))
                fail(s, raw_off(s), "corrupt zstd data (%s)", ZSTD_getErrorName(r));
            s->zret = r;
            s->in_pos = ib.pos, *len = ob.pos;
        }
        if (*len > before) break;  /* something to hand out */
    }
}


/* ---- a decompression thread ------------------------------------------------
 * Decompression is up to half of cal-read's CPU; done by a second thread
 * into a ring of NSLOT buffers, it overlaps the parsing (wall time only:
 * the CPU is the same or more). Used for a compressed file or stdin once
 * two buffers did not hold it all, when a processor is idle (idle_cpu); the
 * bytes handed out are the same. An error in the thread is said by the
 * reading thread when it reaches that buffer. */
#define NSLOT NSLOT_MAX
#define SLOT_CAP (1u << 20) /* a wake-up per MiB */

static void *producer(void *arg) {
    cal_insrc *s = arg;
    producing = s;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL); /* cancelled only inside read() */
    for (;;) {
        pthread_mutex_lock(&s->mu);
        while (s->slots[s->tail].full && !s->stop) pthread_cond_wait(&s->cv, &s->mu);
        int stop = s->stop;
        pthread_mutex_unlock(&s->mu);
        if (stop) break;
        islot *sl = &s->slots[s->tail];
        sl->len = 0, sl->err = 0;
        /* Decoded as without the thread: each call with OUT_CAP bytes of room, and a
         * failing call's bytes left out, so the same bytes come before an error. */
        if (!setjmp(s->pjb))
            while (sl->len <= SLOT_CAP - OUT_CAP && !s->eof) {
                size_t n = sl->len;
                decode(s, sl->buf, &n, sl->len + OUT_CAP);
                sl->len = n;
            }
        pthread_mutex_lock(&s->mu);
        sl->last = s->eof || sl->err;
        sl->full = 1;
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
        s->tail = (s->tail + 1) % NSLOT;
        if (sl->last) break;
    }
    return NULL;
}

static int start_thread(cal_insrc *s) {
    for (int k = 0; k < NSLOT; k++) s->slots[k].buf = cal_xmalloc(SLOT_CAP);
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    if (pthread_create(&s->th, NULL, producer, s) != 0) { /* no thread: read in this one */
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->cv);
        for (int k = 0; k < NSLOT; k++) free(s->slots[k].buf), s->slots[k].buf = NULL;
        return 0;
    }
    s->threaded = 1;
    return 1;
}

/* The next buffer from the thread as out[0..len) (len 0 after the last). */
static void take_next(cal_insrc *s) {
    pthread_mutex_lock(&s->mu);
    if (s->held) { /* the buffer just used goes back to the thread */
        s->slots[(s->head + NSLOT - 1) % NSLOT].full = 0;
        s->held = 0;
        pthread_cond_broadcast(&s->cv);
    }
    if (s->taken_last) {
        pthread_mutex_unlock(&s->mu);
        s->out = s->own_out, s->len = 0;
        if (s->failed) fail(s, s->failed->err_off, "%s", s->failed->msg); /* the thread has ended: the slot stays */
        return;
    }
    while (!s->slots[s->head].full) pthread_cond_wait(&s->cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
    islot *sl = &s->slots[s->head];
    s->head = (s->head + 1) % NSLOT;
    s->held = 1;
    s->taken_last = sl->last;
    /* The bytes decoded before an error first, as without the thread; then the error. */
    if (sl->err && !sl->len) fail(s, sl->err_off, "%s", sl->msg);
    if (sl->err) s->failed = sl;
    s->out = sl->buf, s->len = sl->len;
}

/* Ends the thread (it may wait in read() on a pipe: cancelled there). */
static void stop_thread(cal_insrc *s) {
    if (!s->threaded) return;
    pthread_mutex_lock(&s->mu);
    s->stop = 1;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    pthread_cancel(s->th);
    pthread_join(s->th, NULL);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    s->threaded = 0, s->stopped = 1;
}

/* Whether a processor is free for the thread: more than one, and a load
 * average below their number less one. On a busy machine the thread only
 * adds CPU (5-8% on bench/read.sh: handing buffers between cores) and
 * shortens nothing. CAL_DECOMPRESS_THREAD=1 or 0 decides instead. */
static int idle_cpu(void) {
    const char *force = getenv("CAL_DECOMPRESS_THREAD"); /* 1 or 0: always or never (tests, benchmarks) */
    if (force && (!strcmp(force, "0") || !strcmp(force, "1"))) return force[0] == '1';
    static int told; /* not in silence: a value that decides nothing is said, once */
    if (force && *force && !told++) cal_warn("CAL_DECOMPRESS_THREAD=%s: takes 0 or 1; the load decides", force);
    unsigned cpus = cal_par_cpus();
    double load;
    return cpus > 1 && getloadavg(&load, 1) == 1 && load < (double)cpus - 1.0;
}

/* More decompressed bytes: appended to out[len..) when some are unread
 * (cal_insrc_peek), else in place of the used ones. */
static void refill(cal_insrc *s) {
    if (s->pos == s->len) {
        s->base += s->len;
        s->pos = s->len = 0;
        if (s->threaded || s->stopped) {
            if (s->stopped) s->out = s->own_out; /* raw_digest ended the thread: nothing more is read */
            else take_next(s);
            return;
        }
        if (!s->decided && s->fills >= 2 && !s->eof) { /* once, where two buffers did not hold it all */
            s->decided = 1;
            if (s->fd >= 0 && s->codec != C_NONE && !s->on_error && idle_cpu() && start_thread(s)) {
                take_next(s);
                return;
            }
        }
    }
    /* Appending (cal_insrc_peek) is for the reader's own buffer, before a thread:
     * with one, this thread would decode beside it, into its buffer. */
    if (s->threaded || s->stopped) return;
    if (!s->eof && s->len < s->cap) decode(s, s->out, &s->len, s->cap);
    s->fills++;
}

static cal_insrc *make(const char *name) {
    cal_insrc *s = cal_xcalloc(1, sizeof *s);
    s->name = cal_xstrdup(name);
    s->cap = OUT_CAP;
    s->out = s->own_out = cal_xmalloc(s->cap);
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

uint64_t cal_insrc_raw_digest(cal_insrc *s, uint64_t *bytes) {
    stop_thread(s); /* its reads are done with */
    *bytes = s->raw_read;
    return s->hash ? XXH3_64bits_digest(s->hash) : 0;
}

size_t cal_insrc_peek(cal_insrc *s, const uint8_t **p, size_t n) {
    /* Once a decompression thread runs (from the third refill; the peeks come
     * at a source's start) the unread bytes of its buffer are all a peek sees:
     * refill appends nothing then, and s->eof is the thread's to write. */
    while (s->len - s->pos < n && !s->threaded && !s->stopped && !s->eof) {
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
    stop_thread(s);
    for (int k = 0; k < NSLOT; k++) free(s->slots[k].buf);
    if (s->fd > 0) close(s->fd);
    if (s->codec == C_GZIP) inflateEnd(&s->z);
    if (s->zd) ZSTD_freeDCtx(s->zd);
    if (s->codec == C_XZ) lzma_end(&s->xz);
    if (s->codec == C_BZ2) BZ2_bzDecompressEnd(&s->bz);
    if (s->hash) XXH3_freeState(s->hash);
    if (s->fd >= 0) free(s->in);
    free(s->own_out);
    free(s->name);
    free(s);
}
