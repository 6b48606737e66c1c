/* source.c - see source.h. One mutex guards every queue; the consumer
 * waits on `ready` (a record, an end or an error), readers on `space`.
 * Records cross in batches (a reader queues BATCH bytes at a time, the
 * consumer takes a whole queue at once), so the lock and the wake-ups cost
 * per batch, not per record: per record they made cal-blend 0.4x `cat`. */
#include "rows/source.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"

typedef struct {
    cal_sources *set;
    char *path;
    uint64_t want, got;
    int cycle, payload_only;
    pthread_t th;
    int started, opened, finished;
    cal_source_rec *head, *tail;   /* the queue (under the lock) */
    size_t qbytes;
    cal_source_rec *bhead, *btail; /* the reader's batch, not yet queued */
    size_t bbytes;
    uint64_t bread;                /* records of the batch read from the file */
    cal_source_rec *taken;         /* the consumer's records, taken from the queue */
    cal_meta meta;
} source;

struct cal_sources {
    pthread_mutex_t mu;
    pthread_cond_t ready, space;
    size_t n, limit;
    source *src;
    char *error; /* the first error of any source */
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

static void free_chain(cal_source_rec *r) {
    for (cal_source_rec *nx; r; r = nx) {
        nx = r->next;
        free(r);
    }
}

/* Queues the reader's batch (waiting while the queue is over its limit). */
static void flush(source *q) {
    if (!q->bhead) return;
    cal_sources *s = q->set;
    pthread_mutex_lock(&s->mu);
    while (q->qbytes > s->limit) pthread_cond_wait(&s->space, &s->mu);
    q->got += q->bread;
    if (q->tail) q->tail->next = q->bhead;
    else q->head = q->bhead;
    q->tail = q->btail;
    q->qbytes += q->bbytes;
    pthread_cond_broadcast(&s->ready);
    pthread_mutex_unlock(&s->mu);
    q->bhead = q->btail = NULL, q->bbytes = 0, q->bread = 0;
}

/* Adds r to the batch; `read` counts it as read from the file (not a cycled copy). */
static void push(source *q, cal_source_rec *r, int read) {
    r->next = NULL;
    if (q->btail) q->btail->next = r;
    else q->bhead = r;
    q->btail = r;
    q->bbytes += r->len + sizeof *r;
    q->bread += (uint64_t)read;
    size_t batch = q->set->limit / 4 < (256u << 10) ? q->set->limit / 4 : (256u << 10);
    if (q->bbytes >= batch) flush(q);
}

static cal_source_rec *copy_rec(const cal_source_rec *a) {
    cal_source_rec *b = cal_xmalloc(sizeof *b + a->len);
    memcpy(b, a, sizeof *b + a->len);
    return b;
}

static void *reader_main(void *arg) {
    source *q = arg;
    char err[512];
    cal_reader *r = cal_reader_open_soft(q->path, err, sizeof err);
    if (!r) {
        fail(q, err);
        return NULL;
    }
    pthread_mutex_lock(&q->set->mu);
    cal_meta_copy(&q->meta, cal_reader_meta(r));
    q->opened = 1;
    pthread_cond_broadcast(&q->set->ready);
    pthread_mutex_unlock(&q->set->mu);
    int keep = q->cycle && q->want != UINT64_MAX, rc = 0;
    cal_source_rec **kept = NULL; /* --cycle: the records, to repeat them */
    cal_rec rec;
    while (q->got + q->bread < q->want && (rc = cal_read_soft(r, &rec, err, sizeof err)) == 1) {
        size_t n = q->payload_only ? rec.payload_len : rec.raw_len;
        cal_source_rec *it = cal_xmalloc(sizeof *it + n);
        it->kind = rec.kind;
        it->flags = rec.flags;
        it->id = rec.id;
        it->len = n;
        memcpy(it->data, q->payload_only ? rec.payload : rec.raw, n);
        if (keep) {
            uint64_t k = q->got + q->bread;
            kept = cal_xrealloc(kept, (k + 1) * sizeof *kept);
            kept[k] = copy_rec(it);
        }
        push(q, it, 1);
    }
    cal_reader_close(r);
    uint64_t have = q->got + q->bread;
    if (rc >= 0 && keep && have)
        for (uint64_t i = have; i < q->want; i++) push(q, copy_rec(kept[i % have]), 0);
    for (uint64_t i = 0; kept && i < have; i++) free(kept[i]);
    free(kept);
    if (rc < 0) {
        free_chain(q->bhead), q->bhead = q->btail = NULL;
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

int cal_sources_next(cal_sources *s, size_t i, cal_source_rec **rec, char *err, size_t errlen) {
    source *q = &s->src[i];
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
    cal_source_rec *r = q->taken;
    if (r) q->taken = r->next;
    *rec = r;
    return r != NULL;
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
    char err[8];
    cal_sources_join(s, err, sizeof err);
    for (size_t i = 0; i < s->n; i++) {
        free_chain(s->src[i].head);
        free_chain(s->src[i].taken);
        free_chain(s->src[i].bhead);
        cal_meta_free(&s->src[i].meta);
        free(s->src[i].path);
    }
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->ready);
    pthread_cond_destroy(&s->space);
    free(s->src);
    free(s->error);
    free(s);
}
