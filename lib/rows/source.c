/* source.c - see source.h. One mutex guards every queue; the consumer
 * waits on `ready` (a record, an end or an error), readers on `space`.
 * Records cross in slabs: a reader packs records into a slab of SLAB bytes
 * and queues it whole, the consumer takes a whole queue at once and hands
 * emptied slabs back for reuse. So the lock, the wake-ups and the
 * allocation cost per slab, not per record (per record, malloc's fresh
 * pages and the futex wake-ups made cal-blend 0.4-0.6x `cat`). */
#include "rows/source.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/buf.h"
#include "base/err.h"
#include "io/mapfile.h"
#include "stream/shards.h"

#define SLAB (256u << 10)
/* A regular file never needs draining ahead of the consumer: its reader
 * keeps at most this much queued, so little fresh memory is touched. */
#define FILE_QUEUE (1u << 20)

typedef struct slab {
    struct slab *next;
    size_t cap, used; /* bytes of data[] */
    size_t pos;       /* the consumer's next record */
    size_t weight;    /* bytes it stands for in the queue: used, plus the data of kept records */
    _Alignas(8) uint8_t data[];
} slab;

/* A record's bytes in a slab: its header, its data (unless kept where it
 * is), padding to 8. */
static size_t rec_size(const cal_source_rec *h) {
    return (sizeof(cal_source_rec) + (h->kept ? 0 : h->len) + 7) & ~(size_t)7;
}

typedef struct {
    cal_sources *set;
    char *path;
    uint64_t want, got;
    int cycle, payload_only;
    pthread_t th;
    int started, opened, finished;
    int cancelled;              /* the reader's: the consumer has gone */
    size_t limit;               /* bytes queued before the reader waits */
    slab *head, *tail;          /* the queue (under the lock) */
    size_t qbytes;
    slab *spare;                /* emptied slabs to reuse (under the lock) */
    size_t nspare;
    slab *cur;                  /* the reader's slab, not yet queued */
    uint64_t bread;             /* records of it read from the file */
    slab *taken;                /* the consumer's slabs, taken from the queue */
    cal_meta meta;
    cal_meta final;             /* every header's, once read to the end */
    cal_shards *shards;         /* the shards its headers named, once read to the end */
    int at_end;                 /* read to the end of its input */
    uint64_t cycled;            /* copies of records made by --cycle */
    cal_mapfile map;            /* a named regular file, mapped: records are kept there */
    int mapped;
} source;

struct cal_sources {
    pthread_mutex_t mu;
    pthread_cond_t ready, space;
    size_t n, limit;
    source *src;
    char *error; /* the first error of any source */
    int closing; /* cal_sources_free: readers stop waiting and end */
    int allow_partial;
};

cal_sources *cal_sources_new(size_t n, size_t queue_bytes) {
    cal_sources *s = cal_xcalloc(1, sizeof *s);
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->ready, NULL);
    pthread_cond_init(&s->space, NULL);
    s->n = n;
    s->limit = queue_bytes;
    s->src = cal_xcalloc(n ? n : 1, sizeof *s->src);
    return s;
}

/* Called by a reader thread: keeps the first error, wakes the consumer. */
static void fail(source *q, const char *msg) {
    cal_sources *s = q->set;
    pthread_mutex_lock(&s->mu);
    if (!s->error) s->error = cal_xstrdup(msg);
    q->finished = 1;
    pthread_cond_broadcast(&s->ready);
    pthread_mutex_unlock(&s->mu);
}

static void free_chain(slab *b) {
    for (slab *nx; b; b = nx) {
        nx = b->next;
        free(b);
    }
}

/* A slab for at least `need` bytes: a spare one, else a new one. */
static slab *get_slab(source *q, size_t need) {
    slab *b = NULL;
    if (need <= SLAB) {
        pthread_mutex_lock(&q->set->mu);
        if ((b = q->spare)) q->spare = b->next, q->nspare--;
        pthread_mutex_unlock(&q->set->mu);
    }
    if (!b) {
        size_t cap = need > SLAB ? need : SLAB;
        b = cal_xmalloc(sizeof *b + cap);
        b->cap = cap;
    }
    b->next = NULL;
    b->used = b->pos = b->weight = 0;
    return b;
}

/* Keeps an emptied slab for reuse: as many as can be in use at once (a
 * queue and the consumer's whole previous queue, plus the reader's), so
 * that no slab is freed and allocated again (fresh pages cost faults). */
static void put_slab(source *q, slab *b) {
    if (b->cap == SLAB) {
        pthread_mutex_lock(&q->set->mu);
        if (q->nspare < 2 * (q->limit / SLAB) + 4) {
            b->next = q->spare, q->spare = b, q->nspare++;
            b = NULL;
        }
        pthread_mutex_unlock(&q->set->mu);
    }
    free(b);
}

/* Queues the reader's slab (waiting while the queue is over its limit);
 * drops it, and cancels the reader, once the consumer has gone. */
static void flush(source *q) {
    if (!q->cur) return;
    cal_sources *s = q->set;
    pthread_mutex_lock(&s->mu);
    while (q->qbytes > q->limit && !s->closing) pthread_cond_wait(&s->space, &s->mu);
    if (s->closing) {
        pthread_mutex_unlock(&s->mu);
        free(q->cur), q->cur = NULL;
        q->cancelled = 1;
        return;
    }
    q->got += q->bread;
    if (q->tail) q->tail->next = q->cur;
    else q->head = q->cur;
    q->tail = q->cur;
    q->qbytes += q->cur->weight;
    pthread_cond_broadcast(&s->ready);
    pthread_mutex_unlock(&s->mu);
    q->cur = NULL, q->bread = 0;
}

/* Appends a record to the reader's slab; `read` counts it as read from the
 * file (not a cycled copy). */
static void push(source *q, const cal_source_rec *h, const uint8_t *data, int read) {
    size_t need = rec_size(h);
    if (q->cur && q->cur->used + need > q->cur->cap) flush(q);
    if (!q->cur) q->cur = get_slab(q, need);
    cal_source_rec *r = (cal_source_rec *)(void *)(q->cur->data + q->cur->used);
    *r = *h;
    if (!h->kept) memcpy(r->data, data, h->len);
    q->cur->used += need;
    /* a kept record's data counts too: the queue limit bounds the mapped
     * pages touched ahead of the consumer, not only the slabs */
    q->cur->weight += need + (h->kept ? h->len : 0);
    q->bread += (uint64_t)read;
    size_t batch = q->limit / 4 < SLAB ? q->limit / 4 : SLAB;
    if (q->cur->weight >= batch) flush(q);
}

static int is_regular(const char *path) {
    struct stat st;
    return (strcmp(path, "-") ? stat(path, &st) : fstat(0, &st)) == 0 && S_ISREG(st.st_mode);
}

static void *reader_main(void *arg) {
    source *q = arg;
    char err[512];
    q->limit = q->set->limit;
    if (q->limit > FILE_QUEUE && is_regular(q->path)) q->limit = FILE_QUEUE;
    /* A named regular file is mapped and its records handed on where they
     * are (read and copied into slabs, they cost cal-blend two copies more
     * than `cat` makes: measured 0.42x cat); anything else is read. */
    cal_reader *r = NULL;
    if (strcmp(q->path, "-") && cal_mapfile_open(&q->map, q->path, err, sizeof err)) {
        q->mapped = 1;
        r = cal_reader_mem(q->map.p, q->map.len, q->path);
        cal_reader_mem_trim(r); /* its records go out within a few MiB: the pages behind can go */
    } else if (!(r = cal_reader_open_soft(q->path, err, sizeof err))) {
        fail(q, err);
        return NULL;
    }
    cal_reader_shards_mode(r, 1, 0, q->set->allow_partial);
    cal_rec rec;
    int rc = 1, first = q->mapped; /* a memory reader reads its header with the first record */
    if (first && (rc = cal_read_soft(r, &rec, err, sizeof err)) < 0) {
        cal_reader_close(r);
        fail(q, err);
        return NULL;
    }
    pthread_mutex_lock(&q->set->mu);
    cal_meta_copy(&q->meta, cal_reader_meta(r));
    q->opened = 1;
    pthread_cond_broadcast(&q->set->ready);
    pthread_mutex_unlock(&q->set->mu);
    int keep = q->cycle && q->want != UINT64_MAX;
    cal_buf kept = {0}; /* --cycle: the records as in a slab, to repeat them */
    while (!q->cancelled && q->got + q->bread < q->want &&
           (first ? (first = 0, rc) : (rc = cal_read_soft(r, &rec, err, sizeof err))) == 1) {
        const uint8_t *data = q->payload_only ? rec.payload : rec.raw;
        cal_source_rec h = {rec.kind, rec.flags, rec.id, q->payload_only ? rec.payload_len : rec.raw_len,
                            q->mapped ? data : NULL};
        if (keep) {
            size_t at = kept.n;
            cal_buf_reserve(&kept, at + rec_size(&h));
            memcpy(kept.p + at, &h, sizeof h);
            if (!h.kept) memcpy(kept.p + at + sizeof h, data, h.len);
            kept.n = at + rec_size(&h);
        }
        push(q, &h, data, 1);
    }
    if (rc == 0) { /* the whole input: its later headers (a trailer) count */
        cal_meta_copy(&q->final, cal_reader_meta(r));
        cal_reader_accept_partial(r, &q->final);
        q->shards = cal_shards_new();
        cal_shards_absorb(q->shards, cal_reader_shards(r));
        q->at_end = 1;
    } else if (rc == 1) { /* stopped at `want`: a file's trailer is still known */
        cal_meta tail = {0};
        if (cal_reader_tail_meta(r, &tail)) {
            cal_meta_copy(&q->final, cal_reader_meta(r));
            char e[64];
            cal_meta_merge(&q->final, &tail, e, sizeof e); /* must-agree keys: the same writer's */
            q->at_end = 1;
        }
        cal_meta_free(&tail);
    }
    cal_reader_close(r);
    uint64_t have = q->got + q->bread;
    if (rc >= 0 && keep && have && have < q->want) q->cycled = q->want - have;
    if (rc >= 0 && keep && have)
        for (uint64_t i = have; i < q->want && !q->cancelled;)
            for (size_t at = 0; at < kept.n && i < q->want; i++) {
                cal_source_rec h;
                memcpy(&h, kept.p + at, sizeof h);
                push(q, &h, (const uint8_t *)kept.p + at + sizeof h, 0);
                at += rec_size(&h);
            }
    cal_buf_free(&kept);
    if (rc < 0) {
        free_chain(q->cur), q->cur = NULL;
        fail(q, err);
        return NULL;
    }
    flush(q);
    pthread_mutex_lock(&q->set->mu);
    q->finished = 1;
    pthread_cond_broadcast(&q->set->ready);
    pthread_mutex_unlock(&q->set->mu);
    return NULL;
}

void cal_sources_start(cal_sources *s, size_t i, const char *path, uint64_t want, int cycle, int payload_only) {
    source *q = &s->src[i];
    q->set = s;
    q->path = cal_xstrdup(path);
    q->want = want;
    q->cycle = cycle;
    q->payload_only = payload_only;
    if (pthread_create(&q->th, NULL, reader_main, q)) cal_die("cannot start a reader thread");
    q->started = 1;
}

/* With s->mu held: the first error in err. */
static int take_error(cal_sources *s, char *err, size_t errlen) {
    snprintf(err, errlen, "%s", s->error);
    pthread_mutex_unlock(&s->mu);
    return -1;
}

const cal_meta *cal_sources_meta(cal_sources *s, size_t i, char *err, size_t errlen) {
    source *q = &s->src[i];
    pthread_mutex_lock(&s->mu);
    while (!q->opened && !s->error) pthread_cond_wait(&s->ready, &s->mu);
    if (s->error) {
        take_error(s, err, errlen);
        return NULL;
    }
    pthread_mutex_unlock(&s->mu);
    return &q->meta;
}

int cal_sources_next(cal_sources *s, size_t i, const cal_source_rec **rec, char *err, size_t errlen) {
    source *q = &s->src[i];
    /* The slab of the record handed out last is given back only now. */
    while (q->taken && q->taken->pos == q->taken->used) {
        slab *b = q->taken;
        q->taken = b->next;
        put_slab(q, b);
    }
    if (!q->taken) { /* take the whole queue */
        pthread_mutex_lock(&s->mu);
        while (!q->head && !q->finished && !s->error) pthread_cond_wait(&s->ready, &s->mu);
        if (s->error) return take_error(s, err, errlen);
        if (q->head) {
            q->taken = q->head;
            q->head = q->tail = NULL;
            q->qbytes = 0;
            pthread_cond_broadcast(&s->space);
        }
        pthread_mutex_unlock(&s->mu);
    }
    slab *b = q->taken;
    *rec = NULL;
    if (!b) return 0;
    *rec = (const cal_source_rec *)(const void *)(b->data + b->pos);
    b->pos += rec_size(*rec);
    return 1;
}

void cal_sources_allow_partial(cal_sources *s) { s->allow_partial = 1; }

cal_shards *cal_sources_shards(cal_sources *s, size_t i) { return s->src[i].shards; }

const cal_meta *cal_sources_final_meta(cal_sources *s, size_t i, uint64_t *cycled) {
    *cycled = s->src[i].cycled;
    return s->src[i].at_end ? &s->src[i].final : NULL;
}

uint64_t cal_sources_got(cal_sources *s, size_t i) {
    pthread_mutex_lock(&s->mu);
    uint64_t n = s->src[i].got;
    pthread_mutex_unlock(&s->mu);
    return n;
}

int cal_sources_join(cal_sources *s, char *err, size_t errlen) {
    for (size_t i = 0; i < s->n; i++) {
        if (s->src[i].started) pthread_join(s->src[i].th, NULL);
        s->src[i].started = 0;
    }
    pthread_mutex_lock(&s->mu);
    if (s->error) return take_error(s, err, errlen);
    pthread_mutex_unlock(&s->mu);
    return 0;
}

void cal_sources_free(cal_sources *s) {
    if (!s) return;
    pthread_mutex_lock(&s->mu);
    s->closing = 1;
    pthread_cond_broadcast(&s->space);
    pthread_mutex_unlock(&s->mu);
    char err[8];
    cal_sources_join(s, err, sizeof err);
    for (size_t i = 0; i < s->n; i++) {
        free_chain(s->src[i].head);
        free_chain(s->src[i].taken);
        free_chain(s->src[i].cur);
        free_chain(s->src[i].spare);
        cal_meta_free(&s->src[i].meta);
        cal_meta_free(&s->src[i].final);
        cal_shards_free(s->src[i].shards);
        if (s->src[i].mapped) cal_mapfile_close(&s->src[i].map);
        free(s->src[i].path);
    }
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->ready);
    pthread_cond_destroy(&s->space);
    free(s->src);
    free(s->error);
    free(s);
}
