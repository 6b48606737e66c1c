/* cal-cat - show, check, pass through and convert cal-streams (see cal-cat(1)).
 *
 * An option table, the printers of the record lines and of --json (which
 * only cal-cat prints), and one loop over the streams for every mode. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/dtype.h"
#include "base/err.h"
#include "base/modelfile.h"
#include "base/num.h"
#include "base/opt.h"
#include "base/outfile.h"
#include "base/progress.h"
#include "base/utf8.h"
#include "io/jsonscan.h"
#include "io/pqwrite.h"
#include "io/rowfile.h"
#include "stats/summary.h"
#include "stream/shards.h"
#include "stream/stream.h"
#include "tok/find.h"
#include "tok/tokenizer.h"

enum { M_SUMMARY, M_JSON, M_TEXT, M_CHECK, M_PASS, M_OUTPUT, M_STATS };
enum { O_JSON = 256, O_TEXT, O_CHECK, O_PASS, O_IMPORT, O_PROGRESS, O_STATS, O_PLOT, O_PARTIAL, O_BATCH, O_FOLLOW_LINKS };
static const cal_opt opts[] = {
    {0, "summary", NULL, CAL_STAGE, "print what the set is: per label and in total records,\n"
     "rows, tokens, padding, lengths, BOS/EOS, distinct ids,\nduplicates; what each stage dropped, shards, inputs,\n"
     "seeds, stages (with --json: one JSON object)", O_STATS},
    {0, "plot", "FILE.svg", CAL_STAGE, "draw the summary (domain mix, padding, lengths, what\nwas lost) as an SVG picture "
     "in FILE.svg", O_PLOT},
    {0, "json", NULL, CAL_STAGE, "print the header and each record as one JSON object\nper line", O_JSON},
    {0, "text", NULL, CAL_STAGE, "print the text of TEXT records, each ending in a\nnewline", O_TEXT},
    {0, "check", NULL, CAL_STAGE, "verify every header and checksum; print counts per\nkind", O_CHECK},
    {0, "pass", NULL, CAL_STAGE, "verify and copy the stream unchanged to standard\noutput", O_PASS},
    {'o', "output", "OUT", 0, "write ROW records to OUT by its extension:\n.safetensors, .npy (+ .mask.npy), .npz, .jsonl; TEXT\n"
     "records to OUT.parquet (one string column, text, as\nexllamav2's -c reads it); or copy the stream to OUT.cal", 0},
    {0, "batch", "N", 0, "with -o .safetensors, .npz or .jsonl: rows in batches\nof N, each padded to its longest row (GPTQModel's\ncollate_data)", O_BATCH},
    {0, "import", "FILE", CAL_STAGE, "read a .safetensors, .npy or .jsonl file of rows and\n"
     "write it as a cal-stream of ROW records (stdout or\n-o OUT.cal)", O_IMPORT},
    {'t', "tokenizer", "TOKENIZER", CAL_STAGE, "decode TOKENS and ROW records with TOKENIZER (a\n"
     "model folder, a tokenizer.json, a .model or a NAME as\nin cal-encode): in the previews, in --json (\"text\")\nand in --text", 0},
    {0, "allow-partial", NULL, CAL_STAGE, "accept shards of a fan-out that are missing, doubled\nor made differently "
     "(warned; see cal-stream(5))", O_PARTIAL},
    {0, "follow-links", NULL, CAL_STAGE, "-t: read a model folder's files through links that\nlead out of it (see cal-encode(1), MODEL FOLDERS)", O_FOLLOW_LINKS},
    {'v', "verbose", NULL, 0, "print a one-line summary on standard error", 0},
    {0, "progress", NULL, 0, "show progress on standard error", O_PROGRESS},
    {0},
};
static const cal_prog prog = {
    "cal-cat [OPTION]... [FILE]...\ncal-cat --import FILE [-o OUT.cal]",
    "Show, check, pass through or convert cal-streams. With no FILE, or when\n"
    "FILE is -, read standard input; several FILEs are one concatenated stream.\n"
    "By default, print the header metadata and one line per record.",
    opts,
    "Errors name the file and byte offset; exit status 1 for bad data, 2 for usage.\n",
};

typedef struct {
    int mode, verbose, progress, json, partial;
    const char *out, *import, *plot;
    cal_rf_type out_type;
    int parquet; /* -o OUT.parquet: TEXT records */
    const char *tokenizer;
    cal_tok *tok; /* -t: decodes TOKENS and ROW records */
    uint64_t batch; /* --batch */
} options;

static void parse_args(options *o, cal_args *a, int argc, char **argv) {
    int nmode = 0;
    cal_args_init(a, &prog, argc, argv);
    for (int c; (c = cal_args_next(a)) != -1;) switch (c) {
        case O_JSON: o->json = 1; break;
        case O_STATS: o->mode = M_STATS, nmode++; break;
        case O_PLOT: o->plot = a->val; break;
        case O_PARTIAL: o->partial = 1; break;
        case O_TEXT: o->mode = M_TEXT, nmode++; break;
        case O_CHECK: o->mode = M_CHECK, nmode++; break;
        case O_PASS: o->mode = M_PASS, nmode++; break;
        case 'o': o->out = a->val, o->mode = M_OUTPUT, nmode++; break;
        case O_IMPORT: o->import = a->val; break;
        case 't': o->tokenizer = a->val; break;
        case O_FOLLOW_LINKS: cal_model_follow_links(1); break;
        case 'v': o->verbose = 1; break;
        case O_PROGRESS: o->progress = 1; break;
        case O_BATCH: o->batch = cal_parse_u64(a->name, a->val, 1, UINT32_MAX); break;
        }
    if (o->json && o->mode == M_SUMMARY) o->mode = M_JSON, nmode++;
    else if (o->json && o->mode != M_STATS) nmode++;
    if (nmode > 1) cal_usage_error("--summary, --json, --text, --check, --pass and -o exclude each other "
                                   "(--summary --json is the summary as JSON)");
    if (o->plot && o->mode != M_SUMMARY && o->mode != M_STATS)
        cal_usage_error("--plot goes alone or with --summary");
    if (o->plot) {
        size_t n = strlen(o->plot);
        if (n < 4 || strcmp(o->plot + n - 4, ".svg")) cal_usage_error("--plot %s: the name must end in .svg", o->plot);
        if (o->mode == M_SUMMARY) o->mode = M_STATS;
    }
    if (o->out) {
        o->out_type = cal_rf_type_of(o->out);
        size_t n = strlen(o->out);
        o->parquet = n >= 8 && !strcmp(o->out + n - 8, ".parquet");
        if (o->out_type == CAL_RF_NONE && !o->parquet && !(n >= 4 && !strcmp(o->out + n - 4, ".cal")) && strcmp(o->out, "-"))
            cal_usage_error("-o %s: the name must end in .safetensors, .npy, .npz, .jsonl, .parquet or .cal", o->out);
    }
    if (o->batch && (o->import || o->out_type == CAL_RF_NONE || o->out_type == CAL_RF_NPY))
        cal_usage_error("--batch goes with -o OUT.safetensors, OUT.npz or OUT.jsonl");
    if (o->tokenizer && o->mode != M_SUMMARY && o->mode != M_JSON && o->mode != M_TEXT)
        cal_usage_error("-t decodes for printing: use it alone, with --json or with --text");
    if (o->import) {
        if (o->tokenizer) cal_usage_error("--import and -t exclude each other");
        if (a->noperands) cal_usage_error("--import reads one file; no other input files");
        if (o->mode != M_SUMMARY && !(o->mode == M_OUTPUT && o->out_type == CAL_RF_NONE))
            cal_usage_error("--import writes a cal-stream (stdout or -o OUT.cal); pipe it into cal-cat to convert");
    }
}

/* ---- printers ---------------------------------------------------------- */

#define PREVIEW_IDS 8
#define PREVIEW_CHARS 60

static void ids_preview(cal_buf *b, const uint8_t *ids, size_t n) {
    for (size_t i = 0; i < n && i < PREVIEW_IDS; i++) cal_buf_addf(b, " %u", cal_ld32(ids + 4 * i));
    if (n > PREVIEW_IDS) cal_buf_add(b, " ...", 4);
}

/* The first PREVIEW_CHARS characters of s (invalid UTF-8 repaired first) as a
 * JSON string, then " ..." when that is not all of it. */
static void text_preview(cal_buf *b, const char *s, size_t n) {
    cal_buf fixed = {0};
    if (cal_utf8_valid_prefix(s, n) != n) cal_utf8_repair(s, n, &fixed), s = fixed.p, n = fixed.n;
    size_t i = 0;
    int32_t cp;
    for (size_t chars = 0; i < n && chars < PREVIEW_CHARS; chars++) i += cal_utf8_next(s, n, i, &cp);
    cal_json_put_str(b, s, i);
    if (i < n) cal_buf_add(b, " ...", 4);
    cal_buf_free(&fixed);
}

/* The text of the ids of a TOKENS record, or of a ROW record's unmasked ids
 * (nothing for a noise row), decoded with tok. */
static void decoded(cal_buf *b, const cal_tok *tok, const cal_rec *r) {
    cal_ids ids = {0};
    if (r->kind == CAL_ROW) {
        cal_row_view v = cal_row(r);
        if (!(v.flags & CAL_ROW_NOISE))
            for (uint32_t i = 0; i < v.len; i++)
                if (!v.mask || v.mask[i]) cal_ids_push(&ids, cal_ld32(v.ids + 4 * (size_t)i));
    } else {
        cal_rec_ids(r, &ids);
    }
    cal_tok_decode(tok, ids.v, ids.n, b);
    cal_ids_free(&ids);
}

/* ' text="..."': the preview of the decoded ids. */
static void decoded_preview(cal_buf *b, const cal_tok *tok, const cal_rec *r) {
    cal_buf t = {0};
    decoded(&t, tok, r);
    cal_buf_add(b, " text=", 6);
    text_preview(b, t.p, t.n);
    cal_buf_free(&t);
}

static size_t ones(const uint8_t *v, size_t n) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) k += v[i] != 0;
    return k;
}

static void summary_line(cal_buf *b, const cal_rec *r, const cal_tok *tok) {
    cal_buf_addf(b, "%s %.*s %016llx", cal_kind_name(r->kind), (int)r->label_len, r->label,
                 (unsigned long long)r->id);
    switch (r->kind) {
    case CAL_TEXT: {
        cal_text_view t = cal_text(r);
        cal_buf_addf(b, " len=%zu%s", t.n, (r->flags & CAL_TEXT_CHAT) ? " chat" : "");
        if (t.spans) cal_buf_addf(b, " spans=%u", t.nspans);
        cal_buf_addc(b, ' ');
        text_preview(b, t.text, t.n);
        break;
    }
    case CAL_TOKENS:
        cal_buf_addf(b, " len=%zu", cal_tokens_len(r));
        if (cal_tokens_role(r)) cal_buf_addf(b, " role(%zu assistant)", ones(cal_tokens_role(r), cal_tokens_len(r)));
        ids_preview(b, r->payload, cal_tokens_len(r));
        if (tok) decoded_preview(b, tok, r);
        break;
    case CAL_ROW: {
        cal_row_view v = cal_row(r);
        cal_buf_addf(b, " len=%u", v.len);
        if (v.flags & CAL_ROW_NOISE) cal_buf_add(b, " noise", 6);
        if (v.mask) {
            uint32_t pad = 0;
            for (uint32_t i = 0; i < v.len; i++) pad += !v.mask[i];
            cal_buf_addf(b, " mask(%u padded)", pad);
        }
        if (v.role) cal_buf_addf(b, " role(%zu assistant)", ones(v.role, v.len));
        if (!(v.flags & CAL_ROW_NOISE)) ids_preview(b, v.ids, v.len);
        if (tok && !(v.flags & CAL_ROW_NOISE)) decoded_preview(b, tok, r);
        break;
    }
    case CAL_VECTORS: {
        cal_vec_view v = cal_vectors(r);
        cal_buf_addf(b, " %ux%u %s", v.n, v.d, cal_dtype_name(v.dtype));
        size_t n = (size_t)v.n * v.d;
        for (size_t i = 0; i < n && i < 4; i++) cal_buf_addf(b, " %g", cal_dtype_get(v.dtype, v.data, i));
        if (n > 4) cal_buf_add(b, " ...", 4);
        break;
    }
    }
    cal_buf_addc(b, '\n');
}

static void json_bytes(cal_buf *b, const char *key, const uint8_t *v, size_t n) {
    cal_buf_addf(b, ",\"%s\":[", key);
    for (size_t i = 0; i < n; i++) cal_buf_addf(b, i ? ",%u" : "%u", v[i]);
    cal_buf_addc(b, ']');
}

static void json_ids(cal_buf *b, const char *key, const uint8_t *ids, size_t n) {
    cal_buf_addf(b, ",\"%s\":[", key);
    for (size_t i = 0; i < n; i++) cal_buf_addf(b, i ? ",%u" : "%u", cal_ld32(ids + 4 * i));
    cal_buf_addc(b, ']');
}

static void json_line(cal_buf *b, const cal_rec *r, const cal_tok *tok) {
    cal_buf_addf(b, "{\"offset\":%llu,\"kind\":\"%s\",\"label\":", (unsigned long long)r->offset,
                 cal_kind_name(r->kind));
    cal_json_put_str(b, r->label, r->label_len);
    cal_buf_addf(b, ",\"id\":\"%016llx\"", (unsigned long long)r->id);
    switch (r->kind) {
    case CAL_TEXT: {
        cal_text_view t = cal_text(r);
        cal_buf_addf(b, ",\"len\":%zu%s,\"text\":", t.n, (r->flags & CAL_TEXT_CHAT) ? ",\"chat\":true" : "");
        cal_json_put_str(b, t.text, t.n);
        if (t.spans) {
            cal_buf_add(b, ",\"spans\":[", 10);
            for (uint32_t i = 0; i < t.nspans; i++)
                cal_buf_addf(b, "%s[%u,%u]", i ? "," : "", cal_ld32(t.spans + 8 * i), cal_ld32(t.spans + 8 * i + 4));
            cal_buf_addc(b, ']');
        }
        break;
    }
    case CAL_TOKENS:
        cal_buf_addf(b, ",\"len\":%zu", cal_tokens_len(r));
        json_ids(b, "ids", r->payload, cal_tokens_len(r));
        if (cal_tokens_role(r)) json_bytes(b, "role", cal_tokens_role(r), cal_tokens_len(r));
        break;
    case CAL_ROW: {
        cal_row_view v = cal_row(r);
        cal_buf_addf(b, ",\"len\":%u,\"noise\":%s", v.len, (v.flags & CAL_ROW_NOISE) ? "true" : "false");
        json_ids(b, "ids", v.ids, v.len);
        if (v.mask) json_bytes(b, "mask", v.mask, v.len);
        if (v.role) json_bytes(b, "role", v.role, v.len);
        break;
    }
    case CAL_VECTORS: {
        cal_vec_view v = cal_vectors(r);
        cal_buf_addf(b, ",\"n\":%u,\"d\":%u,\"dtype\":\"%s\",\"values\":[", v.n, v.d, cal_dtype_name(v.dtype));
        size_t n = (size_t)v.n * v.d;
        for (size_t i = 0; i < n; i++) cal_buf_addf(b, i ? ",%.9g" : "%.9g", cal_dtype_get(v.dtype, v.data, i));
        cal_buf_addc(b, ']');
        break;
    }
    }
    if (tok && (r->kind == CAL_TOKENS || r->kind == CAL_ROW)) {
        cal_buf t = {0};
        decoded(&t, tok, r);
        cal_buf_add(b, ",\"text\":", 8);
        cal_json_put_str(b, t.p, t.n);
        cal_buf_free(&t);
    }
    cal_buf_add(b, "}\n", 2);
}

/* -o OUT.jsonl of TEXT records: {"text": ...} per record (what auto-round's
 * local loader and datasets' json builder read), into b for the caller to
 * write; the file is opened at the first record. */
static cal_file *text_line(cal_file *f, const char *path, cal_reader *r, const cal_rec *rec, cal_buf *b) {
    if (rec->kind != CAL_TEXT)
        cal_reader_die(r, rec, "expected TEXT records after TEXT records (a .jsonl holds texts or rows), got %s",
                       cal_kind_name(rec->kind));
    if (!f) f = cal_file_create(path);
    cal_text_view t = cal_text(rec);
    cal_buf_add(b, "{\"text\":", 8);
    cal_json_put_str(b, t.text, t.n);
    cal_buf_add(b, "}\n", 2);
    cal_file_write(f, b->p, b->n);
    b->n = 0;
    return f;
}

/* -o OUT.parquet: a TEXT record's text as one row (its spans left out). */
static void parquet_text(cal_pqw *pq, cal_reader *r, const cal_rec *rec) {
    if (rec->kind != CAL_TEXT)
        cal_reader_die(r, rec, "expected TEXT records to write Parquet, got %s (Parquet holds text; rows go to "
                       ".safetensors, .npy, .npz or .jsonl)", cal_kind_name(rec->kind));
    cal_text_view t = cal_text(rec);
    if (cal_utf8_valid_prefix(t.text, t.n) < t.n)
        cal_reader_die(r, rec, "TEXT record is not UTF-8 (a Parquet string must be; cal-read repairs text)");
    cal_pqw_add(pq, t.text, t.n);
}

/* A header: in --json all of its metadata; on the terminal a header that
 * continues the stream (a trailer, mostly) shows only what it adds to the
 * one before it (prev). */
static void header_out(cal_buf *b, int mode, const char *file, unsigned n, int continues, const cal_meta *m,
                       const cal_meta *prev) {
    if (mode == M_JSON) {
        cal_buf_add(b, "{\"file\":", 8);
        cal_json_put_str(b, file, strlen(file));
        cal_buf_addf(b, ",\"header\":%u,%s\"meta\":[", n, continues ? "\"continues\":true," : "");
        for (size_t i = 0; i < m->n; i++) {
            cal_buf_add(b, i ? ",[" : "[", i ? 2 : 1);
            cal_json_put_str(b, m->key[i], strlen(m->key[i]));
            cal_buf_addc(b, ',');
            cal_json_put_str(b, m->val[i], strlen(m->val[i]));
            cal_buf_addc(b, ']');
        }
        cal_buf_add(b, "]}\n", 3);
        return;
    }
    cal_buf_addf(b, "# %s: header %u%s\n", file, n, continues ? " (continues the stream; what it adds)" : "");
    for (size_t i = 0; i < m->n; i++) {
        int old = 0;
        for (size_t k = 0; continues && k < prev->n && !old; k++)
            old = !strcmp(prev->key[k], m->key[i]) && !strcmp(prev->val[k], m->val[i]);
        if (old) continue;
        cal_buf_addf(b, "#   %s=", m->key[i]);
        for (const char *p = m->val[i]; *p; p++) {
            if (*p == '\n') cal_buf_add(b, "\\n", 2);
            else if (*p == '\\') cal_buf_add(b, "\\\\", 2);
            else cal_buf_addc(b, *p);
        }
        cal_buf_addc(b, '\n');
    }
}

/* ---- the main loop ------------------------------------------------------ */

typedef struct {
    uint64_t kinds[5], records, bytes, headers;
} counts;

static void count(counts *c, const cal_rec *r) {
    c->kinds[r->kind >= 1 && r->kind <= 4 ? r->kind : 0]++;
    c->records++;
}

static void check_line(cal_file *out, const char *name, const counts *c, uint64_t bytes) {
    cal_file_printf(out, "%s: ok: %llu header%s, %llu records (TEXT %llu, TOKENS %llu, ROW %llu, VECTORS %llu), %llu bytes\n",
                    name, (unsigned long long)c->headers, c->headers == 1 ? "" : "s",
                    (unsigned long long)c->records, (unsigned long long)c->kinds[CAL_TEXT],
                    (unsigned long long)c->kinds[CAL_TOKENS], (unsigned long long)c->kinds[CAL_ROW],
                    (unsigned long long)c->kinds[CAL_VECTORS], (unsigned long long)bytes);
}

static void run_import(const options *o, const cal_args *a) {
    int argc;
    char **argv = cal_args_stage(a, &argc);
    cal_writer *w = cal_writer_open(o->out ? o->out : "-");
    size_t n = cal_rowfile_import(o->import, w, argc, argv);
    cal_writer_close(w);
    if (o->verbose) cal_warn("imported %zu rows from %s", n, o->import);
}

/* Decoding with another tokenizer than the stream's gives wrong text: warn once. */
static void check_fingerprint(const cal_tok *tok, const cal_meta *m, const char *name) {
    static int warned;
    const char *fp = cal_meta_get(m, "tokenizer_fp");
    char mine[17];
    snprintf(mine, sizeof mine, "%016llx", (unsigned long long)cal_tok_fingerprint(tok));
    if (fp && strcmp(fp, mine) && !warned) {
        warned = 1;
        cal_warn("warning: %s: the stream was encoded with tokenizer_fp %s (%s), -t %s is %s", name, fp,
                 cal_meta_get(m, "tokenizer") ? cal_meta_get(m, "tokenizer") : "?", cal_tok_name(tok), mine);
    }
}

int main(int argc, char **argv) {
    cal_set_progname(argv[0]);
    options o = {0};
    cal_args a;
    parse_args(&o, &a, argc, argv);
    if (o.import) {
        run_import(&o, &a);
        cal_args_free(&a);
        return 0;
    }
    char *tok_path = NULL;
    if (o.tokenizer) {
        char terr[1024];
        tok_path = cal_tok_find(o.tokenizer);
        if (!(o.tok = cal_tok_load(tok_path, terr, sizeof terr))) cal_die("%s: %s", tok_path, terr);
    }
    static char *stdin_only[] = {"-", NULL};
    char **files = a.noperands ? a.operands : stdin_only;
    int nfiles = a.noperands ? a.noperands : 1;

    double t0 = cal_now();
    cal_progress pg;
    cal_progress_init(&pg, o.progress);
    int stream_out = o.mode == M_PASS || (o.mode == M_OUTPUT && o.out_type == CAL_RF_NONE && !o.parquet);
    cal_pqw *pq = o.mode == M_OUTPUT && o.parquet ? cal_pqw_open(o.out, "text") : NULL;
    cal_file *texts = NULL; /* -o OUT.jsonl of TEXT records */
    cal_writer *w = stream_out ? cal_writer_open(o.mode == M_PASS ? "-" : o.out) : NULL;
    cal_rowset *rows = o.mode == M_OUTPUT && o.out_type != CAL_RF_NONE ? cal_rowset_new(o.out_type) : NULL;
    if (rows && o.batch) cal_rowset_batch(rows, o.batch);
    cal_file *out = (o.mode == M_SUMMARY || o.mode == M_JSON || o.mode == M_TEXT || o.mode == M_CHECK ||
                     (o.mode == M_STATS && !o.plot))
                        ? cal_file_create("-") : NULL;
    cal_summary *sum = o.mode == M_STATS ? cal_summary_new() : NULL;
    cal_shards *shards = cal_shards_new(); /* the files' shards, checked together */
    cal_meta all = {0}, shown = {0}; /* shown: the metadata of the last header printed */
    cal_buf b = {0};
    counts total = {0};
    char err[768];

    for (int f = 0; f < nfiles; f++) {
        cal_reader *r = cal_reader_open(files[f]);
        cal_reader_shards_mode(r, 0, 0, 0);
        if (w) cal_writer_lend_from(w, r); /* records pass from its input: spliced, or from its buffer */
        const char *name = cal_reader_name(r);
        unsigned seen = 0, streams = 0;
        counts c = {0};
        cal_rec rec;
        for (;;) {
            int rc = o.mode == M_CHECK ? cal_read_soft(r, &rec, err, sizeof err) : cal_read(r, &rec);
            if (rc < 0) {
                cal_file_commit(out);
                cal_die("%s", err);
            }
            if (cal_reader_headers(r) != seen) {
                /* A header (the first, or a new one mid-stream): merge, show, re-emit. */
                c.headers += cal_reader_headers(r) - seen;
                seen = cal_reader_headers(r);
                if (!cal_meta_merge(&all, cal_reader_meta(r), err, sizeof err))
                    cal_die_at(name, rc ? rec.offset : cal_reader_offset(r), "%s", err);
                if (o.tok) check_fingerprint(o.tok, &all, name);
                if (w && !cal_meta_equal(cal_writer_meta(w), &all)) cal_meta_copy(cal_writer_meta(w), &all);
                if (sum) {
                    cal_summary_header(sum, &all, (unsigned)c.headers - (sum->headers - total.headers),
                                       cal_reader_streams(r) - streams);
                    streams = cal_reader_streams(r);
                }
                if (o.mode == M_SUMMARY || o.mode == M_JSON) {
                    header_out(&b, o.mode, name, seen, cal_reader_continues(r), cal_reader_meta(r), &shown);
                    cal_meta_copy(&shown, cal_reader_meta(r));
                    cal_file_write(out, b.p, b.n);
                    b.n = 0;
                }
            }
            if (!rc) break;
            count(&c, &rec);
            c.bytes += rec.raw_len;
            cal_progress_tick(&pg, total.records + c.records, total.bytes + c.bytes);
            switch (o.mode) {
            case M_SUMMARY: summary_line(&b, &rec, o.tok); break;
            case M_JSON: json_line(&b, &rec, o.tok); break;
            case M_TEXT:
                if (rec.kind == CAL_TEXT) {
                    cal_text_view t = cal_text(&rec);
                    cal_file_write(out, t.text, t.n);
                    if (!t.n || t.text[t.n - 1] != '\n') cal_file_write(out, "\n", 1);
                } else if (o.tok && (rec.kind == CAL_TOKENS || rec.kind == CAL_ROW)) {
                    decoded(&b, o.tok, &rec);
                    if (!b.n || b.p[b.n - 1] != '\n') cal_buf_addc(&b, '\n');
                }
                break;
            case M_PASS: cal_write_raw_lent(w, &rec); break;
            case M_STATS: cal_summary_add(sum, &rec); break;
            case M_OUTPUT:
                if (pq) parquet_text(pq, r, &rec);
                else if (w) cal_write_raw_lent(w, &rec);
                else if (o.out_type == CAL_RF_JSONL && (texts || (rec.kind == CAL_TEXT && !cal_rowset_rows(rows))))
                    texts = text_line(texts, o.out, r, &rec, &b);
                else cal_rowset_add(rows, r, &rec);
                break;
            }
            if (b.n) {
                cal_file_write(out, b.p, b.n);
                b.n = 0;
            }
        }
        if (o.mode == M_CHECK) check_line(out, name, &c, cal_reader_offset(r));
        cal_shards_absorb(shards, cal_reader_shards(r));
        total.bytes += cal_reader_offset(r);
        total.records += c.records;
        total.headers += c.headers;
        for (int k = 0; k < 5; k++) total.kinds[k] += c.kinds[k];
        cal_reader_close(r);
    }
    if (o.mode == M_CHECK && nfiles > 1) check_line(out, "total", &total, total.bytes);
    if (o.mode != M_STATS) { /* a summary shows the shards, whole or not */
        if (out) cal_file_commit(out), out = NULL;
        cal_shards_enforce(shards, 0, o.partial, nfiles > 1 ? "input" : strcmp(files[0], "-") ? files[0] : "stdin",
                           &all);
        if (w && !cal_meta_merge(cal_writer_meta(w), &all, err, sizeof err)) cal_die("%s", err);
    }
    if (sum) {
        if (o.plot) {
            cal_summary_svg(sum, &b);
            cal_file *pf = cal_file_create(o.plot);
            cal_file_write(pf, b.p, b.n);
            cal_file_commit(pf);
        } else if (o.json) {
            cal_summary_json(sum, shards, &b);
            cal_file_write(out, b.p, b.n);
        } else {
            cal_summary_text(sum, shards, &b);
            cal_file_write(out, b.p, b.n);
        }
        b.n = 0;
        cal_summary_free(sum);
    }
    cal_shards_free(shards);
    if (w) {
        if (!total.headers) cal_meta_copy(cal_writer_meta(w), &all);
        cal_writer_close(w);
    }
    if (texts) cal_file_commit(texts);
    else if (rows) cal_rowset_write(rows, o.out, &all);
    cal_rowset_free(rows);
    if (pq) { /* the stream's metadata in the footer, as cal-stream(5) writes it */
        cal_buf mb = {0};
        cal_meta_serialize(&all, &mb);
        cal_buf_addc(&mb, 0);
        cal_pqw_meta(pq, "calkit.stream", mb.p);
        cal_buf_free(&mb);
        cal_pqw_close(pq);
    }
    if (out) cal_file_commit(out);
    cal_progress_done(&pg);
    if (o.verbose)
        cal_warn("%llu records, %llu headers, %llu bytes in %.2f s", (unsigned long long)total.records,
                 (unsigned long long)total.headers, (unsigned long long)total.bytes, cal_now() - t0);
    cal_meta_free(&all);
    cal_meta_free(&shown);
    cal_buf_free(&b);
    cal_tok_free(o.tok);
    free(tok_path);
    cal_args_free(&a);
    return 0;
}
