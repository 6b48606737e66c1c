/* select.c - see select.h. */
#include "stats/select.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/rng.h"

typedef struct {
    uint64_t id;
    size_t pos;
} keyed;

static int cmp_keyed(const void *a, const void *b) {
    const keyed *x = a, *y = b;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

void cal_select_order(const uint64_t *ids, size_t n, size_t *order) {
    keyed *v = cal_xmalloc((n ? n : 1) * sizeof *v);
    for (size_t i = 0; i < n; i++) v[i] = (keyed){ids[i], i};
    qsort(v, n, sizeof *v, cmp_keyed);
    for (size_t i = 0; i < n; i++) order[i] = v[i].pos;
    free(v);
}

void cal_select_random(size_t n, size_t k, uint64_t seed, size_t *out) {
    size_t *a = cal_xmalloc((n ? n : 1) * sizeof *a);
    for (size_t i = 0; i < n; i++) a[i] = i;
    cal_rng r;
    cal_rng_init2(&r, seed, "cal-select random");
    for (size_t i = 0; i < k; i++) {
        size_t j = i + (size_t)cal_rng_below(&r, n - i), t = a[i];
        a[i] = a[j], a[j] = t;
    }
    memcpy(out, a, k * sizeof *out);
    free(a);
}

static int is_select_key(const char *k) {
    return !strncmp(k, "select", 6) && (k[6] == 0 || k[6] == '.');
}

size_t cal_select_meta(cal_meta *m, const cal_select_record *r) {
    for (size_t i = 0; i < m->n;)
        if (is_select_key(m->key[i])) {
            char *k = cal_xstrdup(m->key[i]); /* cal_meta_del frees the key it compares with */
            cal_meta_del(m, k);
            free(k);
        } else {
            i++;
        }
    cal_meta_set(m, "select.method", r->method);
    cal_meta_setf(m, "select.documents", "%llu", (unsigned long long)r->docs);
    cal_meta_setf(m, "select.chosen", "%zu", r->nchosen);
    if (!r->cluster) return 0;
    cal_meta_setf(m, "select.clusters", "%zu", r->nclusters);
    /* The chosen of each cluster, in output order: start[j] .. start[j+1) of by. */
    size_t k = r->nclusters, *start = cal_xcalloc(k + 1, sizeof *start), *by = cal_xmalloc((r->nchosen + 1) * sizeof *by);
    uint64_t *chosen = cal_xcalloc(k ? k : 1, sizeof *chosen);
    for (size_t i = 0; i < r->nchosen; i++) chosen[r->cluster[i]]++;
    for (size_t j = 0; j < k; j++) start[j + 1] = start[j] + chosen[j];
    size_t *fill = cal_xmalloc((k ? k : 1) * sizeof *fill);
    memcpy(fill, start, k * sizeof *fill);
    for (size_t i = 0; i < r->nchosen; i++) by[fill[r->cluster[i]]++] = i;
    size_t listed = 0, left = 0;
    cal_buf v = {0};
    char key[64];
    for (size_t j = 0; j < r->nclusters; j++) {
        v.n = 0;
        cal_buf_addf(&v, "%llu %llu", (unsigned long long)r->size[j], (unsigned long long)chosen[j]);
        if (!r->max_ids || listed + chosen[j] <= r->max_ids) {
            for (size_t t = start[j]; t < start[j + 1]; t++) cal_buf_addf(&v, " %016llx", (unsigned long long)r->ids[by[t]]);
            listed += chosen[j];
        } else {
            left += chosen[j];
        }
        cal_buf_addc(&v, 0);
        snprintf(key, sizeof key, "select.cluster.%zu", j);
        cal_meta_add(m, key, v.p);
    }
    cal_buf_free(&v);
    free(chosen), free(start), free(by), free(fill);
    return left;
}
