/* embed.c - embedding rows (+ RMSNorm) from a safetensors checkpoint. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "stats/embed.h"
#include "base/buf.h"
#include "base/dtype.h"
#include "base/err.h"
#include "base/num.h"
#include "io/safetensors.h"
#include "stats/hessian.h"

struct cal_embed {
    cal_st_model *m;
    const cal_st_tensor *E;
    char *name;
    const char *file;  /* the shard holding E, for messages */
    size_t vocab, d;
    int dtype;       /* cal_dtype, or 0 for F64 */
    double *gamma;   /* NULL: no RMSNorm */
    double eps;
};

/* Names of the token embedding in common checkpoint layouts. */
static const char *const known[] = {
    "model.embed_tokens.weight", "embed_tokens.weight",
    "model.language_model.embed_tokens.weight", "language_model.model.embed_tokens.weight",
    "transformer.wte.weight", "wte.weight", "model.tok_embeddings.weight",
    "tok_embeddings.weight", "transformer.word_embeddings.weight",
};
static const char *const suffixes[] = {"embed_tokens.weight", "wte.weight", "tok_embeddings.weight"};

static int ends_with(const char *s, const char *suf) {
    size_t n = strlen(s), k = strlen(suf);
    return n >= k && strcmp(s + n - k, suf) == 0;
}

static int dtype_of(const cal_st_tensor *t) {
    if (!strcmp(t->dtype, "F32")) return CAL_F32;
    if (!strcmp(t->dtype, "F16")) return CAL_F16;
    if (!strcmp(t->dtype, "BF16")) return CAL_BF16;
    if (!strcmp(t->dtype, "F64")) return 0;
    return -1;
}

/* Row i of a 2-D (or 1-D when i = 0) float tensor as float64. */
static void load_row(const cal_st_tensor *t, int dt, size_t i, size_t d, double *out) {
    if (dt == 0) {
        for (size_t j = 0; j < d; j++) {
            uint64_t u = cal_ld64(t->data + 8 * (i * d + j));
            memcpy(&out[j], &u, 8);
        }
        return;
    }
    cal_decode_row(t->data + i * d * cal_dtype_size(dt), dt, d, out);
}

/* Tries the known names, then any tensor whose name ends in a known suffix,
 * from the model's name list (a single file or a sharded index alike). More
 * than one such tensor is an error listing them rather than a guess: e.g. a
 * text and a vision embedding give different Hessians. */
static const cal_st_tensor *find_default(cal_st_model *m, const char *path, const char **name) {
    for (size_t i = 0; i < sizeof known / sizeof *known; i++) {
        const cal_st_tensor *t = cal_st_model_find(m, known[i], NULL);
        if (t) {
            *name = known[i];
            return t;
        }
    }
    const char *hit = NULL;
    size_t nhit = 0;
    cal_buf list = {0};
    for (size_t i = 0; i < cal_st_model_count(m); i++) {
        const char *s = cal_st_model_name_at(m, i);
        for (size_t k = 0; k < sizeof suffixes / sizeof *suffixes; k++)
            if (ends_with(s, suffixes[k])) {
                if (!nhit++) hit = s;
                if (nhit <= 5) cal_buf_addf(&list, "%s'%s'", nhit > 1 ? ", " : "", s);
                break;
            }
    }
    if (nhit > 1)
        cal_die("%s: %zu tensors could be the embedding (%s%s); name one as MODEL:TENSOR", path, nhit,
                list.p, nhit > 5 ? ", ..." : "");
    cal_buf_free(&list);
    /* Without a hit, dies naming the names close to the usual one. */
    *name = hit ? hit : known[0];
    return cal_st_model_get(m, *name);
}

cal_embed *cal_embed_open(const char *spec, const char *rmsnorm, double eps) {
    cal_embed *e = cal_xcalloc(1, sizeof *e);
    char *path = cal_xstrdup(spec), *tname = NULL;
    struct stat st;
    char *colon = strrchr(path, ':');
    if (stat(path, &st) != 0 && colon) { /* MODEL:TENSOR unless the whole spec exists */
        *colon = 0;
        tname = colon + 1;
    }
    if (stat(path, &st) != 0) cal_die("%s: cannot open the model (no such file or folder)", path);
    e->m = cal_st_model_open(path);
    const char *name = NULL;
    if (tname && *tname) {
        e->E = cal_st_model_get(e->m, tname);
        name = tname;
    } else {
        e->E = find_default(e->m, path, &name);
    }
    e->name = cal_xstrdup(name);
    cal_st_model_find(e->m, name, &e->file);
    if (e->E->ndim != 2) cal_die("%s: tensor '%s' has %d dimensions, want 2 (vocab x d)", path, e->name, e->E->ndim);
    e->dtype = dtype_of(e->E);
    if (e->dtype < 0)
        cal_die("%s: tensor '%s' has dtype %s; supported: F32, F16, BF16, F64", path, e->name, e->E->dtype);
    e->vocab = e->E->shape[0];
    e->d = e->E->shape[1];
    if (!e->vocab || !e->d) cal_die("%s: tensor '%s' is empty", path, e->name);
    if (e->d > CAL_HESS_MAX_D)
        cal_die_at(e->file, e->E->offset, "tensor '%s' has rows of %zu values; at most %u", e->name, e->d, CAL_HESS_MAX_D);
    if (rmsnorm) {
        const cal_st_tensor *g = cal_st_model_get(e->m, rmsnorm);
        int gd = dtype_of(g);
        if (gd < 0) cal_die("%s: tensor '%s' has dtype %s; supported: F32, F16, BF16, F64", path, rmsnorm, g->dtype);
        if (g->ndim != 1 || g->shape[0] != e->d)
            cal_die("%s: RMSNorm weight '%s' must have shape [%zu] to match '%s'", path, rmsnorm, e->d, e->name);
        e->gamma = cal_xmalloc(e->d * sizeof(double));
        load_row(g, gd, 0, e->d, e->gamma);
        if (!cal_all_finite(e->gamma, e->d)) {
            const char *gfile = path;
            cal_st_model_find(e->m, rmsnorm, &gfile);
            cal_die_at(gfile, g->offset, "RMSNorm weight '%s' holds NaN or Inf", rmsnorm);
        }
        e->eps = eps;
    }
    free(path);
    return e;
}

size_t cal_embed_vocab(const cal_embed *e) { return e->vocab; }
size_t cal_embed_dim(const cal_embed *e) { return e->d; }
const char *cal_embed_tensor(const cal_embed *e) { return e->name; }

void cal_embed_row(const cal_embed *e, uint32_t t, double *out) {
    load_row(e->E, e->dtype, t, e->d, out);
    size_t es = e->dtype ? cal_dtype_size(e->dtype) : 8;
    uint64_t off = e->E->offset + (uint64_t)t * e->d * es;
    if (!cal_all_finite(out, e->d)) cal_die_at(e->file, off, "embedding row %u of '%s' holds NaN or Inf", t, e->name);
    if (!e->gamma) return;
    double ss = 0;
    for (size_t j = 0; j < e->d; j++) ss += out[j] * out[j];
    double r = 1.0 / sqrt(ss / (double)e->d + e->eps);
    for (size_t j = 0; j < e->d; j++) out[j] = out[j] * r * e->gamma[j];
    if (!cal_all_finite(out, e->d))
        cal_die_at(e->file, off, "embedding row %u of '%s' overflows its RMSNorm (NaN or Inf)", t, e->name);
}

void cal_embed_close(cal_embed *e) {
    if (!e) return;
    cal_st_model_close(e->m);
    free(e->gamma);
    free(e->name);
    free(e);
}
