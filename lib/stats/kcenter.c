/* kcenter.c - see kcenter.h. */
#include "stats/kcenter.h"

#include <math.h>
#include <stdlib.h>

#include "base/err.h"

typedef struct {
    double *near;    /* squared distance to the nearest centre so far */
    uint32_t *owner;
    uint32_t centre; /* the number of the centre being added */
} kc_ctx;

static void visit(void *ctx, size_t i, size_t j0, const double *d2, size_t kc) {
    (void)j0, (void)kc;
    kc_ctx *q = ctx;
    if (d2[0] < q->near[i]) q->near[i] = d2[0], q->owner[i] = q->centre;
}

void cal_kcenter(const cal_fmat *X, size_t k, cal_rng *rng, cal_par *p, size_t *centers, uint32_t *owner,
                 double *dist2) {
    size_t n = X->n;
    double *near = cal_xmalloc(n * sizeof *near), *c = cal_xmalloc(X->d * sizeof *c), cn;
    uint8_t *chosen = cal_xcalloc(n, 1);
    for (size_t i = 0; i < n; i++) near[i] = INFINITY, owner[i] = 0;
    kc_ctx q = {near, owner, 0};
    size_t next = (size_t)cal_rng_below(rng, n);
    for (size_t j = 0; j < k; j++) {
        centers[j] = next;
        chosen[next] = 1;
        q.centre = (uint32_t)j;
        cal_fmat_points(X, &next, 1, c, &cn);
        cal_fmat_each(X, c, &cn, 1, p, visit, &q);
        next = n;
        for (size_t i = 0; i < n; i++)
            if (!chosen[i] && (next == n || near[i] > near[next])) next = i;
        if (next == n) break; /* k == n */
    }
    if (dist2)
        for (size_t i = 0; i < n; i++) dist2[i] = near[i];
    free(near), free(c), free(chosen);
}
