/* imatrix.c - llama.cpp's importance matrix: add, merge, write (imatrix.h). */
#include "stats/imatrix.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/num.h"

static cal_imatrix_entry *find(cal_imatrix *m, const char *name) {
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp(m->e[i].name, name)) return &m->e[i];
    return NULL;
}

static cal_imatrix_entry *create(cal_imatrix *m, const char *name, size_t d, size_t nmat, int with_sum) {
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 16;
        m->e = cal_xrealloc(m->e, m->cap * sizeof *m->e);
    }
    cal_imatrix_entry *e = &m->e[m->n++];
    e->name = cal_xstrdup(name);
    e->d = d;
    e->nmat = nmat;
    e->in_sum2 = cal_xcalloc(d * nmat, sizeof(double));
    e->in_sum = with_sum ? cal_xcalloc(d * nmat, sizeof(double)) : NULL;
    e->counts = cal_xcalloc(nmat, sizeof(uint64_t));
    return e;
}

/* An entry with one count over rows of nmat matrices (an older file's
 * experts) takes the expert split, its count copied to each. */
static void split(cal_imatrix_entry *e, size_t d, size_t nmat) {
    uint64_t c = e->counts[0];
    free(e->counts);
    e->counts = cal_xcalloc(nmat, sizeof(uint64_t));
    for (size_t k = 0; k < nmat; k++) e->counts[k] = c;
    e->d = d;
    e->nmat = nmat;
}

int cal_imatrix_add(cal_imatrix *m, const char *name, size_t d, size_t nmat, const double *in_sum2,
                    const double *in_sum, const uint64_t *counts, char *err, size_t errlen) {
    cal_imatrix_entry *e = find(m, name);
    if (!e) {
        e = create(m, name, d, nmat, in_sum != NULL);
    } else if (e->d * e->nmat != d * nmat || (e->nmat != nmat && e->nmat != 1 && nmat != 1)) {
        snprintf(err, errlen, "'%s' has %zu x %zu values here and %zu x %zu before", name, nmat, d, e->nmat, e->d);
        return 0;
    } else if (e->nmat == 1 && nmat > 1) {
        split(e, d, nmat);
    }
    size_t nv = d * nmat;
    for (size_t i = 0; i < nv; i++) e->in_sum2[i] += in_sum2[i];
    if (e->in_sum && in_sum) {
        for (size_t i = 0; i < nv; i++) e->in_sum[i] += in_sum[i];
    } else {
        free(e->in_sum);
        e->in_sum = NULL;
    }
    for (size_t k = 0; k < e->nmat; k++) e->counts[k] += counts[nmat == e->nmat ? k : 0];
    return 1;
}

void cal_imatrix_add_dataset(cal_imatrix *m, const char *name) {
    m->datasets = cal_xrealloc(m->datasets, (m->ndatasets + 1) * sizeof *m->datasets);
    m->datasets[m->ndatasets++] = cal_xstrdup(name);
}

size_t cal_imatrix_add_sources(cal_imatrix *m, const cal_meta *meta) {
    size_t before = m->ndatasets;
    /* input=<16 hex> <bytes> <name>: the name, once */
    for (size_t i = 0; meta && i < meta->n; i++) {
        const char *v = meta->val[i], *sp1, *sp2;
        if (strcmp(meta->key[i], "input") || !(sp1 = strchr(v, ' ')) || !(sp2 = strchr(sp1 + 1, ' '))) continue;
        int seen = 0;
        for (size_t k = before; k < m->ndatasets && !seen; k++) seen = !strcmp(m->datasets[k], sp2 + 1);
        if (!seen) cal_imatrix_add_dataset(m, sp2 + 1);
    }
    /* else the stage lines that read the text, as run */
    for (size_t i = 0; meta && m->ndatasets == before && i < meta->n; i++)
        if (!strcmp(meta->key[i], "stage") && !strncmp(meta->val[i], "cal-read ", 9))
            cal_imatrix_add_dataset(m, meta->val[i]);
    return m->ndatasets - before;
}

/* ---- reading a GGUF imatrix --------------------------------------------- */

/* "FILE: byte OFF: what" into err; 0. */
#define BAD(f, err, errlen, off, ...) cal_err_at((err), (errlen), cal_gguf_name(f), (off), __VA_ARGS__)

static float f32_at(const cal_gguf_tensor *t, size_t i) {
    uint32_t u = cal_ld32(t->data + 4 * i);
    float v;
    memcpy(&v, &u, 4);
    return v;
}

static int is_key(const cal_gguf_kv *k, int type, int is_array) { return k->type == type && k->is_array == is_array; }

static int check_keys(const cal_gguf_file *f, char *err, size_t errlen) {
    const cal_gguf_kv *k = cal_gguf_find_kv(f, "general.type");
    if (k && (!is_key(k, CAL_GGUF_STRING, 0) || k->str[0].n != 7 || memcmp(k->str[0].p, "imatrix", 7)))
        return BAD(f, err, errlen, k->offset, "general.type is not \"imatrix\": not an importance matrix");
    if ((k = cal_gguf_find_kv(f, "imatrix.datasets")) && !is_key(k, CAL_GGUF_STRING, 1))
        return BAD(f, err, errlen, k->offset, "imatrix.datasets is not an array of strings");
    for (size_t i = 0; k && i < k->n; i++)
        if (memchr(k->str[i].p, 0, (size_t)k->str[i].n))
            return BAD(f, err, errlen, k->offset, "imatrix.datasets entry %zu holds a NUL byte", i);
    const char *u32[] = {"imatrix.chunk_count", "imatrix.chunk_size"};
    for (int i = 0; i < 2; i++)
        if ((k = cal_gguf_find_kv(f, u32[i])) && !is_key(k, CAL_GGUF_U32, 0))
            return BAD(f, err, errlen, k->offset, "%s is not a u32", u32[i]);
    return 1;
}

/* NAME + suffix as a tensor of f, or NULL. */
static const cal_gguf_tensor *partner(const cal_gguf_file *f, const char *base, size_t n, const char *suffix) {
    char name[CAL_GGUF_MAX_NAME + 16];
    snprintf(name, sizeof name, "%.*s%s", (int)n, base, suffix);
    return cal_gguf_find_tensor(f, name);
}

static size_t base_len(const char *name, const char *suffix) {
    size_t n = strlen(name), s = strlen(suffix);
    return n > s && !strcmp(name + n - s, suffix) ? n - s : 0;
}

/* Checks type, shape and values of one tensor of an entry: d values per
 * matrix (d = 1 for counts), nmat matrices. */
static int check_tensor(const cal_gguf_file *f, const cal_gguf_tensor *t, uint64_t d, uint64_t nmat, int what,
                        char *err, size_t errlen) {
    if (t->type != CAL_GGML_F32)
        return BAD(f, err, errlen, t->pos, "tensor '%s' is %s, not f32", t->name, cal_ggml_type_name(t->type));
    if ((uint64_t)t->ne[0] != d || t->nelements != d * nmat)
        return BAD(f, err, errlen, t->pos, "tensor '%s' has shape [%lld, %lld, %lld, %lld], want [%llu, %llu]",
                   t->name, (long long)t->ne[0], (long long)t->ne[1], (long long)t->ne[2], (long long)t->ne[3],
                   (unsigned long long)d, (unsigned long long)nmat);
    for (uint64_t i = 0; i < t->nelements; i++) {
        float v = f32_at(t, (size_t)i);
        const char *why = !isfinite(v) ? "is not finite"
                          : v < 0 && what != 1 ? "is negative"
                          : what == 2 && v != floorf(v) ? "is not a whole number"
                          : what == 2 && v > 0x1p53f ? "is over 2^53" : NULL;
        if (why)
            return BAD(f, err, errlen, t->pos + 4 * i, "tensor '%s' value %llu (%g) %s", t->name,
                       (unsigned long long)i, (double)v, why);
    }
    return 1;
}

static int add_entry(cal_imatrix *m, const cal_gguf_file *f, const cal_gguf_tensor *s2, size_t n, char *err,
                     size_t errlen) {
    const cal_gguf_tensor *cn = partner(f, s2->name, n, ".counts"), *s1 = partner(f, s2->name, n, ".in_sum");
    if (!cn) return BAD(f, err, errlen, s2->pos, "tensor '%s' has no partner '%.*s.counts'", s2->name, (int)n, s2->name);
    uint64_t nmat = cn->nelements, d = nmat ? s2->nelements / nmat : 0;
    if (!nmat || !d || d * nmat != s2->nelements)
        return BAD(f, err, errlen, cn->pos, "'%s' has %llu values for %llu counts", s2->name,
                   (unsigned long long)s2->nelements, (unsigned long long)nmat);
    if (!check_tensor(f, s2, d, nmat, 0, err, errlen) || !check_tensor(f, cn, 1, nmat, 2, err, errlen) ||
        (s1 && !check_tensor(f, s1, d, nmat, 1, err, errlen)))
        return 0;
    size_t nv = (size_t)(d * nmat);
    double *v2 = cal_xmalloc(nv * sizeof *v2), *v1 = s1 ? cal_xmalloc(nv * sizeof *v1) : NULL;
    uint64_t *c = cal_xmalloc((size_t)nmat * sizeof *c);
    for (size_t i = 0; i < nv; i++) v2[i] = f32_at(s2, i);
    for (size_t i = 0; v1 && i < nv; i++) v1[i] = f32_at(s1, i);
    for (size_t k = 0; k < nmat; k++) c[k] = (uint64_t)f32_at(cn, k);
    char name[CAL_GGUF_MAX_NAME], why[300];
    snprintf(name, sizeof name, "%.*s", (int)n, s2->name);
    int ok = cal_imatrix_add(m, name, (size_t)d, (size_t)nmat, v2, v1, c, why, sizeof why);
    if (!ok) BAD(f, err, errlen, s2->pos, "%s", why);
    free(v2);
    free(v1);
    free(c);
    return ok;
}

int cal_imatrix_add_gguf(cal_imatrix *m, const cal_gguf_file *f, char *err, size_t errlen) {
    if (!check_keys(f, err, errlen)) return 0;
    size_t entries = 0;
    for (size_t i = 0; i < cal_gguf_ntensors(f); i++) {
        const cal_gguf_tensor *t = cal_gguf_tensor_at(f, i);
        size_t n;
        if ((n = base_len(t->name, ".in_sum2"))) {
            if (!add_entry(m, f, t, n, err, errlen)) return 0;
            entries++;
        } else if (((n = base_len(t->name, ".counts")) || (n = base_len(t->name, ".in_sum"))) &&
                   !partner(f, t->name, n, ".in_sum2")) {
            return BAD(f, err, errlen, t->pos, "tensor '%s' has no partner '%.*s.in_sum2'", t->name, (int)n, t->name);
        }
    }
    if (!entries) return BAD(f, err, errlen, 0, "no imatrix tensors (NAME.in_sum2 and NAME.counts)");
    const cal_gguf_kv *k = cal_gguf_find_kv(f, "imatrix.datasets");
    for (size_t i = 0; k && i < k->n; i++) {
        char *s = cal_xmalloc((size_t)k->str[i].n + 1);
        memcpy(s, k->str[i].p, (size_t)k->str[i].n);
        s[k->str[i].n] = 0;
        cal_imatrix_add_dataset(m, s);
        free(s);
    }
    if ((k = cal_gguf_find_kv(f, "imatrix.chunk_count"))) m->chunk_count += cal_ld32(k->val);
    return 1;
}

/* ---- writing ------------------------------------------------------------ */

static int by_name(const void *a, const void *b) {
    return strcmp((*(const cal_imatrix_entry *const *)a)->name, (*(const cal_imatrix_entry *const *)b)->name);
}

/* n values as little-endian f32 bytes. */
static uint8_t *f32s(const double *v, const uint64_t *u, size_t n) {
    uint8_t *b = cal_xmalloc(4 * n + 1);
    for (size_t i = 0; i < n; i++) {
        float x = v ? (float)v[i] : (float)u[i];
        uint32_t bits;
        memcpy(&bits, &x, 4);
        cal_st32(b + 4 * i, bits);
    }
    return b;
}

void cal_imatrix_serialize(const cal_imatrix *m, cal_buf *out) {
    const cal_imatrix_entry **e = cal_xcalloc(m->n + 1, sizeof *e);
    uint8_t **data = cal_xcalloc(3 * m->n + 1, sizeof *data);
    uint64_t most = 0;
    for (size_t i = 0; i < m->n; i++) {
        e[i] = &m->e[i];
        for (size_t k = 0; k < m->e[i].nmat; k++) most = m->e[i].counts[k] > most ? m->e[i].counts[k] : most;
    }
    qsort(e, m->n, sizeof *e, by_name);
    uint64_t cs = m->chunk_count ? most / m->chunk_count : 0;
    cal_gguf_writer *w = cal_gguf_writer_new();
    cal_gguf_add_str(w, "general.type", "imatrix");
    cal_gguf_add_str_array(w, "imatrix.datasets", (const char *const *)m->datasets, m->ndatasets);
    cal_gguf_add_u32(w, "imatrix.chunk_count", m->chunk_count > UINT32_MAX ? UINT32_MAX : (uint32_t)m->chunk_count);
    cal_gguf_add_u32(w, "imatrix.chunk_size", cs > UINT32_MAX ? UINT32_MAX : (uint32_t)cs);
    for (size_t i = 0; i < m->n; i++) {
        char name[CAL_GGUF_MAX_NAME + 16];
        size_t nv = e[i]->d * e[i]->nmat;
        int64_t ne[2] = {(int64_t)e[i]->d, (int64_t)e[i]->nmat}, ne1[2] = {1, (int64_t)e[i]->nmat};
        snprintf(name, sizeof name, "%s.in_sum2", e[i]->name);
        cal_gguf_add_tensor(w, name, CAL_GGML_F32, 2, ne, data[3 * i] = f32s(e[i]->in_sum2, NULL, nv));
        snprintf(name, sizeof name, "%s.counts", e[i]->name);
        cal_gguf_add_tensor(w, name, CAL_GGML_F32, 2, ne1, data[3 * i + 1] = f32s(NULL, e[i]->counts, e[i]->nmat));
        if (!e[i]->in_sum) continue;
        snprintf(name, sizeof name, "%s.in_sum", e[i]->name);
        cal_gguf_add_tensor(w, name, CAL_GGML_F32, 2, ne, data[3 * i + 2] = f32s(e[i]->in_sum, NULL, nv));
    }
    cal_gguf_serialize(w, out);
    cal_gguf_writer_free(w);
    for (size_t i = 0; i < 3 * m->n; i++) free(data[i]);
    free(data);
    free(e);
}

void cal_imatrix_free(cal_imatrix *m) {
    for (size_t i = 0; i < m->n; i++) {
        free(m->e[i].name);
        free(m->e[i].in_sum2);
        free(m->e[i].in_sum);
        free(m->e[i].counts);
    }
    for (size_t i = 0; i < m->ndatasets; i++) free(m->datasets[i]);
    free(m->e);
    free(m->datasets);
    memset(m, 0, sizeof *m);
}
