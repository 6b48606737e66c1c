/* cal-hessian - exact, mergeable Hessian H = sum x x^T and per-channel
 * activation statistics from a cal-stream (see man/cal-hessian.1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/num.h"
#include "base/opt.h"
#include "base/outfile.h"
#include "base/progress.h"
#include "io/gguf.h"
#include "io/safetensors.h"
#include "stats/blas.h"
#include "stats/collect.h"
#include "stream/shards.h"
#include "stats/hessian.h"
#include "stats/imatrix.h"
#include "stats/imatrix_dat.h"
#include "stats/imatrix_stats.h"
#include "stats/result.h"

enum {
    O_EMBED = 256, O_RMSNORM, O_EPS, O_PERPOS, O_DTYPE, O_SCALE, O_SKIP, O_MERGE, O_INVERSE, O_DAMP,
    O_IMATRIX, O_IMNAME, O_GGUFNAMES, O_BYLABEL, O_BLOCK, O_THREADS, O_PROGRESS, O_RANGES, O_PCT, O_PARTIAL,
    O_STATS,
};

static const cal_opt options[] = {
    {'o', "output", "FILE", 0, "output .safetensors (written atomically)", 0},
    {0, "embed", "MODEL[:TENSOR]", CAL_STAGE,
     "embedding table for TOKENS/ROW input (.safetensors,\nindex.json or folder; default tensor *embed_tokens.weight)",
     O_EMBED},
    {0, "rmsnorm", "TENSOR", CAL_STAGE, "apply RMSNorm with this weight to each embedding row", O_RMSNORM},
    {0, "eps", "E", CAL_STAGE, "RMSNorm epsilon (default 1e-6)", O_EPS},
    {0, "per-position", NULL, CAL_STAGE,
     "one update per token position (default: one per\ndistinct token, weighted by its count; same result)", O_PERPOS},
    {0, "dtype", "f32|f64", CAL_STAGE, "dtype of the hessian tensor (default f32)", O_DTYPE},
    {0, "scale", "sum|mean|gptq", CAL_STAGE, "hessian scale: raw sum, / tokens, or 2 / rows (default sum)", O_SCALE},
    {0, "skip-nonfinite", NULL, CAL_STAGE, "skip (and count) vectors holding NaN or Inf instead of failing", O_SKIP},
    {0, "by-label", NULL, CAL_STAGE,
     "one Hessian per VECTORS label (the weight the rows feed),\nall in one result and one imatrix", O_BYLABEL},
    {0, "merge", NULL, CAL_STAGE,
     "inputs are cal-hessian results or imatrix files (GGUF,\nlegacy .dat): add them exactly", O_MERGE},
    {0, "gptq-inverse", NULL, CAL_STAGE,
     "also write hessian_inv_chol: upper Cholesky factor of the\ndamped inverse, as GPTQ uses it", O_INVERSE},
    {0, "damp", "F", CAL_STAGE, "GPTQ damping, fraction of mean(diag) (default 0.01)", O_DAMP},
    {0, "imatrix", "FILE", CAL_STAGE, "also write llama.cpp's imatrix GGUF (atomically; FILE.dat:\nthe legacy format)", O_IMATRIX},
    {0, "show-statistics", NULL, 0, "print the imatrix's per-tensor statistics as llama-imatrix\n"
     "--show-statistics does (of one file: --merge FILE)", O_STATS},
    {0, "imatrix-name", "NAME", CAL_STAGE, "the weight name of unlabelled vectors in the imatrix", O_IMNAME},
    {0, "gguf-names", NULL, CAL_STAGE,
     "labels are HF module names (model.layers.0.mlp.up_proj):\nllama.cpp's names in the imatrix, experts as rows", O_GGUFNAMES},
    {0, "ranges", NULL, CAL_STAGE,
     "also min, max and percentiles of x and |x| per channel and\nper tensor, from mergeable sketches (12 KB a channel)", O_RANGES},
    {0, "percentiles", "P,...", CAL_STAGE, "the percentiles of --ranges (default 99.9,99.99); implies it", O_PCT},
    {0, "block", "N", CAL_STAGE, "rows per BLAS block (default: about 8 MB of float64)", O_BLOCK},
    {0, "allow-partial", NULL, CAL_STAGE, "accept shards of a fan-out that are missing, doubled\nor made differently "
     "(warned; see cal-stream(5)); --merge\nchecks the results' shards like a stream's", O_PARTIAL},
    {0, "threads", "N", 0, "worker threads (default: one per CPU; same result for any N)", O_THREADS},
    {'v', "verbose", NULL, 0, "one-line summary on stderr", 0},
    {0, "progress", NULL, 0, "progress on stderr", O_PROGRESS},
    {0},
};

static const cal_prog prog = {
    "cal-hessian [OPTION]... -o OUT.safetensors [--imatrix OUT.gguf] [FILE]...\n"
    "cal-hessian --merge [OPTION]... [-o OUT.safetensors] [--imatrix OUT.gguf] IN...\n"
    "cal-hessian --merge --show-statistics IMATRIX",
    "Accumulate H = sum x x^T (float64, OpenBLAS on tiles) and per-channel statistics\n"
    "of the vectors in the input streams (default stdin): VECTORS records, or\n"
    "TOKENS/ROW records turned into embedding rows with --embed.",
    options,
    "OPENBLAS_CORETYPE: when unset and OpenBLAS chose older kernels than the CPU's\n"
    "features allow (AVX-512: SkylakeX; AVX2+FMA: Haswell or Zen; ...), cal-hessian\n"
    "re-executes itself with the best ones. A value set by the user is always kept.\n",
};

typedef struct {
    const char *out, *imatrix, *imatrix_name;
    cal_collect_opts in;
    cal_result_form form;
    int merge, verbose, gguf_names, partial, stats;
    double pct[CAL_RESULT_MAX_PCT];
} opts;

static void parse(int argc, char **argv, opts *o, cal_args *a) {
    memset(o, 0, sizeof *o);
    o->in.eps = 1e-6;
    o->form.damp = 0.01;
    o->form.scale = "sum";
    cal_args_init(a, &prog, argc, argv);
    for (int c; (c = cal_args_next(a)) != -1;) {
        const char *v = a->val;
        switch (c) {
        case 'o': o->out = v; break;
        case O_EMBED: o->in.embed = v; break;
        case O_RMSNORM: o->in.rmsnorm = v; break;
        case O_EPS:
            if (!((o->in.eps = cal_parse_double(a->name, v)) >= 0)) cal_usage_error("--eps must be >= 0");
            break;
        case O_PERPOS: o->in.per_position = 1; break;
        case O_DTYPE:
            if (strcmp(v, "f64") && strcmp(v, "f32")) cal_usage_error("--dtype must be f32 or f64, not '%s'", v);
            o->form.f64 = !strcmp(v, "f64");
            break;
        case O_SCALE:
            if (strcmp(v, "sum") && strcmp(v, "mean") && strcmp(v, "gptq"))
                cal_usage_error("--scale must be sum, mean or gptq, not '%s'", v);
            o->form.scale = v;
            break;
        case O_SKIP: o->in.skip_nonfinite = 1; break;
        case O_BYLABEL: o->in.by_label = 1; break;
        case O_GGUFNAMES: o->gguf_names = 1; break;
        case O_MERGE: o->merge = 1; break;
        case O_INVERSE: o->form.gptq_inverse = 1; break;
        case O_DAMP:
            if (!((o->form.damp = cal_parse_double(a->name, v)) >= 0)) cal_usage_error("--damp must be >= 0");
            break;
        case O_IMATRIX: o->imatrix = v; break;
        case O_IMNAME:
            if (!*v || strlen(v) > CAL_IMATRIX_MAX_NAME)
                cal_usage_error("--imatrix-name must have 1 to %d bytes", CAL_IMATRIX_MAX_NAME);
            o->imatrix_name = v;
            break;
        case O_RANGES: o->in.sketch = 1; break;
        case O_PCT:
            if (!(o->form.npct = cal_result_parse_percentiles(v, o->pct)))
                cal_usage_error("--percentiles takes 1 to %d numbers in [0, 100] separated by commas, not '%s'",
                                CAL_RESULT_MAX_PCT, v);
            o->form.pct = o->pct;
            o->in.sketch = 1;
            break;
        case O_BLOCK: o->in.block = (size_t)cal_parse_u64(a->name, v, 1, 1u << 20); break;
        case O_THREADS: o->in.threads = (int)cal_parse_u64(a->name, v, 1, 4096); break;
        case 'v': o->verbose = 1; break;
        case O_PROGRESS: o->in.progress = 1; break;
        case O_PARTIAL: o->partial = 1; break;
        case O_STATS: o->stats = 1; break;
        }
    }
    if (!o->out && !o->imatrix && !o->stats)
        cal_usage_error("no output file (-o OUT.safetensors or --imatrix OUT.gguf)");
    if (o->imatrix && !o->imatrix_name && !o->merge && !o->in.by_label)
        cal_usage_error("--imatrix needs --imatrix-name NAME");
    if (o->in.rmsnorm && !o->in.embed) cal_usage_error("--rmsnorm needs --embed");
    if (o->in.by_label && o->in.embed) cal_usage_error("--by-label takes VECTORS records; --embed does not apply");
    if (o->merge && (o->in.embed || o->in.per_position || o->in.skip_nonfinite || o->in.by_label))
        cal_usage_error("--merge takes cal-hessian results; --embed, --per-position, --skip-nonfinite and --by-label do not apply");
    if (o->merge && !a->noperands) cal_usage_error("--merge needs input files");
}

/* --merge: cal-hessian results add into r, GGUF imatrix files into im.
 * Sketches are kept; their percentiles are --percentiles or the inputs'. */
static void merge(opts *o, const cal_args *a, cal_result *r, cal_imatrix *im) {
    char err[768];
    cal_shards *shards = cal_shards_new(); /* each result a stream of its own */
    cal_meta rest = {0};                   /* the later results' metadata */
    for (int k = 0; k < a->noperands; k++) {
        const char *path = a->operands[k];
        if (!cal_gguf_sniff(path) && cal_imatrix_dat_sniff(path)) { /* llama.cpp's legacy format */
            if (o->out) cal_die("%s: a legacy imatrix holds no hessian: merge it with --imatrix and no -o", path);
            if (!cal_imatrix_add_dat_file(im, path, CAL_IMATRIX_DAT_CHUNK, err, sizeof err)) cal_die("%s", err);
            continue;
        }
        if (!cal_gguf_sniff(path)) {
            cal_st_file *f = cal_st_open(path);
            cal_meta fm = {0};
            cal_result_file_meta(f, &fm);
            cal_shards_header(shards, &fm, 0);
            if (!cal_meta_merge(&rest, &fm, err, sizeof err)) cal_die("%s: %s", path, err);
            cal_meta_free(&fm);
            cal_result_add_file(r, f);
            cal_st_close(f);
            cal_imatrix_add_dataset(im, path);
            continue;
        }
        if (o->out) cal_die("%s: a GGUF imatrix holds no hessian: merge it with --imatrix and no -o", path);
        cal_gguf_file *g = cal_gguf_open_soft(path, err, sizeof err);
        if (!g || !cal_imatrix_add_gguf(im, g, err, sizeof err)) cal_die("%s", err);
        cal_gguf_close(g);
    }
    /* a merge of results is where shards meet: all of them, alike */
    cal_shards_enforce(shards, 1, o->partial, "--merge", &rest);
    cal_shards_free(shards);
    if (!cal_meta_merge(&r->meta, &rest, err, sizeof err)) cal_die("--merge: %s", err);
    cal_meta_free(&rest);
    if ((o->imatrix || o->stats) && r->n && !cal_result_to_imatrix(r, o->imatrix_name, o->gguf_names, im, err, sizeof err))
        cal_die("%s", err);
    if (o->in.sketch && !r->percentiles) cal_die("--ranges/--percentiles: no input holds sketches (made with --ranges)");
    if (!r->percentiles || o->form.npct) return;
    if (r->percentiles_differ) cal_die("the inputs hold different percentile lists: choose one with --percentiles");
    o->form.npct = cal_result_parse_percentiles(r->percentiles, o->pct);
    o->form.pct = o->pct;
}

int main(int argc, char **argv) {
    cal_set_progname(argv[0]);
    opts o;
    cal_args a;
    parse(argc, argv, &o, &a);
    cal_blas_choose(argv);
    cal_blas_threads(o.in.threads);
    /* Every output is opened before any work (a bad path fails at once) and
     * committed only when all of them are written. */
    cal_file *out = o.out ? cal_file_create(o.out) : NULL, *imf = o.imatrix ? cal_file_create(o.imatrix) : NULL;
    cal_result r = {0};
    cal_imatrix im = {0};
    double t0 = cal_now();
    int threads = 0;
    cal_buf extra = {0};
    if (o.merge) {
        merge(&o, &a, &r, &im);
    } else {
        cal_collect *c = cal_collect_new(&o.in);
        for (int k = 0; k < (a.noperands ? a.noperands : 1); k++) cal_collect_read(c, a.noperands ? a.operands[k] : "-");
        cal_collect_finish(c, &r);
        cal_shards_enforce(cal_collect_shards(c), 0, o.partial,
                           a.noperands > 1 ? "input" : a.noperands ? a.operands[0] : "stdin", &r.meta);
        threads = cal_collect_threads(c);
        cal_collect_free(c);
        /* Resolved defaults go into the stage line so the run can be repeated. */
        char num[40];
        cal_buf_addf(&extra, "--dtype %s --scale %s", o.form.f64 ? "f64" : "f32", o.form.scale);
        if (o.in.rmsnorm) cal_buf_addf(&extra, " --eps %s", cal_fmt_double(o.in.eps, num, sizeof num));
        if (o.form.gptq_inverse) cal_buf_addf(&extra, " --damp %s", cal_fmt_double(o.form.damp, num, sizeof num));
        if (o.in.sketch && !o.form.npct) {
            o.form.npct = cal_result_parse_percentiles("99.9,99.99", o.pct);
            o.form.pct = o.pct;
            cal_buf_addf(&extra, " --percentiles 99.9,99.99");
        }
        char err[300];
        if ((o.imatrix || o.stats) && !cal_result_to_imatrix(&r, o.imatrix_name, o.gguf_names, &im, err, sizeof err))
            cal_die("%s", err);
        if (!cal_imatrix_add_sources(&im, &r.meta)) /* the stream names no source */
            for (int k = 0; k < (a.noperands ? a.noperands : 1); k++)
                cal_imatrix_add_dataset(&im, a.noperands ? a.operands[k] : "stdin");
    }
    double t1 = cal_now();
    int sargc;
    char **sargv = cal_args_stage(&a, &sargc);
    cal_meta_add_stage(&r.meta, sargc, sargv, extra.p);
    cal_buf_free(&extra);
    if (imf) {
        cal_buf b = {0};
        size_t il = strlen(o.imatrix);
        if (il >= 4 && !strcmp(o.imatrix + il - 4, ".dat")) cal_imatrix_serialize_dat(&im, &b);
        else cal_imatrix_serialize(&im, &b);
        cal_file_write(imf, b.p, b.n);
        cal_buf_free(&b);
    }
    if (out) cal_result_write(&r, &o.form, out);
    cal_file *all[2];
    size_t nall = 0;
    if (out) all[nall++] = out;
    if (imf) all[nall++] = imf;
    cal_file_commit_all(all, nall); /* both or neither */
    if (o.stats && !cal_imatrix_statistics(&im, o.imatrix         ? o.imatrix
                                                : a.noperands == 1 ? a.operands[0]
                                                                   : "the merged imatrix",
                                           stdout))
        cal_die("--show-statistics: no tensor of the imatrix has data");
    if (o.stats && (fflush(stdout) || ferror(stdout))) cal_die("standard output: write error");
    if (o.verbose) {
        double n = 0, rows = 0, pad = 0, noise = 0, skipped = 0, flop = 0, sec = t1 - t0;
        for (size_t i = 0; i < r.n; i++) {
            const cal_result_entry *e = &r.e[i];
            n += e->s->count, rows += (double)e->c.rows, pad += (double)e->c.padding;
            noise += (double)e->c.noise_rows, skipped += (double)e->c.skipped;
            flop += e->s->count * (double)e->s->d * (double)(e->s->d + 1);
        }
        char what[64] = "";
        if (r.n != 1) snprintf(what, sizeof what, "%zu hessians, ", r.n);
        if (o.merge)
            fprintf(stderr, "cal-hessian: merged %d inputs: %s%zu imatrix entries, %.0f tokens, %.0f rows\n",
                    a.noperands, what, im.n, n, rows);
        else
            fprintf(stderr,
                    "cal-hessian: %sd %zu, %.0f vectors, %.0f rows, %.0f padding, %.0f noise rows, %.0f skipped, "
                    "%.2f s, %.1f GFLOP/s on %d threads (%s)\n",
                    what, r.e[0].s->d, n, rows, pad, noise, skipped, sec, sec > 0 ? flop / sec / 1e9 : 0, threads,
                    cal_blas_kernels());
    }
    cal_result_free(&r);
    cal_imatrix_free(&im);
    cal_args_free(&a);
    return 0;
}
