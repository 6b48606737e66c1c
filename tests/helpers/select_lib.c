/* select_lib.c - cal-select's mechanisms on a matrix a test gives, for
 * tests/sh/test_select.sh to compare with scikit-learn and numpy
 * (tests/py/selectref.py). X is n x d float32, C0 k x d float64, both raw
 * little-endian files (numpy's tofile). Prints one line per result.
 *
 *     select_lib pp      X n d k seed threads       -> "centers i ..." (k-means++ from seed's "cal-select kmeans++")
 *     select_lib lloyd   X n d C0 k maxiter threads OUT
 *                                                    -> "iter N converged C relocated R"; OUT.labels (u32),
 *                                                       OUT.centers (f64), OUT.dist2 (f64)
 *     select_lib kcenter X n d k seed threads       -> "centers i ...", then "owner ..." (n values)
 *     select_lib like    X n d T m k threads        -> "bandwidth H", "chosen i ...", "mmd2 V TT"
 *     select_lib alloc < lines "TOTAL equal|size SIZE..." -> "per a ..." each (cal_alloc_capped)
 *     select_lib random  n k seed                   -> "chosen i ..."
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/par.h"
#include "base/rng.h"
#include "rows/alloc.h"
#include "stats/blas.h"
#include "stats/fmat.h"
#include "stats/kcenter.h"
#include "stats/kmeans.h"
#include "stats/like.h"
#include "stats/select.h"

static void *load(const char *path, size_t bytes) {
    FILE *f = fopen(path, "rb");
    void *p = malloc(bytes ? bytes : 1);
    if (!f || fread(p, 1, bytes, f) != bytes) {
        fprintf(stderr, "select_lib: cannot read %zu bytes of %s\n", bytes, path);
        exit(2);
    }
    fclose(f);
    return p;
}

static void save(const char *prefix, const char *ext, const void *p, size_t bytes) {
    char path[1024];
    snprintf(path, sizeof path, "%s.%s", prefix, ext);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, bytes, f) != bytes || fclose(f)) exit(2);
}

static void print_idx(const char *what, const size_t *v, size_t n) {
    printf("%s", what);
    for (size_t i = 0; i < n; i++) printf(" %zu", v[i]);
    printf("\n");
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    const char *mode = argv[1];
    cal_blas_threads(1);
    if (!strcmp(mode, "alloc")) { /* lines "TOTAL size|equal SIZE..." on stdin */
        char line[4096];
        while (fgets(line, sizeof line, stdin)) {
            uint64_t total, cap[64], out[64];
            double w[64];
            char how[16];
            int used, k = 0;
            char *p = line;
            if (sscanf(p, "%llu %15s%n", (unsigned long long *)&total, how, &used) != 2) return 2;
            p += used;
            while (k < 64 && sscanf(p, "%llu%n", (unsigned long long *)&cap[k], &used) == 1) {
                w[k] = strcmp(how, "equal") ? (double)cap[k] : 1;
                k++, p += used;
            }
            cal_alloc_capped(total, w, cap, (size_t)k, out);
            printf("per");
            for (int j = 0; j < k; j++) printf(" %llu", (unsigned long long)out[j]);
            printf("\n");
        }
        return 0;
    }
    if (!strcmp(mode, "random") && argc == 5) {
        size_t n = strtoull(argv[2], NULL, 10), k = strtoull(argv[3], NULL, 10);
        size_t *out = malloc((k + 1) * sizeof *out);
        cal_select_random(n, k, strtoull(argv[4], NULL, 10), out);
        print_idx("chosen", out, k);
        free(out);
        return 0;
    }
    if (argc < 5) return 2;
    size_t n = strtoull(argv[3], NULL, 10), d = strtoull(argv[4], NULL, 10);
    float *x = load(argv[2], n * d * 4);
    cal_fmat X;
    cal_fmat_init(&X, x, n, d);
    int rc = 0;
    if (!strcmp(mode, "pp") && argc == 8) {
        size_t k = strtoull(argv[5], NULL, 10), *c = malloc(k * sizeof *c);
        cal_rng r;
        cal_rng_init2(&r, strtoull(argv[6], NULL, 10), "cal-select kmeans++");
        cal_par *p = cal_par_new((unsigned)atoi(argv[7]));
        char err[256];
        if (cal_kmeans_pp(&X, k, &r, p, c, err, sizeof err)) printf("error %s\n", err);
        else print_idx("centers", c, k);
        cal_par_free(p);
        free(c);
    } else if (!strcmp(mode, "lloyd") && argc == 10) {
        size_t k = strtoull(argv[6], NULL, 10);
        double *c0 = load(argv[5], k * d * 8);
        cal_kmeans km;
        cal_kmeans_init(&km, n, d, k, strtoull(argv[7], NULL, 10));
        memcpy(km.c, c0, k * d * 8);
        cal_par *p = cal_par_new((unsigned)atoi(argv[8]));
        cal_kmeans_lloyd(&X, &km, p);
        printf("iter %zu converged %d relocated %zu\n", km.iter, km.converged, km.relocated);
        save(argv[9], "labels", km.label, n * 4);
        save(argv[9], "centers", km.c, k * d * 8);
        save(argv[9], "dist2", km.dist2, n * 8);
        cal_par_free(p);
        cal_kmeans_free(&km);
        free(c0);
    } else if (!strcmp(mode, "kcenter") && argc == 8) {
        size_t k = strtoull(argv[5], NULL, 10), *c = malloc(k * sizeof *c);
        uint32_t *owner = malloc(n * sizeof *owner);
        cal_rng r;
        cal_rng_init2(&r, strtoull(argv[6], NULL, 10), "cal-select kcenter");
        cal_par *p = cal_par_new((unsigned)atoi(argv[7]));
        cal_kcenter(&X, k, &r, p, c, owner, NULL);
        print_idx("centers", c, k);
        printf("owner");
        for (size_t i = 0; i < n; i++) printf(" %u", owner[i]);
        printf("\n");
        cal_par_free(p);
        free(c), free(owner);
    } else if (!strcmp(mode, "like") && argc == 9) {
        size_t m = strtoull(argv[6], NULL, 10), k = strtoull(argv[7], NULL, 10), *c = malloc(k * sizeof *c);
        float *t = load(argv[5], m * d * 4);
        cal_fmat T;
        cal_fmat_init(&T, t, m, d);
        cal_par *p = cal_par_new((unsigned)atoi(argv[8]));
        cal_like_info info;
        cal_like(&X, &T, k, p, c, &info);
        printf("bandwidth %.17g\n", info.h);
        print_idx("chosen", c, k);
        printf("mmd2 %.17g %.17g\n", info.mmd2, info.mmd2_tt);
        cal_par_free(p);
        cal_fmat_free(&T);
        free(c), free(t);
    } else {
        rc = 2;
    }
    cal_fmat_free(&X);
    free(x);
    return rc;
}
