/* result.c - cal-hessian's result file: write, read and add (result.h). */
#include "stats/result.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/num.h"
#include "base/oshint.h"
#include "stats/names.h"

cal_result_entry *cal_result_find(cal_result *r, const char *label) {
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->e[i].label, label)) return &r->e[i];
    return NULL;
}

cal_result_entry *cal_result_add(cal_result *r, const char *label, cal_hess_stats *s, const cal_result_counts *c) {
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 8;
        r->e = cal_xrealloc(r->e, r->cap * sizeof *r->e);
    }
    cal_result_entry *e = &r->e[r->n++];
    e->label = cal_xstrdup(label);
    e->s = s;
    e->c = *c;
    return e;
}

void cal_result_free(cal_result *r) {
    for (size_t i = 0; i < r->n; i++) {
        free(r->e[i].label);
        cal_hess_stats_free(r->e[i].s);
    }
    free(r->e);
    free(r->percentiles);
    cal_meta_free(&r->meta);
    memset(r, 0, sizeof *r);
}

/* "LABEL.NAME", or NAME for the unlabelled entry (static buffer). */
static const char *named(const char *label, const char *name) {
    static cal_buf b;
    b.n = 0;
    if (*label) cal_buf_addf(&b, "%s.", label);
    cal_buf_addf(&b, "%s", name);
    return b.p;
}

/* ---- writing ------------------------------------------------------------ */

static double scale_factor(const char *scale, const cal_result_entry *e) {
    /* An empty result keeps factor 1 so that a merge can always undo it. */
    if (!strcmp(scale, "mean") && e->s->count > 0) return 1.0 / e->s->count;
    if (!strcmp(scale, "gptq") && e->c.rows) return 2.0 / (double)e->c.rows;
    return 1;
}

/* Metadata pairs; repeated keys (stage) are joined with newlines, as the
 * safetensors header holds one value per key. */
static void add_meta(cal_st_writer *w, const cal_meta *m) {
    for (size_t i = 0; i < m->n; i++) {
        int seen = 0;
        for (size_t k = 0; k < i && !seen; k++) seen = !strcmp(m->key[k], m->key[i]);
        if (seen) continue;
        cal_buf b = {0};
        for (size_t k = i; k < m->n; k++)
            if (!strcmp(m->key[k], m->key[i])) {
                if (b.n) cal_buf_addc(&b, '\n');
                cal_buf_add(&b, m->val[k], strlen(m->val[k]));
            }
        cal_buf_addc(&b, 0);
        cal_st_add_meta(w, m->key[i], b.p);
        cal_buf_free(&b);
    }
}

static const char *const vec_names[] = {"sum", "sumsq", "abssum", "absmean", "absmax"};
static const char *const count_names[] = {"tokens", "rows", "padding", "noise_rows", "skipped"};
/* percentile tensors: which end of x or |x|, per channel then per tensor */
static const char *const pct_names[] = {"pct_x_lo", "pct_x_hi", "pct_absx"};

size_t cal_result_parse_percentiles(const char *list, double *pct) {
    size_t n = 0;
    for (const char *p = list;; p++) {
        char *end;
        if (n == CAL_RESULT_MAX_PCT) return 0;
        pct[n] = strtod(p, &end);
        if (end == p || !(pct[n] >= 0 && pct[n] <= 100) || (*end && *end != ',')) return 0;
        n++;
        if (!*end) return n;
        p = end;
    }
}

/* The list as written in hessian.percentiles: shortest round-trip forms. */
static void percentile_list(const cal_result_form *form, cal_buf *b) {
    char num[40];
    for (size_t k = 0; k < form->npct; k++)
        cal_buf_addf(b, "%s%s", k ? "," : "", cal_fmt_double(form->pct[k], num, sizeof num));
}

/* Percentile form->pct[k] of an end of x or |x| (pct_names[which]). */
static double pct_value(const cal_sketch *sk, size_t j, const cal_result_form *form, size_t k, int which) {
    double p = form->pct[k];
    return cal_sketch_percentile(sk, j, which == 0 ? 100 - p : p, which == 2);
}

/* The header: every tensor (data written later, in this order). */
static void declare(cal_st_writer *w, const cal_result *r, const cal_result_form *form) {
    add_meta(w, &r->meta);
    char num[64];
    cal_st_add_meta(w, "hessian.scale", form->scale);
    for (size_t i = 0; i < r->n; i++) {
        const cal_result_entry *e = &r->e[i];
        cal_st_add_meta(w, named(e->label, "hessian.scale_factor"),
                        cal_fmt_double(scale_factor(form->scale, e), num, sizeof num));
        snprintf(num, sizeof num, "%zu", e->s->d);
        cal_st_add_meta(w, named(e->label, "hessian.d"), num);
    }
    if (form->gptq_inverse) cal_st_add_meta(w, "hessian.damp", cal_fmt_double(form->damp, num, sizeof num));
    for (size_t i = 0; i < r->n; i++)
        if (r->e[i].s->sk) {
            cal_buf b = {0};
            percentile_list(form, &b);
            cal_st_add_meta(w, "hessian.percentiles", b.p);
            cal_st_add_meta(w, "hessian.sketch", CAL_SKETCH_FORMAT);
            cal_buf_free(&b);
            break;
        }
    for (size_t i = 0; i < r->n; i++) {
        const cal_result_entry *e = &r->e[i];
        uint64_t dd[2] = {e->s->d, e->s->d}, d1[1] = {e->s->d}, one[1] = {1};
        const char *hd = form->f64 ? "F64" : "F32";
        cal_st_add(w, named(e->label, "hessian"), hd, 2, dd, NULL);
        if (form->gptq_inverse) cal_st_add(w, named(e->label, "hessian_inv_chol"), hd, 2, dd, NULL);
        for (int k = 0; k < 5; k++) cal_st_add(w, named(e->label, vec_names[k]), "F64", 1, d1, NULL);
        for (int k = 0; k < 5; k++) cal_st_add(w, named(e->label, count_names[k]), "I64", 1, one, NULL);
        if (!e->s->sk) continue;
        uint64_t ds[2] = {e->s->d, CAL_SKETCH_STRIDE}, pd[2] = {form->npct, e->s->d}, p1[1] = {form->npct};
        cal_st_add(w, named(e->label, "min"), "F64", 1, d1, NULL);
        cal_st_add(w, named(e->label, "max"), "F64", 1, d1, NULL);
        cal_st_add(w, named(e->label, "sketch"), "I64", 2, ds, NULL);
        for (int k = 0; k < 3; k++) cal_st_add(w, named(e->label, pct_names[k]), "F64", 2, pd, NULL);
        for (int k = 0; k < 3; k++) {
            char n[32];
            snprintf(n, sizeof n, "%s_tensor", pct_names[k]);
            cal_st_add(w, named(e->label, n), "F64", 1, p1, NULL);
        }
    }
}

/* min, max (0 for an empty entry), the sketch, and the percentiles. */
static void put_sketch(cal_file *f, const cal_sketch *sk, const cal_result_form *form) {
    size_t d = sk->d;
    double *v = cal_xmalloc((d > form->npct ? d : form->npct) * sizeof *v);
    for (int which = 0; which < 2; which++) {
        const double *m = which ? sk->max : sk->min;
        for (size_t j = 0; j < d; j++) v[j] = sk->min[j] <= sk->max[j] ? m[j] : 0;
        cal_file_write(f, v, d * sizeof *v);
    }
    cal_file_write(f, sk->c, d * CAL_SKETCH_STRIDE * sizeof *sk->c);
    for (int which = 0; which < 3; which++)
        for (size_t k = 0; k < form->npct; k++) {
            for (size_t j = 0; j < d; j++) v[j] = pct_value(sk, j, form, k, which);
            cal_file_write(f, v, d * sizeof *v);
        }
    cal_sketch *t = cal_sketch_total(sk);
    for (int which = 0; which < 3; which++) {
        for (size_t k = 0; k < form->npct; k++) v[k] = pct_value(t, 0, form, k, which);
        cal_file_write(f, v, form->npct * sizeof *v);
    }
    cal_sketch_free(t);
    free(v);
}

/* A d x d matrix in the hessian's dtype, a row at a time. */
static void put_matrix(cal_file *f, const double *A, size_t d, int f64) {
    if (f64) {
        cal_file_write(f, A, d * d * sizeof *A);
        return;
    }
    /* Converted a chunk of rows at a time into one huge page and written
     * from there (cal_file_write passes chunks this large straight to the
     * file): 4 KiB pages fresh to the 1 MiB file buffer cost ~14 us each on
     * a VM, 5 ms of cal-hessian's tail at d = 2048. */
    const size_t chunk = (size_t)2 << 20;
    size_t per = chunk / (d * sizeof(float));
    per = per < 1 ? 1 : per > d ? d : per;
    size_t n = per * d * sizeof(float);
    float *buf = cal_huge_zalloc(n);
    for (size_t i = 0; i < d; i += per) {
        size_t rows = d - i < per ? d - i : per;
        for (size_t k = 0; k < rows * d; k++) buf[k] = (float)A[i * d + k];
        cal_file_write(f, buf, rows * d * sizeof *buf);
    }
    cal_huge_free(buf, n);
}

static void put_entry(cal_file *f, cal_result_entry *e, const cal_result_form *form) {
    cal_hess_stats *s = e->s;
    size_t d = s->d;
    double fac = scale_factor(form->scale, e);
    if (fac != 1)
        for (size_t i = 0; i < d * d; i++) s->H[i] *= fac;
    put_matrix(f, s->H, d, form->f64);
    if (form->gptq_inverse) {
        double *inv = cal_xmalloc(d * d * sizeof(double));
        size_t dead = 0;
        int info = cal_gptq_inverse(s->H, d, form->damp, inv, &dead);
        if (info)
            cal_die("%s%sthe damped hessian is not positive definite (LAPACK info %d); raise --damp", e->label,
                    *e->label ? ": " : "", info);
        put_matrix(f, inv, d, form->f64);
        free(inv);
    }
    double *absmean = cal_xmalloc(d * sizeof(double));
    for (size_t j = 0; j < d; j++) absmean[j] = s->count > 0 ? s->abssum[j] / s->count : 0;
    const double *vec[] = {s->sum, s->sumsq, s->abssum, absmean, s->absmax};
    for (int k = 0; k < 5; k++) cal_file_write(f, vec[k], d * sizeof(double));
    int64_t n[] = {(int64_t)s->count, (int64_t)e->c.rows, (int64_t)e->c.padding, (int64_t)e->c.noise_rows,
                   (int64_t)e->c.skipped};
    cal_file_write(f, n, sizeof n);
    free(absmean);
    if (s->sk) put_sketch(f, s->sk, form);
}

void cal_result_write(cal_result *r, const cal_result_form *form, cal_file *f) {
    cal_st_writer *w = cal_st_writer_new();
    declare(w, r, form);
    cal_st_write_header(w, f);
    cal_st_writer_free(w);
    for (size_t i = 0; i < r->n; i++) put_entry(f, &r->e[i], form);
}

/* ---- reading and adding ------------------------------------------------- */

static const cal_st_tensor *need(const cal_st_file *f, const char *name, const char *dtype, uint64_t numel) {
    const cal_st_tensor *t = cal_st_find(f, name);
    if (!t) cal_die("%s: no tensor '%s'%s (not a cal-hessian result?)", cal_st_name(f), name, cal_st_hint(f, name));
    if (dtype && strcmp(t->dtype, dtype))
        cal_die("%s: tensor '%s' has dtype %s, want %s", cal_st_name(f), name, t->dtype, dtype);
    if (t->numel != numel)
        cal_die("%s: tensor '%s' has %llu values, want %llu", cal_st_name(f), name, (unsigned long long)t->numel,
                (unsigned long long)numel);
    return t;
}

/* Value i of a float tensor (F64 or F32), checked: finite, and >= 0 when
 * the tensor holds sums of squares, absolute values or maxima. */
static double value(const cal_st_file *f, const cal_st_tensor *t, size_t i, int nonneg) {
    double v;
    if (!strcmp(t->dtype, "F64")) {
        uint64_t u = cal_ld64(t->data + 8 * i);
        memcpy(&v, &u, 8);
    } else {
        uint32_t u = cal_ld32(t->data + 4 * i);
        float x;
        memcpy(&x, &u, 4);
        v = x;
    }
    if (!isfinite(v) || (nonneg && v < 0))
        cal_die_at(cal_st_name(f), t->offset + cal_st_dtype_size(t->dtype) * i, "tensor '%s' value %zu is %s (%g)",
                   t->name, i, isfinite(v) ? "negative" : "not finite", v);
    return v;
}

static uint64_t count(const cal_st_file *f, const char *label, const char *name) {
    const cal_st_tensor *t = need(f, named(label, name), "I64", 1);
    int64_t v = (int64_t)cal_ld64(t->data);
    if (v < 0) cal_die_at(cal_st_name(f), t->offset, "tensor '%s' is negative (%lld)", t->name, (long long)v);
    return (uint64_t)v;
}

/* The entry's sketch in f, checked against its tokens and absmax, into
 * e (fresh: e was made for this file). */
static void add_sketch(cal_result *r, cal_result_entry *e, int fresh, const cal_st_file *f, const char *label,
                       uint64_t tokens, const cal_st_tensor *absmax) {
    const char *name = cal_st_name(f);
    size_t d = e->s->d;
    const cal_st_tensor *t = cal_st_find(f, named(label, "sketch"));
    if (!fresh && !t != !e->s->sk)
        cal_die("%s: '%s' %s percentile sketches and earlier inputs %s (use --percentiles on every shard)", name,
                *label ? label : "hessian", t ? "has" : "has no", t ? "do not" : "do");
    if (!t) return;
    const char *fm = cal_st_meta_get(f, "hessian.sketch"), *pl = cal_st_meta_get(f, "hessian.percentiles");
    if (!fm || strcmp(fm, CAL_SKETCH_FORMAT))
        cal_die("%s: sketch layout '%s' is not %s", name, fm ? fm : "", CAL_SKETCH_FORMAT);
    double pct[CAL_RESULT_MAX_PCT];
    if (!pl || !cal_result_parse_percentiles(pl, pct))
        cal_die("%s: hessian.percentiles '%s' is not a list of percentiles", name, pl ? pl : "");
    if (!r->percentiles) r->percentiles = cal_xstrdup(pl);
    else if (strcmp(r->percentiles, pl)) r->percentiles_differ = 1;
    t = need(f, named(label, "sketch"), "I64", (uint64_t)d * CAL_SKETCH_STRIDE);
    const cal_st_tensor *mn = need(f, named(label, "min"), "F64", d), *mx = need(f, named(label, "max"), "F64", d);
    cal_sketch *sk = cal_sketch_new(d);
    char err[200];
    for (size_t j = 0; j < d; j++) {
        uint64_t *ch = sk->c + j * CAL_SKETCH_STRIDE, off = t->offset + 8 * (uint64_t)j * CAL_SKETCH_STRIDE;
        for (size_t i = 0; i < CAL_SKETCH_STRIDE; i++)
            if ((int64_t)(ch[i] = cal_ld64(t->data + off - t->offset + 8 * i)) < 0)
                cal_die_at(name, off + 8 * i, "tensor '%s' channel %zu holds a negative count", t->name, j);
        double lo = value(f, mn, j, 0), hi = value(f, mx, j, 0), am = value(f, absmax, j, 1);
        if (tokens ? !(lo <= hi) || fmax(fabs(lo), fabs(hi)) != am : lo != 0 || hi != 0)
            cal_die_at(name, mn->offset + 8 * j, "channel %zu: min %g and max %g disagree with absmax %g", j, lo, hi,
                       am);
        if (tokens) sk->min[j] = lo, sk->max[j] = hi;
        if (!cal_sketch_check(ch, tokens, am, err, sizeof err))
            cal_die_at(name, off, "tensor '%s' channel %zu: %s", t->name, j, err);
    }
    if (fresh) e->s->sk = cal_sketch_new(d);
    cal_sketch_merge(e->s->sk, sk);
    cal_sketch_free(sk);
}

static void add_entry(cal_result *r, const cal_st_file *f, const char *label, const cal_st_tensor *H) {
    const char *name = cal_st_name(f);
    if (H->ndim != 2 || H->shape[0] != H->shape[1] || !H->shape[0] || H->shape[0] > (1u << 20))
        cal_die("%s: tensor '%s' is not a square matrix", name, H->name);
    if (strcmp(H->dtype, "F64") && strcmp(H->dtype, "F32"))
        cal_die("%s: tensor '%s' has dtype %s, want F32 or F64", name, H->name, H->dtype);
    size_t d = H->shape[0];
    cal_result_entry *e = cal_result_find(r, label);
    int fresh = !e;
    if (!e) {
        cal_result_counts zero = {0};
        e = cal_result_add(r, label, cal_hess_stats_new(d), &zero);
    } else if (e->s->d != d) {
        cal_die("%s: %s is %zu x %zu, earlier inputs are %zu x %zu", name, H->name, d, d, e->s->d, e->s->d);
    }
    const char *fs = cal_st_meta_get(f, named(label, "hessian.scale_factor"));
    double fac = fs ? strtod(fs, NULL) : 1;
    if (!(fac > 0) || !isfinite(fac))
        cal_die("%s: %s '%s' cannot be undone", name, named(label, "hessian.scale_factor"), fs ? fs : "");
    cal_hess_stats *s = e->s;
    for (size_t i = 0; i < d * d; i++) {
        double v = value(f, H, i, 0);
        s->H[i] += fac == 1 ? v : v / fac;
    }
    const cal_st_tensor *t[4];
    const char *vn[] = {"sum", "sumsq", "abssum", "absmax"};
    for (int k = 0; k < 4; k++) t[k] = need(f, named(label, vn[k]), "F64", d);
    for (size_t j = 0; j < d; j++) {
        s->sum[j] += value(f, t[0], j, 0);
        s->sumsq[j] += value(f, t[1], j, 1);
        s->abssum[j] += value(f, t[2], j, 1);
        double m = value(f, t[3], j, 1);
        if (m > s->absmax[j]) s->absmax[j] = m;
    }
    uint64_t tokens = count(f, label, "tokens");
    add_sketch(r, e, fresh, f, label, tokens, t[3]);
    s->count += (double)tokens;
    e->c.rows += count(f, label, "rows");
    e->c.padding += count(f, label, "padding");
    e->c.noise_rows += count(f, label, "noise_rows");
    e->c.skipped += count(f, label, "skipped");
}

/* Keys the result writer makes: hessian.* and LABEL.hessian.* */
static int result_key(const char *k) { return !strncmp(k, "hessian.", 8) || strstr(k, ".hessian."); }

void cal_result_add_file(cal_result *r, const cal_st_file *f) {
    if (!r->n)
        for (size_t i = 0; i < cal_st_meta_count(f); i++)
            if (!result_key(cal_st_meta_key(f, i))) cal_meta_add(&r->meta, cal_st_meta_key(f, i), cal_st_meta_val(f, i));
    size_t found = 0;
    for (size_t i = 0; i < cal_st_count(f); i++) {
        const cal_st_tensor *t = cal_st_tensor_at(f, i);
        size_t n = strlen(t->name);
        if (!strcmp(t->name, "hessian")) {
            add_entry(r, f, "", t);
        } else if (n > 8 && !strcmp(t->name + n - 8, ".hessian")) {
            char *label = cal_xstrdup(t->name);
            label[n - 8] = 0;
            add_entry(r, f, label, t);
            free(label);
        } else {
            continue;
        }
        found++;
    }
    if (!found)
        cal_die("%s: no tensor 'hessian'%s (not a cal-hessian result?)", cal_st_name(f), cal_st_hint(f, "hessian"));
}

typedef struct {
    char name[CAL_GGUF_MAX_NAME + 8];
    long expert;
    const cal_result_entry *e;
} target;

static int add_one(cal_imatrix *m, const char *name, const cal_result_entry *e, char *err, size_t errlen) {
    uint64_t count = (uint64_t)e->s->count;
    return cal_imatrix_add(m, name, e->s->d, 1, e->s->sumsq, e->s->sum, &count, err, errlen);
}

/* The experts t[i..] of t[i].name as the rows of one weight. */
static int add_experts(cal_imatrix *m, target *t, size_t i, size_t n, char *err, size_t errlen) {
    size_t d = t[i].e->s->d, nmat = 0;
    for (size_t j = i; j < n; j++)
        if (t[j].expert >= 0 && !strcmp(t[j].name, t[i].name)) {
            if (t[j].e->s->d != d) {
                snprintf(err, errlen, "experts of '%s' have d = %zu and %zu", t[i].name, d, t[j].e->s->d);
                return 0;
            }
            nmat = (size_t)t[j].expert + 1 > nmat ? (size_t)t[j].expert + 1 : nmat;
        }
    double *s2 = cal_xcalloc(nmat * d, sizeof *s2), *s1 = cal_xcalloc(nmat * d, sizeof *s1);
    uint64_t *c = cal_xcalloc(nmat, sizeof *c);
    unsigned char *seen = cal_xcalloc(nmat, 1);
    int ok = 1;
    for (size_t j = i; j < n && ok; j++) {
        if (t[j].expert < 0 || strcmp(t[j].name, t[i].name)) continue;
        size_t k = (size_t)t[j].expert;
        if (seen[k]++) {
            snprintf(err, errlen, "two labels are expert %zu of '%s'", k, t[i].name);
            ok = 0;
        }
        memcpy(s2 + k * d, t[j].e->s->sumsq, d * sizeof *s2);
        memcpy(s1 + k * d, t[j].e->s->sum, d * sizeof *s1);
        c[k] = (uint64_t)t[j].e->s->count;
        t[j].expert = -2; /* done */
    }
    ok = ok && cal_imatrix_add(m, t[i].name, d, nmat, s2, s1, c, err, errlen);
    free(s2);
    free(s1);
    free(c);
    free(seen);
    return ok;
}

int cal_result_to_imatrix(const cal_result *r, const char *name, int gguf_names, cal_imatrix *m, char *err,
                          size_t errlen) {
    target *t = cal_xcalloc(r->n + 1, sizeof *t);
    uint64_t rows = 0;
    int ok = 1;
    for (size_t i = 0; i < r->n && ok; i++) {
        const cal_result_entry *e = &r->e[i];
        const char *n = *e->label ? e->label : name;
        t[i].e = e;
        t[i].expert = -1;
        rows = e->c.rows > rows ? e->c.rows : rows;
        if (!n) {
            snprintf(err, errlen, "an imatrix entry needs a weight name (--imatrix-name)");
            ok = 0;
        } else if (gguf_names && *e->label && !cal_gguf_weight_name(n, t[i].name, sizeof t[i].name, &t[i].expert)) {
            snprintf(err, errlen, "label '%s' is not a module name that --gguf-names knows", n);
            ok = 0;
        } else if (!(gguf_names && *e->label) && snprintf(t[i].name, sizeof t[i].name, "%s", n) < 0) {
            ok = 0;
        }
        char conv[CAL_IMATRIX_MAX_NAME + 64];
        long ex;
        if (ok && !gguf_names && cal_gguf_weight_name(t[i].name, conv, sizeof conv, &ex)) {
            /* llama-quantize looks weights up by llama.cpp's names: one under
             * transformers' name is ignored without a word (issue 25) */
            snprintf(err, errlen,
                     "imatrix entry '%s' has a transformers module name, which llama-quantize ignores: add "
                     "--gguf-names to write llama.cpp's (%s%s)",
                     t[i].name, conv, ex >= 0 ? ", expert rows" : "");
            ok = 0;
        }
        if (ok && strlen(n = t[i].name) > CAL_IMATRIX_MAX_NAME) {
            snprintf(err, errlen, "weight name '%s' is too long for an imatrix (at most %d bytes)", n,
                     CAL_IMATRIX_MAX_NAME);
            ok = 0;
        }
    }
    for (size_t i = 0; i < r->n && ok; i++) {
        if (t[i].expert == -1) ok = add_one(m, t[i].name, t[i].e, err, errlen);
        else if (t[i].expert >= 0) ok = add_experts(m, t, i, r->n, err, errlen);
    }
    free(t);
    if (ok) m->chunk_count += rows;
    return ok;
}

void cal_result_file_meta(const cal_st_file *f, cal_meta *out) {
    for (size_t i = 0; i < cal_st_meta_count(f); i++) {
        const char *k = cal_st_meta_key(f, i), *v = cal_st_meta_val(f, i);
        if (result_key(k)) continue;
        if (!cal_meta_repeats(k)) {
            cal_meta_add(out, k, v);
            continue;
        }
        for (const char *p = v;;) { /* add_meta joined the lines with newlines */
            size_t n = strcspn(p, "\n");
            char *one = cal_xmalloc(n + 1);
            memcpy(one, p, n);
            one[n] = 0;
            cal_meta_add(out, k, one);
            free(one);
            if (!p[n]) break;
            p += n + 1;
        }
    }
}
