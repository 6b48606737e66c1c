/* cal-pack - turn TOKENS records (documents) into ROW records of exactly
 * LENGTH ids, by the recipes of the common quantization tools (see
 * man/cal-pack.1 for how each mode mirrors its peer). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/hash.h"
#include "base/num.h"
#include "base/progress.h"
#include "base/rng.h"
#include "rows/alloc.h"
#include "stream/stageargs.h"
#include "stream/stream.h"

enum { M_CONCAT, M_WINDOW, M_DOC, M_ARTICLE };
enum { P_NONE, P_ROW, P_DOC, P_HALF, P_ALT };
enum { SEP_NONE, SEP_EOS, SEP_BOS };

static const char *const mode_names[] = {"concat", "window", "doc", "article", NULL};
static const char *const pol_names[] = {"none", "row", "doc", "half", "alt", NULL};
static const char *const sep_names[] = {"none", "eos", "bos", NULL};

static const char usage[] =
    "Usage: cal-pack -l LENGTH [OPTION]... [FILE]\n"
    "Read TOKENS records (FILE or standard input) and write ROW records of\n"
    "exactly LENGTH ids to standard output.\n"
    "\n"
    "  -l, --length N        row length in tokens (required)\n"
    "  -m, --mode MODE       concat (default), window, doc or article\n"
    "  -n, --rows N          exactly N data rows; error if the input is too short\n"
    "      --allow-short     with -n: write the rows that are possible instead\n"
    "  -o, --output FILE     write to FILE (atomically) instead of standard output\n"
    "      --seed S          seed of every random choice (default 0)\n"
    "  --sep eos|bos|none    concat/window: token between documents (default none)\n"
    "  --tail drop|pad       concat/article: last partial row dropped (default) or padded\n"
    "  --per-doc             window: windows inside documents of > LENGTH tokens\n"
    "  --truncate tail|head  doc: cut the tail (default) or the head of long documents\n"
    "  --pad right|left      doc: side of the padding (default right)\n"
    "  --min-tokens N        drop documents shorter than N tokens (counted)\n"
    "  --max-tokens N        drop documents longer than N tokens (counted)\n"
    "  --stratify B1,B2,...  doc: equal draws per token-length bucket (needs -n)\n"
    "  --bos none|row|doc|half|alt  BOS policy (default none)\n"
    "  --eos none|row|doc|half|alt  EOS policy (default none)\n"
    "  --bos-id ID, --eos-id ID, --pad-id ID  override the stream header's ids\n"
    "  --random-rows N       append N rows of uniform ids in [0, vocab) (seeded)\n"
    "  --noise-rows N        append N noise rows (flagged; exported as -1)\n"
    "  -v, --verbose         one-line summary on standard error\n"
    "      --progress        progress on standard error\n"
    "      --help            show this help and exit\n"
    "      --version         show the version and exit\n";

typedef struct {
    uint32_t len;
    int mode, sep, tail_pad, per_doc, trunc_head, pad_left, bos_pol, eos_pol;
    int have_n, allow_short, verbose, progress;
    uint64_t n, seed, min_tokens, max_tokens, random_rows, noise_rows;
    int64_t bos, eos, pad;
    uint64_t *strata;
    size_t nstrata;
    const char *in, *out;
} opts;

/* A source document kept in memory (window, stratify). */
typedef struct {
    uint64_t id, start, len;
    char label[CAL_MAX_LABEL + 1];
} doc;

static opts o;
static cal_writer *w;
static cal_rng rng;
static uint64_t rows_out, docs_in, docs_kept, docs_dropped, tokens_in, tokens_dropped;
static cal_progress prog;

static int pick(const char *opt, const char *s, const char *const *names) {
    for (int i = 0; names[i]; i++)
        if (!strcmp(s, names[i])) return i;
    cal_usage_error("%s: unknown value '%s'", opt, s);
}

static void copy_label(char *dst, const cal_rec *r) {
    memcpy(dst, r->label, r->label_len);
    dst[r->label_len] = 0;
}

/* Row id: derived from where the row starts (source document id and token
 * offset), so the same input and options always give the same ids. */
static uint64_t row_id(uint64_t src, uint64_t off) {
    uint8_t b[16];
    cal_st64(b, src);
    cal_st64(b + 8, off);
    return cal_hash_seed(b, 16, o.len);
}

/* Row-level BOS/EOS for data row r (P_DOC counts as row-level in doc mode). */
static int row_has(int pol, uint64_t r) {
    if (pol == P_ROW || (pol == P_DOC && o.mode == M_DOC)) return 1;
    if (pol == P_HALF) return r >= o.n / 2;
    if (pol == P_ALT) return r % 2 == 0;
    return 0;
}

static int done(void) { return o.have_n && rows_out >= o.n; }

static void emit(const uint32_t *ids, const uint8_t *mask, const char *label, uint64_t id, uint32_t flags) {
    cal_write_row(w, label, id, ids, mask, o.len, mask ? flags | CAL_ROW_MASK : flags);
    rows_out++;
    cal_progress_tick(&prog, rows_out, (uint64_t)rows_out * o.len * 4);
}

/* ---- concat: streaming, memory O(LENGTH) -------------------------------- */
static struct {
    uint32_t *ids;
    uint8_t *mask;
    uint32_t n, cap;       /* tokens in the row so far / content capacity */
    int eos;               /* this row ends with the row-level EOS */
    uint64_t src, off;
    char label[CAL_MAX_LABEL + 1];
} row;

static void row_finish(void) {
    if (row.eos) row.ids[row.n++] = (uint32_t)o.eos;
    emit(row.ids, NULL, row.label, row_id(row.src, row.off), 0);
    row.n = 0;
}

/* Feeds the tokens of one document (already with its BOS/EOS/separator). */
static void concat_feed(const uint32_t *t, size_t n, uint64_t src, const char *label) {
    size_t i = 0;
    while (i < n && !done()) {
        if (row.n == 0) {
            int b = row_has(o.bos_pol, rows_out);
            row.eos = row_has(o.eos_pol, rows_out);
            row.cap = o.len - (uint32_t)row.eos;
            row.src = src;
            row.off = i;
            strcpy(row.label, label);
            if (b) row.ids[row.n++] = (uint32_t)o.bos;
        }
        size_t k = row.cap - row.n;
        if (k > n - i) k = n - i;
        memcpy(row.ids + row.n, t + i, k * 4);
        row.n += (uint32_t)k;
        i += k;
        if (row.n == row.cap) row_finish();
    }
}

static void concat_end(void) {
    if (row.n == 0 || done()) return;
    if (!o.tail_pad) {
        tokens_dropped += row.n;
        row.n = 0;
        return;
    }
    uint32_t real = row.n;
    if (row.eos) row.ids[real++] = (uint32_t)o.eos;
    for (uint32_t i = 0; i < o.len; i++) {
        row.mask[i] = i < real;
        if (i >= real) row.ids[i] = (uint32_t)o.pad;
    }
    emit(row.ids, row.mask, row.label, row_id(row.src, row.off), 0);
    row.n = 0;
}

/* The document as it enters the concatenation: separator, BOS, ids, EOS. */
static void wrap_doc(const cal_rec *r, cal_ids *t, int first) {
    t->n = 0;
    if (!first && o.sep == SEP_EOS) cal_ids_push(t, (uint32_t)o.eos);
    if (!first && o.sep == SEP_BOS) cal_ids_push(t, (uint32_t)o.bos);
    if (o.bos_pol == P_DOC) cal_ids_push(t, (uint32_t)o.bos);
    size_t n = cal_tokens_len(r);
    cal_ids_reserve(t, t->n + n + 1);
    for (size_t i = 0; i < n; i++) t->v[t->n++] = cal_token(r, i);
    if (o.eos_pol == P_DOC) cal_ids_push(t, (uint32_t)o.eos);
}

/* ---- article: EXL2 wiki/tiny -------------------------------------------- */
static cal_ids art;           /* whole articles of the row being built */
static uint64_t art_src;
static char art_label[CAL_MAX_LABEL + 1];

static void article_emit(int at_end) {
    /* EXL2: rows r < ROWS/2 are art[1 : LENGTH+1] (leading BOS dropped). */
    size_t shift = o.bos_pol == P_HALF && rows_out < o.n / 2 ? 1 : 0;
    uint8_t *mask = NULL;
    if (at_end) {
        cal_ids_reserve(&art, shift + o.len);
        for (size_t i = art.n; i < shift + o.len; i++) art.v[i] = (uint32_t)o.pad;
        for (size_t i = 0; i < o.len; i++) row.mask[i] = shift + i < art.n;
        mask = row.mask;
    }
    emit(art.v + shift, mask, art_label, row_id(art_src, 0), 0);
    art.n = 0;
}

static void article_feed(const cal_rec *r) {
    if (art.n == 0) {
        art_src = r->id;
        copy_label(art_label, r);
    }
    /* alt (EXL3): documents of even rows are wrapped, of odd rows not */
    int even = rows_out % 2 == 0;
    if (o.bos_pol == P_DOC || o.bos_pol == P_HALF || (o.bos_pol == P_ALT && even)) cal_ids_push(&art, (uint32_t)o.bos);
    size_t n = cal_tokens_len(r);
    cal_ids_reserve(&art, art.n + n + 2);
    for (size_t i = 0; i < n; i++) art.v[art.n++] = cal_token(r, i);
    if (o.eos_pol == P_DOC || (o.eos_pol == P_ALT && even)) cal_ids_push(&art, (uint32_t)o.eos);
    /* with half, one token more so that the first half can drop the BOS */
    if (art.n >= (size_t)o.len + (o.bos_pol == P_HALF)) article_emit(0);
}

/* ---- doc: one row per document, truncated or padded ---------------------- */
static void doc_row(const uint32_t *t, size_t n, uint64_t src, const char *label) {
    int b = row_has(o.bos_pol, rows_out), e = row_has(o.eos_pol, rows_out);
    size_t room = o.len - (size_t)b - (size_t)e, skip = 0;
    if (n > room) {
        if (o.trunc_head) skip = n - room;
        tokens_dropped += n - room;
        n = room;
    }
    size_t real = (size_t)b + n + (size_t)e, pad = o.len - real, at = o.pad_left ? pad : 0;
    for (size_t i = 0; i < o.len; i++) {
        row.ids[i] = (uint32_t)o.pad;
        row.mask[i] = i >= at && i < at + real;
    }
    if (b) row.ids[at] = (uint32_t)o.bos;
    memcpy(row.ids + at + b, t + skip, n * 4);
    if (e) row.ids[at + b + n] = (uint32_t)o.eos;
    emit(row.ids, pad ? row.mask : NULL, label, row_id(src, skip), 0);
}

/* ---- window: GPTQ / optimum / lmdeploy ---------------------------------- */
static cal_ids all;           /* the concatenation (or every document) */
static doc *docs;
static size_t ndocs, capdocs;

static void keep_doc(const cal_rec *r, const cal_ids *t) {
    if (ndocs == capdocs) {
        capdocs = capdocs ? 2 * capdocs : 1024;
        docs = cal_xrealloc(docs, capdocs * sizeof *docs);
    }
    doc *d = &docs[ndocs++];
    d->id = r->id;
    d->start = all.n;
    d->len = t->n;
    copy_label(d->label, r);
    cal_ids_reserve(&all, all.n + t->n);
    memcpy(all.v + all.n, t->v, t->n * 4);
    all.n += t->n;
}

static size_t doc_at(uint64_t pos) {
    size_t lo = 0, hi = ndocs; /* last doc with start <= pos */
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (docs[mid].start <= pos) lo = mid;
        else hi = mid;
    }
    return lo;
}

static void window_rows(const char *name) {
    /* Eligible documents for each content length (at most two differ). */
    size_t *elig = cal_xmalloc((ndocs ? ndocs : 1) * sizeof *elig), nelig = 0;
    uint64_t elig_for = UINT64_MAX;
    while (!done()) {
        int b = row_has(o.bos_pol, rows_out), e = row_has(o.eos_pol, rows_out);
        uint64_t c = o.len - (uint64_t)b - (uint64_t)e, start;
        size_t d;
        if (o.per_doc) {
            if (elig_for != c) {
                nelig = 0;
                for (size_t i = 0; i < ndocs; i++)
                    if (docs[i].len >= c + 1) elig[nelig++] = i;
                elig_for = c;
            }
            if (!nelig) {
                if (o.allow_short) break;
                cal_die("%s: no document has more than %llu tokens; window --per-doc needs one (0 rows possible)",
                        name, (unsigned long long)c);
            }
            d = elig[cal_rng_below(&rng, nelig)];
            /* GPTQ c4: i = randint(0, len - seqlen - 1) inside the document */
            start = docs[d].start + cal_rng_below(&rng, docs[d].len - c);
        } else {
            if (all.n < c + 1) {
                if (o.allow_short) break;
                cal_die("%s: input has %zu tokens; window mode needs at least %llu (0 rows possible)", name, all.n,
                        (unsigned long long)(c + 1));
            }
            /* GPTQ wikitext2: i = randint(0, L - seqlen - 1) */
            start = cal_rng_below(&rng, all.n - c);
            d = doc_at(start);
        }
        size_t k = 0;
        if (b) row.ids[k++] = (uint32_t)o.bos;
        memcpy(row.ids + k, all.v + start, c * 4);
        k += c;
        if (e) row.ids[k] = (uint32_t)o.eos;
        emit(row.ids, NULL, docs[d].label, row_id(docs[d].id, start - docs[d].start), 0);
    }
    free(elig);
}

/* ---- stratify: equal draws per length bucket, then doc rows ------------- */
static void stratify_rows(const char *name) {
    size_t nb = o.nstrata;
    /* static: still reachable if an error ends the program (no leak report) */
    static size_t *count, *bucket, *members;
    static double *wt;
    static uint64_t *quota;
    static unsigned char *take;
    count = cal_xcalloc(nb, sizeof *count);
    bucket = cal_xmalloc((ndocs ? ndocs : 1) * sizeof *bucket);
    for (size_t i = 0; i < ndocs; i++) {
        size_t b = 0;
        while (b + 1 < nb && docs[i].len > o.strata[b]) b++;
        bucket[i] = b;
        count[b]++;
    }
    wt = cal_xmalloc(nb * sizeof *wt);
    quota = cal_xmalloc(nb * sizeof *quota);
    for (size_t b = 0; b < nb; b++) wt[b] = 1;
    cal_alloc_largest_remainder(o.n, wt, nb, quota);
    take = cal_xcalloc(ndocs ? ndocs : 1, 1);
    members = cal_xmalloc((ndocs ? ndocs : 1) * sizeof *members);
    for (size_t b = 0; b < nb; b++) {
        size_t m = 0;
        for (size_t i = 0; i < ndocs; i++)
            if (bucket[i] == b) members[m++] = i;
        uint64_t q = quota[b];
        if (m < q) {
            if (!o.allow_short) {
                char range[64];
                if (b + 1 < nb) snprintf(range, sizeof range, "%llu-%llu", (unsigned long long)(b ? o.strata[b - 1] + 1 : 1),
                                         (unsigned long long)o.strata[b]);
                else snprintf(range, sizeof range, "%llu+", (unsigned long long)(b ? o.strata[b - 1] + 1 : 1));
                cal_die("%s: length bucket %s has %zu documents, %llu needed for -n %llu (use --allow-short)", name,
                        range, m, (unsigned long long)q, (unsigned long long)o.n);
            }
            q = m;
        }
        /* partial Fisher-Yates: the first q members are a uniform sample */
        for (size_t i = 0; i < q; i++) {
            size_t j = i + (size_t)cal_rng_below(&rng, m - i);
            size_t t = members[i];
            members[i] = members[j];
            members[j] = t;
            take[members[i]] = 1;
        }
    }
    for (size_t i = 0; i < ndocs; i++)
        if (take[i]) doc_row(all.v + docs[i].start, docs[i].len, docs[i].id, docs[i].label);
    free(count), free(bucket), free(wt), free(quota), free(take), free(members);
}

/* ---- synthetic rows ------------------------------------------------------ */
static void synthetic_rows(uint64_t vocab) {
    cal_rng rr;
    cal_rng_init2(&rr, o.seed, "random-rows");
    for (uint64_t r = 0; r < o.random_rows; r++) {
        for (uint32_t i = 0; i < o.len; i++) row.ids[i] = (uint32_t)cal_rng_below(&rr, vocab);
        cal_write_row(w, "random", row_id(0x72616e646f6dULL, r), row.ids, NULL, o.len, 0);
    }
    memset(row.ids, 0, (size_t)o.len * 4);
    for (uint64_t r = 0; r < o.noise_rows; r++)
        cal_write_row(w, "noise", row_id(0x6e6f697365ULL, r), row.ids, NULL, o.len, CAL_ROW_NOISE);
}

static void parse_strata(const char *s) {
    char *copy = cal_xstrdup(s), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        o.strata = cal_xrealloc(o.strata, (o.nstrata + 1) * sizeof *o.strata);
        uint64_t v = cal_parse_u64("--stratify", t, 1, UINT32_MAX);
        if (o.nstrata && v <= o.strata[o.nstrata - 1]) cal_usage_error("--stratify: bounds must increase");
        o.strata[o.nstrata++] = v;
    }
    if (!o.nstrata) cal_usage_error("--stratify: no bounds");
    free(copy);
}

/* Resolves an id: the option's value, else the header key, else -1. */
static int64_t resolve(int64_t opt, const cal_meta *m, const char *key) {
    return opt >= 0 ? opt : cal_meta_get_int(m, key);
}

int main(int argc, char **argv) {
    cal_set_progname(argv[0]);
    enum { O_ALLOW = 256, O_SEED, O_SEP, O_TAIL, O_PERDOC, O_TRUNC, O_PAD, O_MIN, O_STRAT, O_BOS, O_EOS,
           O_BOSID, O_EOSID, O_PADID, O_MAX, O_RANDOM, O_NOISE, O_PROGRESS, O_HELP, O_VERSION };
    static const struct option lo[] = {
        {"length", 1, 0, 'l'}, {"mode", 1, 0, 'm'}, {"rows", 1, 0, 'n'}, {"output", 1, 0, 'o'},
        {"verbose", 0, 0, 'v'}, {"allow-short", 0, 0, O_ALLOW}, {"seed", 1, 0, O_SEED},
        {"sep", 1, 0, O_SEP}, {"tail", 1, 0, O_TAIL}, {"per-doc", 0, 0, O_PERDOC},
        {"truncate", 1, 0, O_TRUNC}, {"pad", 1, 0, O_PAD}, {"min-tokens", 1, 0, O_MIN}, {"max-tokens", 1, 0, O_MAX},
        {"stratify", 1, 0, O_STRAT}, {"bos", 1, 0, O_BOS}, {"eos", 1, 0, O_EOS},
        {"bos-id", 1, 0, O_BOSID}, {"eos-id", 1, 0, O_EOSID}, {"pad-id", 1, 0, O_PADID},
        {"random-rows", 1, 0, O_RANDOM}, {"noise-rows", 1, 0, O_NOISE}, {"progress", 0, 0, O_PROGRESS},
        {"help", 0, 0, O_HELP}, {"version", 0, 0, O_VERSION}, {0, 0, 0, 0}};
    o.bos = o.eos = o.pad = -1;
    int c;
    while ((c = getopt_long(argc, argv, "l:m:n:o:v", lo, NULL)) != -1) {
        switch (c) {
        case 'l': o.len = (uint32_t)cal_parse_u64("-l", optarg, 1, CAL_MAX_PAYLOAD / 5); break;
        case 'm': o.mode = pick("--mode", optarg, mode_names); break;
        case 'n': o.n = cal_parse_u64("-n", optarg, 0, UINT64_MAX / 2), o.have_n = 1; break;
        case 'o': o.out = optarg; break;
        case 'v': o.verbose = 1; break;
        case O_ALLOW: o.allow_short = 1; break;
        case O_SEED: o.seed = cal_parse_u64("--seed", optarg, 0, UINT64_MAX); break;
        case O_SEP: o.sep = pick("--sep", optarg, sep_names); break;
        case O_TAIL:
            if (!strcmp(optarg, "pad")) o.tail_pad = 1;
            else if (strcmp(optarg, "drop")) cal_usage_error("--tail: unknown value '%s'", optarg);
            break;
        case O_PERDOC: o.per_doc = 1; break;
        case O_TRUNC:
            if (!strcmp(optarg, "head")) o.trunc_head = 1;
            else if (strcmp(optarg, "tail")) cal_usage_error("--truncate: unknown value '%s'", optarg);
            break;
        case O_PAD:
            if (!strcmp(optarg, "left")) o.pad_left = 1;
            else if (strcmp(optarg, "right")) cal_usage_error("--pad: unknown value '%s'", optarg);
            break;
        case O_MIN: o.min_tokens = cal_parse_u64("--min-tokens", optarg, 0, UINT32_MAX); break;
        case O_MAX: o.max_tokens = cal_parse_u64("--max-tokens", optarg, 1, UINT32_MAX); break;
        case O_STRAT: parse_strata(optarg); break;
        case O_BOS: o.bos_pol = pick("--bos", optarg, pol_names); break;
        case O_EOS: o.eos_pol = pick("--eos", optarg, pol_names); break;
        case O_BOSID: o.bos = (int64_t)cal_parse_u64("--bos-id", optarg, 0, UINT32_MAX); break;
        case O_EOSID: o.eos = (int64_t)cal_parse_u64("--eos-id", optarg, 0, UINT32_MAX); break;
        case O_PADID: o.pad = (int64_t)cal_parse_u64("--pad-id", optarg, 0, UINT32_MAX); break;
        case O_RANDOM: o.random_rows = cal_parse_u64("--random-rows", optarg, 0, UINT32_MAX); break;
        case O_NOISE: o.noise_rows = cal_parse_u64("--noise-rows", optarg, 0, UINT32_MAX); break;
        case O_PROGRESS: o.progress = 1; break;
        case O_HELP: fputs(usage, stdout); return 0;
        case O_VERSION: cal_print_version();
        default: fprintf(stderr, "Try 'cal-pack --help'.\n"); return CAL_EXIT_USAGE;
        }
    }
    if (optind < argc) o.in = argv[optind++];
    if (optind < argc) cal_usage_error("one input FILE at most (concatenate with cat)");
    if (!o.len) cal_usage_error("-l LENGTH is required");
    if (o.mode == M_WINDOW && !o.have_n) cal_usage_error("--mode window needs -n ROWS");
    if ((o.bos_pol == P_HALF || o.eos_pol == P_HALF) && !o.have_n)
        cal_usage_error("--bos/--eos half needs -n ROWS (the half is of the rows)");
    if (o.nstrata && (o.mode != M_DOC || !o.have_n)) cal_usage_error("--stratify needs --mode doc and -n ROWS");
    if (o.per_doc && o.mode != M_WINDOW) cal_usage_error("--per-doc needs --mode window");
    if (o.mode == M_ARTICLE && (o.eos_pol == P_ROW || o.eos_pol == P_HALF || o.bos_pol == P_ROW))
        cal_usage_error("--mode article takes --bos none|doc|half|alt and --eos none|doc|alt");
    if (o.sep != SEP_NONE && o.mode != M_CONCAT && o.mode != M_WINDOW)
        cal_usage_error("--sep needs --mode concat or window");
    if (o.sep != SEP_NONE && o.per_doc) cal_usage_error("--sep has no use with --per-doc (windows stay inside documents)");
    if ((o.trunc_head || o.pad_left || cal_arg_given(argc, argv, "--truncate", NULL) ||
         cal_arg_given(argc, argv, "--pad", NULL)) && o.mode != M_DOC)
        cal_usage_error("--truncate and --pad need --mode doc");
    if (o.tail_pad && o.mode != M_CONCAT && o.mode != M_ARTICLE)
        cal_usage_error("--tail needs --mode concat or article");

    cal_reader *r = cal_reader_open(o.in);
    const cal_meta *m = cal_reader_meta(r);
    const char *name = cal_reader_name(r);
    o.bos = resolve(o.bos, m, "bos");
    o.eos = resolve(o.eos, m, "eos");
    o.pad = resolve(o.pad, m, "pad");
    if (o.pad < 0) o.pad = o.eos;
    int need_pad = o.mode == M_DOC || o.tail_pad;
    if ((o.bos_pol != P_NONE || o.sep == SEP_BOS) && o.bos < 0)
        cal_usage_error("the BOS policy needs a BOS id: the stream header has no 'bos'; give --bos-id");
    if ((o.eos_pol != P_NONE || o.sep == SEP_EOS) && o.eos < 0)
        cal_usage_error("the EOS policy needs an EOS id: the stream header has no 'eos'; give --eos-id");
    if (need_pad && o.pad < 0)
        cal_usage_error("padding needs an id: the stream header has no 'pad' or 'eos'; give --pad-id");
    int64_t vocab = cal_meta_get_int(m, "vocab");
    if (o.random_rows && vocab <= 0)
        cal_usage_error("--random-rows needs the vocabulary size: the stream header has no 'vocab'");
    {
        int nb = o.mode != M_ARTICLE && (o.bos_pol == P_ROW || o.bos_pol == P_HALF || o.bos_pol == P_ALT ||
                                         (o.mode == M_DOC && o.bos_pol != P_NONE));
        int ne = o.mode != M_ARTICLE && (o.eos_pol == P_ROW || o.eos_pol == P_HALF || o.eos_pol == P_ALT ||
                                         (o.mode == M_DOC && o.eos_pol != P_NONE));
        if (o.len <= (uint32_t)(nb + ne)) cal_usage_error("-l %u leaves no room for tokens besides BOS/EOS", o.len);
    }

    w = cal_writer_open(o.out);
    cal_meta_copy(cal_writer_meta(w), m);
    /* resolved defaults that the command line left implicit */
    char extra[256] = "";
    size_t x = 0;
    if (!cal_arg_given(argc, argv, "--mode", "-m"))
        x += (size_t)snprintf(extra + x, sizeof extra - x, " --mode %s", mode_names[o.mode]);
    if (!cal_arg_given(argc, argv, "--seed", NULL))
        x += (size_t)snprintf(extra + x, sizeof extra - x, " --seed %llu", (unsigned long long)o.seed);
    if (o.bos_pol != P_NONE && o.bos >= 0 && !cal_arg_given(argc, argv, "--bos-id", NULL))
        x += (size_t)snprintf(extra + x, sizeof extra - x, " --bos-id %lld", (long long)o.bos);
    if (o.eos >= 0 && o.eos_pol != P_NONE && !cal_arg_given(argc, argv, "--eos-id", NULL))
        x += (size_t)snprintf(extra + x, sizeof extra - x, " --eos-id %lld", (long long)o.eos);
    if (need_pad && !cal_arg_given(argc, argv, "--pad-id", NULL))
        x += (size_t)snprintf(extra + x, sizeof extra - x, " --pad-id %lld", (long long)o.pad);
    cal_meta_add_stage(cal_writer_meta(w), argc, argv, x ? extra + 1 : NULL);
    cal_rng_init2(&rng, o.seed, o.nstrata ? "stratify" : "window");
    cal_progress_init(&prog, o.progress);

    row.ids = cal_xmalloc((size_t)o.len * 4 + 8);
    row.mask = cal_xmalloc((size_t)o.len + 1);
    int keep_all = o.mode == M_WINDOW || o.nstrata;
    cal_ids t = {0};
    cal_rec rec;
    while (!done() || keep_all) {
        if (!cal_read(r, &rec)) break;
        if (rec.kind != CAL_TOKENS)
            cal_reader_die(r, &rec, "expected TOKENS records, got %s", cal_kind_name(rec.kind));
        docs_in++;
        size_t dl = cal_tokens_len(&rec);
        tokens_in += dl;
        if (dl < o.min_tokens || (o.max_tokens && dl > o.max_tokens)) {
            docs_dropped++;
            tokens_dropped += dl;
            continue;
        }
        docs_kept++;
        char label[CAL_MAX_LABEL + 1];
        copy_label(label, &rec);
        switch (o.mode) {
        case M_CONCAT:
            wrap_doc(&rec, &t, docs_kept == 1);
            concat_feed(t.v, t.n, rec.id, label);
            break;
        case M_ARTICLE: article_feed(&rec); break;
        case M_WINDOW:
            wrap_doc(&rec, &t, o.per_doc || docs_kept == 1);
            keep_doc(&rec, &t);
            break;
        case M_DOC:
            cal_rec_ids(&rec, &t);
            if (o.nstrata) keep_doc(&rec, &t);
            else doc_row(t.v, t.n, rec.id, label);
            break;
        }
    }
    if (o.mode == M_CONCAT) concat_end();
    if (o.mode == M_ARTICLE && art.n && !done()) {
        if (o.tail_pad) article_emit(1);
        else tokens_dropped += art.n;
    }
    if (o.mode == M_WINDOW) window_rows(name);
    if (o.nstrata) stratify_rows(name);
    if (o.have_n && rows_out < o.n && !o.allow_short)
        cal_die("%s: the input gives only %llu rows of %u tokens, -n %llu asked (use --allow-short)", name,
                (unsigned long long)rows_out, o.len, (unsigned long long)o.n);
    synthetic_rows(vocab > 0 ? (uint64_t)vocab : 1);
    cal_writer_close(w);
    cal_progress_done(&prog);
    if (o.verbose)
        fprintf(stderr,
                "cal-pack: %llu documents (%llu tokens) -> %llu rows of %u (+%llu random, +%llu noise); "
                "%llu documents dropped, %llu tokens unused\n",
                (unsigned long long)docs_in, (unsigned long long)tokens_in, (unsigned long long)rows_out, o.len,
                (unsigned long long)o.random_rows, (unsigned long long)o.noise_rows,
                (unsigned long long)docs_dropped, (unsigned long long)tokens_dropped);
    cal_reader_close(r);
    cal_ids_free(&t);
    cal_ids_free(&art);
    cal_ids_free(&all);
    free(docs), free(row.ids), free(row.mask), free(o.strata);
    return 0;
}
