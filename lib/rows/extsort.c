/* extsort.c - external merge sort of keyed byte records; see extsort.h.
 *
 * Spilled runs are byte ranges of one unlinked temporary file (spill.h:
 * written in blocks of 1 MiB; through stdio, a 335 MB spill took 61,866
 * write calls, since glibc ignores setvbuf's size when it allocates the
 * buffer itself, 4 KiB here), read back
 * with pread through a small buffer each, so the number of runs costs no
 * file descriptors: at most two files are open (a merge pass reads one and
 * writes the other). Passes merge FAN_IN runs at a time until FAN_IN or
 * fewer remain; the last merge feeds cal_extsort_next. */
#include "rows/extsort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/oshint.h"
#include "base/num.h"
#include "base/spill.h"

#define FAN_IN 128              /* runs merged at once */
#define RUN_BUF (256u << 10)    /* read buffer per run */
#define MIN_BUF (4u << 10)
#define ITEM_COST 32            /* bookkeeping bytes charged per record */
#define HEAD 24                 /* a run record: u64 key, u64 seq, u64 len, then len bytes */

typedef struct {
    uint64_t key, seq;
    const char *p;
    size_t len;
} item;

/* Records are kept in chunks that never move (a growing buffer's realloc
 * would copy it, and a fresh 4 KiB page costs a fault: chunks of 2 MiB
 * pages made the in-memory shuffle faster than the spilling one again). */
#define CHUNK (64u << 20)
typedef struct {
    char *p;
    size_t n, cap;
} chunk;

typedef struct {
    uint64_t start, end;        /* byte range in the run file */
} run;


/* A run being read back: its current record is (key, seq, data). */
typedef struct {
    cal_spill *file;
    uint64_t pos, end;          /* file range not yet in buf */
    uint8_t *buf;
    size_t bpos, blen, bcap;
    uint64_t key, seq;
    cal_buf data;
} run_in;

struct cal_extsort {
    size_t limit;
    uint64_t seq;
    chunk *chunk;               /* the records' bytes */
    size_t nchunk, at;          /* chunks, the one being filled */
    size_t used;                /* bytes of chunks used or passed over */
    item *items;
    size_t n, cap;
    cal_spill *file;            /* the runs, appended one after another */
    run *runs;
    size_t nruns, runcap, spills;
    uint64_t spill_bytes, spill_writes; /* into every temporary file */
    int reading;
    size_t next;                /* in-memory iteration */
    run_in *in;                 /* merge state */
    size_t nin, *heap, nheap;
    cal_buf cur;
};

static void put_rec(cal_spill *f, uint64_t key, uint64_t seq, const void *p, size_t n) {
    uint8_t h[HEAD];
    cal_st64(h, key);
    cal_st64(h + 8, seq);
    cal_st64(h + 16, n);
    cal_spill_add(f, h, HEAD);
    cal_spill_add(f, p, n);
}

/* Closes f, adding what was written to the sorter's counts. */
static void close_tmp(cal_extsort *s, cal_spill *f) {
    if (!f) return;
    s->spill_bytes += cal_spill_size(f);
    s->spill_writes += cal_spill_writes(f);
    cal_spill_free(f);
}

static void add_run(cal_extsort *s, uint64_t start, uint64_t end) {
    if (s->nruns == s->runcap) {
        s->runcap = s->runcap ? 2 * s->runcap : 16;
        s->runs = cal_xrealloc(s->runs, s->runcap * sizeof *s->runs);
    }
    s->runs[s->nruns++] = (run){start, end};
}

/* Copies the next n bytes of run r to dst; 0 when the run ends first. */
static int run_read(run_in *r, uint8_t *dst, size_t n) {
    while (n) {
        if (r->bpos == r->blen) {
            if (r->pos == r->end) return 0;
            size_t want = r->end - r->pos < r->bcap ? (size_t)(r->end - r->pos) : r->bcap;
            cal_spill_get_at(r->file, r->pos, r->buf, want);
            r->pos += want;
            r->bpos = 0;
            r->blen = want;
        }
        size_t k = r->blen - r->bpos < n ? r->blen - r->bpos : n;
        memcpy(dst, r->buf + r->bpos, k);
        dst += k;
        r->bpos += k;
        n -= k;
    }
    return 1;
}

/* Reads the next record of a run; 0 at its end. */
static int run_next(run_in *r) {
    uint8_t h[HEAD];
    if (r->pos == r->end && r->bpos == r->blen) return 0;
    if (!run_read(r, h, HEAD)) cal_die("temporary file: truncated run");
    r->key = cal_ld64(h);
    r->seq = cal_ld64(h + 8);
    size_t len = (size_t)cal_ld64(h + 16);
    r->data.n = 0;
    cal_buf_reserve(&r->data, len ? len : 1);
    if (!run_read(r, (uint8_t *)r->data.p, len)) cal_die("temporary file: truncated run");
    r->data.n = len;
    return 1;
}

static int cmp_item(const void *a, const void *b) {
    const item *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

cal_extsort *cal_extsort_new(size_t mem_limit) {
    cal_extsort *s = cal_xcalloc(1, sizeof *s);
    s->limit = mem_limit < 4096 ? 4096 : mem_limit;
    return s;
}

static void spill(cal_extsort *s) {
    qsort(s->items, s->n, sizeof *s->items, cmp_item);
    if (!s->file) s->file = cal_spill_new(0);
    uint64_t start = s->nruns ? s->runs[s->nruns - 1].end : 0;
    for (size_t i = 0; i < s->n; i++)
        put_rec(s->file, s->items[i].key, s->items[i].seq, s->items[i].p, s->items[i].len);
    add_run(s, start, cal_spill_size(s->file));
    s->spills++;
    s->n = 0;
    for (size_t i = 0; i < s->nchunk; i++) s->chunk[i].n = 0; /* filled again, pages kept */
    s->at = 0;
    s->used = 0;
}

/* n bytes in the chunks: the current one, else the next one, replaced by a
 * bigger one if it is too small, else a new one (of CHUNK bytes, at most
 * the limit, at least n). */
static const char *take(cal_extsort *s, size_t n) {
    chunk *c = s->nchunk ? &s->chunk[s->at] : NULL;
    if (!c || c->cap - c->n < n) {
        if (c) s->used += c->cap - c->n, s->at++;
        size_t cap = CHUNK < s->limit ? CHUNK : s->limit;
        if (cap < n) cap = n;
        if (s->at == s->nchunk) {
            s->chunk = cal_xrealloc(s->chunk, (s->nchunk + 1) * sizeof *s->chunk);
            s->chunk[s->nchunk++] = (chunk){0};
        }
        c = &s->chunk[s->at];
        if (c->cap < n) {
            free(c->p);
            *c = (chunk){cal_xmalloc(cap), 0, cap};
            cal_hugepages(c->p, cap);
        }
    }
    const char *p = c->p + c->n;
    c->n += n;
    s->used += n;
    return p;
}

static void free_chunks(cal_extsort *s) {
    for (size_t i = 0; i < s->nchunk; i++) free(s->chunk[i].p);
    free(s->chunk);
    s->chunk = NULL;
    s->nchunk = s->at = s->used = 0;
}

void cal_extsort_add(cal_extsort *s, uint64_t key, const void *p, size_t n) {
    if (s->n && s->used + n + (s->n + 1) * ITEM_COST > s->limit) spill(s);
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 1024;
        s->items = cal_xrealloc(s->items, s->cap * sizeof *s->items);
    }
    s->items[s->n++] = (item){key, s->seq++, take(s, n), n};
    if (n) memcpy((char *)s->items[s->n - 1].p, p, n);
}

static int in_less(const cal_extsort *s, size_t a, size_t b) {
    const run_in *x = &s->in[a], *y = &s->in[b];
    if (x->key != y->key) return x->key < y->key;
    return x->seq < y->seq;
}

static void sift_down(cal_extsort *s, size_t i) {
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < s->nheap && in_less(s, s->heap[l], s->heap[m])) m = l;
        if (l + 1 < s->nheap && in_less(s, s->heap[l + 1], s->heap[m])) m = l + 1;
        if (m == i) return;
        size_t t = s->heap[i];
        s->heap[i] = s->heap[m];
        s->heap[m] = t;
        i = m;
    }
}

/* Opens runs [from, from+k) of s->file for merging. */
static void merge_open(cal_extsort *s, size_t from, size_t k) {
    size_t bcap = s->limit / (k + 1);
    bcap = bcap > RUN_BUF ? RUN_BUF : bcap < MIN_BUF ? MIN_BUF : bcap;
    s->in = cal_xcalloc(k, sizeof *s->in);
    s->heap = cal_xmalloc(k * sizeof *s->heap);
    s->nin = k;
    s->nheap = 0;
    for (size_t i = 0; i < k; i++) {
        run_in *r = &s->in[i];
        r->file = s->file;
        r->pos = s->runs[from + i].start;
        r->end = s->runs[from + i].end;
        r->bcap = bcap;
        r->buf = cal_xmalloc(bcap);
        if (run_next(r)) s->heap[s->nheap++] = i;
    }
    for (size_t i = s->nheap; i-- > 0;) sift_down(s, i);
}

/* Pops the smallest record into s->cur; 0 when all runs are exhausted. */
static int merge_pop(cal_extsort *s, uint64_t *key, uint64_t *seq) {
    if (!s->nheap) return 0;
    run_in *r = &s->in[s->heap[0]];
    *key = r->key;
    *seq = r->seq;
    cal_buf t = s->cur; /* hand the record over without copying it */
    s->cur = r->data;
    r->data = t;
    if (!run_next(r)) s->heap[0] = s->heap[--s->nheap];
    sift_down(s, 0);
    return 1;
}

static void merge_close(cal_extsort *s) {
    for (size_t i = 0; i < s->nin; i++) {
        free(s->in[i].buf);
        cal_buf_free(&s->in[i].data);
    }
    free(s->in);
    free(s->heap);
    s->in = NULL;
    s->heap = NULL;
    s->nin = s->nheap = 0;
}

/* One pass: every FAN_IN runs of s->file merged into one run of a new
 * file, which then replaces it (the old one is closed: its space is freed). */
static void merge_pass(cal_extsort *s) {
    cal_spill *out = cal_spill_new(0);
    size_t n = 0;
    uint64_t start = 0;
    for (size_t first = 0; first < s->nruns; first += FAN_IN) {
        size_t k = s->nruns - first < FAN_IN ? s->nruns - first : FAN_IN;
        merge_open(s, first, k);
        uint64_t key, seq;
        while (merge_pop(s, &key, &seq)) put_rec(out, key, seq, s->cur.p, s->cur.n);
        merge_close(s);
        uint64_t end = cal_spill_size(out);
        s->runs[n++] = (run){start, end};
        start = end;
    }
    close_tmp(s, s->file);
    s->file = out;
    s->nruns = n;
}

/* Ends adding: with spills, merges in passes until at most FAN_IN runs
 * remain, then opens the last merge. */
static void start_reading(cal_extsort *s) {
    s->reading = 1;
    if (!s->nruns) {
        if (s->n) qsort(s->items, s->n, sizeof *s->items, cmp_item);
        return;
    }
    if (s->n) spill(s);
    free(s->items);
    s->items = NULL;
    free_chunks(s);
    while (s->nruns > FAN_IN) merge_pass(s);
    merge_open(s, 0, s->nruns);
}

int cal_extsort_next(cal_extsort *s, const void **p, size_t *n) {
    if (!s->reading) start_reading(s);
    if (!s->nruns) {
        if (s->next >= s->n) return 0;
        item *it = &s->items[s->next++];
        *p = it->p;
        *n = it->len;
        return 1;
    }
    uint64_t key, seq;
    if (!merge_pop(s, &key, &seq)) return 0;
    *p = s->cur.p;
    *n = s->cur.n;
    return 1;
}

size_t cal_extsort_spills(const cal_extsort *s) { return s->spills; }

void cal_extsort_spill_io(const cal_extsort *s, uint64_t *bytes, uint64_t *writes) {
    *bytes = s->spill_bytes + (s->file ? cal_spill_size(s->file) : 0);
    *writes = s->spill_writes + (s->file ? cal_spill_writes(s->file) : 0);
}

void cal_extsort_free(cal_extsort *s) {
    if (!s) return;
    merge_close(s);
    close_tmp(s, s->file);
    s->file = NULL;
    free(s->runs);
    free(s->items);
    free_chunks(s);
    cal_buf_free(&s->cur);
    free(s);
}
