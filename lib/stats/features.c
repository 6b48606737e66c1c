/* features.c - see features.h. */
#include "stats/features.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/hash.h"
#include "base/num.h"
#include "base/rng.h"

#define MASK (CAL_FEAT_BUCKETS - 1)
#define KMAX 8

/* What one thread needs for one document; kept in a free list. */
typedef struct scratch {
    uint32_t *count;  /* per bucket (tfidf) or per token id (embed), zero between uses */
    uint32_t *touched;
    double *w;        /* tfidf: the weight of each bucket touched */
    size_t ntouched, cap;
    cal_buf lower;    /* TEXT lowered */
    cal_ids terms;
    double *sum, *row; /* embed: the sum of rows, one row (width each) */
    double *proj;     /* the projected vector (dim) */
    struct scratch *next;
} scratch;

struct cal_feat {
    size_t dim, k;
    uint64_t seed;
    const cal_embed *e;      /* NULL: tfidf */
    size_t width;            /* buckets, or the embedding's width */
    size_t ncount;           /* entries of a scratch count array */
    uint32_t *df, *stamp;    /* tfidf, pass 1 */
    uint8_t *used;           /* embed, pass 1: ids seen (one bit each) */
    cal_buf lower;           /* pass 1's scratch */
    cal_ids terms;
    uint64_t docs;
    double *idf;
    uint16_t *table;         /* width x k: coordinate | 0x8000 for -1 */
    pthread_mutex_t mu;
    scratch *free;
};

static cal_feat *feat_new(size_t dim, uint64_t seed) {
    if (dim < 1 || dim > CAL_FEAT_MAX_DIM) cal_die("feature width %zu is out of 1 .. %u", dim, CAL_FEAT_MAX_DIM);
    cal_feat *f = cal_xcalloc(1, sizeof *f);
    f->dim = dim;
    f->k = dim < KMAX ? dim : KMAX;
    f->seed = seed;
    pthread_mutex_init(&f->mu, NULL);
    return f;
}

cal_feat *cal_feat_tfidf(size_t dim, uint64_t seed) {
    cal_feat *f = feat_new(dim, seed);
    f->width = f->ncount = CAL_FEAT_BUCKETS;
    f->df = cal_xcalloc(CAL_FEAT_BUCKETS, sizeof *f->df);
    f->stamp = cal_xcalloc(CAL_FEAT_BUCKETS, sizeof *f->stamp);
    return f;
}

cal_feat *cal_feat_embed(const cal_embed *e, size_t dim, uint64_t seed) {
    cal_feat *f = feat_new(dim, seed);
    f->e = e;
    f->width = cal_embed_dim(e);
    f->ncount = cal_embed_vocab(e);
    f->used = cal_xcalloc(f->ncount / 8 + 1, 1);
    return f;
}

size_t cal_feat_dim(const cal_feat *f) { return f->dim; }
uint64_t cal_feat_docs(const cal_feat *f) { return f->docs; }

/* ---- terms ------------------------------------------------------------- */

static inline int word_byte(uint8_t c) {
    return c >= 0x80 || (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

/* The buckets of rec's terms, in order, into out; lower: scratch for the
 * lowered text. */
static void doc_buckets(const cal_rec *rec, cal_buf *lower, cal_ids *out) {
    out->n = 0;
    if (rec->kind == CAL_TOKENS) {
        size_t n = cal_tokens_len(rec);
        cal_ids_reserve(out, n);
        for (size_t i = 0; i < n; i++) out->v[i] = (uint32_t)cal_hash(rec->payload + 4 * i, 4) & MASK;
        out->n = n;
        return;
    }
    const uint8_t *p = rec->payload;
    size_t n = rec->payload_len;
    cal_buf_reserve(lower, n + 1);
    uint8_t *l = (uint8_t *)lower->p;
    for (size_t i = 0; i < n; i++) l[i] = p[i] >= 'A' && p[i] <= 'Z' ? (uint8_t)(p[i] | 0x20) : p[i];
    for (size_t i = 0; i < n;) {
        if (!word_byte(l[i])) {
            i++;
            continue;
        }
        size_t j = i;
        while (j < n && word_byte(l[j])) j++;
        cal_ids_push(out, (uint32_t)cal_hash(l + i, j - i) & MASK);
        i = j;
    }
}

long cal_feat_count(cal_feat *f, const cal_rec *rec, char *err, size_t errlen) {
    long terms = 0;
    if (f->e) {
        size_t n = cal_tokens_len(rec);
        for (size_t i = 0; i < n; i++) {
            uint32_t t = cal_ld32(rec->payload + 4 * i);
            if (t >= f->ncount)
                return cal_errf(err, errlen, "token id %u is outside the embedding table '%s' (%zu rows)", t,
                                cal_embed_tensor(f->e), f->ncount);
            f->used[t / 8] |= (uint8_t)(1u << (t % 8));
        }
        terms = (long)n;
    } else {
        uint32_t mark = (uint32_t)f->docs + 1; /* the stamp of this document */
        doc_buckets(rec, &f->lower, &f->terms);
        for (size_t i = 0; i < f->terms.n; i++) {
            uint32_t b = f->terms.v[i];
            if (f->stamp[b] != mark) f->stamp[b] = mark, f->df[b]++;
        }
        terms = (long)f->terms.n;
    }
    if (terms) f->docs++;
    if (!f->e && f->docs == UINT32_MAX) cal_die("more than %u documents", UINT32_MAX - 1);
    return terms;
}

/* ---- the projection ---------------------------------------------------- */

static void draw_coords(const cal_feat *f, uint64_t key, size_t b, uint16_t *out) {
    uint8_t le[8];
    cal_st64(le, (uint64_t)b);
    cal_rng r;
    cal_rng_init(&r, cal_hash_seed(le, 8, key));
    for (size_t i = 0; i < f->k; i++) {
        uint16_t o;
        for (;;) {
            o = (uint16_t)cal_rng_below(&r, f->dim);
            size_t j = 0;
            while (j < i && (out[j] & 0x7fff) != o) j++;
            if (j == i) break;
        }
        out[i] = (uint16_t)(o | (cal_rng_next(&r) >> 63 ? 0x8000 : 0));
    }
}

void cal_feat_finish(cal_feat *f) {
    free(f->stamp), f->stamp = NULL;
    cal_buf_free(&f->lower);
    cal_ids_free(&f->terms);
    int project = !(f->e && f->dim == f->width);
    if (project) {
        const char *purpose = "cal-select projection";
        uint64_t key = f->seed ^ cal_hash(purpose, strlen(purpose));
        f->table = cal_xmalloc(f->width * f->k * sizeof *f->table);
        for (size_t b = 0; b < f->width; b++)
            if (f->e || f->df[b]) draw_coords(f, key, b, f->table + b * f->k);
    }
    if (f->e) {
        double *row = cal_xmalloc(f->width * sizeof *row);
        for (size_t t = 0; t < f->ncount; t++)
            if (f->used[t / 8] >> (t % 8) & 1) cal_embed_row(f->e, (uint32_t)t, row); /* dies on NaN/Inf */
        free(row);
        return;
    }
    f->idf = cal_xmalloc(CAL_FEAT_BUCKETS * sizeof *f->idf);
    for (size_t b = 0; b < CAL_FEAT_BUCKETS; b++)
        f->idf[b] = log((1.0 + (double)f->docs) / (1.0 + (double)f->df[b])) + 1.0;
}

/* ---- pass 2 ------------------------------------------------------------ */

static scratch *scratch_get(cal_feat *f) {
    pthread_mutex_lock(&f->mu);
    scratch *s = f->free;
    if (s) f->free = s->next;
    pthread_mutex_unlock(&f->mu);
    if (s) return s;
    s = cal_xcalloc(1, sizeof *s);
    s->count = cal_xcalloc(f->ncount ? f->ncount : 1, sizeof *s->count);
    s->proj = cal_xcalloc(f->dim, sizeof *s->proj);
    if (f->e) {
        s->sum = cal_xcalloc(f->width, sizeof *s->sum);
        s->row = cal_xcalloc(f->width, sizeof *s->row);
    }
    return s;
}

static void scratch_put(cal_feat *f, scratch *s) {
    pthread_mutex_lock(&f->mu);
    s->next = f->free;
    f->free = s;
    pthread_mutex_unlock(&f->mu);
}

static void touch(scratch *s, uint32_t b) {
    if (s->count[b]++) return;
    if (s->ntouched == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 4096;
        s->touched = cal_xrealloc(s->touched, s->cap * sizeof *s->touched);
        s->w = cal_xrealloc(s->w, s->cap * sizeof *s->w);
    }
    s->touched[s->ntouched++] = b;
}

/* out = the projection of v (coordinates idx[0..n) with values val), l2-normalised. */
static int project(const cal_feat *f, scratch *s, size_t n, const uint32_t *idx, const double *val, float *out) {
    double *y = s->proj;
    memset(y, 0, f->dim * sizeof *y);
    for (size_t i = 0; i < n; i++) {
        const uint16_t *c = f->table + (size_t)(idx ? idx[i] : i) * f->k;
        double v = val[i];
        for (size_t j = 0; j < f->k; j++) y[c[j] & 0x7fff] += c[j] & 0x8000 ? -v : v;
    }
    double ss = 0;
    for (size_t j = 0; j < f->dim; j++) ss += y[j] * y[j];
    if (!(ss > 0)) return 0;
    double r = 1.0 / sqrt(ss);
    for (size_t j = 0; j < f->dim; j++) out[j] = (float)(y[j] * r);
    return 1;
}

static int row_tfidf(cal_feat *f, scratch *s, const cal_rec *rec, float *out) {
    doc_buckets(rec, &s->lower, &s->terms);
    for (size_t i = 0; i < s->terms.n; i++) touch(s, s->terms.v[i]);
    double ss = 0;
    for (size_t i = 0; i < s->ntouched; i++) {
        uint32_t b = s->touched[i];
        double w = (1.0 + log((double)s->count[b])) * f->idf[b];
        s->w[i] = w;
        ss += w * w;
        s->count[b] = 0;
    }
    if (!(ss > 0)) return 0;
    double r = 1.0 / sqrt(ss);
    for (size_t i = 0; i < s->ntouched; i++) s->w[i] *= r;
    return project(f, s, s->ntouched, s->touched, s->w, out);
}

static int row_embed(cal_feat *f, scratch *s, const cal_rec *rec, float *out) {
    size_t n = cal_tokens_len(rec), d = f->width;
    for (size_t i = 0; i < n; i++) touch(s, cal_ld32(rec->payload + 4 * i));
    double *sum = s->sum, *row = s->row;
    memset(sum, 0, d * sizeof *sum);
    for (size_t i = 0; i < s->ntouched; i++) {
        uint32_t t = s->touched[i];
        cal_embed_row(f->e, t, row); /* checked by cal_feat_finish: cannot fail */
        double c = (double)s->count[t];
        for (size_t j = 0; j < d; j++) sum[j] += c * row[j];
        s->count[t] = 0;
    }
    double ss = 0;
    for (size_t j = 0; j < d; j++) ss += sum[j] * sum[j];
    if (!(ss > 0)) return 0;
    double r = 1.0 / sqrt(ss);
    for (size_t j = 0; j < d; j++) sum[j] *= r;
    if (!f->table) {
        for (size_t j = 0; j < d; j++) out[j] = (float)sum[j];
        return 1;
    }
    return project(f, s, d, NULL, sum, out);
}

int cal_feat_row(cal_feat *f, const cal_rec *rec, float *out) {
    scratch *s = scratch_get(f);
    s->ntouched = 0;
    int ok = f->e ? row_embed(f, s, rec, out) : row_tfidf(f, s, rec, out);
    scratch_put(f, s);
    if (!ok) memset(out, 0, f->dim * sizeof *out);
    return ok;
}

void cal_feat_free(cal_feat *f) {
    if (!f) return;
    for (scratch *s = f->free, *next; s; s = next) {
        next = s->next;
        free(s->count), free(s->touched), free(s->w), free(s->sum), free(s->row), free(s->proj);
        cal_buf_free(&s->lower);
        cal_ids_free(&s->terms);
        free(s);
    }
    pthread_mutex_destroy(&f->mu);
    free(f->df), free(f->stamp), free(f->used), free(f->idf), free(f->table);
    cal_buf_free(&f->lower);
    cal_ids_free(&f->terms);
    free(f);
}
