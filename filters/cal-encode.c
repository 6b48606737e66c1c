/* cal-encode - TEXT records to TOKENS records with a tokenizer.json or a
 * SentencePiece .model (see cal-encode(1)).
 *
 * The main thread reads records into batches and writes finished batches in
 * input order; an ordered pool (base/pool.h) of N - 1 workers, and the main
 * thread whenever it would wait, encodes whole batches into finished output
 * records (ids, checksums), so that what is left to the main thread is
 * reading and handing bytes over. Every record is encoded by the same
 * function whatever N is and a document is never split, so the output bytes
 * do not depend on N. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/modelfile.h"
#include "base/num.h"
#include "base/opt.h"
#include "base/oshint.h"
#include "base/pool.h"
#include "base/progress.h"
#include "stream/drops.h"
#include "stream/shards.h"
#include "stream/stream.h"
#include "tok/find.h"
#include "tok/list.h"
#include "tok/rolemask.h"
#include "tok/tokenizer.h"

enum { O_ADD_SPECIAL = 256, O_PARSE_SPECIAL, O_PROGRESS, O_LIST, O_SKIP_BAD, O_PARTIAL, O_NO_CACHE, O_FOLLOW_LINKS };
static const cal_opt opts[] = {
    {'t', "tokenizer", "TOKENIZER", CAL_STAGE, "a Hugging Face model folder (tokenizer.json or\n"
     "tokenizer.model with tokenizer_config.json), a single\ntokenizer.json or SentencePiece .model file "
     "(detected\nby content), or the NAME of one fetched by\n`make tokenizers` (e.g. llama3, mistral; see --list)", 0},
    {0, "follow-links", NULL, CAL_STAGE, "read a model folder's files through links that lead\nout of it (see MODEL FOLDERS)", O_FOLLOW_LINKS},
    {'o', "output", "OUT", 0, "write the stream to OUT (atomically) instead of\nstandard output", 0},
    {0, "add-special", NULL, CAL_STAGE, "add the tokenizer's own BOS/EOS, as transformers'\n"
     "tokenizer(text, add_special_tokens=True) does\n(not to chat records: see cal-encode(1), CHAT)", O_ADD_SPECIAL},
    {0, "parse-special", NULL, CAL_STAGE, "special-token text in documents (\"<|im_start|>\")\n"
     "becomes the special id; by default it is ordinary\ntext, except in chat records (cal-encode(1), CHAT)", O_PARSE_SPECIAL},
    {0, "skip-bad", NULL, CAL_STAGE, "skip (and count) a document the tokenizer cannot\nencode instead of stopping",
     O_SKIP_BAD},
    {0, "allow-partial", NULL, CAL_STAGE, "accept shards of a fan-out that are missing, doubled\nor made differently (warned; "
     "see cal-stream(5))", O_PARTIAL},
    {'j', "threads", "N", 0, "encode with N threads (default: the number of online\n"
     "cores); the output is the same for every N", 0},
    {'v', "verbose", NULL, 0, "print a one-line summary on standard error", 0},
    {0, "progress", NULL, 0, "show progress on standard error", O_PROGRESS},
    {0, "list", NULL, 0, "print the fetched tokenizers' names, vocabulary\nsizes and sources, and exit", O_LIST},
    {0, "no-cache", NULL, 0, "neither read nor write the prepared tokenizer in\nthe cache (see cal-encode(1), CACHE)", O_NO_CACHE},
    {0},
};
static const cal_prog prog = {
    "cal-encode -t TOKENIZER [OPTION]... [FILE]...",
    "Encode the TEXT records of a cal-stream into TOKENS records (label and\n"
    "document id kept). With no FILE, or when FILE is -, read standard input;\n"
    "several FILEs are one concatenated stream.",
    opts,
    "Invalid UTF-8 in a document is encoded as U+FFFD, one per maximal invalid\n"
    "subpart, as the reference tokenizers see it. Errors name the file and byte\n"
    "offset; exit status 1 for bad data, 2 for usage.\n",
};

/* Batches of 128 KB (a few ms of work): small enough that N workers end
 * together on inputs of a few MB (with 1 MB batches, 16 workers on 34 MB
 * ran 3 rounds where 2.1 were due), large enough that handing them over
 * costs nothing measurable. */
#define BATCH_BYTES (1u << 17)
#define BATCH_RECS 1024

/* A record of a batch; its label and text live in bytes. */
typedef struct {
    uint64_t id, offset;
    size_t label_off, label_len, text_off, text_len, ntok;
    size_t spans_off, nspans; /* CAL_TEXT_SPANS: the assistant's spans (u32 pairs) */
    int file, chat, spans; /* chat: a TEXT record flagged CAL_TEXT_CHAT; spans: flagged CAL_TEXT_SPANS */
    int bad;        /* --skip-bad: it did not encode (not written) */
} item;

/* One job of the pool: records in, their TOKENS records out. */
typedef struct {
    item *items;
    size_t n, cap, failed; /* failed: the first item that did not encode, or n */
    cal_buf bytes;
    cal_ids ids;           /* the worker's scratch: one record's ids */
    cal_ids pre;           /* the worker's scratch: a prefix's ids (role masks) */
    cal_buf role;          /* the worker's scratch: one record's role mask */
    cal_buf out;           /* the encoded records of items [0, failed) */
    size_t bad;            /* --skip-bad: items that did not encode */
    char first_bad[512];   /* the message of the first of them */
    cal_meta meta;         /* output metadata in force for these records */
} batch;

typedef struct {
    char **files;
    const cal_tok *tok;
    unsigned flags;
    int skip_bad;
    char **stage_argv;
    int stage_argc;
    cal_pool *pool;
    batch *batches; /* a ring of depth batches: the pool's jobs */
    size_t depth;
    uint64_t submitted;
    cal_writer *w;
    cal_meta in_meta, out_meta; /* merged metadata of the inputs; the output's now */
    uint64_t docs, bytes, tokens;
    cal_progress prog;
    cal_drops drops;          /* --skip-bad's documents */
    int said_bad;             /* the first one's message was said */
} run;

/* The pool's job (on a worker thread; r is read only). */
static int encode_batch(void *ctx, void *job, char *err, size_t errsz) {
    const run *r = ctx;
    batch *b = job;
    /* the headers in locals: the batches sit side by side, and a header
     * written per record would bounce between the workers' caches */
    cal_ids ids = b->ids;
    cal_buf out = b->out;
    size_t i = 0;
    b->bad = 0;
    for (out.n = 0; i < b->n; i++) {
        item *it = &b->items[i];
        /* A rendered chat is encoded as transformers encodes one: special
         * tokens matched, none added (the template wrote them). */
        unsigned flags = it->chat ? CAL_TOK_PARSE_SPECIAL : r->flags;
        ids.n = 0;
        it->bad = 0;
        const char *text = b->bytes.p + it->text_off;
        int failed = cal_tok_encode(r->tok, text, it->text_len, flags, &ids, err, errsz) != 0;
        uint8_t *role = NULL;
        if (!failed && it->spans) { /* the tokens of the assistant's output */
            uint32_t *sp = cal_xmalloc(8 * it->nspans + 8);
            for (size_t k = 0; k < 2 * it->nspans; k++) sp[k] = cal_ld32((const uint8_t *)b->bytes.p + it->spans_off + 4 * k);
            cal_buf_reserve(&b->role, ids.n + 1);
            role = (uint8_t *)b->role.p;
            failed = cal_tok_role_mask(r->tok, text, it->text_len, flags, ids.v, ids.n, sp, it->nspans, role, &b->pre,
                                       err, errsz) != 0;
            free(sp);
        }
        if (!failed && cal_encode_tokens_role(&out, b->bytes.p + it->label_off, it->label_len, it->id, ids.v, role,
                                              ids.n, err, errsz))
            failed = 1;
        if (failed) {
            if (!r->skip_bad) break;
            if (!b->bad++) snprintf(b->first_bad, sizeof b->first_bad, "%s", err);
            it->bad = 1;
            continue;
        }
        it->ntok = ids.n;
    }
    b->ids = ids;
    b->out = out;
    b->failed = i;
    return i < b->n;
}

/* The output metadata from now on: the inputs' plus what the tokenizer defines. */
static void snapshot_meta(run *r) {
    cal_meta *m = &r->out_meta;
    cal_meta_copy(m, &r->in_meta);
    cal_tok_meta(r->tok, m);
    cal_meta_add_stage(m, r->stage_argc, r->stage_argv, NULL);
}

/* Writes a finished batch; a record that failed to encode ends the run
 * after the records before it, with err (the pool stops its workers). */
static void write_batch(run *r, batch *b, const char *err) {
    cal_meta_copy(cal_writer_meta(r->w), &b->meta); /* a new header when it differs */
    cal_write_encoded(r->w, b->out.p, b->out.n, b->failed - b->bad);
    for (size_t i = 0; i < b->failed; i++) {
        if (b->items[i].bad) {
            cal_drops_note(&r->drops, "documents", "skipped: the tokenizer refused them (--skip-bad)", 1,
                           b->items[i].text_len, "bytes");
            if (!r->said_bad++) /* the first one's reason, as the error would have said it */
                cal_warn("%s: byte %llu: %s (skipped: --skip-bad)", r->files[b->items[i].file],
                         (unsigned long long)b->items[i].offset, b->first_bad);
            continue;
        }
        r->docs++;
        r->bytes += b->items[i].text_len;
        r->tokens += b->items[i].ntok;
        cal_progress_tick(&r->prog, r->docs, r->bytes);
    }
    if (b->failed < b->n) cal_die_at(r->files[b->items[b->failed].file], b->items[b->failed].offset, "%s", err);
    b->n = 0;
    b->bytes.n = 0;
}

/* Takes the oldest batch and writes it, encoding queued ones meanwhile. */
static int write_oldest(run *r) {
    const char *err;
    while (cal_pool_help(r->pool)) {}
    batch *b = cal_pool_take(r->pool, &err);
    if (b) write_batch(r, b, err);
    return b != NULL;
}

/* The batch to fill next: the oldest in flight, once written, when all are. */
static batch *next_batch(run *r) {
    if (cal_pool_pending(r->pool) == r->depth) write_oldest(r);
    batch *b = &r->batches[r->submitted % r->depth];
    cal_meta_copy(&b->meta, &r->out_meta);
    /* the encoder's buffers from the main thread's arena (they grow there):
     * a worker's new arena faulted them in 4 KiB page by page (qwen3 -j 2,
     * 13 MB: 500-700 page faults, now 200-350; 1-10% more CPU) */
    if (!b->out.p) cal_buf_reserve(&b->out, BATCH_BYTES);
    if (!b->ids.v) cal_ids_reserve(&b->ids, BATCH_BYTES / 8);
    return b;
}

static void submit(run *r, batch **cur) {
    if (!*cur) return;
    cal_pool_submit(r->pool, *cur);
    r->submitted++;
    *cur = NULL;
}

static void add_item(batch *b, const cal_rec *rec, int file) {
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 256;
        b->items = cal_xrealloc(b->items, b->cap * sizeof *b->items);
    }
    item *it = &b->items[b->n++];
    cal_text_view t = cal_text(rec);
    *it = (item){.id = rec->id, .offset = rec->offset, .file = file, .chat = (rec->flags & CAL_TEXT_CHAT) != 0,
                 .label_off = b->bytes.n, .label_len = rec->label_len,
                 .text_off = b->bytes.n + rec->label_len, .text_len = t.n,
                 .spans = t.spans != NULL, .spans_off = b->bytes.n + rec->label_len + t.n, .nspans = t.nspans};
    cal_buf_add(&b->bytes, rec->label, rec->label_len);
    cal_buf_add(&b->bytes, rec->payload, rec->payload_len); /* the text, then its spans */
}

/* A header (a file's first, or a new one inside it): the records after it
 * carry the merged metadata, in a batch of their own. */
static void new_header(run *r, cal_reader *rd, uint64_t off, batch **cur) {
    char err[640];
    if (!cal_meta_merge(&r->in_meta, cal_reader_meta(rd), err, sizeof err)) cal_die_at(cal_reader_name(rd), off, "%s", err);
    submit(r, cur);
    snapshot_meta(r);
}

static void encode_all(run *r, int nfiles, cal_shards *shards) {
    batch *cur = NULL;
    for (int f = 0; f < nfiles; f++) {
        cal_reader *rd = cal_reader_open(r->files[f]);
        cal_reader_shards_mode(rd, 0, 0, 0); /* the files' shards are checked together */
        new_header(r, rd, 0, &cur);
        unsigned headers = cal_reader_headers(rd);
        cal_rec rec;
        while (cal_read(rd, &rec)) {
            if (rec.kind != CAL_TEXT) cal_reader_die(rd, &rec, "expected TEXT records, got %s", cal_kind_name(rec.kind));
            if (cal_reader_headers(rd) != headers) {
                headers = cal_reader_headers(rd);
                new_header(r, rd, rec.offset, &cur);
            }
            if (!cur) cur = next_batch(r);
            add_item(cur, &rec, f);
            if (cur->n >= BATCH_RECS || cur->bytes.n >= BATCH_BYTES) submit(r, &cur);
        }
        if (cal_reader_headers(rd) != headers) new_header(r, rd, cal_reader_offset(rd), &cur); /* a trailer */
        cal_shards_absorb(shards, cal_reader_shards(rd));
        cal_reader_close(rd);
    }
    submit(r, &cur);
    while (write_oldest(r)) {}
    cal_meta_copy(cal_writer_meta(r->w), &r->out_meta); /* the last header's: the trailer carries it */
}

int main(int argc, char **argv) {
    cal_set_progname(argv[0]);
    const char *tokenizer = NULL, *out = NULL;
    unsigned flags = 0, threads = 0;
    int verbose = 0, progress = 0, list = 0, skip_bad = 0, partial = 0, cache = 1;
    cal_args a;
    cal_args_init(&a, &prog, argc, argv);
    for (int c; (c = cal_args_next(&a)) != -1;) switch (c) {
        case 't': tokenizer = a.val; break;
        case 'o': out = a.val; break;
        case O_ADD_SPECIAL: flags |= CAL_TOK_ADD_SPECIAL; break;
        case O_PARSE_SPECIAL: flags |= CAL_TOK_PARSE_SPECIAL; break;
        case 'j': threads = (unsigned)cal_parse_u64(a.name, a.val, 1, 256); break;
        case 'v': verbose = 1; break;
        case O_PROGRESS: progress = 1; break;
        case O_LIST: list = 1; break;
        case O_SKIP_BAD: skip_bad = 1; break;
        case O_PARTIAL: partial = 1; break;
        case O_NO_CACHE: cache = 0; break;
        case O_FOLLOW_LINKS: cal_model_follow_links(1); break;
        }
    if (list) {
        size_t n = cal_tok_list(stdout);
        cal_args_free(&a);
        if (!n) cal_die("no fetched tokenizers (make tokenizers)");
        return 0;
    }
    if (!tokenizer) cal_usage_error("missing -t TOKENIZER");
    char *path = cal_tok_find(tokenizer);
    /* building the tokenizer's tables: half the load time on small pages;
     * a prepared image builds nothing, and the exec would be the cost */
    if (!cache || !cal_tok_cached(path)) cal_thp_malloc(argv);
    if (!threads) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n < 1 ? 1 : n > 256 ? 256 : (unsigned)n;
    }

    char err[1024];
    double t0 = cal_now(), c0 = cal_cpu_now();
    char cache_note[512];
    cal_tok *tok = cal_tok_load_cached(path, cache, cache_note, sizeof cache_note, err, sizeof err);
    if (!tok) cal_die("%s: %s", path, err);
    double t_load = cal_now() - t0, c_load = cal_cpu_now() - c0;

    static char *stdin_only[] = {"-", NULL};
    run r = {.files = a.noperands ? a.operands : stdin_only, .tok = tok, .flags = flags, .skip_bad = skip_bad};
    cal_tok_expect_files(tok, r.files, a.noperands ? a.noperands : 1); /* a small input: a small word cache */
    r.stage_argv = cal_args_stage(&a, &r.stage_argc);
    /* -j 1 encodes on the main thread; -j N on N - 1 workers and the main
     * thread, which encodes queued batches while the oldest is not done:
     * N threads for N cores (N workers and the reader/writer took turns,
     * and each turn of the main thread cost a worker its core and its
     * caches). 7 N batches are queued beyond the N being encoded: the
     * writer waits for the oldest batch, and batches differ (a page of
     * Chinese costs more than one of English), so a short queue ran dry
     * behind a slow batch and left workers idle. */
    r.depth = threads > 1 ? 8 * (size_t)threads : 1;
    r.batches = cal_xcalloc(r.depth, sizeof *r.batches);
    r.w = cal_writer_open(out);
    cal_progress_init(&r.prog, progress);
    r.pool = cal_pool_new(threads - 1, r.depth, encode_batch, &r);
    double t1 = cal_now(), c1 = cal_cpu_now();
    cal_shards *shards = cal_shards_new();
    encode_all(&r, a.noperands ? a.noperands : 1, shards);
    cal_pool_free(r.pool);
    cal_shards_enforce(shards, 0, partial, "input", cal_writer_meta(r.w));
    cal_shards_free(shards);
    double dt = cal_now() - t1, dc = cal_cpu_now() - c1;
    /* both rates: wall MB/s falls when the machine is busy, CPU MB/s
     * (bytes per CPU second of all threads) does not */
    char sum[1024] = "";
    if (verbose)
        snprintf(sum, sizeof sum,
                 "%llu docs, %llu bytes, %llu tokens, %.2f MB/s CPU, %.2f MB/s wall (%.2f s CPU, %.2f s wall, "
                 "%u threads), tokenizer %s%s%s%s loaded in %.1f ms (%.1f ms CPU; cache: %s)",
                 (unsigned long long)r.docs, (unsigned long long)r.bytes, (unsigned long long)r.tokens,
                 dc > 0 ? (double)r.bytes / 1e6 / dc : 0.0, dt > 0 ? (double)r.bytes / 1e6 / dt : 0.0, dc, dt,
                 threads, cal_tok_name(tok), cal_tok_engine(tok) ? " (encoded by " : "",
                 cal_tok_engine(tok) ? cal_tok_engine(tok) : "", cal_tok_engine(tok) ? ")" : "", t_load * 1e3,
                 c_load * 1e3, cache_note);
    cal_drops_finish(&r.drops, r.w, NULL, sum);
    cal_writer_close(r.w);
    cal_progress_done(&r.prog);

    for (size_t i = 0; i < r.depth; i++) {
        free(r.batches[i].items);
        cal_buf_free(&r.batches[i].bytes);
        cal_ids_free(&r.batches[i].ids);
        cal_ids_free(&r.batches[i].pre);
        cal_buf_free(&r.batches[i].role);
        cal_buf_free(&r.batches[i].out);
        cal_meta_free(&r.batches[i].meta);
    }
    free(r.batches);
    cal_meta_free(&r.in_meta);
    cal_meta_free(&r.out_meta);
    cal_tok_free(tok);
    free(path);
    cal_args_free(&a);
    return 0;
}
