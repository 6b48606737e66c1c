/* cal-select - choose N documents (TEXT or TOKENS records) by their content:
 * at random, k-means representatives, k-center, or like a target sample
 * (lib/stats/features.h, kmeans.h, kcenter.h, like.h, select.h). The chosen
 * records go out unchanged, in input order. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/num.h"
#include "base/opt.h"
#include "base/outfile.h"
#include "base/par.h"
#include "base/progress.h"
#include "base/rng.h"
#include "io/npy.h"
#include "rows/alloc.h"
#include "stats/blas.h"
#include "stats/embed.h"
#include "stats/features.h"
#include "stats/fmat.h"
#include "stats/kcenter.h"
#include "stats/kmeans.h"
#include "stats/like.h"
#include "stats/select.h"
#include "stream/drops.h"
#include "stream/recstore.h"
#include "stream/shards.h"
#include "stream/stream.h"

#define MAX_IDS 40000 /* ids listed in the select.cluster metadata at most */

enum { O_METHOD = 256, O_ALLOC, O_LIKE, O_FEATURES, O_EMBED, O_DIM, O_SEED, O_MAXITER, O_ALLOW, O_SAVE, O_PROGRESS,
       O_PARTIAL };

static const cal_opt opts[] = {
    {'n', "documents", "N", CAL_STAGE, "choose N documents (required)", 0},
    {0, "method", "METHOD", CAL_STAGE, "kmeans (default): representatives of k-means clusters;\n"
     "kcenter: farthest-first; random: uniform", O_METHOD},
    {'k', "clusters", "K", CAL_STAGE, "kmeans: clusters (default 16, at most N)", 0},
    {0, "alloc", "size|equal", CAL_STAGE, "kmeans: documents per cluster proportional to its size\n(default) or equal", O_ALLOC},
    {0, "max-iter", "N", CAL_STAGE, "kmeans: at most N Lloyd iterations (default 300)", O_MAXITER},
    {0, "like", "TARGET", CAL_STAGE, "choose the documents whose distribution matches the\n"
     "documents of stream TARGET (greedy MMD, kernel herding)", O_LIKE},
    {0, "features", "tfidf|embed", CAL_STAGE, "hashed TF-IDF (default) or the embedding table's rows", O_FEATURES},
    {0, "embed", "MODEL[:TENSOR]", CAL_STAGE, "embedding table (.safetensors, index.json or folder;\n"
     "default tensor *embed_tokens.weight); implies --features embed", O_EMBED},
    {0, "dim", "D", CAL_STAGE, "feature width (default 256; embed: the table's width)", O_DIM},
    {0, "seed", "S", CAL_STAGE, "seed of the projection and of every draw (default 0)", O_SEED},
    {0, "allow-short", NULL, CAL_STAGE, "fewer than N documents: choose them all (said on\nstandard error) instead of failing", O_ALLOW},
    {0, "allow-partial", NULL, CAL_STAGE, "accept shards of a fan-out that are missing, doubled\nor made differently "
     "(warned; see cal-stream(5))", O_PARTIAL},
    {0, "save-features", "FILE", 0, "also write the features as .npy (float32, documents\nwith features x D, in input order)", O_SAVE},
    {'j', "threads", "N", 0, "threads (default: the number of online processors;\nthe same output for any N)", 0},
    {'o', "output", "FILE", 0, "write to FILE (atomically) instead of standard output", 0},
    {'v', "verbose", NULL, 0, "one-line summary on standard error", 0},
    {0, "progress", NULL, 0, "progress on standard error", O_PROGRESS},
    {0},
};
static const cal_prog prog = {
    "cal-select -n N [OPTION]... [FILE]...",
    "Choose N documents (TEXT or TOKENS records) of the FILEs (or standard input)\n"
    "by their content, and write them unchanged, in input order.",
    opts,
    "The cluster of each chosen document and the documents per cluster go in the\n"
    "stream's metadata (select.* keys). Documents skipped (no terms) and a choice\n"
    "short of N are reported on standard error, even without -v.\n",
};

static struct {
    uint64_t n, k, seed, max_iter;
    size_t dim;
    const char *method, *alloc, *like, *features, *embed, *save, *out;
    int allow_short, verbose, progress, partial;
    unsigned threads;
} o;

/* The documents of some inputs: where each record is, its id, and whether
 * it has features. */
typedef struct {
    cal_recstore *store;
    uint64_t *ids;
    uint8_t *has;
    size_t n, cap;
    int kind;
    cal_meta meta;
    uint64_t skipped;
    cal_shards *shards; /* the inputs' shards, checked together */
} docs;

static cal_progress progress;
static uint64_t nread, nbytes;

static void read_docs(docs *D, const char *path, cal_feat *f, int *kind) {
    int src = cal_recstore_source(D->store, path);
    cal_reader *r = cal_reader_open(path);
    cal_reader_shards_mode(r, 0, 0, 0);
    cal_rec rec;
    char err[300];
    while (cal_read(r, &rec)) {
        if (rec.kind != CAL_TEXT && rec.kind != CAL_TOKENS)
            cal_reader_die(r, &rec, "expected TEXT or TOKENS records (documents), got %s", cal_kind_name(rec.kind));
        if (!*kind) *kind = rec.kind;
        if (rec.kind != *kind)
            cal_reader_die(r, &rec, "mixed TEXT and TOKENS records: choose from one kind (this one is %s, the first %s)",
                           cal_kind_name(rec.kind), cal_kind_name(*kind));
        if (o.embed && rec.kind != CAL_TOKENS)
            cal_reader_die(r, &rec, "--embed needs TOKENS records (encode the text with cal-encode), got TEXT");
        long terms = cal_feat_count(f, &rec, err, sizeof err);
        if (terms < 0) cal_reader_die(r, &rec, "%s", err);
        if (D->n == D->cap) {
            D->cap = D->cap ? 2 * D->cap : 1024;
            D->ids = cal_xrealloc(D->ids, D->cap * sizeof *D->ids);
            D->has = cal_xrealloc(D->has, D->cap);
        }
        cal_recstore_add(D->store, src, &rec);
        D->ids[D->n] = rec.id;
        D->has[D->n++] = terms > 0;
        D->skipped += terms == 0;
        cal_progress_tick(&progress, ++nread, nbytes += rec.raw_len);
    }
    if (!D->meta.n) cal_meta_copy(&D->meta, cal_reader_meta(r));
    else if (!cal_meta_merge(&D->meta, cal_reader_meta(r), err, sizeof err)) cal_die("%s: %s", path ? path : "stdin", err);
    if (!D->shards) D->shards = cal_shards_new();
    cal_shards_absorb(D->shards, cal_reader_shards(r));
    cal_reader_close(r);
}

/* Features of the documents that have them, rows in the order of their ids:
 * pos[r] is row r's document. */
typedef struct {
    docs *D;
    cal_feat *f;
    size_t *pos;
    float *x;
    uint8_t *ok;
} feat_job;

static int feat_block(void *ctx, size_t i0, size_t i1, char *err, size_t errsz) {
    feat_job *j = ctx;
    size_t d = cal_feat_dim(j->f);
    cal_buf b = {0};
    cal_rec rec;
    int rc = 0;
    for (size_t r = i0; r < i1 && !rc; r++) {
        rc = cal_recstore_get(j->D->store, j->pos[r], &b, &rec, err, errsz);
        if (!rc) j->ok[r] = (uint8_t)cal_feat_row(j->f, &rec, j->x + r * d);
    }
    cal_buf_free(&b);
    return rc;
}

/* Rows of the documents with features; returns their number. */
static size_t make_rows(docs *D, cal_feat *f, cal_par *par, float **x, size_t **pos) {
    size_t m = 0, d = cal_feat_dim(f);
    uint64_t *ids = cal_xmalloc((D->n + 1) * sizeof *ids);
    size_t *at = cal_xmalloc((D->n + 1) * sizeof *at), *order = cal_xmalloc((D->n + 1) * sizeof *order);
    for (size_t i = 0; i < D->n; i++)
        if (D->has[i]) ids[m] = D->ids[i], at[m++] = i;
    cal_select_order(ids, m, order);
    *pos = cal_xmalloc((m + 1) * sizeof **pos);
    for (size_t r = 0; r < m; r++) (*pos)[r] = at[order[r]];
    *x = cal_xmalloc((m ? m : 1) * d * sizeof **x);
    feat_job j = {D, f, *pos, *x, cal_xcalloc(m + 1, 1)};
    cal_par_for(par, m, 64, feat_block, &j);
    /* A vector the projection cancelled to 0 (never seen, but possible): skipped too. */
    size_t w = 0;
    for (size_t r = 0; r < m; r++) {
        if (!j.ok[r]) {
            D->has[(*pos)[r]] = 0, D->skipped++;
            continue;
        }
        if (w != r) memcpy(*x + w * d, *x + r * d, d * sizeof **x), (*pos)[w] = (*pos)[r];
        w++;
    }
    free(ids), free(at), free(order), free(j.ok);
    return w;
}

static void parse(int argc, char **argv, cal_args *a) {
    o.k = 16, o.max_iter = 300, o.method = "kmeans", o.alloc = "size", o.features = "tfidf", o.dim = 256;
    int have_n = 0;
    cal_args_init(a, &prog, argc, argv);
    for (int c; (c = cal_args_next(a)) != -1;) {
        const char *v = a->val;
        switch (c) {
        case 'n': o.n = cal_parse_u64(a->name, v, 1, UINT32_MAX), have_n = 1; break;
        case 'k': o.k = cal_parse_u64(a->name, v, 1, UINT32_MAX); break;
        case 'j': o.threads = (unsigned)cal_parse_u64(a->name, v, 1, 256); break;
        case 'o': o.out = v; break;
        case 'v': o.verbose = 1; break;
        case O_METHOD:
            if (strcmp(v, "kmeans") && strcmp(v, "kcenter") && strcmp(v, "random"))
                cal_usage_error("--method must be kmeans, kcenter or random, not '%s'", v);
            o.method = v;
            break;
        case O_ALLOC:
            if (strcmp(v, "size") && strcmp(v, "equal")) cal_usage_error("--alloc must be size or equal, not '%s'", v);
            o.alloc = v;
            break;
        case O_MAXITER: o.max_iter = cal_parse_u64(a->name, v, 1, UINT32_MAX); break;
        case O_LIKE: o.like = v; break;
        case O_FEATURES:
            if (strcmp(v, "tfidf") && strcmp(v, "embed")) cal_usage_error("--features must be tfidf or embed, not '%s'", v);
            o.features = v;
            break;
        case O_EMBED: o.embed = v; break;
        case O_DIM: o.dim = (size_t)cal_parse_u64(a->name, v, 1, CAL_FEAT_MAX_DIM); break;
        case O_SEED: o.seed = cal_parse_u64(a->name, v, 0, UINT64_MAX); break;
        case O_ALLOW: o.allow_short = 1; break;
        case O_PARTIAL: o.partial = 1; break;
        case O_SAVE: o.save = v; break;
        case O_PROGRESS: o.progress = 1; break;
        }
    }
    if (!have_n) cal_usage_error("-n N is required");
    int given_features = cal_args_given(a, O_FEATURES);
    if (o.embed && given_features && strcmp(o.features, "embed"))
        cal_usage_error("--embed makes the features the embedding's: --features tfidf contradicts it");
    if (o.embed) o.features = "embed";
    if (!strcmp(o.features, "embed") && !o.embed) cal_usage_error("--features embed needs --embed MODEL");
    if (o.like && cal_args_given(a, O_METHOD)) cal_usage_error("--like is a method of its own: leave out --method");
    if (o.like) o.method = "like";
    int kmeans = !strcmp(o.method, "kmeans");
    if (!kmeans && (cal_args_given(a, 'k') || cal_args_given(a, O_ALLOC) || cal_args_given(a, O_MAXITER)))
        cal_usage_error("-k, --alloc and --max-iter apply to --method kmeans only");
    if (kmeans && cal_args_given(a, 'k') && o.k > o.n) cal_usage_error("-k %llu exceeds -n %llu: a cluster would get no document",
                                                                    (unsigned long long)o.k, (unsigned long long)o.n);
    if (kmeans && !cal_args_given(a, 'k') && o.k > o.n) o.k = o.n;
    if (o.out) cal_output_check(o.out);
    if (o.save) cal_output_check(o.save);
    if (!o.threads) o.threads = cal_par_cpus();
}

/* The stage line, with every default that shapes the choice resolved. */
static void add_stage(cal_meta *m, cal_args *a, int dim_resolved) {
    cal_buf extra = {0};
    int kmeans = !strcmp(o.method, "kmeans");
    if (!o.like && !cal_args_given(a, O_METHOD)) cal_buf_addf(&extra, " --method %s", o.method);
    if (kmeans && !cal_args_given(a, 'k')) cal_buf_addf(&extra, " -k %llu", (unsigned long long)o.k);
    if (kmeans && !cal_args_given(a, O_ALLOC)) cal_buf_addf(&extra, " --alloc %s", o.alloc);
    if (kmeans && !cal_args_given(a, O_MAXITER)) cal_buf_addf(&extra, " --max-iter %llu", (unsigned long long)o.max_iter);
    if (strcmp(o.method, "random")) {
        if (!cal_args_given(a, O_FEATURES) && !o.embed) cal_buf_addf(&extra, " --features %s", o.features);
        if (!cal_args_given(a, O_DIM)) cal_buf_addf(&extra, " --dim %d", dim_resolved);
    }
    if (!cal_args_given(a, O_SEED)) cal_buf_addf(&extra, " --seed %llu", (unsigned long long)o.seed);
    int sn;
    char **sv = cal_args_stage(a, &sn);
    cal_meta_add_stage(m, sn, sv, extra.n ? extra.p + 1 : NULL);
    cal_buf_free(&extra);
}

static void save_features(const float *x, size_t m, size_t d, const size_t *pos) {
    /* Input order: the rows sorted by their documents' positions. */
    size_t *row = cal_xmalloc((m + 1) * sizeof *row);
    uint64_t *key = cal_xmalloc((m + 1) * sizeof *key);
    for (size_t r = 0; r < m; r++) key[r] = pos[r];
    cal_select_order(key, m, row);
    cal_file *f = cal_file_create(o.save);
    cal_buf b = {0};
    uint64_t shape[2] = {m, d};
    cal_npy_header_f32(&b, 2, shape);
    cal_file_write(f, b.p, b.n);
    cal_buf_reserve(&b, d * 4);
    for (size_t i = 0; i < m; i++) {
        const float *v = x + row[i] * d;
        for (size_t j = 0; j < d; j++) {
            uint32_t u;
            memcpy(&u, &v[j], 4);
            cal_st32(b.p + 4 * j, u);
        }
        cal_file_write(f, b.p, d * 4);
    }
    cal_file_commit(f);
    cal_buf_free(&b);
    free(row), free(key);
}

/* ---- Room under an address-space limit (stats/blas.h, Memory) ----------
 * Every thread of cal_par calls the BLAS (fmat's dgemm), and OpenBLAS waits
 * for ever when it cannot map a thread's work buffer: under ulimit -v or -d
 * run only the threads whose buffers fit beside what the choice maps. */
typedef struct {
    size_t n, tn, d, k;
} room_ctx;

#define ROOM_MARGIN ((size_t)32 << 20) /* the writer's buffers, scratch */

/* What the choice maps besides the threads: the features (float32) and the
 * per-document arrays of pass 2 and of the methods (at most 96 bytes), the
 * target's rows widened to float64 (--like), the centroids and k-means++'s
 * candidates, and per thread a block's float64 rows and its distances to
 * at most 256 points. */
static size_t room_more(int t, void *ctx) {
    const room_ctx *r = ctx;
    return r->n * (r->d * 4 + 96) + r->tn * (r->d * 12 + 96) + 3 * r->k * r->d * 8 +
           (size_t)t * CAL_FMAT_BLOCK * (r->d + 256) * 8 + ROOM_MARGIN;
}

static void fit_threads(size_t n, size_t tn, size_t d) {
    const char *which;
    size_t room = cal_address_room(&which);
    if (room == SIZE_MAX) return;
    room_ctx r = {n, tn, d, !strcmp(o.method, "kmeans") ? (size_t)o.k : 1};
    int fit = cal_blas_fit((int)o.threads, room, room_more, &r);
    if (!fit)
        cal_die("out of memory: choosing among %zu documents needs %zu MiB of address space (the %zu-wide features, "
                "a thread and OpenBLAS's work buffer), %zu MiB are left under %s",
                n + tn, (cal_blas_thread_bytes() + room_more(1, &r) + ((size_t)1 << 20) - 1) >> 20, d, room >> 20,
                which);
    if ((unsigned)fit < o.threads)
        cal_warn("%d thread%s instead of %u: %s leaves room for %d of OpenBLAS's work buffers", fit,
                 fit == 1 ? "" : "s", o.threads, which, fit);
    o.threads = (unsigned)fit;
}

typedef struct {
    size_t rec;      /* the record's number */
    uint32_t cluster;
} pick;

static int cmp_pick(const void *a, const void *b) {
    const pick *x = a, *y = b;
    return x->rec < y->rec ? -1 : x->rec > y->rec;
}

int main(int argc, char **argv) {
    cal_set_progname(argv[0]);
    cal_args a;
    parse(argc, argv, &a);
    cal_blas_choose(argv);
    cal_blas_threads(1); /* our threads run the blocks; each BLAS call is single-threaded */
    double t0 = cal_now();
    cal_writer *w = cal_writer_open(o.out);
    cal_embed *emb = o.embed ? cal_embed_open(o.embed, NULL, 0) : NULL;
    size_t dim = o.dim;
    if (emb && !cal_args_given(&a, O_DIM)) dim = cal_embed_dim(emb);
    cal_feat *f = emb ? cal_feat_embed(emb, dim, o.seed) : cal_feat_tfidf(dim, o.seed);
    cal_drops drops = {0};
    cal_progress_init(&progress, o.progress);

    /* Pass 1: every record's place, the terms' document frequencies. */
    docs pool = {0}, target = {0};
    pool.store = cal_recstore_new(), target.store = cal_recstore_new();
    int kind = 0;
    for (int i = 0; i < (a.noperands ? a.noperands : 1); i++) read_docs(&pool, a.noperands ? a.operands[i] : NULL, f, &kind);
    if (o.like) {
        read_docs(&target, o.like, f, &kind);
        cal_meta both = {0};
        char err[300];
        cal_meta_copy(&both, &pool.meta);
        if (!cal_meta_merge(&both, &target.meta, err, sizeof err)) cal_die("%s: %s (vs the documents)", o.like, err);
        cal_meta_free(&both);
    }
    cal_progress_done(&progress);
    cal_shards_enforce(pool.shards, 0, o.partial, "input", &pool.meta);
    if (target.shards) cal_shards_enforce(target.shards, 0, o.partial, o.like, &target.meta);
    cal_recstore_end(pool.store);
    cal_recstore_end(target.store);
    if (!pool.n) cal_die("no documents to choose from (the input holds no records)");
    cal_feat_finish(f);
    fit_threads(pool.n, target.n, dim);
    cal_par *par = cal_par_new(o.threads);

    /* Pass 2: the features, rows in the order of the documents' ids. */
    float *x = NULL, *tx = NULL;
    size_t *pos = NULL, *tpos = NULL;
    size_t m = make_rows(&pool, f, par, &x, &pos), tm = 0;
    if (o.like) tm = make_rows(&target, f, par, &tx, &tpos);
    if (pool.skipped) cal_drops_note(&drops, "documents", "skipped as empty (no terms to make features of)", pool.skipped, 0, NULL);
    if (target.skipped)
        cal_drops_note(&drops, "target documents", "skipped as empty (no terms to make features of)", target.skipped, 0, NULL);
    if (!m) cal_die("none of the %zu documents has features (all are empty)", pool.n);
    if (o.like && !tm) cal_die("%s: none of its %zu documents has features", o.like, target.n);
    size_t want = (size_t)o.n;
    if (m < want) {
        if (!o.allow_short)
            cal_die("only %zu documents (with features) for -n %zu (--allow-short takes them all)", m, want);
        char why[96];
        snprintf(why, sizeof why, "short of -n %zu (the input has %zu with features)", want, m);
        cal_drops_note(&drops, "documents", why, want - m, 0, NULL);
        want = m;
    }
    size_t k = (size_t)o.k;
    int kmeans = !strcmp(o.method, "kmeans"), kcenter = !strcmp(o.method, "kcenter");
    if (kmeans && k > m) cal_die("-k %zu exceeds the %zu documents (with features)", k, m);
    if (o.save) save_features(x, m, dim, pos);

    /* The choice: rows of x and their clusters. */
    double t1 = cal_now();
    cal_fmat X, T;
    cal_fmat_init(&X, x, m, dim);
    size_t *rows = cal_xmalloc((want + 1) * sizeof *rows), nclusters = 0;
    uint32_t *cl = NULL;
    uint64_t *size = NULL;
    cal_kmeans km = {0};
    cal_like_info li = {0};
    double radius = 0;
    char err[300];
    if (kmeans) {
        cal_rng r;
        cal_rng_init2(&r, o.seed, "cal-select kmeans++");
        size_t *seeds = cal_xmalloc(k * sizeof *seeds);
        if (cal_kmeans_pp(&X, k, &r, par, seeds, err, sizeof err)) cal_die("%s", err);
        cal_kmeans_init(&km, m, dim, k, (size_t)o.max_iter);
        double *cn = cal_xmalloc(k * sizeof *cn);
        cal_fmat_points(&X, seeds, k, km.c, cn);
        free(cn), free(seeds);
        cal_kmeans_lloyd(&X, &km, par);
        size = cal_xmalloc(k * sizeof *size);
        cal_kmeans_sizes(&km, m, size);
        double *wt = cal_xmalloc(k * sizeof *wt);
        for (size_t j = 0; j < k; j++) wt[j] = !strcmp(o.alloc, "size") ? (double)size[j] : 1.0;
        uint64_t *per = cal_xmalloc(k * sizeof *per);
        cal_alloc_capped(want, wt, size, k, per);
        cal_kmeans_nearest(&km, m, per, rows);
        nclusters = k;
        cl = cal_xmalloc((want + 1) * sizeof *cl);
        for (size_t i = 0; i < want; i++) cl[i] = km.label[rows[i]];
        free(wt), free(per);
    } else if (kcenter) {
        cal_rng r;
        cal_rng_init2(&r, o.seed, "cal-select kcenter");
        uint32_t *owner = cal_xmalloc(m * sizeof *owner);
        double *d2 = cal_xmalloc(m * sizeof *d2);
        cal_kcenter(&X, want, &r, par, rows, owner, d2);
        nclusters = want;
        size = cal_xcalloc(want, sizeof *size);
        for (size_t i = 0; i < m; i++) size[owner[i]]++, radius = d2[i] > radius ? d2[i] : radius;
        cl = cal_xmalloc((want + 1) * sizeof *cl);
        for (size_t j = 0; j < want; j++) cl[j] = (uint32_t)j;
        free(owner), free(d2);
    } else if (o.like) {
        cal_fmat_init(&T, tx, tm, dim);
        cal_like(&X, &T, want, par, rows, &li);
        cal_fmat_free(&T);
    } else {
        cal_select_random(m, want, o.seed, rows);
    }
    double t2 = cal_now();

    /* Output: the chosen records in input order, with the choice in the metadata. */
    pick *pk = cal_xmalloc((want + 1) * sizeof *pk);
    for (size_t i = 0; i < want; i++) pk[i] = (pick){pos[rows[i]], cl ? cl[i] : 0};
    qsort(pk, want, sizeof *pk, cmp_pick);
    uint64_t *ids = cal_xmalloc((want + 1) * sizeof *ids);
    uint32_t *ocl = cal_xmalloc((want + 1) * sizeof *ocl);
    for (size_t i = 0; i < want; i++) ids[i] = pool.ids[pk[i].rec], ocl[i] = pk[i].cluster;
    cal_meta *meta = cal_writer_meta(w);
    cal_meta_copy(meta, &pool.meta);
    cal_select_record sr = {o.method, m, want, ids, cl ? ocl : NULL, nclusters, size, MAX_IDS};
    size_t left = cal_select_meta(meta, &sr);
    if (left) cal_drops_note(&drops, "ids", "left out of the select.cluster metadata (lists that would pass 40000 ids)", left, 0, NULL);
    if (o.like) {
        char num[40];
        cal_meta_set(meta, "select.bandwidth", cal_fmt_double(li.h, num, sizeof num));
    }
    add_stage(meta, &a, (int)dim);
    cal_drops_record(&drops, meta); /* every record was read: the first header says it */
    cal_buf b = {0};
    cal_rec rec;
    for (size_t i = 0; i < want; i++) {
        if (cal_recstore_get(pool.store, pk[i].rec, &b, &rec, err, sizeof err)) cal_die("%s", err);
        cal_write_raw(w, &rec);
    }
    cal_writer_close(w);

    cal_buf sum = {0};
    if (o.verbose) {
        cal_buf_addf(&sum, "%s: %zu documents", o.method, m);
        if (strcmp(o.method, "random")) cal_buf_addf(&sum, " (%s, dim %zu)", o.features, dim);
        if (o.like) cal_buf_addf(&sum, " toward %zu target documents (bandwidth %.4g)", tm, li.h);
        cal_buf_addf(&sum, ", %zu chosen", want);
        if (kmeans)
            cal_buf_addf(&sum, "; %zu clusters in %zu iterations%s%s", k, km.iter, km.converged ? "" : " (not converged)",
                         km.relocated ? ", empty clusters refilled" : "");
        if (kcenter) cal_buf_addf(&sum, "; covering radius %.4g", sqrt(radius));
        if (nclusters) {
            cal_buf_addf(&sum, "; per cluster (size/chosen):");
            uint64_t *ch = cal_xcalloc(nclusters, sizeof *ch);
            for (size_t i = 0; i < want; i++) ch[cl[i]]++;
            for (size_t j = 0; j < nclusters && j < 64; j++)
                cal_buf_addf(&sum, " %llu/%llu", (unsigned long long)size[j], (unsigned long long)ch[j]);
            if (nclusters > 64) cal_buf_addf(&sum, " ...");
            free(ch);
        }
        if (o.like && li.mmd2_tt == li.mmd2_tt) cal_buf_addf(&sum, "; MMD^2 %.4g", li.mmd2 + li.mmd2_tt);
        cal_buf_addf(&sum, "; features %.2f s, choice %.2f s, %u threads", t1 - t0, t2 - t1, o.threads);
    }
    cal_drops_report(&drops, sum.p);
    cal_buf_free(&sum), cal_buf_free(&b);
    free(pk), free(ids), free(ocl), free(rows), free(cl), free(size), free(x), free(tx), free(pos), free(tpos);
    cal_kmeans_free(&km);
    cal_fmat_free(&X);
    cal_par_free(par);
    cal_feat_free(f);
    cal_embed_close(emb);
    for (docs *D = &pool; D; D = D == &pool ? &target : NULL) {
        cal_recstore_free(D->store);
        free(D->ids), free(D->has);
        cal_meta_free(&D->meta);
        cal_shards_free(D->shards);
    }
    cal_args_free(&a);
    return 0;
}
