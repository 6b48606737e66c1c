/* psyrk.c - tiled, multi-threaded, deterministic C += A^T A (see psyrk.h
 * for the model). */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cblas.h>

#include "stats/psyrk.h"
#include "stats/groups.h"
#include "stats/blas.h"

#include "base/err.h"
#include "base/oshint.h"

#define TILE_W 512          /* tile width the tiling aims at up to d = 8 TILE_W */
#define TILE_WIDE 1024      /* and from d = 8 TILE_WIDE on (8 panels between) */
#define TASKS_PER_WORKER 4
#define NBUF_MIN 3          /* one filling, two for the workers */
#define NBUF_MAX 16
#define BUSY_AIM 64         /* workers the lanes are sized to keep busy */
#define LANES_MAX 4         /* lanes 2 and 3 take one more d x d of memory */
#define LANE1_OPEN 16       /* the block lane 1 (in C's other triangle) opens at */
#define PAIR_OPEN 128       /* and lanes 2 and 3 (fresh memory) */

typedef cal_psyrk_tile tile;

struct cal_psyrk {
    size_t d, block, ld;   /* ld: row stride of the blocks and of C */
    double *C;
    size_t lanes;          /* lane 0 is C (cal_psyrk_lane_of says which block goes where) */
    double *pair;          /* lanes 2 and 3: allocated when their first block comes */
    double *diag[LANES_MAX]; /* odd lanes: their diagonal tiles, ld x wmax */
    size_t wmax;           /* the widest tile */
    unsigned char *dirty;  /* per lane and tile: holds products not yet in C */
    uint64_t *seq;         /* per lane: blocks handed to it so far */
    size_t nbuf;
    struct slot {          /* nbuf buffers, for the blocks in flight */
        double *buf;       /* allocated when first needed */
        size_t rows;       /* rows of the block in it */
        size_t left;       /* its tiles not yet added */
        size_t lane;       /* the block's lane */
        uint64_t seq;      /* and its place in that lane's chains */
    } *slot;
    unsigned char *taken;  /* per buffer and tile: the task has a worker */
    tile *tiles;
    size_t ntiles;
    size_t *before[2], *after[2]; /* per tile: the neighbours an even [0] or odd [1] lane's group joins (Groups) */
    int grouping;          /* neighbours' tasks may share a call (Groups) */
    size_t longest;        /* the most tasks a group can hold */
    uint64_t calls;        /* BLAS calls made */
    uint64_t *added;       /* per lane and tile: blocks added so far */
    /* Task k is tile k % ntiles of block k / ntiles; every task below
     * `next` has a worker. */
    uint64_t submitted, next, finished;
    size_t fold_next, folded; /* lanes into C, tile by tile (cal_psyrk_wait) */
    int folding;
    int nth, stop, aborting, busy;
    pthread_t *th;
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
    size_t np = d <= 8 * TILE_W ? (d + TILE_W / 2) / TILE_W : d <= 8 * TILE_WIDE ? 8 : (d + TILE_WIDE / 2) / TILE_WIDE;
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

/* Workers one lane's chains keep busy: its work over twice the largest
 * tile. */
static int chain_busy(size_t d) {
    tile *t;
    size_t n = cal_psyrk_tiling(d, &t);
    double total = 0;
    for (size_t i = 0; i < n; i++) total += cost(&t[i]);
    double most = cost(&t[0]); /* largest first */
    free(t);
    int w = (int)(total / (2 * most));
    return w < 1 ? 1 : w;
}

size_t cal_psyrk_lanes(size_t d) {
    int c = chain_busy(d);
    size_t l = (size_t)((BUSY_AIM + c - 1) / c);
    return l > LANES_MAX ? LANES_MAX : l;
}

int cal_psyrk_busy_threads(size_t d) { return chain_busy(d) * (int)cal_psyrk_lanes(d); }

size_t cal_psyrk_lane_of(uint64_t g, size_t lanes) {
    uint64_t open = 1 + (g >= LANE1_OPEN) + 2 * (g >= PAIR_OPEN);
    return (size_t)(g % (open < lanes ? open : lanes));
}

size_t cal_psyrk_nbuf(int threads, size_t ntiles) {
    /* nbuf - 1 blocks in the workers' hands hold at least 4 tasks each. */
    size_t want = ((size_t)TASKS_PER_WORKER * (size_t)threads + ntiles - 1) / ntiles + 1;
    return want < NBUF_MIN ? NBUF_MIN : want > NBUF_MAX ? NBUF_MAX : want;
}

/* Even lanes keep a tile where C keeps it (C's row-major lower triangle:
 * BLAS's upper); odd lanes keep it transposed in the other triangle of the
 * same matrix, which is free (C's for lane 1, the pair's for lane 3), and
 * their diagonal tiles in a buffer of their own. */
static double *lane_matrix(const cal_psyrk *p, size_t lane) { return lane < 2 ? p->C : p->pair; }

/* Lane `lane`'s tile t += the block's product on it, in place (beta = 1),
 * or = it (beta = 0) where the lane's tile holds nothing yet. t may be a
 * group: neighbours (in a column, or in a row for an odd lane), as one tile. */
static void product(const cal_psyrk *p, const tile *t, size_t lane, double beta, const double *b, size_t rows) {
    int ld = (int)p->ld, k = (int)rows, ni = (int)t->ni, nj = (int)t->nj;
    double *m = lane_matrix(p, lane);
    /* Column-major, the block is A = d x rows (lda ld): tile t is
     * A_i A_j^T at m + i0 + j0 ld, or transposed, A_j A_i^T at m + j0 + i0 ld
     * (below the diagonal); a diagonal one is A_i A_i^T, upper triangle. */
    if (is_diag(t)) {
        double *c = lane & 1 ? p->diag[lane] + t->i0 : m + t->i0 + t->j0 * p->ld;
        cblas_dsyrk(CblasColMajor, CblasUpper, CblasNoTrans, ni, k, 1.0, b + t->i0, ld, beta, c, ld);
        cal_blas_took_buffer();
    } else if (lane & 1)
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, nj, ni, k, 1.0, b + t->j0, ld, b + t->i0, ld, beta,
                    m + t->j0 + t->i0 * p->ld, ld);
    else
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, ni, nj, k, 1.0, b + t->i0, ld, b + t->j0, ld, beta,
                    m + t->i0 + t->j0 * p->ld, ld);
}

/* C_t += lane k's tile t: the upper triangle (BLAS view) of a diagonal
 * tile, all of another; an odd lane's transposed, in 32 x 32 squares so that
 * both sides stay in cache. */
static void fold_lane(const cal_psyrk *p, const tile *t, size_t lane) {
    const size_t ld = p->ld, S = 32, i1 = t->i0 + t->ni, j1 = t->j0 + t->nj;
    double *restrict C = p->C;
    const double *restrict m = lane_matrix(p, lane);
    if (is_diag(t)) {
        for (size_t j = t->j0; j < j1; j++) {
            /* an odd lane's diagonal tile: column j - j0 of its buffer */
            const double *restrict l = lane & 1 ? p->diag[lane] + (j - t->j0) * ld : m + j * ld;
            for (size_t i = t->i0; i <= j; i++) C[i + j * ld] += l[i];
        }
    } else if (!(lane & 1)) {
        for (size_t j = t->j0; j < j1; j++)
            for (size_t i = t->i0; i < i1; i++) C[i + j * ld] += m[i + j * ld];
    } else {
        for (size_t js = t->j0; js < j1; js += S)
            for (size_t is = t->i0; is < i1; is += S)
                for (size_t j = js; j < js + S && j < j1; j++)
                    for (size_t i = is; i < is + S && i < i1; i++) C[i + j * ld] += m[j + i * ld];
    }
}

/* C_t += lane 1_t, += lane 2_t, ... in lane order. */
static void fold(const cal_psyrk *p, size_t ti) {
    for (size_t k = 1; k < p->lanes; k++)
        if (p->dirty[k * p->ntiles + ti]) fold_lane(p, &p->tiles[ti], k);
}

/* The first task in hand-out order that can start now: its tile has every
 * earlier block added. Returns the task count when none can. */
static uint64_t ready_task(const cal_psyrk *p) {
    uint64_t end = p->submitted * p->ntiles;
    for (uint64_t k = p->next; k < end; k++) {
        uint64_t gen = k / p->ntiles;
        size_t t = (size_t)(k % p->ntiles), slot = (size_t)(gen % p->nbuf);
        if (!p->taken[slot * p->ntiles + t] && p->added[p->slot[slot].lane * p->ntiles + t] == p->slot[slot].seq)
            return k;
    }
    return end;
}

/* Whether tile u's task of the block in `slot` can join a group now: not
 * taken, its lane's previous block added, and the same beta. */
static int joins(const cal_psyrk *p, size_t slot, size_t u, double beta) {
    size_t lt = p->slot[slot].lane * p->ntiles + u;
    return !p->taken[slot * p->ntiles + u] && p->added[lt] == p->slot[slot].seq &&
           (p->slot[slot].lane == 0 || (p->dirty[lt] ? 1.0 : 0.0) == beta);
}

/* The most tasks one call may take: half of a worker's share of the tasks
 * that can start now (Groups), 1 where grouping is off or the block is
 * short. */
static size_t group_limit(const cal_psyrk *p, size_t slot) {
    size_t nth = (size_t)p->nth, end = p->submitted * p->ntiles, ready = 0;
    /* a limit of 2 takes 4 ready tasks a worker: without that many tasks
     * left at all, or past enough for the longest group, stop counting
     * (this runs under the lock, for every task with a neighbour) */
    if (!p->grouping || p->slot[slot].rows != p->block || end - p->next < 4 * nth) return 1;
    for (uint64_t k = p->next; k < end && ready < 2 * nth * p->longest; k++) {
        size_t s = (size_t)(k / p->ntiles % p->nbuf), t = (size_t)(k % p->ntiles);
        ready += !p->taken[s * p->ntiles + t] && p->added[p->slot[s].lane * p->ntiles + t] == p->slot[s].seq;
    }
    size_t most = ready / (2 * nth);
    return most ? most : 1;
}

/* Tile t's task of the block in `slot` and, as far as group_limit allows,
 * its neighbours' (cal_group_neighbours) that can join (joins): their indices in
 * grp, in the order they lie in memory; returns the count. */
static size_t gather(const cal_psyrk *p, size_t slot, size_t t, double beta, size_t *grp) {
    const size_t *prev = p->before[p->slot[slot].lane & 1], *next = p->after[p->slot[slot].lane & 1];
    size_t lo = t, hi = t, n = 1;
    size_t most = prev[t] == CAL_GROUP_NONE && next[t] == CAL_GROUP_NONE ? 1 : group_limit(p, slot);
    while (n < most) {
        if (prev[lo] != CAL_GROUP_NONE && joins(p, slot, prev[lo], beta)) lo = prev[lo];
        else if (next[hi] != CAL_GROUP_NONE && joins(p, slot, next[hi], beta)) hi = next[hi];
        else break;
        n++;
    }
    for (size_t k = 0, u = lo; k < n; k++, u = next[u]) grp[k] = u;
    return n;
}

static void *worker(void *arg) {
    cal_psyrk *p = arg;
    size_t *group = cal_xcalloc(p->ntiles, sizeof *group);
    pthread_mutex_lock(&p->mu);
    for (;;) {
        uint64_t task = 0;
        while (!p->aborting && !(p->folding && p->fold_next < p->ntiles) &&
               (task = ready_task(p)) == p->submitted * p->ntiles) {
            if (p->stop && p->next == task) break;
            pthread_cond_wait(&p->work, &p->mu);
        }
        if (p->aborting) break;
        if (p->folding && p->fold_next < p->ntiles) {
            size_t t = p->fold_next++;
            p->busy++;
            pthread_mutex_unlock(&p->mu);
            fold(p, t);
            pthread_mutex_lock(&p->mu);
            p->busy--;
            if (++p->folded == p->ntiles) pthread_cond_broadcast(&p->done);
            continue;
        }
        if (task == p->submitted * p->ntiles) break;
        uint64_t gen = task / p->ntiles;
        size_t t = (size_t)(task % p->ntiles), slot = (size_t)(gen % p->nbuf), lane = p->slot[slot].lane;
        /* C adds on; another lane starts anew (beta = 0) when it holds
         * nothing, at its first block and after each fold */
        double beta = lane == 0 || p->dirty[lane * p->ntiles + t] ? 1.0 : 0.0;
        size_t n = gather(p, slot, t, beta, group);
        tile g = p->tiles[group[0]];
        for (size_t k = 0; k < n; k++) p->taken[slot * p->ntiles + group[k]] = 1;
        for (size_t k = 1; k < n; k++) *(lane & 1 ? &g.nj : &g.ni) += cal_group_extent(&p->tiles[group[k]], lane & 1);
        while (p->next < p->submitted * p->ntiles &&
               p->taken[(size_t)(p->next / p->ntiles % p->nbuf) * p->ntiles + (size_t)(p->next % p->ntiles)])
            p->next++;
        p->busy++;
        p->calls++;
        pthread_mutex_unlock(&p->mu);
        product(p, &g, lane, beta, p->slot[slot].buf, p->slot[slot].rows);
        pthread_mutex_lock(&p->mu);
        p->busy--;
        for (size_t k = 0; k < n; k++) {
            size_t lt = lane * p->ntiles + group[k];
            p->dirty[lt] = 1;
            p->added[lt]++;
        }
        p->finished += n;
        if ((p->slot[slot].left -= n) == 0) pthread_cond_broadcast(&p->done); /* the buffer is free */
        if (p->finished == p->submitted * p->ntiles || p->aborting) pthread_cond_broadcast(&p->done);
        pthread_cond_broadcast(&p->work); /* the tiles' next block can start */
    }
    free(group);
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* An error exit (cal_die) while a worker is inside the BLAS races with
 * OpenBLAS's own shutdown at exit and can hang it: let running tasks end and
 * start no more. */
static cal_psyrk *active;

/* Accumulators alive (created and freed by one thread), and the BLAS thread
 * count before the first, restored after the last. */
static int live, saved_threads;
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

/* cal_groups_exact, once per width (accumulators are made by one thread). Its
 * scratch is the first block's buffer where that is large enough, which
 * the producer fills next anyway: no more fresh memory. */
static int may_group(cal_psyrk *p) {
    static size_t known_d;
    static int known;
    if (known_d == p->d) return known;
    size_t need = cal_groups_scratch(p->d), have = p->block * p->ld;
    double *s = need <= have ? cal_psyrk_block(p) : cal_xcalloc(need, sizeof *s);
    known = cal_groups_exact(p->tiles, p->before, p->after, p->ntiles, s);
    known_d = p->d;
    if (need > have) free(s);
    return known;
}

/* ---- Room under an address-space limit (blas.h, Memory) ----------------
 * An accumulator maps its blocks of rows and, per worker, a stack and
 * OpenBLAS's work buffer, late (at the first block, the first concurrent
 * BLAS call). What live accumulators were promised and have not mapped yet
 * is held back from the room the next one sees. */
#define ROOM_MARGIN ((size_t)32 << 20) /* the reader's buffers, scratch */
static size_t promised, first_room;

typedef struct {
    size_t ntiles, block_bytes;
} blocks_ctx;

static size_t blocks_for(int t, void *ctx) {
    const blocks_ctx *b = ctx;
    size_t huge = (size_t)2 << 20, one = (b->block_bytes + huge - 1) / huge * huge + huge;
    return cal_psyrk_nbuf(t, b->ntiles) * one + ROOM_MARGIN;
}

static int fit_threads(const cal_psyrk *p, int threads) {
    const char *which;
    size_t room = cal_address_room(&which);
    if (room == SIZE_MAX) return threads;
    if (!live) first_room = room, promised = 0;
    size_t mapped = first_room > room ? first_room - room : 0;
    size_t outstanding = promised > mapped ? promised - mapped : 0;
    size_t avail = room > outstanding ? room - outstanding : 0;
    blocks_ctx b = {p->ntiles, p->block * p->ld * sizeof(double)};
    int fit = cal_blas_fit(threads, avail, blocks_for, &b);
    if (!fit)
        cal_die("out of memory: accumulating %zu-wide vectors needs %zu MiB of address space (OpenBLAS's work "
                "buffer, a thread and %zu blocks of rows), %zu MiB are left under %s%s",
                p->d, (cal_blas_thread_bytes() + blocks_for(1, &b) + ((size_t)1 << 20) - 1) >> 20,
                cal_psyrk_nbuf(1, p->ntiles), avail >> 20, which,
                live ? " (each accumulator has threads of its own: --threads 1 needs least)" : "");
    if (fit < threads)
        cal_warn("%d thread%s instead of %d: %s leaves room for %d of OpenBLAS's work buffers", fit,
                 fit == 1 ? "" : "s", threads, which, fit);
    promised += (size_t)fit * cal_blas_thread_bytes() + blocks_for(fit, &b);
    return fit;
}

cal_psyrk *cal_psyrk_new(size_t d, size_t block_rows, int threads, double *C) {
    cal_psyrk *p = cal_xcalloc(1, sizeof *p);
    p->d = d;
    p->block = block_rows;
    p->C = C;
    p->ld = cal_psyrk_ld(d);
    p->ntiles = cal_psyrk_tiling(d, &p->tiles);
    for (int odd = 0; odd < 2; odd++) {
        p->before[odd] = cal_xcalloc(p->ntiles, sizeof *p->before[odd]);
        p->after[odd] = cal_xcalloc(p->ntiles, sizeof *p->after[odd]);
        cal_group_neighbours(p->tiles, p->ntiles, odd, p->before[odd], p->after[odd]);
        size_t first, len = cal_group_longest(p->before[odd], p->after[odd], p->ntiles, &first);
        if (len > p->longest) p->longest = len;
    }
    p->lanes = cal_psyrk_lanes(d);
    for (size_t i = 0; i < p->ntiles; i++)
        if (p->tiles[i].ni > p->wmax) p->wmax = p->tiles[i].ni;
    p->dirty = cal_xcalloc(p->lanes * p->ntiles, 1);
    p->seq = cal_xcalloc(p->lanes, sizeof *p->seq);
    p->added = cal_xcalloc(p->lanes * p->ntiles, sizeof *p->added);
    if (threads <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 0 ? (int)n : 1;
    }
    threads = fit_threads(p, threads);
    p->nth = threads;
    p->nbuf = cal_psyrk_nbuf(threads, p->ntiles);
    p->slot = cal_xcalloc(p->nbuf, sizeof *p->slot);
    cal_hugepages(C, d * p->ld * sizeof(double));
    p->taken = cal_xcalloc(p->nbuf * p->ntiles, 1);
    /* Each worker is one thread of BLAS, while any accumulator lives (many
     * with --by-label); the library's own pool is parked meanwhile. */
    if (!live++) {
        saved_threads = openblas_get_num_threads();
        cal_blas_threads(1);
    }
    p->grouping = may_group(p);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    p->th = cal_xcalloc((size_t)threads, sizeof *p->th);
    int err;
    for (int i = 0; i < threads; i++)
        if ((err = pthread_create(&p->th[i], NULL, worker, p)))
            cal_die("cannot start a thread: %s", err == EAGAIN ? "out of memory or of processes (ulimit -v, ulimit -u)"
                                                                : strerror(err));
    active = p;
    cal_atexit_cleanup(quiesce);
    return p;
}

static size_t pair_size(const cal_psyrk *p) { return p->d * p->ld * sizeof(double); }
static size_t diag_size(const cal_psyrk *p) { return p->wmax * p->ld * sizeof(double); }

double *cal_psyrk_block(cal_psyrk *p) {
    size_t slot = (size_t)(p->submitted % p->nbuf), size = p->block * p->ld * sizeof(double);
    /* Allocated when first filled, so that short inputs touch less fresh
     * memory; the producer writes it first, on 2 MiB pages where the
     * system gives them (base/oshint.h). */
    if (!p->slot[slot].buf) p->slot[slot].buf = cal_huge_zalloc(size);
    return p->slot[slot].buf;
}

int cal_psyrk_threads(const cal_psyrk *p) { return p->nth; }

int cal_psyrk_grouping(cal_psyrk *p) {
    pthread_mutex_lock(&p->mu);
    int g = p->grouping;
    pthread_mutex_unlock(&p->mu);
    return g;
}

void cal_psyrk_ungrouped(cal_psyrk *p) {
    pthread_mutex_lock(&p->mu);
    p->grouping = 0;
    pthread_mutex_unlock(&p->mu);
}

uint64_t cal_psyrk_calls(cal_psyrk *p) {
    pthread_mutex_lock(&p->mu);
    uint64_t n = p->calls;
    pthread_mutex_unlock(&p->mu);
    return n;
}

void cal_psyrk_submit(cal_psyrk *p, size_t rows) {
    if (!rows) return;
    size_t lane = cal_psyrk_lane_of(p->submitted, p->lanes);
    /* Memory for a lane when its first block comes: lanes 2 and 3 share
     * a matrix, odd lanes keep their diagonal tiles apart (Lanes). */
    if (lane >= 2 && !p->pair) p->pair = cal_huge_zalloc(pair_size(p));
    if ((lane & 1) && !p->diag[lane]) p->diag[lane] = cal_huge_zalloc(diag_size(p));
    pthread_mutex_lock(&p->mu);
    size_t slot = (size_t)(p->submitted % p->nbuf);
    p->slot[slot].rows = rows;
    p->slot[slot].lane = lane;
    p->slot[slot].seq = p->seq[lane]++;
    p->slot[slot].left = p->ntiles;
    memset(p->taken + slot * p->ntiles, 0, p->ntiles);
    p->submitted++;
    pthread_cond_broadcast(&p->work);
    /* The next buffer is free once every tile of its last block is added. */
    while (p->slot[p->submitted % p->nbuf].left) pthread_cond_wait(&p->done, &p->mu);
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
    int dirty = 0;
    for (size_t i = p->ntiles; i < p->lanes * p->ntiles; i++) dirty |= p->dirty[i];
    if (dirty) {
        /* The workers fold the lanes into C, a tile each at a time; the
         * lanes then start anew (beta = 0) with the next block. */
        p->folding = 1;
        p->fold_next = p->folded = 0;
        pthread_cond_broadcast(&p->work);
        while (p->folded < p->ntiles && !p->aborting) pthread_cond_wait(&p->done, &p->mu);
        p->folding = 0;
        memset(p->dirty + p->ntiles, 0, (p->lanes - 1) * p->ntiles);
    }
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
    if (!--live) cal_blas_threads(saved_threads);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->done);
    for (size_t i = 0; i < p->nbuf; i++) cal_huge_free(p->slot[i].buf, p->block * p->ld * sizeof(double));
    cal_huge_free(p->pair, pair_size(p));
    for (size_t k = 1; k < LANES_MAX; k++) cal_huge_free(p->diag[k], diag_size(p));
    free(p->dirty);
    free(p->seq);
    free(p->slot);
    free(p->taken);
    free(p->tiles);
    for (int odd = 0; odd < 2; odd++) free(p->before[odd]), free(p->after[odd]);
    free(p->added);
    free(p->th);
    free(p);
}
