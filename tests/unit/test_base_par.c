/* test_base_par.c - lib/base/par.c: every index in exactly one block, block
 * bounds that depend on n and the block size alone (what makes cal-select's
 * output independent of -j), any thread count, and a failing block ending
 * the program with its message. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include <unistd.h>

#include "base/par.h"
#include "child.h"
#include "test.h"

typedef struct {
    unsigned *hits;
    size_t *first; /* first[i] = i0 of the block that ran i */
} visit_ctx;

static int visit(void *ctx, size_t i0, size_t i1, char *err, size_t errsz) {
    (void)err, (void)errsz;
    visit_ctx *v = ctx;
    for (size_t i = i0; i < i1; i++) __atomic_fetch_add(&v->hits[i], 1, __ATOMIC_RELAXED), v->first[i] = i0;
    return 0;
}

static int fail_at_7(void *ctx, size_t i0, size_t i1, char *err, size_t errsz) {
    (void)ctx;
    if (i0 <= 7 && 7 < i1) return snprintf(err, errsz, "block %zu failed", i0), 1;
    return 0;
}

static void run_failing(void *arg) {
    cal_par *p = cal_par_new(*(unsigned *)arg);
    cal_par_for(p, 100, 4, fail_at_7, NULL);
    cal_par_free(p);
}

int main(void) {
    size_t ns[] = {0, 1, 7, 64, 1000, 1023}, blocks[] = {1, 3, 64, 5000};
    int ok = 1;
    for (unsigned th = 1; th <= 4; th++) {
        cal_par *p = cal_par_new(th);
        ok &= cal_par_threads(p) == th;
        for (size_t a = 0; a < sizeof ns / sizeof *ns; a++)
            for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++) {
                size_t n = ns[a], blk = blocks[b];
                visit_ctx v = {calloc(n + 1, sizeof(unsigned)), calloc(n + 1, sizeof(size_t))};
                for (int rep = 0; rep < 2; rep++) cal_par_for(p, n, blk, visit, &v); /* the pool is reused */
                for (size_t i = 0; i < n; i++) ok &= v.hits[i] == 2 && v.first[i] == i / blk * blk;
                free(v.hits), free(v.first);
            }
        cal_par_free(p);
    }
    CHECK(ok, "1-4 threads, 6 lengths x 4 block sizes: each index once per call, in the block [i/B*B, ...)");
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    CHECK(cal_par_cpus() == (online > 0 ? (unsigned)online : 1u), "cal_par_cpus: the online processors (%ld)", online);
    char msg[256];
    for (unsigned th = 1; th <= 3; th += 2) {
        int st = t_child(run_failing, &th, msg, sizeof msg);
        CHECK(st == 1 && strstr(msg, "block 4 failed"), "%u threads: a failing block ends the program with its message (%d: %s)",
              th, st, msg);
    }
    TEST_END();
}
