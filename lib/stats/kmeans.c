/* kmeans.c - see kmeans.h. */
#include "stats/kmeans.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"

/* ---- k-means++ ----------------------------------------------------------- */

typedef struct {
    const cal_fmat *X;
    const double *c, *cn; /* the candidates */
    size_t L;
    const double *closest;
    double *pot;          /* per block: L partial sums (newd NULL) */
    double *newd;         /* L == 1: the new closest distances instead */
} pp_ctx;

static int pp_block(void *p, size_t i0, size_t i1, char *err, size_t errsz) {
    (void)err, (void)errsz;
    pp_ctx *q = p;
    size_t m = i1 - i0;
    double *xd = cal_xmalloc(m * q->X->d * sizeof *xd), *out = cal_xmalloc(m * q->L * sizeof *out);
    cal_fmat_dist2(q->X, i0, i1, q->c, q->cn, q->L, xd, out);
    if (q->newd) {
        for (size_t i = 0; i < m; i++) {
            double a = q->closest[i0 + i], b = out[i];
            q->newd[i0 + i] = b < a ? b : a;
        }
    } else {
        double *pot = q->pot + (i0 / CAL_FMAT_BLOCK) * q->L;
        for (size_t t = 0; t < q->L; t++) pot[t] = 0;
        for (size_t i = 0; i < m; i++)
            for (size_t t = 0; t < q->L; t++) {
                double a = q->closest[i0 + i], b = out[i * q->L + t];
                pot[t] += b < a ? b : a;
            }
    }
    free(xd), free(out);
    return 0;
}

/* pot[t] = sum over rows of min(closest, d2(row, candidate t)), summed per
 * block and then over blocks in order; or, with newd (L == 1, pot NULL),
 * newd[i] = min(closest[i], d2(row i, the candidate)): the caller sums
 * those in row order itself. */
static void pp_pass(pp_ctx *q, cal_par *p, double *pot) {
    size_t nb = (q->X->n + CAL_FMAT_BLOCK - 1) / CAL_FMAT_BLOCK;
    cal_par_for(p, q->X->n, CAL_FMAT_BLOCK, pp_block, q);
    for (size_t t = 0; pot && t < q->L; t++) {
        double s = 0;
        for (size_t b = 0; b < nb; b++) s += q->pot[b * q->L + t];
        pot[t] = s;
    }
}

int cal_kmeans_pp(const cal_fmat *X, size_t k, cal_rng *rng, cal_par *p, size_t *centers, char *err, size_t errlen) {
    size_t n = X->n, d = X->d, L = 2 + (size_t)floor(log((double)k));
    size_t nb = (n + CAL_FMAT_BLOCK - 1) / CAL_FMAT_BLOCK;
    double *closest = cal_xmalloc(n * sizeof *closest), *cum = cal_xmalloc(n * sizeof *cum);
    double *c = cal_xmalloc(L * d * sizeof *c), *cn = cal_xmalloc(L * sizeof *cn), *pots = cal_xmalloc(L * sizeof *pots);
    size_t *cand = cal_xmalloc(L * sizeof *cand);
    pp_ctx q = {X, c, cn, 1, NULL, cal_xmalloc(nb * L * sizeof(double)), closest};
    int rc = 0;
    /* The first centre; closest = its distances (min with +inf). */
    centers[0] = (size_t)cal_rng_below(rng, n);
    for (size_t i = 0; i < n; i++) cum[i] = INFINITY;
    q.closest = cum;
    cal_fmat_points(X, &centers[0], 1, c, cn);
    pp_pass(&q, p, NULL);
    double pot = 0;
    for (size_t i = 0; i < n; i++) pot += closest[i];
    for (size_t j = 1; j < k; j++) {
        if (!(pot > 0)) {
            rc = cal_errf(err, errlen, "the documents hold only %zu distinct feature vectors, fewer than the %zu clusters",
                          j, k);
            break;
        }
        double run = 0;
        for (size_t i = 0; i < n; i++) cum[i] = run += closest[i];
        for (size_t t = 0; t < L; t++) {
            double u = cal_rng_double(rng) * pot;
            size_t lo = 0, hi = n; /* the first i with cum[i] > u */
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (cum[mid] > u) hi = mid;
                else lo = mid + 1;
            }
            cand[t] = lo < n ? lo : n - 1;
        }
        cal_fmat_points(X, cand, L, c, cn);
        q.closest = closest, q.L = L, q.newd = NULL;
        pp_pass(&q, p, pots);
        size_t best = 0;
        for (size_t t = 1; t < L; t++)
            if (pots[t] < pots[best]) best = t;
        centers[j] = cand[best];
        /* closest = min(closest, d2(., centre)), kept in cum then swapped. */
        cal_fmat_points(X, &centers[j], 1, c, cn);
        q.L = 1, q.newd = cum;
        pp_pass(&q, p, NULL);
        double *t = closest;
        closest = cum, cum = t;
        pot = 0;
        for (size_t i = 0; i < n; i++) pot += closest[i];
    }
    free(closest), free(cum), free(c), free(cn), free(pots), free(cand), free(q.pot);
    return rc;
}

/* ---- Lloyd ------------------------------------------------------------- */

void cal_kmeans_init(cal_kmeans *km, size_t n, size_t d, size_t k, size_t max_iter) {
    memset(km, 0, sizeof *km);
    km->k = k, km->max_iter = max_iter;
    km->c = cal_xcalloc(k * d, sizeof *km->c);
    km->label = cal_xcalloc(n ? n : 1, sizeof *km->label);
    km->dist2 = cal_xcalloc(n ? n : 1, sizeof *km->dist2);
}

void cal_kmeans_free(cal_kmeans *km) {
    free(km->c), free(km->label), free(km->dist2);
    memset(km, 0, sizeof *km);
}

/* Assignment: label and dist2 of every row. */
static void assign_visit(void *ctx, size_t i, size_t j0, const double *d2, size_t kc) {
    cal_kmeans *km = ctx;
    size_t best = j0 ? km->label[i] : 0;
    double bd = j0 ? km->dist2[i] : d2[0];
    for (size_t j = 0; j < kc; j++)
        if (d2[j] < bd) bd = d2[j], best = j0 + j;
    km->label[i] = (uint32_t)best;
    km->dist2[i] = bd;
}

static void assign(const cal_fmat *X, cal_kmeans *km, cal_par *p) {
    double *cn = cal_xmalloc(km->k * sizeof *cn);
    for (size_t j = 0; j < km->k; j++) {
        double s = 0;
        for (size_t t = 0; t < X->d; t++) s += km->c[j * X->d + t] * km->c[j * X->d + t];
        cn[j] = s;
    }
    cal_fmat_each(X, km->c, cn, km->k, p, assign_visit, km);
    free(cn);
}

/* Sums of the rows of each cluster, a range of columns per block: each
 * column's sums are added in row order whatever the threads. */
typedef struct {
    const cal_fmat *X;
    const uint32_t *label;
    double *sum;
} sum_ctx;

static int sum_cols(void *p, size_t j0, size_t j1, char *err, size_t errsz) {
    (void)err, (void)errsz;
    sum_ctx *s = p;
    size_t d = s->X->d;
    for (size_t i = 0; i < s->X->n; i++) {
        const float *x = s->X->x + i * d;
        double *o = s->sum + (size_t)s->label[i] * d;
        for (size_t j = j0; j < j1; j++) o[j] += x[j];
    }
    return 0;
}

void cal_kmeans_lloyd(const cal_fmat *X, cal_kmeans *km, cal_par *p) {
    size_t n = X->n, d = X->d, k = km->k;
    uint32_t *old = cal_xmalloc((n ? n : 1) * sizeof *old);
    for (size_t i = 0; i < n; i++) old[i] = UINT32_MAX;
    double *sum = cal_xmalloc(k * d * sizeof *sum);
    uint64_t *cnt = cal_xmalloc(k * sizeof *cnt);
    uint8_t *taken = cal_xcalloc(n ? n : 1, 1);
    km->iter = 0, km->converged = 0, km->relocated = 0;
    for (size_t it = 0; it < km->max_iter; it++) {
        assign(X, km, p);
        memset(sum, 0, k * d * sizeof *sum);
        memset(cnt, 0, k * sizeof *cnt);
        for (size_t i = 0; i < n; i++) cnt[km->label[i]]++;
        sum_ctx sc = {X, km->label, sum};
        cal_par_for(p, d, 32, sum_cols, &sc);
        /* Empty clusters take the rows farthest from their centroids. */
        memset(taken, 0, n);
        for (size_t j = 0; j < k; j++) {
            if (cnt[j]) continue;
            size_t far = n;
            for (size_t i = 0; i < n; i++)
                if (!taken[i] && (far == n || km->dist2[i] > km->dist2[far])) far = i;
            if (far == n) break;
            taken[far] = 1;
            uint32_t from = km->label[far];
            const float *x = X->x + far * d;
            for (size_t t = 0; t < d; t++) sum[from * d + t] -= x[t], sum[j * d + t] = x[t];
            cnt[from]--, cnt[j] = 1;
            km->relocated++;
        }
        double shift = 0;
        for (size_t j = 0; j < k; j++) {
            double a = cnt[j] ? 1.0 / (double)cnt[j] : 1.0;
            for (size_t t = 0; t < d; t++) {
                double v = cnt[j] ? sum[j * d + t] * a : sum[j * d + t];
                double e = v - km->c[j * d + t];
                shift += e * e;
                km->c[j * d + t] = v;
            }
        }
        km->iter = it + 1;
        if (!memcmp(old, km->label, n * sizeof *old)) {
            km->converged = 1;
            break;
        }
        if (shift <= 0) break;
        memcpy(old, km->label, n * sizeof *old);
    }
    if (!km->converged) assign(X, km, p);
    free(old), free(sum), free(cnt), free(taken);
}

void cal_kmeans_sizes(const cal_kmeans *km, size_t n, uint64_t *size) {
    memset(size, 0, km->k * sizeof *size);
    for (size_t i = 0; i < n; i++) size[km->label[i]]++;
}

typedef struct {
    uint32_t label;
    double d;
    size_t i;
} near_item;

static int near_cmp(const void *a, const void *b) {
    const near_item *x = a, *y = b;
    if (x->label != y->label) return x->label < y->label ? -1 : 1;
    if (x->d != y->d) return x->d < y->d ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

size_t cal_kmeans_nearest(const cal_kmeans *km, size_t n, const uint64_t *want, size_t *out) {
    near_item *v = cal_xmalloc((n ? n : 1) * sizeof *v);
    for (size_t i = 0; i < n; i++) v[i] = (near_item){km->label[i], km->dist2[i], i};
    qsort(v, n, sizeof *v, near_cmp);
    size_t w = 0;
    for (size_t a = 0; a < n;) {
        size_t b = a;
        while (b < n && v[b].label == v[a].label) b++;
        uint64_t take = want[v[a].label];
        for (size_t i = a; i < b && i - a < take; i++) out[w++] = v[i].i;
        a = b;
    }
    free(v);
    return w;
}
