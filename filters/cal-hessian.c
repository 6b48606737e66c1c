/* cal-hessian - exact, mergeable Hessian H = sum x x^T and per-channel
 * activation statistics from a cal-stream (see man/cal-hessian.1). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/dtype.h"
#include "base/err.h"
#include "base/num.h"
#include "base/progress.h"
#include "io/safetensors.h"
#include "stats/embed.h"
#include "stats/hessian.h"
#include "stats/imatrix_gguf.h"
#include "stream/stageargs.h"
#include "stream/stream.h"

static const char usage[] =
    "Usage: cal-hessian [OPTIONS] -o OUT.safetensors [FILE...]\n"
    "       cal-hessian --merge [OPTIONS] -o OUT.safetensors IN.safetensors...\n"
    "Accumulate H = sum x x^T (float64, OpenBLAS on tiles) and per-channel statistics\n"
    "of the vectors in the input streams (default stdin): VECTORS records, or\n"
    "TOKENS/ROW records turned into embedding rows with --embed.\n"
    "\n"
    "Options:\n"
    "  -o, --output FILE      output .safetensors (written atomically; required)\n"
    "  --embed MODEL[:TENSOR] embedding table for TOKENS/ROW input (.safetensors,\n"
    "                         index.json or folder; default tensor *embed_tokens.weight)\n"
    "  --rmsnorm TENSOR       apply RMSNorm with this weight to each embedding row\n"
    "  --eps E                RMSNorm epsilon (default 1e-6)\n"
    "  --per-position         one update per token position (default: one per\n"
    "                         distinct token, weighted by its count; same result)\n"
    "  --dtype f32|f64        dtype of the hessian tensor (default f32)\n"
    "  --scale sum|mean|gptq  hessian scale: raw sum, / tokens, or 2 / rows (default sum)\n"
    "  --skip-nonfinite       skip (and count) vectors holding NaN or Inf instead of failing\n"
    "  --merge                inputs are cal-hessian results: add them exactly\n"
    "  --gptq-inverse         also write hessian_inv_chol: upper Cholesky factor of the\n"
    "                         damped inverse, as GPTQ uses it\n"
    "  --damp F               GPTQ damping, fraction of mean(diag) (default 0.01)\n"
    "  --imatrix FILE         also write llama.cpp's imatrix GGUF for one tensor\n"
    "  --imatrix-name NAME    the tensor name in the imatrix (required with --imatrix)\n"
    "  --block N              rows per BLAS block (default: about 32 MB of float64)\n"
    "  --threads N            worker threads (default: one per CPU; same result for any N)\n"
    "  -v, --verbose          one-line summary on stderr\n"
    "  --progress             progress on stderr\n"
    "  -h, --help             this help\n"
    "  --version              version\n"
    "\n"
    "OPENBLAS_CORETYPE: when unset and OpenBLAS chose its Haswell kernels on an\n"
    "AVX-512 CPU, cal-hessian re-executes itself with OPENBLAS_CORETYPE=SkylakeX.\n"
    "A value set by the user is always kept.\n";

typedef struct {
    const char *out, *embed, *rmsnorm, *imatrix, *imatrix_name;
    double eps, damp;
    int per_position, f64, skip_nonfinite, merge, gptq_inverse, verbose, progress;
    const char *scale;
    size_t block;
    int threads;
    const char **in;
    size_t nin;
} opts;

typedef struct {
    uint64_t rows, padding, noise_rows, skipped;
} counts;

static const char *need(int argc, char **argv, int *i) {
    if (*i + 1 >= argc) cal_usage_error("option %s needs a value", argv[*i]);
    return argv[++*i];
}

static void parse(int argc, char **argv, opts *o) {
    memset(o, 0, sizeof *o);
    o->eps = 1e-6;
    o->damp = 0.01;
    o->scale = "sum";
    o->in = cal_xcalloc((size_t)argc + 1, sizeof *o->in);
    int only_files = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_files || a[0] != '-' || !strcmp(a, "-")) {
            o->in[o->nin++] = a;
        } else if (!strcmp(a, "--")) {
            only_files = 1;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            o->out = need(argc, argv, &i);
        } else if (!strcmp(a, "--embed")) {
            o->embed = need(argc, argv, &i);
        } else if (!strcmp(a, "--rmsnorm")) {
            o->rmsnorm = need(argc, argv, &i);
        } else if (!strcmp(a, "--eps")) {
            o->eps = cal_parse_double(a, need(argc, argv, &i));
            if (!(o->eps >= 0)) cal_usage_error("--eps must be >= 0");
        } else if (!strcmp(a, "--per-position")) {
            o->per_position = 1;
        } else if (!strcmp(a, "--dtype")) {
            const char *v = need(argc, argv, &i);
            if (!strcmp(v, "f64")) o->f64 = 1;
            else if (!strcmp(v, "f32")) o->f64 = 0;
            else cal_usage_error("--dtype must be f32 or f64, not '%s'", v);
        } else if (!strcmp(a, "--scale")) {
            o->scale = need(argc, argv, &i);
            if (strcmp(o->scale, "sum") && strcmp(o->scale, "mean") && strcmp(o->scale, "gptq"))
                cal_usage_error("--scale must be sum, mean or gptq, not '%s'", o->scale);
        } else if (!strcmp(a, "--skip-nonfinite")) {
            o->skip_nonfinite = 1;
        } else if (!strcmp(a, "--merge")) {
            o->merge = 1;
        } else if (!strcmp(a, "--gptq-inverse")) {
            o->gptq_inverse = 1;
        } else if (!strcmp(a, "--damp")) {
            o->damp = cal_parse_double(a, need(argc, argv, &i));
            if (!(o->damp >= 0)) cal_usage_error("--damp must be >= 0");
        } else if (!strcmp(a, "--imatrix")) {
            o->imatrix = need(argc, argv, &i);
        } else if (!strcmp(a, "--imatrix-name")) {
            o->imatrix_name = need(argc, argv, &i);
        } else if (!strcmp(a, "--block")) {
            o->block = (size_t)cal_parse_u64(a, need(argc, argv, &i), 1, 1u << 20);
        } else if (!strcmp(a, "--threads")) {
            o->threads = (int)cal_parse_u64(a, need(argc, argv, &i), 1, 4096);
        } else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
            o->verbose = 1;
        } else if (!strcmp(a, "--progress")) {
            o->progress = 1;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage, stdout);
            exit(0);
        } else if (!strcmp(a, "--version")) {
            cal_print_version();
        } else {
            cal_usage_error("unknown option '%s'", a);
        }
    }
    if (!o->out) cal_usage_error("no output file (-o OUT.safetensors)");
    if (o->imatrix && !o->imatrix_name) cal_usage_error("--imatrix needs --imatrix-name NAME");
    if (o->rmsnorm && !o->embed) cal_usage_error("--rmsnorm needs --embed");
    if (o->merge && (o->embed || o->per_position || o->skip_nonfinite))
        cal_usage_error("--merge takes cal-hessian results; --embed, --per-position and --skip-nonfinite do not apply");
    if (o->merge && !o->nin) cal_usage_error("--merge needs input files");
}

/* ---- accumulation from streams ------------------------------------------ */
typedef struct {
    const opts *o;
    cal_hess *h;
    cal_embed *e;
    uint64_t *tok;   /* distinct-token counts (embedding, default path) */
    size_t d;
    counts c;
    int kind;        /* VECTORS or token records seen first */
    cal_meta meta;
    int have_meta;
    cal_progress pr;
    uint64_t nrec, nbytes;  /* totals for the progress line */
} run;

static void vectors(run *R, cal_reader *r, const cal_rec *rec) {
    cal_vec_view v = cal_vectors(rec);
    if (!R->h) {
        if (!v.d || v.d > CAL_HESS_MAX_D) cal_reader_die(r, rec, "VECTORS record has d = %u, not 1 to %u", v.d, CAL_HESS_MAX_D);
        R->d = v.d;
        R->h = cal_hess_new(v.d, R->o->block, R->o->threads);
    } else if (v.d != R->d) {
        cal_reader_die(r, rec, "VECTORS record has d = %u, earlier records have d = %zu", v.d, R->d);
    }
    size_t es = cal_dtype_size(v.dtype), rowb = es * v.d;
    for (uint32_t i = 0; i < v.n; i++) {
        double *x = cal_hess_row(R->h);
        if (!cal_decode_row(v.data + rowb * i, v.dtype, v.d, x)) {
            if (!R->o->skip_nonfinite)
                cal_reader_die(r, rec, "VECTORS record '%.*s' row %u holds NaN or Inf (--skip-nonfinite skips such rows)",
                               (int)rec->label_len, rec->label, i);
            R->c.skipped++;
            continue;
        }
        cal_hess_commit(R->h);
        cal_progress_tick(&R->pr, R->nrec, R->nbytes + rowb * i);
    }
    R->c.rows++;
}

static void token(run *R, cal_reader *r, const cal_rec *rec, uint32_t t) {
    if (t >= cal_embed_vocab(R->e))
        cal_reader_die(r, rec, "token id %u is outside the embedding table (%zu rows)", t,
                       cal_embed_vocab(R->e));
    if (!R->o->per_position) {
        R->tok[t]++;
        return;
    }
    double *x = cal_hess_row(R->h);
    cal_embed_row(R->e, t, x);
    if (!cal_all_finite(x, R->d)) cal_die("embedding row %u holds NaN or Inf", t);
    cal_hess_commit(R->h);
}

static void tokens(run *R, cal_reader *r, const cal_rec *rec) {
    if (!R->e)
        cal_reader_die(r, rec, "%s records need --embed MODEL to become vectors", cal_kind_name(rec->kind));
    if (rec->kind == CAL_TOKENS) {
        size_t n = cal_tokens_len(rec);
        for (size_t i = 0; i < n; i++) token(R, r, rec, cal_token(rec, i));
        R->c.rows++;
        return;
    }
    cal_row_view w = cal_row(rec);
    if (w.flags & CAL_ROW_NOISE) {
        R->c.noise_rows++;
        return;
    }
    for (uint32_t i = 0; i < w.len; i++) {
        if (w.mask && !w.mask[i]) {
            R->c.padding++;
            continue;
        }
        token(R, r, rec, cal_ld32(w.ids + 4 * (size_t)i));
    }
    R->c.rows++;
}

static void read_input(run *R, const char *path) {
    cal_reader *r = cal_reader_open(path);
    if (!R->have_meta) {
        cal_meta_copy(&R->meta, cal_reader_meta(r));
        R->have_meta = 1;
    }
    cal_rec rec;
    while (cal_read(r, &rec)) {
        int k = rec.kind == CAL_VECTORS ? CAL_VECTORS : CAL_TOKENS;
        if (rec.kind == CAL_TEXT)
            cal_reader_die(r, &rec, "expected VECTORS, TOKENS or ROW records, got TEXT (tokenize with cal-encode first)");
        if (rec.kind != CAL_VECTORS && rec.kind != CAL_TOKENS && rec.kind != CAL_ROW)
            cal_reader_die(r, &rec, "expected VECTORS, TOKENS or ROW records, got %s", cal_kind_name(rec.kind));
        if (R->kind && k != R->kind)
            cal_reader_die(r, &rec, "VECTORS records cannot be mixed with TOKENS/ROW records");
        R->kind = k;
        if (k == CAL_VECTORS) {
            if (R->e) cal_reader_die(r, &rec, "VECTORS records are activations already; drop --embed");
            vectors(R, r, &rec);
        } else {
            tokens(R, r, &rec);
        }
        R->nrec++;
        R->nbytes += rec.raw_len;
        cal_progress_tick(&R->pr, R->nrec, R->nbytes);
    }
    if (cal_reader_headers(r) > 0 && R->have_meta) {
        char err[256];
        if (!cal_meta_merge(&R->meta, cal_reader_meta(r), err, sizeof err))
            cal_die("%s: %s", cal_reader_name(r), err);
    }
    cal_reader_close(r);
}

/* The distinct-token path: H = sum_t c_t f(E[t]) f(E[t])^T via rows scaled by
 * sqrt(c_t). */
static void distinct_tokens(run *R) {
    size_t V = cal_embed_vocab(R->e);
    for (size_t t = 0; t < V; t++) {
        if (!R->tok[t]) continue;
        double *x = cal_hess_row(R->h);
        cal_embed_row(R->e, (uint32_t)t, x);
        if (!cal_all_finite(x, R->d)) cal_die("embedding row %zu holds NaN or Inf", t);
        cal_hess_commit_weighted(R->h, R->tok[t]);
    }
}

/* ---- output ------------------------------------------------------------- */
/* The stage line without --threads: the result is the same for any count. */
static void add_stage(cal_meta *m, int argc, char **argv, const char *extra) {
    static const char *const drop[] = {"--threads", NULL};
    cal_add_stage_without(m, argc, argv, extra, drop);
}

/* The shortest %g form that reads back as the same double. */
static const char *fmt_double(double x, char *buf, size_t n) {
    for (int p = 6; p <= 17; p++) {
        snprintf(buf, n, "%.*g", p, x);
        if (strtod(buf, NULL) == x) break;
    }
    return buf;
}

static double scale_factor(const char *scale, const cal_hess_stats *s, uint64_t rows) {
    /* An empty result keeps factor 1 so that --merge can always undo it. */
    if (!strcmp(scale, "mean") && s->count > 0) return 1.0 / s->count;
    if (!strcmp(scale, "gptq") && rows) return 2.0 / (double)rows;
    return 1;
}

/* Adds metadata pairs; repeated keys (stage) are joined with newlines, as
 * the safetensors header holds one value per key. */
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

static void write_result(const opts *o, cal_hess_stats *s, const counts *c, const cal_meta *meta,
                         const char *const *datasets, size_t ndatasets) {
    size_t d = s->d;
    uint64_t dd[2] = {d, d}, d1[1] = {d}, one[1] = {1};
    double f = scale_factor(o->scale, s, c->rows);
    int64_t tokens = (int64_t)s->count, rows = (int64_t)c->rows, pad = (int64_t)c->padding,
            noise = (int64_t)c->noise_rows, skipped = (int64_t)c->skipped;
    double *inv = NULL;
    if (f != 1)
        for (size_t i = 0; i < d * d; i++) s->H[i] *= f;
    if (o->gptq_inverse) {
        inv = cal_xmalloc(d * d * sizeof(double));
        size_t dead = 0;
        int info = cal_gptq_inverse(s->H, d, o->damp, inv, &dead);
        if (info)
            cal_die("the damped hessian is not positive definite (LAPACK info %d); raise --damp", info);
    }
    double *absmean = cal_xmalloc(d * sizeof(double));
    for (size_t j = 0; j < d; j++) absmean[j] = s->count > 0 ? s->abssum[j] / s->count : 0;
    float *h32 = NULL, *inv32 = NULL;
    if (!o->f64) {
        h32 = cal_xmalloc(d * d * sizeof(float));
        for (size_t i = 0; i < d * d; i++) h32[i] = (float)s->H[i];
        if (inv) {
            inv32 = cal_xmalloc(d * d * sizeof(float));
            for (size_t i = 0; i < d * d; i++) inv32[i] = (float)inv[i];
        }
    }
    const char *hd = o->f64 ? "F64" : "F32";
    cal_st_writer *w = cal_st_writer_new();
    add_meta(w, meta);
    char num[64];
    cal_st_add_meta(w, "hessian.scale", o->scale);
    cal_st_add_meta(w, "hessian.scale_factor", fmt_double(f, num, sizeof num));
    snprintf(num, sizeof num, "%zu", d);
    cal_st_add_meta(w, "hessian.d", num);
    if (o->gptq_inverse) {
        cal_st_add_meta(w, "hessian.damp", fmt_double(o->damp, num, sizeof num));
    }
    cal_st_add(w, "hessian", hd, 2, dd, o->f64 ? (const void *)s->H : (const void *)h32);
    if (inv) cal_st_add(w, "hessian_inv_chol", hd, 2, dd, o->f64 ? (const void *)inv : (const void *)inv32);
    cal_st_add(w, "sum", "F64", 1, d1, s->sum);
    cal_st_add(w, "sumsq", "F64", 1, d1, s->sumsq);
    cal_st_add(w, "abssum", "F64", 1, d1, s->abssum);
    cal_st_add(w, "absmean", "F64", 1, d1, absmean);
    cal_st_add(w, "absmax", "F64", 1, d1, s->absmax);
    cal_st_add(w, "tokens", "I64", 1, one, &tokens);
    cal_st_add(w, "rows", "I64", 1, one, &rows);
    cal_st_add(w, "padding", "I64", 1, one, &pad);
    cal_st_add(w, "noise_rows", "I64", 1, one, &noise);
    cal_st_add(w, "skipped", "I64", 1, one, &skipped);
    cal_st_write(w, o->out);
    cal_st_writer_free(w);
    if (o->imatrix) {
        uint32_t cc = rows > UINT32_MAX ? UINT32_MAX : (uint32_t)rows;
        uint64_t cs = rows ? (uint64_t)tokens / (uint64_t)rows : 0;
        cal_imatrix_write(o->imatrix, o->imatrix_name, s->sumsq, d, s->count, datasets, ndatasets, cc,
                          cs > UINT32_MAX ? UINT32_MAX : (uint32_t)cs);
    }
    free(h32);
    free(inv32);
    free(inv);
    free(absmean);
}

/* ---- --merge ------------------------------------------------------------ */
static const cal_st_tensor *need_tensor(cal_st_file *f, const char *name, const char *dtype, uint64_t numel) {
    const cal_st_tensor *t = cal_st_find(f, name);
    if (!t) cal_die("%s: no tensor '%s'%s (not a cal-hessian result?)", cal_st_name(f), name, cal_st_hint(f, name));
    if (dtype && strcmp(t->dtype, dtype))
        cal_die("%s: tensor '%s' has dtype %s, want %s", cal_st_name(f), name, t->dtype, dtype);
    if (t->numel != numel)
        cal_die("%s: tensor '%s' has %llu values, want %llu", cal_st_name(f), name,
                (unsigned long long)t->numel, (unsigned long long)numel);
    return t;
}

static double f64_at(const cal_st_tensor *t, size_t i) {
    double v;
    uint64_t u = cal_ld64(t->data + 8 * i);
    memcpy(&v, &u, 8);
    return v;
}

static int64_t i64_of(cal_st_file *f, const char *name) {
    return (int64_t)cal_ld64(need_tensor(f, name, "I64", 1)->data);
}

static void merge(const opts *o, int argc, char **argv) {
    cal_hess_stats *s = NULL;
    counts c = {0};
    cal_meta meta = {0};
    for (size_t k = 0; k < o->nin; k++) {
        cal_st_file *f = cal_st_open(o->in[k]);
        const cal_st_tensor *H = cal_st_find(f, "hessian");
        if (!H) cal_die("%s: no tensor 'hessian'%s (not a cal-hessian result?)", o->in[k], cal_st_hint(f, "hessian"));
        if (H->ndim != 2 || H->shape[0] != H->shape[1] || !H->shape[0])
            cal_die("%s: tensor 'hessian' is not a square matrix", o->in[k]);
        size_t d = H->shape[0];
        if (!s) {
            s = cal_hess_stats_new(d);
            for (size_t i = 0; i < cal_st_meta_count(f); i++)
                if (strncmp(cal_st_meta_key(f, i), "hessian.", 8))
                    cal_meta_add(&meta, cal_st_meta_key(f, i), cal_st_meta_val(f, i));
        } else if (d != s->d) {
            cal_die("%s: hessian is %zu x %zu, earlier inputs are %zu x %zu", o->in[k], d, d, s->d, s->d);
        }
        const char *fs = cal_st_meta_get(f, "hessian.scale_factor");
        double fac = fs ? strtod(fs, NULL) : 1;
        if (!(fac > 0)) cal_die("%s: hessian.scale_factor '%s' cannot be undone", o->in[k], fs ? fs : "");
        int is64 = !strcmp(H->dtype, "F64");
        if (!is64 && strcmp(H->dtype, "F32")) cal_die("%s: hessian has dtype %s, want F32 or F64", o->in[k], H->dtype);
        for (size_t i = 0; i < d * d; i++) {
            double v;
            if (is64) {
                v = f64_at(H, i);
            } else {
                uint32_t u = cal_ld32(H->data + 4 * i);
                float x;
                memcpy(&x, &u, 4);
                v = x;
            }
            s->H[i] += fac == 1 ? v : v / fac;
        }
        const cal_st_tensor *sm = need_tensor(f, "sum", "F64", d), *sq = need_tensor(f, "sumsq", "F64", d),
                            *as = need_tensor(f, "abssum", "F64", d), *am = need_tensor(f, "absmax", "F64", d);
        for (size_t j = 0; j < d; j++) {
            s->sum[j] += f64_at(sm, j);
            s->sumsq[j] += f64_at(sq, j);
            s->abssum[j] += f64_at(as, j);
            double m = f64_at(am, j);
            if (m > s->absmax[j]) s->absmax[j] = m;
        }
        s->count += (double)i64_of(f, "tokens");
        c.rows += (uint64_t)i64_of(f, "rows");
        c.padding += (uint64_t)i64_of(f, "padding");
        c.noise_rows += (uint64_t)i64_of(f, "noise_rows");
        c.skipped += (uint64_t)i64_of(f, "skipped");
        cal_st_close(f);
    }
    add_stage(&meta, argc, argv, NULL);
    write_result(o, s, &c, &meta, o->in, o->nin);
    if (o->verbose)
        fprintf(stderr, "cal-hessian: merged %zu results: d %zu, %.0f tokens, %llu rows\n", o->nin, s->d,
                s->count, (unsigned long long)c.rows);
    cal_hess_stats_free(s);
    cal_meta_free(&meta);
}

int main(int argc, char **argv) {
    cal_set_progname(argv[0]);
    opts o;
    parse(argc, argv, &o);
    cal_blas_prefer_avx512(argv);
    cal_blas_threads(o.threads);
    if (o.merge) {
        merge(&o, argc, argv);
        free(o.in);
        return 0;
    }
    static const char *const stdin_name[] = {"-"};
    const char *const *in = o.nin ? o.in : stdin_name;
    size_t nin = o.nin ? o.nin : 1;
    run R;
    memset(&R, 0, sizeof R);
    R.o = &o;
    cal_progress_init(&R.pr, o.progress);
    double t0 = cal_now();
    if (o.embed) {
        R.e = cal_embed_open(o.embed, o.rmsnorm, o.eps);
        R.d = cal_embed_dim(R.e);
        R.h = cal_hess_new(R.d, o.block, o.threads);
        if (!o.per_position) R.tok = cal_xcalloc(cal_embed_vocab(R.e), sizeof *R.tok);
    }
    for (size_t k = 0; k < nin; k++) read_input(&R, in[k]);
    if (R.tok) distinct_tokens(&R);
    cal_progress_done(&R.pr);
    if (!R.h) cal_die("no vectors in the input (need VECTORS records, or TOKENS/ROW with --embed)");
    cal_hess_stats *s = cal_hess_finish(R.h);
    double t1 = cal_now();
    /* Resolved defaults go into the stage line so the run can be repeated. */
    cal_buf extra = {0};
    char num[40];
    cal_buf_addf(&extra, "--dtype %s --scale %s", o.f64 ? "f64" : "f32", o.scale);
    if (o.rmsnorm) cal_buf_addf(&extra, " --eps %s", fmt_double(o.eps, num, sizeof num));
    if (o.embed) cal_meta_set(&R.meta, "hessian_input", cal_embed_tensor(R.e));
    if (o.gptq_inverse) cal_buf_addf(&extra, " --damp %s", fmt_double(o.damp, num, sizeof num));
    add_stage(&R.meta, argc, argv, extra.p);
    cal_buf_free(&extra);
    const char *const *ds = in;
    static const char *const stdin_ds[] = {"stdin"};
    if (!o.nin) ds = stdin_ds;
    write_result(&o, s, &R.c, &R.meta, ds, nin);
    if (o.verbose) {
        double n = s->count, d = (double)R.d, sec = t1 - t0;
        fprintf(stderr,
                "cal-hessian: d %zu, %.0f vectors, %llu rows, %llu padding, %llu noise rows, %llu skipped, "
                "%.2f s, %.1f GFLOP/s on %d threads (%s kernels)\n",
                R.d, n, (unsigned long long)R.c.rows, (unsigned long long)R.c.padding,
                (unsigned long long)R.c.noise_rows, (unsigned long long)R.c.skipped, sec,
                sec > 0 ? n * d * (d + 1) / sec / 1e9 : 0, cal_hess_threads(R.h), cal_blas_core());
    }
    cal_hess_free(R.h);
    cal_embed_close(R.e);
    free(R.tok);
    cal_meta_free(&R.meta);
    free(o.in);
    return 0;
}
