/* imatrix_stats.c - llama-imatrix --show-statistics (imatrix_stats.h). */
#include "stats/imatrix_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"

typedef struct {
    const cal_imatrix_entry *e;
    char layer[32], name[CAL_IMATRIX_MAX_NAME + 1];
    int blk;
    float total, mean, max, min, dev, active, entropy, zd, cossim;
    int elements;
} tstat;

/* llama.cpp's process_tensor_name: the word after "blk" ("-" if none), the
 * word before "weight" (the whole name if none). */
static void split_name(const char *full, tstat *t) {
    char buf[CAL_IMATRIX_MAX_NAME + 1], *w[64];
    int n = 0;
    snprintf(buf, sizeof buf, "%s", full);
    for (char *p = buf;; p++) { /* split on '.', empty words kept as getline does */
        w[n++] = p;
        p = strchr(p, '.');
        if (!p || n == 64) break;
        *p = 0;
    }
    if (n && !*w[n - 1]) n--; /* getline gives no word after a final '.' */
    snprintf(t->layer, sizeof t->layer, "-");
    for (int i = 0; i + 1 < n; i++)
        if (!strcmp(w[i], "blk")) {
            snprintf(t->layer, sizeof t->layer, "%s", w[i + 1]);
            break;
        }
    t->name[0] = 0;
    for (int i = 1; i < n; i++)
        if (!strcmp(w[i], "weight")) {
            snprintf(t->name, sizeof t->name, "%s", w[i - 1]);
            break;
        }
    if (!t->name[0]) snprintf(t->name, sizeof t->name, "%s", full);
    char *end;
    long b = strtol(t->layer, &end, 10); /* std::stoi: leading digits, else none */
    t->blk = end == t->layer ? -1 : (int)b;
}

/* compute_statistics; 0 when the tensor has no data. */
static int compute(const cal_imatrix_entry *e, tstat *t) {
    size_t d = e->d, n = 0;
    float *a = cal_xmalloc(d * e->nmat * sizeof *a + 1);
    for (size_t i = 0; i < e->nmat; i++)
        for (size_t j = 0; e->counts[i] && j < d; j++) a[n++] = (float)e->in_sum2[i * d + j] / (float)e->counts[i];
    if (!n) {
        free(a);
        return 0;
    }
    float total = 0, sq = 0, mx = a[0], mn = a[0];
    size_t inactive = 0, z = 0;
    for (size_t i = 0; i < n; i++) {
        total += a[i], sq += a[i] * a[i];
        mx = a[i] > mx ? a[i] : mx, mn = a[i] < mn ? a[i] : mn;
        inactive += fabsf(a[i]) <= 1e-5f;
    }
    float mean = total / (float)n, var = sq / (float)n - mean * mean, dev = sqrtf(var > 0 ? var : 0), ent = 0;
    for (size_t i = 0; total > 0 && i < n; i++) {
        float p = a[i] / total;
        if (p > 0) ent -= p * log2f(p);
    }
    for (size_t i = 0; dev > 0 && i < n; i++) z += (a[i] - mean) / dev > 1;
    t->e = e, t->total = total, t->mean = mean, t->max = mx, t->min = mn, t->dev = dev;
    t->active = 1 - (float)inactive / (float)n, t->entropy = ent, t->elements = (int)n;
    t->zd = (float)z / (float)n, t->cossim = 0;
    split_name(e->name, t);
    free(a);
    return 1;
}

/* compute_cossim: against blk.(N-1) of the same name, on the raw sums. */
static void cossim(tstat *t, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const char *nm = t[i].e->name, *p = strstr(nm, "blk.");
        while (p && !(p[4] >= '0' && p[4] <= '9')) p = strstr(p + 1, "blk.");
        if (!p) continue;
        char *end;
        long b = strtol(p + 4, &end, 10);
        if (*end != '.') continue;
        char want[CAL_IMATRIX_MAX_NAME + 32];
        snprintf(want, sizeof want, "%.*s%ld%s", (int)(p + 4 - nm), nm, b - 1, end);
        for (size_t k = 0; k < n; k++) {
            const cal_imatrix_entry *x = t[i].e, *y = t[k].e;
            if (strcmp(y->name, want) || x->d * x->nmat != y->d * y->nmat) continue;
            float dp = 0, cx = 0, cy = 0;
            for (size_t j = 0; j < x->d * x->nmat; j++) {
                float u = (float)x->in_sum2[j], v = (float)y->in_sum2[j];
                dp += u * v, cx += u * u, cy += v * v;
            }
            t[i].cossim = dp / (sqrtf(cx) * sqrtf(cy));
        }
    }
}

static int by_name_total(const void *pa, const void *pb) {
    const tstat *a = pa, *b = pb;
    int c = strcmp(a->name, b->name);
    if (c) return c;
    return a->total > b->total ? -1 : a->total < b->total;
}

size_t cal_imatrix_statistics(const cal_imatrix *m, const char *name, FILE *out) {
    tstat *t = cal_xcalloc(m->n + 1, sizeof *t);
    size_t n = 0;
    for (size_t i = 0; i < m->n; i++) n += compute(&m->e[i], &t[n]);
    if (!n) {
        free(t);
        return 0;
    }
    cossim(t, n);
    qsort(t, n, sizeof *t, by_name_total);
    fprintf(out, "\nComputing statistics for %s (%d tensors)\n", name, (int)n);
    fprintf(out, "\n%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", " Layer", "       Tensor",
            "          \xce\xa3(Act\xc2\xb2)", "  Min", "            Max", "           \xce\xbc", "   \xcf\x83",
            " % Active", "N", "   Entropy", "E (norm)", "ZD", "  CosSim");
    fprintf(out, "=============================================================================================================="
                 "===========================================================\n");
    /* per block: sums weighted by N, in block order (std::map) */
    int minb = 0, maxb = -1;
    for (size_t i = 0; i < n; i++) {
        if (t[i].blk < minb) minb = t[i].blk;
        if (t[i].blk > maxb) maxb = t[i].blk;
    }
    size_t nb = (size_t)(maxb - minb + 1);
    float *bias = cal_xcalloc(nb + 1, sizeof *bias), *zd = cal_xcalloc(nb + 1, sizeof *zd),
          *cs = cal_xcalloc(nb + 1, sizeof *cs);
    int *el = cal_xcalloc(nb + 1, sizeof *el);
    for (size_t i = 0; i < n; i++) {
        const tstat *s = &t[i];
        float en = s->elements > 0 ? 100.0f * (s->entropy / log2f((float)s->elements)) : 0.0f;
        fprintf(out, "%5s\t%-20s\t%10.2f\t%8.4f\t%11.4f\t%6.2f\t%6.2f\t%8.2f%%\t%6d\t%10.4f\t%6.2f%%\t%10.2f%%\t%8.4f\n",
                s->layer, s->name, (double)s->total, (double)s->min, (double)s->max, (double)s->mean, (double)s->dev,
                (double)(s->active * 100.0f), s->elements, (double)s->entropy, (double)en, (double)(100.0f * s->zd),
                (double)s->cossim);
        size_t b = (size_t)(s->blk - minb);
        bias[b] += (float)s->elements * s->total, zd[b] += (float)s->elements * s->zd;
        cs[b] += (float)s->elements * s->cossim, el[b] += s->elements;
    }
    int layers = 0;
    for (size_t b = 0; b < nb; b++) layers += el[b] && (int)b + minb >= 0;
    fprintf(out, "\nComputing weighted average statistics per layer (%d layers)\n", layers);
    fprintf(out, "\n%s\t%s\t%s\t%s\n", "  Layer", "     \xce\xbc\xce\xa3(Act\xc2\xb2)", "      \xce\xbcZD",
            "\xce\xbc" "CosSim");
    fprintf(out, "================================================\n");
    for (size_t b = 0; b < nb; b++)
        if (el[b] && (int)b + minb >= 0)
            fprintf(out, "%5d\t%14.2f\t%10.4f%%\t%6.4f\n", (int)b + minb, (double)(bias[b] / (float)el[b]),
                    (double)(100.0f * zd[b] / (float)el[b]), (double)(cs[b] / (float)el[b]));
    fprintf(out, "\n");
    free(bias), free(zd), free(cs), free(el), free(t);
    return n;
}
