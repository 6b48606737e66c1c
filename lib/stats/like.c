/* like.c - see like.h. */
#include "stats/like.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"

#define BW_ROWS 1000  /* target rows the bandwidth looks at */
#define TT_ROWS 4096  /* largest target whose own MMD term is computed */

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double cal_like_bandwidth(const cal_fmat *T) {
    size_t m = T->n < BW_ROWS ? T->n : BW_ROWS, d = T->d, np = m * (m - (m > 0)) / 2, w = 0;
    if (np == 0) return 1;
    double *v = cal_xmalloc(np * sizeof *v), *a = cal_xmalloc(d * sizeof *a), *b = cal_xmalloc(d * sizeof *b);
    for (size_t i = 0; i < m; i++) {
        cal_fmat_row(T, i, a);
        for (size_t j = i + 1; j < m; j++) {
            cal_fmat_row(T, j, b);
            double dot = 0;
            for (size_t t = 0; t < d; t++) dot += a[t] * b[t];
            double d2 = T->norm2[i] + T->norm2[j] - 2 * dot;
            v[w++] = d2 > 0 ? d2 : 0;
        }
    }
    qsort(v, np, sizeof *v, cmp_double);
    double h = np % 2 ? v[np / 2] : (v[np / 2 - 1] + v[np / 2]) / 2;
    free(v), free(a), free(b);
    return h > 0 ? h : 1;
}

typedef struct {
    double *acc, h;
} kern_ctx;

/* acc[i] += sum over the chunk's points of exp(-d2 / h); the first chunk
 * of a pass over several points starts from 0 (mu). */
static void kern_sum(void *ctx, size_t i, size_t j0, const double *d2, size_t kc) {
    kern_ctx *q = ctx;
    double s = j0 ? q->acc[i] : 0;
    for (size_t j = 0; j < kc; j++) s += exp(-d2[j] / q->h);
    q->acc[i] = s;
}

static void kern_add(void *ctx, size_t i, size_t j0, const double *d2, size_t kc) {
    (void)j0, (void)kc;
    kern_ctx *q = ctx;
    q->acc[i] += exp(-d2[0] / q->h);
}

void cal_like(const cal_fmat *X, const cal_fmat *T, size_t k, cal_par *p, size_t *chosen, cal_like_info *info) {
    size_t n = X->n, m = T->n, d = X->d;
    double h = cal_like_bandwidth(T);
    double *tc = cal_xmalloc(m * d * sizeof *tc), *tn = cal_xmalloc(m * sizeof *tn);
    size_t *all = cal_xmalloc(m * sizeof *all);
    for (size_t j = 0; j < m; j++) all[j] = j;
    cal_fmat_points(T, all, m, tc, tn);
    double *mu = cal_xmalloc(n * sizeof *mu), *acc = cal_xcalloc(n, sizeof *acc);
    kern_ctx q = {mu, h};
    cal_fmat_each(X, tc, tn, m, p, kern_sum, &q);
    for (size_t i = 0; i < n; i++) mu[i] /= (double)m;
    double tt = NAN;
    if (m <= TT_ROWS) {
        double *tk = cal_xmalloc(m * sizeof *tk);
        kern_ctx qt = {tk, h};
        cal_fmat_each(T, tc, tn, m, p, kern_sum, &qt);
        tt = 0;
        for (size_t j = 0; j < m; j++) tt += tk[j];
        tt /= (double)m * (double)m;
        free(tk);
    }
    uint8_t *taken = cal_xcalloc(n, 1);
    double *c = cal_xmalloc(d * sizeof *c), cn;
    q.acc = acc;
    for (size_t j = 0; j < k; j++) {
        size_t best = n;
        double bv = 0;
        for (size_t i = 0; i < n; i++) {
            if (taken[i]) continue;
            double v = (double)(j + 1) * mu[i] - acc[i];
            if (best == n || v > bv) best = i, bv = v;
        }
        chosen[j] = best;
        taken[best] = 1;
        cal_fmat_points(X, &best, 1, c, &cn);
        cal_fmat_each(X, c, &cn, 1, p, kern_add, &q);
    }
    if (info) {
        double ss = 0, sm = 0;
        for (size_t j = 0; j < k; j++) ss += acc[chosen[j]], sm += mu[chosen[j]];
        info->h = h;
        info->mmd2 = ss / ((double)k * (double)k) - 2 * sm / (double)k;
        info->mmd2_tt = tt;
    }
    free(tc), free(tn), free(all), free(mu), free(acc), free(taken), free(c);
}
