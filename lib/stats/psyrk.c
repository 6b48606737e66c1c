/* psyrk.c - tiled, multi-threaded, deterministic C += A^T A (see psyrk.h). */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include <cblas.h>

#include "stats/psyrk.h"

#include "base/err.h"

#define NBUF 3      /* blocks in flight: one filling, two for the workers */
#define TILE_MIN 256 /* panel widths and rectangle chunks, see make_tiles */
#define TILE_MAX 1024
#define CHUNK 2048

/* A tile of C in BLAS's column-major view (the transpose of our row-major
 * C): rows [i0, i0+ni) x columns [j0, j0+nj), i0 <= j0; i0 == j0 is a
 * diagonal tile (upper triangle only). */
typedef struct {
    size_t i0, ni, j0, nj;
} tile;

struct cal_psyrk {
    size_t d, block, ld, ldc;  /* leading dimensions of the blocks and of C */
    double *C;
    double *buf[NBUF];
    size_t rows[NBUF];
    tile *tiles;
    size_t ntiles;
    uint64_t *tile_gen;   /* blocks added into each tile so far */
    size_t left[NBUF];    /* tiles of each in-flight block not yet added */
    /* Task k is tile k % ntiles of block k / ntiles; taken in order. */
    uint64_t submitted, completed, next;
    int nth, stop, aborting, busy, blas_threads;
    pthread_t *th;
    pthread_mutex_t mu;
    pthread_cond_t work, done;
};

static void add_tile(const cal_psyrk *p, const tile *t, const double *b, size_t rows) {
    int ld = (int)p->ld, ldc = (int)p->ldc, k = (int)rows;
    double *c = p->C + t->i0 + t->j0 * p->ldc;
    /* In column-major terms the block is A = d x rows (lda ld); C += A A^T. */
    if (t->i0 == t->j0)
        cblas_dsyrk(CblasColMajor, CblasUpper, CblasNoTrans, (int)t->ni, k, 1.0, b + t->i0, ld, 1.0, c, ldc);
    else
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)t->ni, (int)t->nj, k, 1.0, b + t->i0, ld,
                    b + t->j0, ld, 1.0, c, ldc);
}

static double cost(const tile *t) { return (double)t->ni * (double)t->nj * (t->i0 == t->j0 ? 0.5 : 1); }

static int by_cost(const void *a, const void *b) {
    const tile *x = a, *y = b;
    double cx = cost(x), cy = cost(y);
    if (cx != cy) return cx > cy ? -1 : 1;
    return x->j0 != y->j0 ? (x->j0 < y->j0 ? -1 : 1) : (x->i0 < y->i0 ? -1 : x->i0 > y->i0);
}

static void *worker(void *arg) {
    cal_psyrk *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->stop && !p->aborting && p->next >= p->submitted * p->ntiles)
            pthread_cond_wait(&p->work, &p->mu);
        if (p->aborting || p->next >= p->submitted * p->ntiles) break;
        uint64_t task = p->next++, gen = task / p->ntiles;
        size_t t = (size_t)(task % p->ntiles), slot = (size_t)(gen % NBUF);
        /* The same tile of the previous block was taken earlier; let it land. */
        while (p->tile_gen[t] < gen && !p->aborting) pthread_cond_wait(&p->done, &p->mu);
        if (p->aborting) break;
        p->busy++;
        pthread_mutex_unlock(&p->mu);
        add_tile(p, &p->tiles[t], p->buf[slot], p->rows[slot]);
        pthread_mutex_lock(&p->mu);
        p->busy--;
        p->tile_gen[t]++;
        /* Blocks complete in order: each tile is added block after block. */
        if (--p->left[slot] == 0) p->completed++;
        pthread_cond_broadcast(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* An error exit (cal_die) while a worker is inside the BLAS races with
 * OpenBLAS's own shutdown at exit and can hang it: let running tiles end and
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

/* Panels of W columns (W from d alone: about d/4, 256 to 1024), each one
 * dsyrk for its diagonal square and dgemm for the rectangle above it, cut
 * into chunks of at most CHUNK rows. Column panels pack each row of the
 * block about half as often as square tiles; the chunks keep the largest
 * task small enough for several workers. */
static void make_tiles(cal_psyrk *p) {
    size_t d = p->d, w = (d / 4 + 63) / 64 * 64;
    if (w < TILE_MIN) w = TILE_MIN;
    if (w > TILE_MAX) w = TILE_MAX;
    size_t np = (d + w - 1) / w, cap = np * (1 + (d + CHUNK - 1) / CHUNK);
    p->tiles = cal_xcalloc(cap, sizeof *p->tiles);
    for (size_t j0 = 0; j0 < d; j0 += w) {
        size_t nj = d - j0 < w ? d - j0 : w;
        for (size_t i0 = 0; i0 < j0; i0 += CHUNK)
            p->tiles[p->ntiles++] = (tile){i0, j0 - i0 < CHUNK ? j0 - i0 : CHUNK, j0, nj};
        p->tiles[p->ntiles++] = (tile){j0, nj, j0, nj};
    }
    /* Largest first, so the workers finish a block at about the same time. */
    qsort(p->tiles, p->ntiles, sizeof *p->tiles, by_cost);
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
    p->ld = p->ldc = cal_psyrk_ld(d);
    for (int i = 0; i < NBUF; i++) p->buf[i] = cal_xmalloc(block_rows * p->ld * sizeof(double));
    make_tiles(p);
    p->tile_gen = cal_xcalloc(p->ntiles, sizeof *p->tile_gen);
    if (threads <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 0 ? (int)n : 1;
    }
    /* More workers than tiles would only wait. */
    if ((size_t)threads > p->ntiles) threads = (int)p->ntiles;
    p->nth = threads;
    /* Each worker is one thread of BLAS; the library's own pool stays idle. */
    p->blas_threads = openblas_get_num_threads();
    openblas_set_num_threads(1);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    p->th = cal_xcalloc((size_t)threads, sizeof *p->th);
    for (int i = 0; i < threads; i++)
        if (pthread_create(&p->th[i], NULL, worker, p)) cal_die("cannot start a thread");
    active = p;
    cal_atexit_cleanup(quiesce);
    return p;
}

double *cal_psyrk_block(cal_psyrk *p) { return p->buf[p->submitted % NBUF]; }

int cal_psyrk_threads(const cal_psyrk *p) { return p->nth; }

void cal_psyrk_submit(cal_psyrk *p, size_t rows) {
    if (!rows) return;
    pthread_mutex_lock(&p->mu);
    size_t slot = (size_t)(p->submitted % NBUF);
    p->rows[slot] = rows;
    p->left[slot] = p->ntiles;
    p->submitted++;
    pthread_cond_broadcast(&p->work);
    /* The next buffer is the one block submitted - NBUF used. */
    while (p->submitted - p->completed >= NBUF) pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

void cal_psyrk_wait(cal_psyrk *p) {
    pthread_mutex_lock(&p->mu);
    while (p->completed < p->submitted) pthread_cond_wait(&p->done, &p->mu);
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
    for (int i = 0; i < NBUF; i++) free(p->buf[i]);
    free(p->tiles);
    free(p->tile_gen);
    free(p->th);
    free(p);
}
