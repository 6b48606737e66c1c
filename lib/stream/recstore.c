/* recstore.c - see recstore.h. */
#include "stream/recstore.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/hash.h"
#include "base/num.h"
#include "base/spill.h"

typedef struct {
    char *name;   /* for messages */
    int fd;       /* the input read again, or -1 when spilled */
    int own;
} source;

typedef struct {
    uint64_t off; /* its offset in its input */
    uint64_t at;  /* where to read it: the same, or its offset in the spill */
    uint32_t len; /* the record's raw bytes */
    uint16_t src;
    uint16_t spilled;
} loc;

struct cal_recstore {
    source *src;
    size_t nsrc;
    loc *v;
    size_t n, cap;
    cal_spill *spill; /* records of inputs that cannot be read again; NULL until needed */
    int ended;        /* cal_recstore_end called: reads only from here on */
};

cal_recstore *cal_recstore_new(void) { return cal_xcalloc(1, sizeof(cal_recstore)); }

int cal_recstore_source(cal_recstore *s, const char *path) {
    int std = !path || !strcmp(path, "-");
    if (s->nsrc == UINT16_MAX) cal_die("too many inputs (at most %u)", UINT16_MAX);
    s->src = cal_xrealloc(s->src, (s->nsrc + 1) * sizeof *s->src);
    source *x = &s->src[s->nsrc];
    x->name = cal_xstrdup(std ? "stdin" : path);
    x->fd = -1, x->own = 0;
    /* Only a regular file is opened again: opening a FIFO or a /dev/fd/N
     * pipe a second time (and closing it) would disturb its writer. */
    struct stat st;
    if (std ? !fstat(0, &st) && S_ISREG(st.st_mode) : !stat(path, &st) && S_ISREG(st.st_mode)) {
        x->fd = std ? 0 : open(path, O_RDONLY);
        x->own = !std && x->fd >= 0;
    }
    return (int)s->nsrc++;
}

int cal_recstore_spilled(const cal_recstore *s, int src) { return s->src[src].fd < 0; }

size_t cal_recstore_add(cal_recstore *s, int src, const cal_rec *rec) {
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 1024;
        s->v = cal_xrealloc(s->v, s->cap * sizeof *s->v);
    }
    loc *l = &s->v[s->n];
    l->off = rec->offset;
    l->len = (uint32_t)rec->raw_len;
    l->src = (uint16_t)src;
    l->spilled = s->src[src].fd < 0;
    if (l->spilled) {
        if (!s->spill) s->spill = cal_spill_new(0); /* straight to the file: the feature matrix has the memory */
        l->at = cal_spill_size(s->spill);
        cal_spill_add(s->spill, rec->raw, rec->raw_len);
    } else {
        l->at = rec->offset;
    }
    return s->n++;
}

void cal_recstore_end(cal_recstore *s) {
    if (s->spill) cal_spill_flush(s->spill);
    s->ended = 1;
}

size_t cal_recstore_count(const cal_recstore *s) { return s->n; }
uint64_t cal_recstore_spill_bytes(const cal_recstore *s) { return s->spill ? cal_spill_size(s->spill) : 0; }

int cal_recstore_get(const cal_recstore *s, size_t i, cal_buf *buf, cal_rec *rec, char *err, size_t errlen) {
    const loc *l = &s->v[i];
    const source *x = &s->src[l->src];
    if (!s->ended) return cal_errf(err, errlen, "cal_recstore_get before cal_recstore_end");
    cal_buf_reserve(buf, l->len);
    size_t got = 0;
    if (l->spilled) { /* the spill's own I/O errors end the program, naming TMPDIR */
        cal_spill_get_at(s->spill, l->at, buf->p, l->len);
        got = l->len;
    }
    while (got < l->len) {
        ssize_t k = pread(x->fd, buf->p + got, l->len - got, (off_t)(l->at + got));
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) return cal_errf(err, errlen, "%s: read error: %s", x->name, strerror(errno));
        if (k == 0) break;
        got += (size_t)k;
    }
    buf->n = got;
    const uint8_t *h = (const uint8_t *)buf->p;
    if (got < l->len || got < CAL_REC_HEAD + 8 || cal_hash(h, got - 8) != cal_ld64(h + got - 8))
        return cal_errf(err, errlen, "%s: byte %llu: the record changed since it was read (input modified?)",
                        x->name, (unsigned long long)l->off);
    size_t llen = h[2] | (size_t)h[3] << 8;
    memset(rec, 0, sizeof *rec);
    rec->kind = h[0];
    rec->flags = h[1];
    rec->id = cal_ld64(h + 8);
    rec->label = (const char *)h + CAL_REC_HEAD;
    rec->label_len = llen;
    rec->payload = h + CAL_REC_HEAD + llen;
    rec->payload_len = cal_ld32(h + 4);
    rec->raw = h;
    rec->raw_len = got;
    rec->offset = l->off;
    return 0;
}

void cal_recstore_free(cal_recstore *s) {
    if (!s) return;
    for (size_t i = 0; i < s->nsrc; i++) {
        if (s->src[i].own) close(s->src[i].fd);
        free(s->src[i].name);
    }
    cal_spill_free(s->spill);
    free(s->src);
    free(s->v);
    free(s);
}
