/* spill.c - see spill.h. */
#include "base/spill.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"

#define BLOCK (1u << 20) /* write buffer, and the least read buffer */

struct cal_spill {
    size_t limit;
    uint64_t size;        /* bytes stored */
    uint8_t *mem;         /* all of them, while fd < 0 */
    size_t mcap;
    int fd;               /* the file, once the limit is passed */
    uint64_t flushed;     /* bytes in the file; the rest are in wbuf */
    uint8_t *wbuf;
    size_t wn;
    uint64_t writes;
    uint64_t rpos;        /* sequential reading: the next byte */
    uint8_t *rbuf;        /* holds [rstart, rstart + rlen) of the file */
    size_t rcap, rlen;
    uint64_t rstart;
};

static const char *tmpdir(void) {
    const char *d = getenv("TMPDIR");
    return d && *d ? d : "/tmp";
}

static CAL_NORETURN void io_failed(const char *what) {
    cal_die("%s: cannot %s a temporary file: %s", tmpdir(), what, strerror(errno));
}

cal_spill *cal_spill_new(size_t mem_limit) {
    cal_spill *s = cal_xcalloc(1, sizeof *s);
    s->limit = mem_limit;
    s->fd = -1;
    return s;
}

static void pwrite_all(cal_spill *s, const void *p, size_t n, uint64_t off) {
    const char *c = p;
    while (n) {
        ssize_t k = pwrite(s->fd, c, n, (off_t)off);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            if (k == 0) errno = ENOSPC;
            io_failed("write");
        }
        c += k, off += (uint64_t)k, n -= (size_t)k;
        s->writes++;
    }
}

static void pread_all(cal_spill *s, void *p, size_t n, uint64_t off) {
    char *c = p;
    while (n) {
        ssize_t k = pread(s->fd, c, n, (off_t)off);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            if (k == 0) errno = EIO; /* the file is shorter than what was written */
            io_failed("read");
        }
        c += k, off += (uint64_t)k, n -= (size_t)k;
    }
}

static void flush(cal_spill *s) {
    if (!s->wn) return;
    pwrite_all(s, s->wbuf, s->wn, s->flushed);
    s->flushed += s->wn;
    s->wn = 0;
}

/* Moves the bytes held in memory to a new temporary file. */
static void to_disk(cal_spill *s) {
    cal_buf path = {0};
    cal_buf_addf(&path, "%s/calspill.XXXXXX", tmpdir());
    cal_buf_addc(&path, 0);
    s->fd = mkstemp(path.p);
    if (s->fd < 0) cal_die("%s: cannot create a temporary file: %s", path.p, strerror(errno));
    unlink(path.p); /* gone when closed or when the program exits, however it exits */
    cal_buf_free(&path);
    s->wbuf = cal_xmalloc(BLOCK);
    pwrite_all(s, s->mem, (size_t)s->size, 0);
    s->flushed = s->size;
    free(s->mem);
    s->mem = NULL;
    s->mcap = 0;
}

/* Room in memory for n more bytes, or the move to the file. */
static void make_room(cal_spill *s, uint64_t n) {
    if (s->fd >= 0) return;
    uint64_t want = s->size + n;
    if (want > s->limit) {
        to_disk(s);
        return;
    }
    if (want <= s->mcap) return;
    size_t cap = s->mcap ? s->mcap : 4096;
    while (cap < want) cap = cap > s->limit / 2 ? s->limit : 2 * cap;
    s->mem = cal_xrealloc(s->mem, cap);
    s->mcap = cap;
}

void cal_spill_add(cal_spill *s, const void *p, size_t n) {
    if (!n) return;
    make_room(s, n);
    if (s->fd < 0) {
        memcpy(s->mem + s->size, p, n);
    } else if (s->wn + n <= BLOCK) {
        memcpy(s->wbuf + s->wn, p, n);
        s->wn += n;
    } else {
        flush(s);
        if (n >= BLOCK) { /* a large piece goes out as it is */
            pwrite_all(s, p, n, s->flushed);
            s->flushed += n;
        } else {
            memcpy(s->wbuf, p, n);
            s->wn = n;
        }
    }
    s->size += n;
}

void cal_spill_add_zeros(cal_spill *s, uint64_t n) {
    if (!n) return;
    make_room(s, n);
    if (s->fd < 0) {
        memset(s->mem + s->size, 0, (size_t)n);
    } else {
        flush(s);
        if (ftruncate(s->fd, (off_t)(s->flushed + n))) io_failed("write");
        s->flushed += n;
    }
    s->size += n;
}

void cal_spill_put_at(cal_spill *s, uint64_t off, const void *p, size_t n) {
    if (!n) return;
    if (s->fd < 0) {
        memcpy(s->mem + off, p, n);
        return;
    }
    if (off + n > s->flushed) flush(s);
    pwrite_all(s, p, n, off);
    if (s->rlen && off < s->rstart + s->rlen && off + n > s->rstart) s->rlen = 0; /* stale */
}

void cal_spill_get_at(cal_spill *s, uint64_t off, void *p, size_t n) {
    if (!n) return;
    if (s->fd < 0) {
        memcpy(p, s->mem + off, n);
        return;
    }
    if (off + n > s->flushed) flush(s);
    pread_all(s, p, n, off);
}

void cal_spill_flush(cal_spill *s) {
    if (s->fd >= 0) flush(s);
}

uint64_t cal_spill_size(const cal_spill *s) { return s->size; }

void cal_spill_rewind(cal_spill *s) {
    s->rpos = 0;
    s->rlen = 0;
}

const void *cal_spill_next(cal_spill *s, size_t n) {
    if (n > s->size - s->rpos) return NULL;
    uint64_t at = s->rpos;
    s->rpos += n;
    if (s->fd < 0) return s->mem + at;
    if (at >= s->rstart && at + n <= s->rstart + s->rlen) return s->rbuf + (at - s->rstart);
    if (at + n > s->flushed) flush(s);
    if (n > s->rcap) {
        s->rcap = n > BLOCK ? n : BLOCK;
        free(s->rbuf);
        s->rbuf = cal_xmalloc(s->rcap);
    }
    uint64_t left = s->flushed - at;
    s->rstart = at;
    s->rlen = left < s->rcap ? (size_t)left : s->rcap;
    pread_all(s, s->rbuf, s->rlen, at);
    return s->rbuf;
}

int cal_spill_on_disk(const cal_spill *s) { return s->fd >= 0; }
uint64_t cal_spill_writes(const cal_spill *s) { return s->writes; }

void cal_spill_free(cal_spill *s) {
    if (!s) return;
    if (s->fd >= 0) close(s->fd);
    free(s->mem);
    free(s->wbuf);
    free(s->rbuf);
    free(s);
}
