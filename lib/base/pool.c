/* pool.c - see pool.h. */
#include "base/pool.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/err.h"

/* One job in flight; slot k holds the job submitted k-th, modulo depth. */
typedef struct {
    void *job;
    int done, rc;
    char err[512];
} slot;

struct cal_pool {
    cal_pool_fn fn;
    void *ctx;
    slot *ring;
    size_t depth;
    /* submitted, started and waiting change under mu; taken only on the
     * caller's thread. Jobs are numbered from 0 in submission order. */
    uint64_t submitted, started, taken;
    uint64_t waiting;   /* the job the caller sleeps on, or NONE */
    unsigned nworkers;
    int stop;
    pthread_t *th;
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    cal_pool *next_live; /* the list quiesce() walks */
};

#define NONE UINT64_MAX

static _Thread_local int in_worker;

/* Starts the next job, runs it and marks it done; called and returns under mu. */
static void run_next(cal_pool *p) {
    uint64_t k = p->started++;
    slot *s = &p->ring[k % p->depth];
    pthread_mutex_unlock(&p->mu);
    s->err[0] = 0;
    s->rc = p->fn(p->ctx, s->job, s->err, sizeof s->err);
    pthread_mutex_lock(&p->mu);
    s->done = 1;
    if (p->waiting == k) pthread_cond_signal(&p->done); /* only the caller waits on done */
}

static void *worker(void *arg) {
    cal_pool *p = arg;
    in_worker = 1;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->stop && p->started == p->submitted) pthread_cond_wait(&p->work, &p->mu);
        if (p->stop) break;
        run_next(p);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* Running jobs end, jobs not yet started never run. */
static void stop_workers(cal_pool *p) {
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    for (unsigned i = 0; i < p->nworkers; i++) pthread_join(p->th[i], NULL);
    p->nworkers = 0;
}

/* An error exit on the caller's thread: exit() runs the C++ static
 * destructors (SentencePiece) and frees what the jobs read, so stop the
 * workers first. */
static pthread_mutex_t live_mu = PTHREAD_MUTEX_INITIALIZER;
static cal_pool *live;

static void quiesce(void) {
    if (in_worker) return; /* a job broke its contract and died: it cannot wait for itself */
    pthread_mutex_lock(&live_mu);
    for (cal_pool *p = live; p; p = p->next_live) stop_workers(p);
    pthread_mutex_unlock(&live_mu);
}

cal_pool *cal_pool_new(unsigned workers, size_t depth, cal_pool_fn fn, void *ctx) {
    cal_pool *p = cal_xcalloc(1, sizeof *p);
    p->fn = fn;
    p->ctx = ctx;
    p->depth = depth ? depth : 1;
    p->waiting = NONE;
    p->ring = cal_xcalloc(p->depth, sizeof *p->ring);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    if (!workers) return p;
    pthread_mutex_lock(&live_mu);
    p->next_live = live;
    live = p;
    pthread_mutex_unlock(&live_mu);
    cal_atexit_cleanup(quiesce);
    p->th = cal_xcalloc(workers, sizeof *p->th);
    for (; p->nworkers < workers; p->nworkers++)
        if (pthread_create(&p->th[p->nworkers], NULL, worker, p)) cal_die("cannot start thread %u", p->nworkers + 1);
    return p;
}

size_t cal_pool_pending(const cal_pool *p) { return (size_t)(p->submitted - p->taken); }

void cal_pool_submit(cal_pool *p, void *job) {
    if (cal_pool_pending(p) >= p->depth) cal_die("internal error: %zu jobs in flight in a pool of depth %zu",
                                                 cal_pool_pending(p), p->depth);
    slot *s = &p->ring[p->submitted % p->depth];
    s->job = job;
    s->done = 0;
    if (!p->th) { /* no workers: run it here */
        s->err[0] = 0;
        s->rc = p->fn(p->ctx, job, s->err, sizeof s->err);
        s->done = 1;
        p->submitted++;
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->submitted++;
    pthread_cond_signal(&p->work);
    pthread_mutex_unlock(&p->mu);
}

/* Sleeps until job k has finished (under mu): woken by that job only. */
static void wait_job(cal_pool *p, uint64_t k) {
    slot *s = &p->ring[k % p->depth];
    p->waiting = k;
    while (!s->done) pthread_cond_wait(&p->done, &p->mu);
    p->waiting = NONE;
}

int cal_pool_help(cal_pool *p) {
    if (!p->th || p->taken == p->submitted) return 0;
    pthread_mutex_lock(&p->mu);
    int ran = !p->ring[p->taken % p->depth].done && p->started < p->submitted && !p->stop;
    if (ran) run_next(p);
    pthread_mutex_unlock(&p->mu);
    return ran;
}

void *cal_pool_take(cal_pool *p, const char **err) {
    *err = NULL;
    if (p->taken == p->submitted) return NULL;
    slot *s = &p->ring[p->taken % p->depth];
    if (p->th) {
        pthread_mutex_lock(&p->mu);
        if (!s->done) {
            /* Asleep anyway, the caller sleeps until half the jobs in flight
             * are done, and takes them without sleeping again: woken once a
             * half, not once a job, it takes a worker's core (when there are
             * as many workers as cores) that much less often. The other half
             * keeps the workers busy meanwhile. */
            wait_job(p, p->taken + (cal_pool_pending(p) + 1) / 2 - 1);
            wait_job(p, p->taken);
        }
        pthread_mutex_unlock(&p->mu);
    }
    p->taken++;
    if (s->rc) *err = s->err[0] ? s->err : "a job failed";
    return s->job;
}

void cal_pool_free(cal_pool *p) {
    if (!p) return;
    if (p->th) {
        pthread_mutex_lock(&live_mu);
        cal_pool **q = &live;
        while (*q != p) q = &(*q)->next_live;
        *q = p->next_live;
        pthread_mutex_unlock(&live_mu);
        stop_workers(p);
    }
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->done);
    free(p->ring);
    free(p->th);
    free(p);
}
