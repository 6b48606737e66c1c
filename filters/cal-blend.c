/* cal-blend - mix several streams into one: exact counts or weights with
 * largest-remainder allocation, interleaved by a seeded schedule or grouped.
 * Each source is read by its own thread into a bounded queue, so sources
 * that are pipes are drained as they produce. */
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/num.h"
#include "base/progress.h"
#include "base/rng.h"
#include "rows/alloc.h"
#include "stream/stageargs.h"
#include "stream/stream.h"

#define QUEUE_BYTES (64u << 20) /* per source, before its reader waits */

static const char usage[] =
    "Usage: cal-blend [OPTION]... SPEC...\n"
    "Mix the records of several streams into one. SPEC is\n"
    "FILE[:rows=N|:weight=W][:label=NAME]; FILE may be '-', a named pipe or a\n"
    "process substitution.\n"
    "\n"
    "  -n, --total N     total records; split among the sources without rows=\n"
    "                    by weight (default 1) with largest-remainder rounding\n"
    "      --grouped     output the sources one after the other in SPEC order\n"
    "                    (default: interleaved by a seeded schedule)\n"
    "      --cycle       repeat a source that runs short instead of failing\n"
    "      --seed S      seed of the interleave schedule (default 0)\n"
    "  -o, --output FILE write to FILE (atomically) instead of standard output\n"
    "  -v, --verbose     one-line summary on standard error\n"
    "      --progress    progress on standard error\n"
    "      --help        show this help and exit\n"
    "      --version     show the version and exit\n";

typedef struct item {
    struct item *next;
    int kind;
    uint64_t id;
    size_t len; /* raw bytes, or payload bytes when relabelling */
    uint8_t data[];
} item;

typedef struct {
    const char *spec, *path, *label;
    int64_t rows;   /* exact count, -1 = unset */
    double weight;  /* -1 = unset */
    uint64_t want;  /* allocated count; UINT64_MAX = all (grouped only) */
    uint64_t got;   /* records read from the source */
    /* queue shared with the reader thread */
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    item *head, *tail;
    size_t qbytes;
    int opened, finished;
    cal_meta meta;
} source;

static source *src;
static size_t nsrc;
static int cycle, grouped, verbose, progress;
static uint64_t seed;

static void parse_spec(source *s, const char *spec) {
    memset(s, 0, sizeof *s);
    s->spec = spec;
    s->rows = -1;
    s->weight = -1;
    char *p = cal_xstrdup(spec);
    /* Options are taken from the right, so FILE itself may contain ':'. */
    for (;;) {
        char *c = strrchr(p, ':');
        if (!c) break;
        char *kv = c + 1;
        if (!strncmp(kv, "rows=", 5)) {
            if (s->rows >= 0) cal_usage_error("%s: rows= given twice", spec);
            s->rows = (int64_t)cal_parse_u64("rows=", kv + 5, 0, INT64_MAX);
        } else if (!strncmp(kv, "weight=", 7)) {
            if (s->weight >= 0) cal_usage_error("%s: weight= given twice", spec);
            s->weight = cal_parse_double("weight=", kv + 7);
            if (!(s->weight >= 0)) cal_usage_error("%s: weight must be >= 0", spec);
        } else if (!strncmp(kv, "label=", 6)) {
            if (s->label) cal_usage_error("%s: label= given twice", spec);
            if (strlen(kv + 6) > CAL_MAX_LABEL) cal_usage_error("%s: label longer than %u bytes", spec, CAL_MAX_LABEL);
            s->label = cal_xstrdup(kv + 6);
        } else {
            break;
        }
        *c = 0;
    }
    if (s->rows >= 0 && s->weight >= 0) cal_usage_error("%s: give rows= or weight=, not both", spec);
    if (!*p) cal_usage_error("%s: no file name", spec);
    s->path = p;
}

static void push(source *s, item *it) {
    pthread_mutex_lock(&s->mu);
    while (s->qbytes > QUEUE_BYTES) pthread_cond_wait(&s->cv, &s->mu);
    it->next = NULL;
    if (s->tail) s->tail->next = it;
    else s->head = it;
    s->tail = it;
    s->qbytes += it->len + sizeof *it;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

static item *copy_item(const item *a) {
    item *b = cal_xmalloc(sizeof *b + a->len);
    memcpy(b, a, sizeof *b + a->len);
    return b;
}

static void *reader_main(void *arg) {
    source *s = arg;
    cal_reader *r = cal_reader_open(s->path);
    pthread_mutex_lock(&s->mu);
    cal_meta_copy(&s->meta, cal_reader_meta(r));
    s->opened = 1;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    item **kept = NULL; /* --cycle: the records, to repeat them */
    cal_rec rec;
    while (s->got < s->want && cal_read(r, &rec)) {
        size_t n = s->label ? rec.payload_len : rec.raw_len;
        item *it = cal_xmalloc(sizeof *it + n);
        it->kind = rec.kind;
        it->id = rec.id;
        it->len = n;
        memcpy(it->data, s->label ? rec.payload : rec.raw, n);
        if (cycle && s->want != UINT64_MAX) {
            kept = cal_xrealloc(kept, (s->got + 1) * sizeof *kept);
            kept[s->got] = copy_item(it);
        }
        s->got++;
        push(s, it);
    }
    cal_reader_close(r);
    uint64_t have = s->got;
    if (cycle && have)
        for (uint64_t i = have; i < s->want; i++) push(s, copy_item(kept[i % have]));
    if (kept)
        for (uint64_t i = 0; i < have; i++) free(kept[i]);
    free(kept);
    pthread_mutex_lock(&s->mu);
    s->finished = 1;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* Next record of source s, or NULL when it has no more. */
static item *pop(source *s) {
    pthread_mutex_lock(&s->mu);
    while (!s->head && !s->finished) pthread_cond_wait(&s->cv, &s->mu);
    item *it = s->head;
    if (it) {
        s->head = it->next;
        if (!s->head) s->tail = NULL;
        s->qbytes -= it->len + sizeof *it;
        pthread_cond_broadcast(&s->cv);
    }
    pthread_mutex_unlock(&s->mu);
    return it;
}

static void emit(cal_writer *w, source *s, uint64_t *done) {
    item *it = pop(s);
    if (!it) {
        if (s->want == UINT64_MAX) return;
        cal_die("%s: has only %llu records, %llu needed (use --cycle to repeat it)", s->path,
                (unsigned long long)s->got, (unsigned long long)s->want);
    }
    if (s->label) {
        cal_write_rec(w, it->kind, s->label, strlen(s->label), it->id, it->data, it->len);
    } else {
        cal_rec rec;
        memset(&rec, 0, sizeof rec);
        rec.raw = it->data;
        rec.raw_len = it->len;
        cal_write_raw(w, &rec);
    }
    free(it);
    (*done)++;
}

static void allocate(int have_total, uint64_t total) {
    uint64_t fixed = 0;
    size_t nweighted = 0;
    for (size_t i = 0; i < nsrc; i++) {
        if (src[i].rows >= 0) fixed += (uint64_t)src[i].rows, src[i].want = (uint64_t)src[i].rows;
        else nweighted++;
    }
    if (!have_total) {
        for (size_t i = 0; i < nsrc; i++) {
            if (src[i].weight >= 0) cal_usage_error("%s: weight= needs -n TOTAL", src[i].spec);
            if (src[i].rows < 0) {
                if (!grouped) cal_usage_error("%s: needs rows= (or give -n TOTAL, or --grouped to take all)", src[i].spec);
                src[i].want = UINT64_MAX;
            }
        }
        return;
    }
    if (fixed > total)
        cal_usage_error("rows= add up to %llu, more than -n %llu", (unsigned long long)fixed, (unsigned long long)total);
    if (!nweighted) {
        if (fixed != total)
            cal_usage_error("rows= add up to %llu, not -n %llu", (unsigned long long)fixed, (unsigned long long)total);
        return;
    }
    double *wt = cal_xmalloc(nweighted * sizeof *wt), sum = 0;
    uint64_t *cnt = cal_xmalloc(nweighted * sizeof *cnt);
    size_t k = 0;
    for (size_t i = 0; i < nsrc; i++)
        if (src[i].rows < 0) sum += wt[k++] = src[i].weight >= 0 ? src[i].weight : 1;
    if (!(sum > 0) && total > fixed) cal_usage_error("the weights add up to 0");
    cal_alloc_largest_remainder(total - fixed, wt, nweighted, cnt);
    k = 0;
    for (size_t i = 0; i < nsrc; i++)
        if (src[i].rows < 0) src[i].want = cnt[k++];
    free(wt);
    free(cnt);
}

int main(int argc, char **argv) {
    cal_set_progname(argv[0]);
    enum { O_GROUPED = 256, O_CYCLE, O_SEED, O_PROGRESS, O_HELP, O_VERSION };
    static const struct option lo[] = {
        {"total", 1, 0, 'n'}, {"output", 1, 0, 'o'}, {"verbose", 0, 0, 'v'}, {"grouped", 0, 0, O_GROUPED},
        {"cycle", 0, 0, O_CYCLE}, {"seed", 1, 0, O_SEED}, {"progress", 0, 0, O_PROGRESS},
        {"help", 0, 0, O_HELP}, {"version", 0, 0, O_VERSION}, {0, 0, 0, 0}};
    int have_total = 0, c;
    uint64_t total = 0;
    const char *out = NULL;
    while ((c = getopt_long(argc, argv, "n:o:v", lo, NULL)) != -1) {
        switch (c) {
        case 'n': total = cal_parse_u64("-n", optarg, 0, INT64_MAX), have_total = 1; break;
        case 'o': out = optarg; break;
        case 'v': verbose = 1; break;
        case O_GROUPED: grouped = 1; break;
        case O_CYCLE: cycle = 1; break;
        case O_SEED: seed = cal_parse_u64("--seed", optarg, 0, UINT64_MAX); break;
        case O_PROGRESS: progress = 1; break;
        case O_HELP: fputs(usage, stdout); return 0;
        case O_VERSION: cal_print_version();
        default: fprintf(stderr, "Try 'cal-blend --help'.\n"); return CAL_EXIT_USAGE;
        }
    }
    nsrc = (size_t)(argc - optind);
    if (!nsrc) cal_usage_error("no SPEC given");
    src = cal_xcalloc(nsrc, sizeof *src);
    size_t nstdin = 0;
    for (size_t i = 0; i < nsrc; i++) {
        parse_spec(&src[i], argv[optind + (int)i]);
        nstdin += !strcmp(src[i].path, "-");
    }
    if (nstdin > 1) cal_usage_error("standard input '-' can be one source only");
    allocate(have_total, total);

    for (size_t i = 0; i < nsrc; i++) {
        pthread_mutex_init(&src[i].mu, NULL);
        pthread_cond_init(&src[i].cv, NULL);
        if (pthread_create(&src[i].th, NULL, reader_main, &src[i])) cal_die("cannot start a reader thread");
    }
    cal_writer *w = cal_writer_open(out);
    cal_meta *m = cal_writer_meta(w);
    /* Every source's header must agree (tokenizer fingerprint, ids). */
    for (size_t i = 0; i < nsrc; i++) {
        source *s = &src[i];
        pthread_mutex_lock(&s->mu);
        while (!s->opened) pthread_cond_wait(&s->cv, &s->mu);
        pthread_mutex_unlock(&s->mu);
        char err[512];
        if (i == 0) cal_meta_copy(m, &s->meta);
        else if (!cal_meta_merge(m, &s->meta, err, sizeof err)) cal_die("%s: %s (vs %s)", s->path, err, src[0].path);
    }
    char extra[64] = "";
    if (!grouped && !cal_arg_given(argc, argv, "--seed", NULL))
        snprintf(extra, sizeof extra, "--seed %llu", (unsigned long long)seed);
    cal_meta_add_stage(m, argc, argv, *extra ? extra : NULL);

    cal_progress prog;
    cal_progress_init(&prog, progress);
    uint64_t done = 0;
    if (grouped) {
        for (size_t i = 0; i < nsrc; i++) {
            uint64_t before = done;
            while (src[i].want == UINT64_MAX || done - before < src[i].want) {
                uint64_t d = done;
                emit(w, &src[i], &done);
                if (d == done) break; /* an "all" source ended */
                cal_progress_tick(&prog, done, 0);
            }
        }
    } else {
        /* Seeded schedule: each step picks a source with probability
         * proportional to what it still owes, i.e. a uniform ordering of the
         * multiset of source slots. */
        cal_rng rng;
        cal_rng_init2(&rng, seed, "blend");
        uint64_t *left = cal_xmalloc(nsrc * sizeof *left), rem = 0;
        for (size_t i = 0; i < nsrc; i++) rem += left[i] = src[i].want;
        for (; rem; rem--) {
            uint64_t x = cal_rng_below(&rng, rem);
            size_t i = 0;
            while (x >= left[i]) x -= left[i++];
            left[i]--;
            emit(w, &src[i], &done);
            cal_progress_tick(&prog, done, 0);
        }
        free(left);
    }
    for (size_t i = 0; i < nsrc; i++) pthread_join(src[i].th, NULL);
    cal_writer_close(w);
    cal_progress_done(&prog);
    if (verbose) {
        cal_buf b = {0};
        cal_buf_addf(&b, "cal-blend: %llu records:", (unsigned long long)done);
        for (size_t i = 0; i < nsrc; i++)
            cal_buf_addf(&b, "%s %s %llu", i ? "," : "", src[i].label ? src[i].label : src[i].path,
                         (unsigned long long)(src[i].want == UINT64_MAX ? src[i].got : src[i].want));
        cal_buf_addf(&b, " (%s, seed %llu)\n", grouped ? "grouped" : "interleaved", (unsigned long long)seed);
        fputs(b.p, stderr);
        cal_buf_free(&b);
    }
    for (size_t i = 0; i < nsrc; i++) {
        pthread_mutex_destroy(&src[i].mu);
        pthread_cond_destroy(&src[i].cv);
        cal_meta_free(&src[i].meta);
        free((char *)src[i].path);
        free((char *)src[i].label);
    }
    free(src);
    return 0;
}
