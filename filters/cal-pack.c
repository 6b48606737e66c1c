/* cal-pack - turn TOKENS records (documents) into ROW records of exactly
 * LENGTH ids (at most LENGTH with --pad none), by the recipes of the common quantization tools (lib/rows/pack.h;
 * man/cal-pack.1 says how each mode mirrors its peer). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/num.h"
#include "base/opt.h"
#include "base/progress.h"
#include "rows/docin.h"
#include "rows/pack.h"
#include "stream/stream.h"
#include "tok/find.h"
#include "tok/tokenizer.h"

enum { O_ALLOW = 256, O_SEED, O_SEP, O_TAIL, O_PERDOC, O_TRUNC, O_PAD, O_MIN, O_MAX, O_STRAT, O_BOS, O_EOS,
       O_BOSID, O_EOSID, O_PADID, O_RANDOM, O_NOISE, O_PROGRESS, O_RNG, O_TOEND, O_SORT, O_DOCS, O_REPEAT,
       O_PARTIAL, O_SKIP, O_SEPTEXT, O_MAXPOS };

static const cal_opt opts[] = {
    {'l', "length", "N", CAL_STAGE, "row length in tokens (required)", 0},
    {'m', "mode", "MODE", CAL_STAGE, "concat (default), window, doc, article or llama", 0},
    {'n', "rows", "N", CAL_STAGE, "exactly N data rows; error if the input is too short", 0},
    {0, "allow-short", NULL, CAL_STAGE, "write the rows that are possible (fewer than -n,\nor none) instead of failing",
     O_ALLOW},
    {'o', "output", "FILE", 0, "write to FILE (atomically) instead of standard output", 0},
    {'S', "buffer-size", "SIZE", 0, "window, --stratify, --sort: memory for each store of\n"
     "the input before it spills to $TMPDIR (default 64M;\nK/M/G suffixes)", 0},
    {0, "seed", "S", CAL_STAGE, "seed of every random choice (default 0)", O_SEED},
    {0, "rng", "KIND", CAL_STAGE, "whose generator draws: calkit (default), python,\n"
     "numpy or torch, in the peer's order of calls", O_RNG},
    {0, "sep", "eos|bos|none", CAL_STAGE, "concat/window: token between documents (default none)", O_SEP},
    {0, "sep-text", "TEXT", CAL_STAGE, "concat/window: the tokens of TEXT between documents,\n"
     "encoded on their own as tokenizer(TEXT) (GPTQModel's\ncalibration_concat_separator; needs -t)", O_SEPTEXT},
    {'t', "tokenizer", "TOKENIZER", CAL_STAGE, "--sep-text: the stream's tokenizer (as cal-encode -t)", 0},
    {0, "max-positions", "N", CAL_STAGE, "the model's position limit (default: the stream's\n"
     "max_positions, from config.json); -l above it is refused", O_MAXPOS},
    {0, "tail", "drop|pad", CAL_STAGE, "concat/article: last partial row dropped (default)\nor padded", O_TAIL},
    {0, "per-doc", NULL, CAL_STAGE, "window: windows inside documents of > LENGTH tokens", O_PERDOC},
    {0, "to-end", NULL, CAL_STAGE, "window: a window may end at the last token\n(lmdeploy; default: it stops one short, as GPTQ)", O_TOEND},
    {0, "truncate", "tail|head", CAL_STAGE, "doc: cut the tail (default) or the head of long\ndocuments", O_TRUNC},
    {0, "pad", "right|left|none", CAL_STAGE, "doc: side of the padding (default right), or none:\neach row its document's own length", O_PAD},
    {0, "min-tokens", "N", CAL_STAGE, "drop documents shorter than N tokens (counted)", O_MIN},
    {0, "max-tokens", "N", CAL_STAGE, "drop documents longer than N tokens (counted)", O_MAX},
    {0, "docs", "N", CAL_STAGE, "use only the first N documents past the filters", O_DOCS},
    {0, "sort", "input|asc|desc", CAL_STAGE, "doc: rows by length, stable (default input order)", O_SORT},
    {0, "max-repeat", "N", CAL_STAGE, "doc: drop a row whose last token occurs more than N\n"
     "times in it (counted; auto-round: LENGTH/2)", O_REPEAT},
    {0, "skip-chunks", "K", CAL_STAGE, "llama: skip the first K rows' worth of tokens\n"
     "(llama-imatrix --chunk K)", O_SKIP},
    {0, "stratify", "B1,B2,...", CAL_STAGE, "doc: equal draws per token-length bucket (needs -n)", O_STRAT},
    {0, "bos", "none|row|doc|half|alt", CAL_STAGE, "BOS policy (default none)", O_BOS},
    {0, "eos", "none|row|doc|half|alt", CAL_STAGE, "EOS policy (default none)", O_EOS},
    {0, "bos-id", "ID", CAL_STAGE, "BOS id instead of the stream header's", O_BOSID},
    {0, "eos-id", "ID", CAL_STAGE, "EOS id instead of the stream header's", O_EOSID},
    {0, "pad-id", "ID", CAL_STAGE, "pad id instead of the stream header's (else its eos)", O_PADID},
    {0, "random-rows", "N", CAL_STAGE, "append N rows of uniform ids in [0, vocab) (seeded)", O_RANDOM},
    {0, "noise-rows", "N", CAL_STAGE, "append N noise rows (flagged; exported as -1)", O_NOISE},
    {0, "allow-partial", NULL, CAL_STAGE, "accept shards of a fan-out that are missing, doubled\nor made differently (warned; see cal-stream(5))",
     O_PARTIAL},
    {'v', "verbose", NULL, 0, "one-line summary on standard error", 0},
    {0, "progress", NULL, 0, "progress on standard error", O_PROGRESS},
    {0},
};
static const cal_prog prog = {
    "cal-pack -l LENGTH [OPTION]... [FILE]",
    "Read TOKENS records (FILE or standard input) and write ROW records of\n"
    "exactly LENGTH ids to standard output.",
    opts,
    "Documents and tokens left out (filters, truncation, the last partial row),\n"
    "padding and rows short of -n are reported on standard error, even without\n"
    "-v, and recorded in the stream's trailer (the summary of cal-cat(1) shows them).\n"
    "See cal-pack(1) for the modes and how each mirrors its peer.\n",
};

/* The index of s in names, else a usage error naming the option. */
static int pick(const cal_args *a, const char *const *names) {
    for (int i = 0; names[i]; i++)
        if (!strcmp(a->val, names[i])) return i;
    cal_usage_error("%s: unknown value '%s'", a->name, a->val);
}

static uint64_t num(const cal_args *a, uint64_t min, uint64_t max) { return cal_parse_u64(a->name, a->val, min, max); }

typedef struct {
    cal_writer *w;
    cal_progress progress;
    uint64_t rows;
} sink_ctx;

static void put_row(void *ctx, const cal_row_out *r) {
    sink_ctx *x = ctx;
    cal_write_row_role(x->w, r->label, r->id, r->ids, r->mask, r->role, r->len, r->flags);
    x->rows++;
    cal_progress_tick(&x->progress, x->rows, x->rows * r->len * 4);
}

static void rewind_input(void *in) { cal_docin_rewind(in); }
static int next_doc(void *in, cal_pack_doc *d) { return cal_docin_next(in, d); }
/* --sep-text: the tokens of text as GPTQModel encodes its separator,
 * tokenizer(text) with the tokenizer's special tokens added; the tokenizer
 * must be the stream's (its tokenizer_fp). */
static void sep_ids(const char *name, const char *text, const cal_meta *m, cal_ids *out, cal_pack_opts *o) {
    char err[1024], *path = cal_tok_find(name);
    cal_tok *tok = cal_tok_load(path, err, sizeof err);
    if (!tok) cal_die("%s: %s", path, err);
    char fp[17];
    snprintf(fp, sizeof fp, "%016llx", (unsigned long long)cal_tok_fingerprint(tok));
    const char *want = cal_meta_get(m, "tokenizer_fp");
    if (!want || strcmp(want, fp))
        cal_usage_error("-t %s (tokenizer_fp %s) is not the stream's tokenizer (%s)", name, fp, want ? want : "none recorded");
    if (cal_tok_encode(tok, text, strlen(text), CAL_TOK_ADD_SPECIAL, out, err, sizeof err)) cal_die("--sep-text: %s", err);
    if (!out->n) cal_usage_error("--sep-text '%s' has no tokens", text);
    o->sep_ids = out->v, o->nsep = out->n;
    cal_tok_free(tok);
    free(path);
}

/* The stage line: the options as given, then the resolved defaults that the
 * command line left implicit. */
static void add_stage(cal_meta *m, cal_args *a, const cal_pack_opts *o) {
    cal_buf x = {0};
    if (!cal_args_given(a, 'm')) cal_buf_addf(&x, " --mode %s", cal_pack_mode_names[o->mode]);
    if (!cal_args_given(a, O_SEED)) cal_buf_addf(&x, " --seed %llu", (unsigned long long)o->seed);
    if (o->bos != CAL_POL_NONE && o->bos_id >= 0 && !cal_args_given(a, O_BOSID))
        cal_buf_addf(&x, " --bos-id %lld", (long long)o->bos_id);
    if (o->eos_id >= 0 && o->eos != CAL_POL_NONE && !cal_args_given(a, O_EOSID))
        cal_buf_addf(&x, " --eos-id %lld", (long long)o->eos_id);
    if (cal_pack_pads(o) && !cal_args_given(a, O_PADID)) cal_buf_addf(&x, " --pad-id %lld", (long long)o->pad_id);
    cal_buf_addc(&x, 0);
    int n;
    char **v = cal_args_stage_options_first(a, &n);
    cal_meta_add_stage(m, n, v, x.p[0] ? x.p + 1 : NULL);
    cal_buf_free(&x);
}

int main(int argc, char **argv) {
    cal_set_progname(argv[0]);
    cal_pack_opts o;
    cal_pack_opts_init(&o);
    uint64_t random_rows = 0, noise_rows = 0, *strata = NULL, max_positions = 0;
    const char *sep_text = NULL, *tokenizer = NULL;
    cal_ids sep = {0};
    int verbose = 0, progress = 0, partial = 0;
    const char *out = NULL;
    cal_args a;
    cal_args_init(&a, &prog, argc, argv);
    for (int c; (c = cal_args_next(&a)) != -1;) {
        switch (c) {
        case 'l': o.len = (uint32_t)num(&a, 1, CAL_MAX_PAYLOAD / 5); break;
        case 'm': o.mode = pick(&a, cal_pack_mode_names); break;
        case 'n': o.n = num(&a, 0, UINT64_MAX / 2), o.have_n = 1; break;
        case 'o': out = a.val; break;
        case 'S': o.mem = (size_t)cal_parse_size(a.name, a.val); break;
        case 'v': verbose = 1; break;
        case O_ALLOW: o.allow_short = 1; break;
        case O_SEED: o.seed = num(&a, 0, UINT64_MAX); break;
        case O_SEP: o.sep = pick(&a, cal_pack_sep_names); break;
        case O_TAIL: o.tail_pad = pick(&a, (const char *const[]){"drop", "pad", NULL}); break;
        case O_PERDOC: o.per_doc = 1; break;
        case O_TRUNC: o.truncate = pick(&a, (const char *const[]){"tail", "head", NULL}); break;
        case O_PAD: o.pad_side = pick(&a, (const char *const[]){"right", "left", "none", NULL}); break;
        case O_MIN: o.min_tokens = num(&a, 0, UINT32_MAX); break;
        case O_MAX: o.max_tokens = num(&a, 1, UINT32_MAX); break;
        case O_STRAT:
            free(strata);
            o.strata = strata = cal_pack_parse_strata(a.val, &o.nstrata);
            break;
        case O_BOS: o.bos = pick(&a, cal_pack_policy_names); break;
        case O_EOS: o.eos = pick(&a, cal_pack_policy_names); break;
        case O_BOSID: o.bos_id = (int64_t)num(&a, 0, UINT32_MAX); break;
        case O_EOSID: o.eos_id = (int64_t)num(&a, 0, UINT32_MAX); break;
        case O_PADID: o.pad_id = (int64_t)num(&a, 0, UINT32_MAX); break;
        case O_RANDOM: random_rows = num(&a, 0, UINT32_MAX); break;
        case O_NOISE: noise_rows = num(&a, 0, UINT32_MAX); break;
        case O_PROGRESS: progress = 1; break;
        case O_RNG: o.rng = cal_rng_kind_opt(a.name, a.val); break;
        case O_TOEND: o.to_end = 1; break;
        case O_SORT: o.sort = pick(&a, cal_pack_sort_names); break;
        case O_DOCS: o.docs = num(&a, 1, UINT64_MAX); break;
        case O_REPEAT: o.max_repeat = num(&a, 1, UINT32_MAX); break;
        case O_PARTIAL: partial = 1; break;
        case O_SKIP: o.skip = num(&a, 0, UINT32_MAX); break;
        case O_SEPTEXT: sep_text = a.val; break;
        case 't': tokenizer = a.val; break;
        case O_MAXPOS: max_positions = num(&a, 1, UINT32_MAX); break;
        }
    }
    if (a.noperands > 1) cal_usage_error("one input FILE at most (concatenate with cat)");
    if (!sep_text != !tokenizer) cal_usage_error("--sep-text and -t go together");
    char err[1024];
    o.nsep = sep_text != NULL; /* its ids are known once the stream's tokenizer is checked */
    if (cal_pack_check(&o, err, sizeof err)) cal_usage_error("%s", err);

    cal_docin *in = cal_docin_open(a.noperands ? a.operands[0] : NULL, o.mem ? o.mem : CAL_PACK_MEM);
    cal_reader *r = cal_docin_reader(in);
    cal_reader_shards_mode(r, 1, 0, partial);
    const cal_meta *m = cal_reader_meta(r);
    const char *name = cal_reader_name(r);
    /* ids: the option, else the header's key; pad falls back to eos */
    if (o.bos_id < 0) o.bos_id = cal_meta_get_int(m, "bos");
    if (o.eos_id < 0) o.eos_id = cal_meta_get_int(m, "eos");
    if (o.pad_id < 0) o.pad_id = cal_meta_get_int(m, "pad");
    if (o.pad_id < 0) o.pad_id = o.eos_id;
    if (cal_pack_check_ids(&o, err, sizeof err)) cal_usage_error("%s", err);
    /* rows no longer than the model's positions (GPTQModel trims rows to
     * max_position_embeddings; llm-compressor caps max_seq_length at
     * model_max_length with a warning): said before any work */
    int64_t mp = max_positions ? (int64_t)max_positions : cal_meta_get_int(m, "max_positions");
    if (mp > 0 && o.len > (uint64_t)mp)
        cal_usage_error("-l %u exceeds the model's %lld positions (%s); lower -l, or give --max-positions N for a "
                        "model that takes more (GPTQModel would trim rows to it, llm-compressor caps max_seq_length)",
                        o.len, (long long)mp, max_positions ? "--max-positions"
                        : cal_meta_get(m, "max_positions_from") ? cal_meta_get(m, "max_positions_from") : "max_positions");
    if (sep_text) sep_ids(tokenizer, sep_text, m, &sep, &o);
    int64_t vocab = cal_meta_get_int(m, "vocab");
    if (random_rows && vocab <= 0)
        cal_usage_error("--random-rows needs the vocabulary size: the stream header has no 'vocab'");

    sink_ctx out_ctx = {cal_writer_open(out), {0}, 0};
    cal_meta_copy(cal_writer_meta(out_ctx.w), m);
    add_stage(cal_writer_meta(out_ctx.w), &a, &o);
    cal_progress_init(&out_ctx.progress, progress);
    cal_packer *p = cal_packer_new(&o, put_row, &out_ctx);
    if (cal_docin_rereadable(in)) cal_packer_reread(p, rewind_input, next_doc, in);
    cal_pack_doc d;
    uint64_t nread = 0;
    int more = 1;
    while ((more = cal_packer_wants(p)) && cal_docin_next(in, &d)) {
        cal_packer_add_role(p, d.ids, d.role, d.n, d.id, d.label, d.label_len);
        nread++;
    }
    if (cal_packer_finish(p, err, sizeof err)) cal_die("%s: %s", name, err);
    cal_pack_synthetic(o.len, o.rng, o.seed, random_rows, vocab > 0 ? (uint64_t)vocab : 1, noise_rows, put_row, &out_ctx);

    const cal_pack_stats *st = cal_packer_stats(p);
    char sum[512] = "";
    if (verbose)
        snprintf(sum, sizeof sum,
                 "%llu documents (%llu tokens) -> %llu rows of %u (+%llu random, +%llu noise); "
                 "%llu documents dropped, %llu tokens unused",
                 (unsigned long long)st->docs, (unsigned long long)st->tokens, (unsigned long long)st->rows, o.len,
                 (unsigned long long)random_rows, (unsigned long long)noise_rows,
                 (unsigned long long)cal_drops_docs(&st->drops), (unsigned long long)cal_drops_tokens(&st->drops));
    /* The rest of the input is not read, nor its trailer, unless it is a
     * file whose end can be read: else say that upstream losses are unknown. */
    cal_meta tail = {0};
    if (!more && cal_reader_tail_meta(r, &tail) && !cal_meta_merge(cal_writer_meta(out_ctx.w), &tail, err, sizeof err))
        cal_die("%s: %s", name, err);
    else if (!more && !tail.n)
        cal_meta_setf(cal_writer_meta(out_ctx.w), "stopped", "%s read %llu records and stopped (its rows were made)",
                      cal_progname(), (unsigned long long)nread);
    cal_meta_free(&tail);
    cal_drops_finish(&st->drops, out_ctx.w, more ? r : NULL, sum);
    cal_writer_close(out_ctx.w);
    cal_progress_done(&out_ctx.progress);
    cal_docin_close(in);
    cal_packer_free(p);
    cal_ids_free(&sep);
    free(strata);
    cal_args_free(&a);
    return 0;
}
