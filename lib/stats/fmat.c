/* fmat.c - see fmat.h. */
#include "stats/fmat.h"

#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "base/err.h"

#define CHUNK 256 /* points per dgemm */

void cal_fmat_init(cal_fmat *X, const float *x, size_t n, size_t d) {
    X->x = x, X->n = n, X->d = d;
    X->norm2 = cal_xmalloc((n ? n : 1) * sizeof *X->norm2);
    for (size_t i = 0; i < n; i++) {
        const float *r = x + i * d;
        double s = 0;
        for (size_t j = 0; j < d; j++) s += (double)r[j] * (double)r[j];
        X->norm2[i] = s;
    }
}

void cal_fmat_free(cal_fmat *X) {
    free(X->norm2);
    X->norm2 = NULL;
}

void cal_fmat_row(const cal_fmat *X, size_t i, double *out) {
    const float *r = X->x + i * X->d;
    for (size_t j = 0; j < X->d; j++) out[j] = r[j];
}

void cal_fmat_dist2(const cal_fmat *X, size_t i0, size_t i1, const double *c, const double *cn, size_t k, double *xd,
                    double *out) {
    size_t m = i1 - i0, d = X->d;
    for (size_t i = 0; i < m; i++) cal_fmat_row(X, i0 + i, xd + i * d);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)m, (int)k, (int)d, -2.0, xd, (int)d, c, (int)d, 0.0, out,
                (int)k);
    for (size_t i = 0; i < m; i++) {
        double xn = X->norm2[i0 + i], *o = out + i * k;
        for (size_t j = 0; j < k; j++) {
            double v = o[j] + xn + cn[j];
            o[j] = v > 0 ? v : 0;
        }
    }
}

typedef struct {
    const cal_fmat *X;
    const double *c, *cn;
    size_t k;
    cal_fmat_visit fn;
    void *ctx;
} each_ctx;

static int each_block(void *p, size_t i0, size_t i1, char *err, size_t errsz) {
    (void)err, (void)errsz;
    each_ctx *e = p;
    size_t kc = e->k < CHUNK ? e->k : CHUNK, m = i1 - i0;
    double *xd = cal_xmalloc(m * e->X->d * sizeof *xd), *out = cal_xmalloc(m * kc * sizeof *out);
    for (size_t j0 = 0; j0 < e->k; j0 += CHUNK) {
        size_t n = e->k - j0 < CHUNK ? e->k - j0 : CHUNK;
        cal_fmat_dist2(e->X, i0, i1, e->c + j0 * e->X->d, e->cn + j0, n, xd, out);
        for (size_t i = 0; i < m; i++) e->fn(e->ctx, i0 + i, j0, out + i * n, n);
    }
    free(xd), free(out);
    return 0;
}

void cal_fmat_each(const cal_fmat *X, const double *c, const double *cn, size_t k, cal_par *p, cal_fmat_visit fn,
                   void *ctx) {
    each_ctx e = {X, c, cn, k, fn, ctx};
    cal_par_for(p, X->n, CAL_FMAT_BLOCK, each_block, &e);
}

void cal_fmat_points(const cal_fmat *X, const size_t *idx, size_t k, double *c, double *cn) {
    for (size_t j = 0; j < k; j++) {
        cal_fmat_row(X, idx[j], c + j * X->d);
        cn[j] = X->norm2[idx[j]];
    }
}
