/* cal-encode - TEXT records to TOKENS records with a tokenizer.json or a
 * SentencePiece .model (see cal-encode(1)).
 *
 * Threads: the main thread reads records into batches and writes finished
 * batches in input order; -j N workers encode whole batches. Every record is
 * encoded by the same function whatever N is, and records are written in
 * input order, so the output bytes do not depend on N. A document is never
 * split across threads. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/num.h"
#include "base/progress.h"
#include "stream/stream.h"
#include "tok/find.h"
#include "tok/tokenizer.h"

static const char usage[] =
    "Usage: cal-encode -t TOKENIZER [OPTION]... [FILE]...\n"
    "Encode the TEXT records of a cal-stream into TOKENS records (label and\n"
    "document id kept). With no FILE, or when FILE is -, read standard input;\n"
    "several FILEs are one concatenated stream.\n"
    "\n"
    "  -t, --tokenizer TOKENIZER  a Hugging Face tokenizer.json or a SentencePiece\n"
    "                   .model file (detected by content), or the NAME of one\n"
    "                   fetched by `make tokenizers` (e.g. llama3, llama2-spm)\n"
    "  -o, --output OUT write the stream to OUT (atomically) instead of stdout\n"
    "      --add-special  add the tokenizer's own BOS/EOS (its post-processor\n"
    "                   template; BOS only for a .model)\n"
    "      --parse-special  special-token text in documents (\"<|im_start|>\")\n"
    "                   becomes the special id; by default it is ordinary text\n"
    "  -j, --threads N  encode with N threads (default: the number of online\n"
    "                   cores); the output is the same for every N\n"
    "  -v, --verbose    print a one-line summary on standard error\n"
    "      --progress   show progress on standard error\n"
    "      --help       show this help and exit\n"
    "      --version    show the version and exit\n"
    "\n"
    "Invalid UTF-8 in a document is encoded as U+FFFD, one per maximal invalid\n"
    "subpart, as the reference tokenizers see it. Errors name the file and byte\n"
    "offset; exit status 1 for bad data, 2 for usage.\n";

typedef struct {
    const char *tokenizer, *out;
    unsigned flags;
    unsigned threads;
    int verbose, progress;
    char **files;
    int nfiles;
    char **stage_argv; /* argv without the options that cannot change the output */
    int stage_argc;
} options;

/* Matches option SHORT or LONG at argv[*i] ("-j 2", "-j2", "--threads 2",
 * "--threads=2"); with an argument, consumes it and sets *val. */
static int opt(int argc, char **argv, int *i, const char *shrt, const char *lng, const char **val) {
    const char *a = argv[*i];
    size_t ll = strlen(lng);
    if (!val) return !strcmp(a, shrt ? shrt : lng) || !strcmp(a, lng);
    if ((shrt && !strcmp(a, shrt)) || !strcmp(a, lng)) {
        if (*i + 1 >= argc) cal_usage_error("option %s needs an argument", a);
        *val = argv[++*i];
        return 1;
    }
    if (!strncmp(a, lng, ll) && a[ll] == '=') return *val = a + ll + 1, 1;
    if (shrt && !strncmp(a, shrt, 2) && a[2]) return *val = a + 2, 1;
    return 0;
}

static void parse_args(options *o, int argc, char **argv) {
    o->files = cal_xcalloc((size_t)argc + 1, sizeof *o->files);
    o->stage_argv = cal_xcalloc((size_t)argc + 1, sizeof *o->stage_argv);
    o->stage_argv[o->stage_argc++] = argv[0];
    int only_files = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val;
        int first = i, drop = 0; /* dropped: options that cannot change the output */
        if (only_files || a[0] != '-' || !strcmp(a, "-")) o->files[o->nfiles++] = argv[i];
        else if (!strcmp(a, "--")) only_files = 1;
        else if (!strcmp(a, "--help")) {
            fputs(usage, stdout);
            exit(0);
        } else if (!strcmp(a, "--version")) cal_print_version();
        else if (opt(argc, argv, &i, "-t", "--tokenizer", &val)) o->tokenizer = val;
        else if (opt(argc, argv, &i, "-o", "--output", &val)) o->out = val;
        else if (opt(argc, argv, &i, NULL, "--add-special", NULL)) o->flags |= CAL_TOK_ADD_SPECIAL;
        else if (opt(argc, argv, &i, NULL, "--parse-special", NULL)) o->flags |= CAL_TOK_PARSE_SPECIAL;
        else if (opt(argc, argv, &i, "-j", "--threads", &val))
            o->threads = (unsigned)cal_parse_u64("-j", val, 1, 256), drop = 1;
        else if (opt(argc, argv, &i, "-v", "--verbose", NULL)) o->verbose = 1, drop = 1;
        else if (opt(argc, argv, &i, NULL, "--progress", NULL)) o->progress = 1, drop = 1;
        else cal_usage_error("unknown option %s", a);
        for (int k = first; k <= i && !drop; k++) o->stage_argv[o->stage_argc++] = argv[k];
    }
    if (!o->tokenizer) cal_usage_error("missing -t TOKENIZER");
    if (!o->threads) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        o->threads = n < 1 ? 1 : n > 256 ? 256 : (unsigned)n;
    }
    if (!o->nfiles) o->files[o->nfiles++] = "-";
}

/* ---- batches of records ------------------------------------------------- */

#define BATCH_BYTES (1u << 20)
#define BATCH_RECS 4096

typedef struct {
    uint64_t id, offset;
    size_t label_off, label_len, text_off, text_len;
    size_t ids_off, ids_n;
    int file;
} item;

enum { B_FREE, B_QUEUED, B_BUSY, B_DONE };

typedef struct {
    item *items;
    size_t n, cap;
    cal_buf bytes;    /* labels and texts */
    cal_ids ids;      /* the ids of every item, in order */
    int state;
    size_t failed;    /* index of the first item that failed to encode, or n */
    char err[512];
    cal_meta *meta;   /* output metadata in force for this batch */
} batch;

typedef struct {
    const cal_tok *tok;
    unsigned flags;
    batch *ring;
    size_t k;                         /* ring size */
    uint64_t next_take, next_read;    /* batch sequence numbers */
    int stop;
    pthread_mutex_t mu;
    pthread_cond_t work, done;
} pool;

static void encode_batch(const cal_tok *tok, unsigned flags, batch *b) {
    b->ids.n = 0;
    b->failed = b->n;
    for (size_t i = 0; i < b->n; i++) {
        item *it = &b->items[i];
        it->ids_off = b->ids.n;
        if (cal_tok_encode(tok, b->bytes.p + it->text_off, it->text_len, flags, &b->ids, b->err,
                           sizeof b->err)) {
            b->failed = i;
            return;
        }
        it->ids_n = b->ids.n - it->ids_off;
    }
}

static void *worker(void *arg) {
    pool *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->stop && p->next_take == p->next_read) pthread_cond_wait(&p->work, &p->mu);
        if (p->stop) break;
        batch *b = &p->ring[p->next_take++ % p->k];
        b->state = B_BUSY;
        pthread_mutex_unlock(&p->mu);
        encode_batch(p->tok, p->flags, b);
        pthread_mutex_lock(&p->mu);
        b->state = B_DONE;
        pthread_cond_broadcast(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* ---- the run ------------------------------------------------------------ */

typedef struct {
    options *o;
    cal_tok *tok;
    pool pool;
    pthread_t *tids;
    unsigned nworkers;
    cal_writer *w;
    cal_meta in_meta;    /* merged metadata of the inputs */
    cal_meta *cur_meta;  /* output metadata for records read from now on */
    cal_meta **metas;    /* every snapshot, freed at the end */
    size_t nmetas;
    cal_meta *written_meta;
    uint64_t docs, bytes, tokens;
    cal_progress prog;
} run;

static void stop_workers(run *r) {
    if (!r->nworkers) return;
    pthread_mutex_lock(&r->pool.mu);
    r->pool.stop = 1;
    pthread_cond_broadcast(&r->pool.work);
    pthread_mutex_unlock(&r->pool.mu);
    for (unsigned i = 0; i < r->nworkers; i++) pthread_join(r->tids[i], NULL);
    r->nworkers = 0;
}

/* The output metadata: the inputs' plus what the tokenizer defines. */
static void snapshot_meta(run *r, int argc, char **argv) {
    cal_meta *m = cal_xcalloc(1, sizeof *m);
    cal_meta_copy(m, &r->in_meta);
    const cal_tok *t = r->tok;
    cal_meta_set(m, "tokenizer", cal_tok_name(t));
    cal_meta_setf(m, "tokenizer_fp", "%016llx", (unsigned long long)cal_tok_fingerprint(t));
    cal_meta_setf(m, "vocab", "%u", cal_tok_vocab_size(t));
    static const char *const keys[] = {"bos", "eos", "pad"};
    int64_t v[] = {cal_tok_bos(t), cal_tok_eos(t), cal_tok_pad(t)};
    for (int i = 0; i < 3; i++) {
        if (v[i] >= 0) cal_meta_setf(m, keys[i], "%lld", (long long)v[i]);
        else cal_meta_del(m, keys[i]);
    }
    cal_meta_add_stage(m, argc, argv, NULL);
    r->metas = cal_xrealloc(r->metas, (r->nmetas + 1) * sizeof *r->metas);
    r->metas[r->nmetas++] = m;
    r->cur_meta = m;
}

static void write_batch(run *r, batch *b) {
    if (b->meta != r->written_meta) {
        cal_meta_copy(cal_writer_meta(r->w), b->meta);
        r->written_meta = b->meta;
    }
    for (size_t i = 0; i < b->n; i++) {
        item *it = &b->items[i];
        if (i == b->failed) {
            char msg[sizeof b->err];
            memcpy(msg, b->err, sizeof msg);
            stop_workers(r);
            cal_die_at(r->o->files[it->file], it->offset, "%s", msg);
        }
        const uint32_t *ids = b->ids.v + it->ids_off;
        size_t n = it->ids_n;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        cal_write_rec(r->w, CAL_TOKENS, b->bytes.p + it->label_off, it->label_len, it->id, ids, 4 * n);
#else
        uint8_t *le = cal_xmalloc(4 * n + 1);
        for (size_t j = 0; j < n; j++) cal_st32(le + 4 * j, ids[j]);
        cal_write_rec(r->w, CAL_TOKENS, b->bytes.p + it->label_off, it->label_len, it->id, le, 4 * n);
        free(le);
#endif
        r->docs++;
        r->bytes += it->text_len;
        r->tokens += n;
        cal_progress_tick(&r->prog, r->docs, r->bytes);
    }
    b->n = 0;
    b->bytes.n = 0;
    b->state = B_FREE;
}

static void add_item(batch *b, const cal_rec *rec, int file) {
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 256;
        b->items = cal_xrealloc(b->items, b->cap * sizeof *b->items);
    }
    item *it = &b->items[b->n++];
    it->id = rec->id;
    it->offset = rec->offset;
    it->file = file;
    it->label_off = b->bytes.n;
    it->label_len = rec->label_len;
    cal_buf_add(&b->bytes, rec->label, rec->label_len);
    it->text_off = b->bytes.n;
    it->text_len = rec->payload_len;
    cal_buf_add(&b->bytes, rec->payload, rec->payload_len);
}

/* Waits until the oldest batch in flight is done, then writes it. */
static uint64_t flush_oldest(run *r, uint64_t next_write) {
    pool *p = &r->pool;
    batch *b = &p->ring[next_write % p->k];
    if (r->nworkers) {
        pthread_mutex_lock(&p->mu);
        while (b->state != B_DONE) pthread_cond_wait(&p->done, &p->mu);
        pthread_mutex_unlock(&p->mu);
    }
    write_batch(r, b);
    return next_write + 1;
}

static void submit(run *r, batch *b) {
    pool *p = &r->pool;
    if (!r->nworkers) {
        encode_batch(r->tok, r->o->flags, b);
        b->state = B_DONE;
        p->next_read++;
        return;
    }
    pthread_mutex_lock(&p->mu);
    b->state = B_QUEUED;
    p->next_read++;
    pthread_cond_signal(&p->work);
    pthread_mutex_unlock(&p->mu);
}

static void encode_all(run *r, int argc, char **argv) {
    pool *p = &r->pool;
    uint64_t next_write = 0;
    batch *cur = NULL;
    for (int f = 0; f < r->o->nfiles; f++) {
        const char *path = r->o->files[f];
        cal_reader *rd = cal_reader_open(path);
        char err[640];
        if (!cal_meta_merge(&r->in_meta, cal_reader_meta(rd), err, sizeof err))
            stop_workers(r), cal_die_at(cal_reader_name(rd), 0, "%s", err);
        unsigned headers = cal_reader_headers(rd);
        snapshot_meta(r, argc, argv);
        cal_rec rec;
        for (;;) {
            int rc = cal_read_soft(rd, &rec, err, sizeof err);
            if (rc < 0) stop_workers(r), cal_die("%s", err);
            if (rc == 0) break;
            if (rec.kind != CAL_TEXT) {
                stop_workers(r);
                cal_reader_die(rd, &rec, "expected TEXT records, got %s", cal_kind_name(rec.kind));
            }
            if (cal_reader_headers(rd) != headers) {
                /* A new header inside the input: later records carry it. */
                headers = cal_reader_headers(rd);
                if (!cal_meta_merge(&r->in_meta, cal_reader_meta(rd), err, sizeof err))
                    stop_workers(r), cal_reader_die(rd, &rec, "%s", err);
                if (cur && cur->n) submit(r, cur), cur = NULL;
                snapshot_meta(r, argc, argv);
            }
            if (!cur) {
                if (p->next_read - next_write == p->k) next_write = flush_oldest(r, next_write);
                cur = &p->ring[p->next_read % p->k];
                cur->meta = r->cur_meta;
            }
            add_item(cur, &rec, f);
            if (cur->n >= BATCH_RECS || cur->bytes.n >= BATCH_BYTES) submit(r, cur), cur = NULL;
        }
        cal_reader_close(rd);
    }
    if (cur && cur->n) submit(r, cur);
    while (next_write < p->next_read) next_write = flush_oldest(r, next_write);
    if (!r->written_meta && r->cur_meta) cal_meta_copy(cal_writer_meta(r->w), r->cur_meta);
}

int main(int argc, char **argv) {
    cal_set_progname(argv[0]);
    options o = {0};
    parse_args(&o, argc, argv);

    char *path = cal_tok_find(o.tokenizer, argv[0]);
    char err[1024];
    double t0 = cal_now();
    cal_tok *tok = cal_tok_load(path, err, sizeof err);
    if (!tok) cal_die("%s: %s", path, err);
    double t_load = cal_now() - t0;

    run r = {0};
    r.o = &o;
    r.tok = tok;
    r.pool.tok = tok;
    r.pool.flags = o.flags;
    r.pool.k = o.threads > 1 ? 2 * (size_t)o.threads + 2 : 1;
    r.pool.ring = cal_xcalloc(r.pool.k, sizeof *r.pool.ring);
    pthread_mutex_init(&r.pool.mu, NULL);
    pthread_cond_init(&r.pool.work, NULL);
    pthread_cond_init(&r.pool.done, NULL);
    r.w = cal_writer_open(o.out);
    cal_progress_init(&r.prog, o.progress);
    if (o.threads > 1) {
        r.tids = cal_xcalloc(o.threads, sizeof *r.tids);
        for (unsigned i = 0; i < o.threads; i++) {
            if (pthread_create(&r.tids[i], NULL, worker, &r.pool)) {
                stop_workers(&r);
                cal_die("cannot start thread %u", i + 1);
            }
            r.nworkers++;
        }
    }
    double t1 = cal_now();
    encode_all(&r, o.stage_argc, o.stage_argv);
    stop_workers(&r);
    cal_writer_close(r.w);
    cal_progress_done(&r.prog);
    double dt = cal_now() - t1;
    if (o.verbose)
        fprintf(stderr, "cal-encode: %llu docs, %llu bytes, %llu tokens, %.2f MB/s (%.2f s, %u threads), "
                "tokenizer %s loaded in %.2f s\n",
                (unsigned long long)r.docs, (unsigned long long)r.bytes, (unsigned long long)r.tokens,
                dt > 0 ? (double)r.bytes / 1e6 / dt : 0.0, dt, o.threads, cal_tok_name(tok), t_load);

    for (size_t i = 0; i < r.pool.k; i++) {
        free(r.pool.ring[i].items);
        cal_buf_free(&r.pool.ring[i].bytes);
        cal_ids_free(&r.pool.ring[i].ids);
    }
    free(r.pool.ring);
    for (size_t i = 0; i < r.nmetas; i++) cal_meta_free(r.metas[i]), free(r.metas[i]);
    free(r.metas);
    cal_meta_free(&r.in_meta);
    free(r.tids);
    pthread_mutex_destroy(&r.pool.mu);
    pthread_cond_destroy(&r.pool.work);
    pthread_cond_destroy(&r.pool.done);
    cal_tok_free(tok);
    free(path);
    free(o.files);
    free(o.stage_argv);
    return 0;
}
