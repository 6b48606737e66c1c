/* syrk_peak.c - the OpenBLAS ?syrk rate on an n x d block of random rows,
 * the routine cal-hessian calls (flops counted as n*d*(d+1)).
 * Usage: syrk_peak N D d|s [REPEATS] ; prints "GFLOPS CORENAME". */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cblas.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc < 4) return 2;
    int n = atoi(argv[1]), d = atoi(argv[2]), dbl = argv[3][0] == 'd';
    int reps = argc > 4 ? atoi(argv[4]) : 1;
    size_t es = dbl ? 8 : 4;
    void *x = malloc((size_t)n * d * es), *c = calloc((size_t)d * d, es);
    if (!x || !c) return 1;
    srand(1);
    for (size_t i = 0; i < (size_t)n * d; i++) {
        double v = rand() / (double)RAND_MAX - 0.5;
        if (dbl) ((double *)x)[i] = v;
        else ((float *)x)[i] = (float)v;
    }
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        if (dbl) cblas_dsyrk(CblasColMajor, CblasUpper, CblasNoTrans, d, n, 1.0, x, d, 1.0, c, d);
        else cblas_ssyrk(CblasColMajor, CblasUpper, CblasNoTrans, d, n, 1.0f, x, d, 1.0f, c, d);
        double t = now() - t0;
        if (t < best) best = t;
    }
    printf("%.1f %s\n", (double)n * d * (d + 1.0) / best / 1e9, openblas_get_corename());
    free(x);
    free(c);
    return 0;
}
