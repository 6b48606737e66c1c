/* syrk_peak.c - the rate of the BLAS work behind cal-hessian on n x d random
 * rows held in memory (flops counted as n*d*(d+1)):
 *   d  OpenBLAS dsyrk, one call, the library's threads (the anchor)
 *   s  the same with ssyrk (float32 sums, for reference)
 *   p  psyrk.c, what cal-hessian runs: the rows in blocks of BLOCK through
 *      its tiles and worker threads, without reading or decoding
 * THREADS: the BLAS's threads for d and s, psyrk's workers for p (0: one
 * per CPU). The kernels are chosen as cal-hessian chooses them (stats/blas.h).
 * Usage: syrk_peak N D d|s|p [REPEATS] [BLOCK] [THREADS] ; prints "GFLOPS
 * CORENAME CPU_GFLOPS": per second of wall time, and per second of CPU time
 * of all threads (for a shared machine, where wall time means little). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cblas.h>

#include "stats/blas.h"
#include "stats/psyrk.h"

static double now(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* All n rows through psyrk, BLOCK at a time, copied in as cal-hessian's
 * reading thread would (the copy stands in for the decoding). */
static void run_psyrk(const double *x, size_t n, size_t d, size_t block, int threads) {
    double *C = calloc(d * cal_psyrk_ld(d), sizeof *C);
    cal_psyrk *p = cal_psyrk_new(d, block, threads, C);
    cal_psyrk_add_rows(p, x, n);
    cal_psyrk_free(p);
    free(C);
}

int main(int argc, char **argv) {
    if (argc < 4) return 2;
    cal_blas_choose(argv);
    int n = atoi(argv[1]), d = atoi(argv[2]);
    char mode = argv[3][0];
    int reps = argc > 4 ? atoi(argv[4]) : 1;
    size_t block = argc > 5 ? (size_t)atoi(argv[5]) : 1024;
    int threads = argc > 6 ? atoi(argv[6]) : 0;
    if (mode != 'p') cal_blas_threads(threads);
    size_t es = mode == 's' ? 4 : 8;
    void *x = malloc((size_t)n * d * es), *c = calloc((size_t)d * d, es);
    if (!x || !c) return 1;
    srand(1);
    for (size_t i = 0; i < (size_t)n * d; i++) {
        double v = rand() / (double)RAND_MAX - 0.5;
        if (es == 8) ((double *)x)[i] = v;
        else ((float *)x)[i] = (float)v;
    }
    double best = 1e30, best_cpu = 1e30;
    for (int r = 0; r < reps; r++) {
        double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
        if (mode == 'd') cblas_dsyrk(CblasColMajor, CblasUpper, CblasNoTrans, d, n, 1.0, x, d, 1.0, c, d);
        else if (mode == 's') cblas_ssyrk(CblasColMajor, CblasUpper, CblasNoTrans, d, n, 1.0f, x, d, 1.0f, c, d);
        else run_psyrk(x, (size_t)n, (size_t)d, block, threads);
        double t = now(CLOCK_MONOTONIC) - t0, tc = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
        if (t < best) best = t;
        if (tc < best_cpu) best_cpu = tc;
    }
    double fl = (double)n * d * (d + 1.0) / 1e9;
    printf("%.1f %s %.1f\n", fl / best, cal_blas_core(), fl / best_cpu);
    free(x);
    free(c);
    return 0;
}
