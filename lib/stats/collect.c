/* collect.c - records of cal-streams into Hessian accumulators (collect.h). */
#include "stats/collect.h"
#include "stream/shards.h"

#include <stdlib.h>
#include <string.h>

#include "base/dtype.h"
#include "base/err.h"
#include "base/num.h"
#include "base/progress.h"
#include "stats/embed.h"
#include "stats/hessian.h"
#include "stream/stream.h"

typedef struct {
    char *label;
    size_t d;
    cal_hess *h;
    cal_result_counts c;
} acc;

struct cal_collect {
    cal_collect_opts o;
    cal_embed *e;
    uint64_t *tok; /* distinct-token counts (embedding, default path) */
    acc *a;
    size_t n, cap;
    int kind;      /* VECTORS or token records seen first */
    cal_meta meta;
    int have_meta;
    cal_progress pr;
    uint64_t nrec, nbytes; /* totals for the progress line */
    cal_shards *shards;    /* every input's, checked together */
};

static acc *add_acc(cal_collect *c, const char *label, size_t len, size_t d) {
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 8;
        c->a = cal_xrealloc(c->a, c->cap * sizeof *c->a);
    }
    acc *a = &c->a[c->n++];
    memset(a, 0, sizeof *a);
    a->label = cal_xmalloc(len + 1);
    memcpy(a->label, label, len);
    a->label[len] = 0;
    a->d = d;
    a->h = cal_hess_new(d, c->o.block, c->o.threads);
    if (c->o.sketch) cal_hess_sketch(a->h);
    return a;
}

cal_collect *cal_collect_new(const cal_collect_opts *o) {
    cal_collect *c = cal_xcalloc(1, sizeof *c);
    c->o = *o;
    c->shards = cal_shards_new();
    /* many accumulators: small blocks keep their buffers small */
    if (o->by_label && !o->block) c->o.block = 256;
    cal_progress_init(&c->pr, o->progress);
    if (o->embed) {
        c->e = cal_embed_open(o->embed, o->rmsnorm, o->eps);
        add_acc(c, "", 0, cal_embed_dim(c->e));
        if (!o->per_position) c->tok = cal_xcalloc(cal_embed_vocab(c->e), sizeof *c->tok);
    }
    return c;
}

/* The accumulator a VECTORS record of width d feeds. */
static acc *vectors_acc(cal_collect *c, cal_reader *r, const cal_rec *rec, uint32_t d) {
    if (!c->o.by_label) {
        if (!c->n) return add_acc(c, "", 0, d);
        if (d != c->a[0].d)
            cal_reader_die(r, rec, "VECTORS record has d = %u, earlier records have d = %zu", d, c->a[0].d);
        return &c->a[0];
    }
    if (!rec->label_len) cal_reader_die(r, rec, "VECTORS record has no label (the weight it feeds)");
    for (size_t i = 0; i < c->n; i++) {
        acc *a = &c->a[i];
        if (strlen(a->label) != rec->label_len || memcmp(a->label, rec->label, rec->label_len)) continue;
        if (d != a->d)
            cal_reader_die(r, rec, "VECTORS record '%s' has d = %u, earlier records of it have d = %zu", a->label,
                           d, a->d);
        return a;
    }
    if (memchr(rec->label, 0, rec->label_len)) cal_reader_die(r, rec, "VECTORS label holds a NUL byte");
    return add_acc(c, (const char *)rec->label, rec->label_len, d);
}

static void vectors(cal_collect *c, cal_reader *r, const cal_rec *rec) {
    cal_vec_view v = cal_vectors(rec);
    if (!v.d || v.d > (1u << 20)) cal_reader_die(r, rec, "VECTORS width d = %u is out of range [1, 2^20]", v.d);
    acc *a = vectors_acc(c, r, rec, v.d);
    size_t es = cal_dtype_size(v.dtype), rowb = es * v.d;
    for (uint32_t i = 0; i < v.n; i++) {
        double *x = cal_hess_row(a->h);
        if (!cal_decode_row(v.data + rowb * i, v.dtype, v.d, x)) {
            if (!c->o.skip_nonfinite)
                cal_reader_die(r, rec, "VECTORS record '%.*s' row %u holds NaN or Inf (--skip-nonfinite skips such rows)",
                               (int)rec->label_len, rec->label, i);
            a->c.skipped++;
            continue;
        }
        cal_hess_commit(a->h);
        cal_progress_tick(&c->pr, c->nrec, c->nbytes + rowb * i);
    }
    a->c.rows++;
}

static void token(cal_collect *c, cal_reader *r, const cal_rec *rec, uint32_t t) {
    if (t >= cal_embed_vocab(c->e))
        cal_reader_die(r, rec, "token id %u is outside the embedding table (%zu rows)", t, cal_embed_vocab(c->e));
    if (!c->o.per_position) {
        c->tok[t]++;
        return;
    }
    cal_hess *h = c->a[0].h;
    double *x = cal_hess_row(h);
    cal_embed_row(c->e, t, x);
    if (!cal_all_finite(x, c->a[0].d)) cal_reader_die(r, rec, "embedding row %u holds NaN or Inf", t);
    cal_hess_commit(h);
}

static void tokens(cal_collect *c, cal_reader *r, const cal_rec *rec) {
    if (!c->e)
        cal_reader_die(r, rec, "%s records need --embed MODEL to become vectors", cal_kind_name(rec->kind));
    cal_result_counts *n = &c->a[0].c;
    if (rec->kind == CAL_TOKENS) {
        size_t len = cal_tokens_len(rec);
        for (size_t i = 0; i < len; i++) token(c, r, rec, cal_token(rec, i));
        n->rows++;
        return;
    }
    cal_row_view w = cal_row(rec);
    if (w.flags & CAL_ROW_NOISE) {
        n->noise_rows++;
        return;
    }
    for (uint32_t i = 0; i < w.len; i++) {
        if (w.mask && !w.mask[i]) {
            n->padding++;
            continue;
        }
        token(c, r, rec, cal_ld32(w.ids + 4 * (size_t)i));
    }
    n->rows++;
}

void cal_collect_read(cal_collect *c, const char *path) {
    /* read(), not a mapping: the reader's buffer is reused on huge pages,
     * while mapping the page cache's 4 KiB pages cost more than the copy
     * (measured: 5% of the CPU time at 8192 x 2048, 2 threads). */
    cal_reader *r = cal_reader_open(path);
    cal_reader_shards_mode(r, 0, 0, 0);
    if (!c->have_meta) {
        cal_meta_copy(&c->meta, cal_reader_meta(r));
        c->have_meta = 1;
    }
    cal_rec rec;
    while (cal_read(r, &rec)) {
        int k = rec.kind == CAL_VECTORS ? CAL_VECTORS : CAL_TOKENS;
        if (rec.kind == CAL_TEXT)
            cal_reader_die(r, &rec, "expected VECTORS, TOKENS or ROW records, got TEXT (tokenize with cal-encode first)");
        if (rec.kind != CAL_VECTORS && rec.kind != CAL_TOKENS && rec.kind != CAL_ROW)
            cal_reader_die(r, &rec, "expected VECTORS, TOKENS or ROW records, got %s", cal_kind_name(rec.kind));
        if (c->kind && k != c->kind)
            cal_reader_die(r, &rec, "VECTORS records cannot be mixed with TOKENS/ROW records");
        c->kind = k;
        if (k == CAL_VECTORS) {
            if (c->e) cal_reader_die(r, &rec, "VECTORS records are activations already; drop --embed");
            vectors(c, r, &rec);
        } else {
            tokens(c, r, &rec);
        }
        c->nrec++;
        c->nbytes += rec.raw_len;
        cal_progress_tick(&c->pr, c->nrec, c->nbytes);
    }
    if (cal_reader_headers(r) > 0 && c->have_meta) {
        char err[256];
        if (!cal_meta_merge(&c->meta, cal_reader_meta(r), err, sizeof err))
            cal_die("%s: %s", cal_reader_name(r), err);
    }
    cal_shards_absorb(c->shards, cal_reader_shards(r));
    cal_reader_close(r);
}

cal_shards *cal_collect_shards(cal_collect *c) { return c->shards; }

/* The distinct-token path: H = sum_t c_t f(E[t]) f(E[t])^T via rows scaled
 * by sqrt(c_t). */
static void distinct_tokens(cal_collect *c) {
    size_t V = cal_embed_vocab(c->e);
    cal_hess *h = c->a[0].h;
    for (size_t t = 0; t < V; t++) {
        if (!c->tok[t]) continue;
        double *x = cal_hess_row(h);
        cal_embed_row(c->e, (uint32_t)t, x);
        if (!cal_all_finite(x, c->a[0].d)) cal_die("%s: embedding row %zu holds NaN or Inf", c->o.embed, t);
        cal_hess_commit_weighted(h, c->tok[t]);
    }
}

int cal_collect_threads(const cal_collect *c) { return c->n ? cal_hess_threads(c->a[0].h) : 0; }

void cal_collect_finish(cal_collect *c, cal_result *r) {
    if (c->tok) distinct_tokens(c);
    cal_progress_done(&c->pr);
    if (!c->n) cal_die("no vectors in the input (need VECTORS records, or TOKENS/ROW with --embed)");
    cal_meta_copy(&r->meta, &c->meta);
    if (c->e) cal_meta_set(&r->meta, "hessian_input", cal_embed_tensor(c->e));
    for (size_t i = 0; i < c->n; i++) cal_result_add(r, c->a[i].label, cal_hess_take(c->a[i].h), &c->a[i].c);
}

void cal_collect_free(cal_collect *c) {
    if (!c) return;
    cal_shards_free(c->shards);
    for (size_t i = 0; i < c->n; i++) {
        cal_hess_free(c->a[i].h);
        free(c->a[i].label);
    }
    free(c->a);
    free(c->tok);
    cal_embed_close(c->e);
    cal_meta_free(&c->meta);
    free(c);
}
