/* psyrk.c - tiled, multi-threaded, deterministic C += A^T A (see psyrk.h
 * for the model). */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cblas.h>

#include "stats/psyrk.h"

#include "base/err.h"
#include "base/oshint.h"

#define TILE_W 512          /* tile width the tiling aims at */
#define TASKS_PER_WORKER 4
#define NBUF_MIN 3          /* one filling, two for the workers */
#define NBUF_MAX 16

typedef cal_psyrk_tile tile;

struct cal_psyrk {
    size_t d, block, ld;   /* ld: row stride of the blocks and of C */
    double *C;
    size_t nbuf;
    double **buf;          /* nbuf blocks */
    size_t *rows;          /* rows of the block in each buffer */
    size_t *left;          /* tiles of each buffer's block not yet computed */
    tile *tiles;
    size_t ntiles;
    uint64_t *added;       /* per tile: blocks added into C so far */
    /* Task k is tile k % ntiles of block k / ntiles; handed out in order. */
    uint64_t submitted, next, finished;
    int nth, stop, aborting, busy, blas_threads;
    pthread_t *th;
    double **scratch;      /* per worker: one tile's product */
    pthread_mutex_t mu;
    pthread_cond_t work, done;
};

static int is_diag(const tile *t) { return t->i0 == t->j0; }

static double cost(const tile *t) { return (double)t->ni * (double)t->nj * (is_diag(t) ? 0.5 : 1); }

static int by_cost(const void *a, const void *b) {
    const tile *x = a, *y = b;
    double cx = cost(x), cy = cost(y);
    if (cx != cy) return cx > cy ? -1 : 1;
    return x->j0 != y->j0 ? (x->j0 < y->j0 ? -1 : 1) : (x->i0 < y->i0 ? -1 : x->i0 > y->i0);
}

size_t cal_psyrk_tiling(size_t d, tile **out) {
    size_t np = (d + TILE_W / 2) / TILE_W;
    if (np < 1) np = 1;
    size_t *b = cal_xcalloc(np + 1, sizeof *b), n = 0;
    for (size_t i = 0; i < np; i++) b[i] = d * i / np / 8 * 8;
    b[np] = d;
    tile *t = cal_xcalloc(np * (np + 1) / 2, sizeof *t);
    for (size_t j = 0; j < np; j++)
        for (size_t i = 0; i <= j; i++) t[n++] = (tile){b[i], b[i + 1] - b[i], b[j], b[j + 1] - b[j]};
    free(b);
    /* Largest first, so that a block's last tasks are small ones. */
    qsort(t, n, sizeof *t, by_cost);
    *out = t;
    return n;
}

size_t cal_psyrk_nbuf(int threads, size_t ntiles) {
    /* nbuf - 1 blocks in the workers' hands hold at least 4 tasks each. */
    size_t want = ((size_t)TASKS_PER_WORKER * (size_t)threads + ntiles - 1) / ntiles + 1;
    return want < NBUF_MIN ? NBUF_MIN : want > NBUF_MAX ? NBUF_MAX : want;
}

/* P = the block's product on tile t (column-major, ni rows apart). */
static void product(const cal_psyrk *p, const tile *t, const double *b, size_t rows, double *P) {
    int ld = (int)p->ld, k = (int)rows, ni = (int)t->ni;
    /* In column-major terms the block is A = d x rows (lda ld): P = A_i A_j^T. */
    if (is_diag(t))
        cblas_dsyrk(CblasColMajor, CblasUpper, CblasNoTrans, ni, k, 1.0, b + t->i0, ld, 0.0, P, ni);
    else
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, ni, (int)t->nj, k, 1.0, b + t->i0, ld, b + t->j0,
                    ld, 0.0, P, ni);
}

/* C_t += P (the upper triangle only on the diagonal). */
static void add(const cal_psyrk *p, const tile *t, const double *restrict P) {
    for (size_t s = 0; s < t->nj; s++) {
        double *restrict c = p->C + t->i0 + (t->j0 + s) * p->ld;
        const double *restrict q = P + s * t->ni;
        size_t n = is_diag(t) ? s + 1 : t->ni;
        for (size_t r = 0; r < n; r++) c[r] += q[r];
    }
}

typedef struct {
    cal_psyrk *p;
    double *scratch;
} worker_arg;

static void *worker(void *arg) {
    cal_psyrk *p = ((worker_arg *)arg)->p;
    double *P = ((worker_arg *)arg)->scratch;
    free(arg);
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->stop && !p->aborting && p->next >= p->submitted * p->ntiles)
            pthread_cond_wait(&p->work, &p->mu);
        if (p->aborting || p->next >= p->submitted * p->ntiles) break;
        uint64_t task = p->next++, gen = task / p->ntiles;
        size_t t = (size_t)(task % p->ntiles), slot = (size_t)(gen % p->nbuf);
        p->busy++;
        pthread_mutex_unlock(&p->mu);
        product(p, &p->tiles[t], p->buf[slot], p->rows[slot], P);
        pthread_mutex_lock(&p->mu);
        if (--p->left[slot] == 0) pthread_cond_broadcast(&p->done); /* the buffer is free */
        /* Tiles take their blocks in order: wait for the previous one. */
        while (p->added[t] < gen && !p->aborting) pthread_cond_wait(&p->done, &p->mu);
        if (p->aborting) {
            p->busy--;
            pthread_cond_broadcast(&p->done);
            break;
        }
        pthread_mutex_unlock(&p->mu);
        add(p, &p->tiles[t], P);
        pthread_mutex_lock(&p->mu);
        p->busy--;
        p->added[t]++;
        p->finished++;
        pthread_cond_broadcast(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* An error exit (cal_die) while a worker is inside the BLAS races with
 * OpenBLAS's own shutdown at exit and can hang it: let running tasks end and
 * start no more. */
static cal_psyrk *active;
static void quiesce(void) {
    cal_psyrk *p = active;
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    p->aborting = 1;
    pthread_cond_broadcast(&p->work);
    pthread_cond_broadcast(&p->done);
    while (p->busy) pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

size_t cal_psyrk_ld(size_t d) {
    size_t ld = (d + 7) / 8 * 8;
    return ld % 512 ? ld : ld + 8;
}

cal_psyrk *cal_psyrk_new(size_t d, size_t block_rows, int threads, double *C) {
    cal_psyrk *p = cal_xcalloc(1, sizeof *p);
    p->d = d;
    p->block = block_rows;
    p->C = C;
    p->ld = cal_psyrk_ld(d);
    p->ntiles = cal_psyrk_tiling(d, &p->tiles);
    p->added = cal_xcalloc(p->ntiles, sizeof *p->added);
    if (threads <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 0 ? (int)n : 1;
    }
    p->nth = threads;
    p->nbuf = cal_psyrk_nbuf(threads, p->ntiles);
    p->buf = cal_xcalloc(p->nbuf, sizeof *p->buf);
    p->rows = cal_xcalloc(p->nbuf, sizeof *p->rows);
    p->left = cal_xcalloc(p->nbuf, sizeof *p->left);
    /* Blocks of tens of MB, first written by the reader: 2 MiB pages spare
     * a page fault per 4 KiB (see base/oshint.h). */
    for (size_t i = 0; i < p->nbuf; i++) {
        p->buf[i] = cal_xmalloc(block_rows * p->ld * sizeof(double));
        cal_hugepages(p->buf[i], block_rows * p->ld * sizeof(double));
    }
    cal_hugepages(C, d * p->ld * sizeof(double));
    size_t most = 0;
    for (size_t i = 0; i < p->ntiles; i++)
        if (p->tiles[i].ni * p->tiles[i].nj > most) most = p->tiles[i].ni * p->tiles[i].nj;
    /* Each worker is one thread of BLAS; the library's own pool stays idle. */
    p->blas_threads = openblas_get_num_threads();
    openblas_set_num_threads(1);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    p->th = cal_xcalloc((size_t)threads, sizeof *p->th);
    p->scratch = cal_xcalloc((size_t)threads, sizeof *p->scratch);
    for (int i = 0; i < threads; i++) {
        worker_arg *a = cal_xmalloc(sizeof *a);
        a->p = p;
        a->scratch = p->scratch[i] = cal_xmalloc(most * sizeof(double));
        if (pthread_create(&p->th[i], NULL, worker, a)) cal_die("cannot start a thread");
    }
    active = p;
    cal_atexit_cleanup(quiesce);
    return p;
}

double *cal_psyrk_block(cal_psyrk *p) { return p->buf[p->submitted % p->nbuf]; }

int cal_psyrk_threads(const cal_psyrk *p) { return p->nth; }

void cal_psyrk_submit(cal_psyrk *p, size_t rows) {
    if (!rows) return;
    pthread_mutex_lock(&p->mu);
    size_t slot = (size_t)(p->submitted % p->nbuf);
    p->rows[slot] = rows;
    p->left[slot] = p->ntiles;
    p->submitted++;
    pthread_cond_broadcast(&p->work);
    /* The next buffer is free once every tile of its last block is computed. */
    while (p->left[p->submitted % p->nbuf]) pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

void cal_psyrk_add_rows(cal_psyrk *p, const double *x, size_t n) {
    for (size_t i = 0; i < n; i += p->block) {
        size_t rows = n - i < p->block ? n - i : p->block;
        double *b = cal_psyrk_block(p);
        for (size_t r = 0; r < rows; r++) memcpy(b + r * p->ld, x + (i + r) * p->d, p->d * sizeof *x);
        cal_psyrk_submit(p, rows);
    }
}

void cal_psyrk_wait(cal_psyrk *p) {
    pthread_mutex_lock(&p->mu);
    while (p->finished < p->submitted * p->ntiles) pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

void cal_psyrk_free(cal_psyrk *p) {
    if (!p) return;
    cal_psyrk_wait(p);
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->nth; i++) pthread_join(p->th[i], NULL);
    if (active == p) active = NULL;
    openblas_set_num_threads(p->blas_threads);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->done);
    for (size_t i = 0; i < p->nbuf; i++) free(p->buf[i]);
    for (int i = 0; i < p->nth; i++) free(p->scratch[i]);
    free(p->buf);
    free(p->rows);
    free(p->left);
    free(p->scratch);
    free(p->tiles);
    free(p->added);
    free(p->th);
    free(p);
}
