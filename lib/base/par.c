/* par.c - see par.h. */
#include "base/par.h"

#include <stdlib.h>
#include <unistd.h>

#include "base/err.h"
#include "base/pool.h"

typedef struct {
    cal_par_fn fn;
    void *ctx;
    size_t i0, i1;
} job;

struct cal_par {
    cal_pool *pool;
    unsigned threads;
    size_t depth;
    job *jobs; /* one per slot of the ring: depth of them */
};

static int run(void *ctx, void *p, char *err, size_t errsz) {
    (void)ctx;
    job *j = p;
    return j->fn(j->ctx, j->i0, j->i1, err, errsz);
}

cal_par *cal_par_new(unsigned threads) {
    cal_par *p = cal_xcalloc(1, sizeof *p);
    p->threads = threads ? threads : 1;
    p->depth = 4 * (size_t)p->threads;
    p->jobs = cal_xcalloc(p->depth, sizeof *p->jobs);
    p->pool = cal_pool_new(p->threads - 1, p->depth, run, NULL);
    return p;
}

unsigned cal_par_threads(const cal_par *p) { return p->threads; }

static void take(cal_par *p) {
    while (cal_pool_help(p->pool)) continue;
    const char *err;
    cal_pool_take(p->pool, &err);
    if (err) cal_die("%s", err);
}

void cal_par_for(cal_par *p, size_t n, size_t block, cal_par_fn fn, void *ctx) {
    if (!block) block = 1;
    size_t k = 0;
    for (size_t i0 = 0; i0 < n; i0 += block, k++) {
        if (cal_pool_pending(p->pool) == p->depth) take(p);
        job *j = &p->jobs[k % p->depth]; /* its slot's previous job was taken */
        j->fn = fn, j->ctx = ctx, j->i0 = i0, j->i1 = n - i0 < block ? n : i0 + block;
        cal_pool_submit(p->pool, j);
    }
    while (cal_pool_pending(p->pool)) take(p);
}

void cal_par_free(cal_par *p) {
    if (!p) return;
    cal_pool_free(p->pool);
    free(p->jobs);
    free(p);
}

unsigned cal_par_cpus(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}
