/* cal-shuffle - seeded uniform shuffle of records in bounded memory, EXL2's
 * shuffled-segment rows, and a streaming local shuffle. */
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
#include "rows/extsort.h"
#include "stream/stageargs.h"
#include "stream/stream.h"

static const char usage[] =
    "Usage: cal-shuffle [OPTION]... [FILE]\n"
    "Shuffle the records of FILE (or standard input) uniformly, with a seed.\n"
    "\n"
    "  -S, --buffer-size SIZE  memory for records before spilling sorted runs to\n"
    "                          $TMPDIR (default 256M; K/M/G suffixes)\n"
    "      --seed S            seed (default 0)\n"
    "  -o, --output FILE       write to FILE (atomically) instead of standard output\n"
    "      --by-id             key records by their id instead of their position, so\n"
    "                          the order does not depend on the input order (shards)\n"
    "      --window W          streaming local shuffle through a W-record buffer\n"
    "      --segments K        cut the token stream into K-token segments and build\n"
    "                          rows from segments drawn uniformly (needs -n, -l)\n"
    "  -n, --rows N            --segments: number of rows\n"
    "  -l, --length N          --segments: row length in tokens\n"
    "      --no-replace        --segments: draw segments without replacement\n"
    "  -v, --verbose           one-line summary on standard error\n"
    "      --progress          progress on standard error\n"
    "      --help              show this help and exit\n"
    "      --version           show the version and exit\n";

static struct {
    uint64_t seed, mem, window, seg, rows, len;
    int no_replace, verbose, progress, have_rows, by_id;
    const char *in, *out;
} o;

static cal_progress prog;
static uint64_t nrec, nbytes;

static void write_raw(cal_writer *w, const void *p, size_t n) {
    cal_rec rec;
    memset(&rec, 0, sizeof rec);
    rec.raw = p;
    rec.raw_len = n;
    cal_write_raw(w, &rec);
}

/* Full shuffle: each record's key is a keyed hash of (seed, its index), so
 * sorting by key is a uniform permutation that does not depend on -S. With
 * --by-id the key hashes the record id instead: shards of a stream merged in
 * any order then come out in the same order as the whole stream. */
static size_t shuffle_all(cal_reader *r, cal_writer *w, int argc, char **argv, const char *extra) {
    cal_extsort *s = cal_extsort_new((size_t)o.mem);
    cal_rec rec;
    while (cal_read(r, &rec)) {
        uint8_t b[8];
        cal_st64(b, o.by_id ? rec.id : nrec);
        cal_extsort_add(s, cal_hash_seed(b, 8, o.seed), rec.raw, rec.raw_len);
        nrec++;
        nbytes += rec.raw_len;
        cal_progress_tick(&prog, nrec, nbytes);
    }
    /* Every header has been merged by now: the output carries all of it. */
    cal_meta_copy(cal_writer_meta(w), cal_reader_meta(r));
    /* -S changes nothing in the result, so it stays out of the provenance */
    static const char *const drop[] = {"-o", "--output", "-S", "--buffer-size", NULL};
    cal_add_stage_without(cal_writer_meta(w), argc, argv, extra, drop);
    const void *p;
    size_t n;
    while (cal_extsort_next(s, &p, &n)) write_raw(w, p, n);
    size_t spills = cal_extsort_spills(s);
    cal_extsort_free(s);
    return spills;
}

/* Local shuffle: emit a uniformly chosen buffered record per new record. */
static void shuffle_window(cal_reader *r, cal_writer *w) {
    cal_rng rng;
    cal_rng_init2(&rng, o.seed, "window");
    cal_buf *slot = cal_xcalloc((size_t)o.window, sizeof *slot);
    size_t have = 0;
    cal_rec rec;
    while (cal_read(r, &rec)) {
        nrec++;
        nbytes += rec.raw_len;
        cal_progress_tick(&prog, nrec, nbytes);
        if (have < o.window) {
            slot[have].n = 0;
            cal_buf_add(&slot[have++], rec.raw, rec.raw_len);
            continue;
        }
        size_t j = (size_t)cal_rng_below(&rng, o.window);
        write_raw(w, slot[j].p, slot[j].n);
        slot[j].n = 0;
        cal_buf_add(&slot[j], rec.raw, rec.raw_len);
    }
    /* drain in a uniformly random order */
    while (have) {
        size_t j = (size_t)cal_rng_below(&rng, have);
        write_raw(w, slot[j].p, slot[j].n);
        cal_buf t = slot[j];
        slot[j] = slot[--have];
        slot[have] = t;
    }
    for (size_t i = 0; i < o.window; i++) cal_buf_free(&slot[i]);
    free(slot);
}

/* EXL2 shuffled rows: the token stream in K-token segments, each row made
 * of ceil(LENGTH/K) segments drawn uniformly (the last one cut to fit). */
static void segments(cal_reader *r, cal_writer *w) {
    /* static: still reachable if an error ends the program (no leak report) */
    static cal_ids all, t;
    static uint64_t *start, *ids;
    static char **labels;
    size_t ndoc = 0;
    cal_rec rec;
    while (cal_read(r, &rec)) {
        if (rec.kind != CAL_TOKENS && rec.kind != CAL_ROW)
            cal_reader_die(r, &rec, "expected TOKENS or ROW records, got %s", cal_kind_name(rec.kind));
        nrec++;
        nbytes += rec.raw_len;
        cal_rec_ids(&rec, &t);
        start = cal_xrealloc(start, (ndoc + 1) * sizeof *start);
        ids = cal_xrealloc(ids, (ndoc + 1) * sizeof *ids);
        labels = cal_xrealloc(labels, (ndoc + 1) * sizeof *labels);
        start[ndoc] = all.n;
        ids[ndoc] = rec.id;
        labels[ndoc] = cal_xmalloc(rec.label_len + 1);
        memcpy(labels[ndoc], rec.label, rec.label_len);
        labels[ndoc][rec.label_len] = 0;
        ndoc++;
        cal_ids_reserve(&all, all.n + t.n);
        memcpy(all.v + all.n, t.v, t.n * 4);
        all.n += t.n;
    }
    uint64_t nseg = all.n / o.seg, per = (o.len + o.seg - 1) / o.seg;
    if (nseg == 0 || (o.no_replace && nseg < o.rows * per)) {
        uint64_t possible = o.no_replace ? nseg / per : 0;
        cal_die("%s: %zu tokens make %llu segments of %llu; %llu rows of %llu need %llu%s (%llu rows possible)",
                cal_reader_name(r), all.n, (unsigned long long)nseg, (unsigned long long)o.seg,
                (unsigned long long)o.rows, (unsigned long long)o.len,
                (unsigned long long)(o.no_replace ? o.rows * per : 1), o.no_replace ? " without replacement" : "",
                (unsigned long long)possible);
    }
    cal_rng rng;
    cal_rng_init2(&rng, o.seed, "segments");
    uint64_t *perm = NULL;
    if (o.no_replace) {
        perm = cal_xmalloc(nseg * sizeof *perm);
        for (uint64_t i = 0; i < nseg; i++) perm[i] = i;
    }
    uint32_t *row = cal_xmalloc(o.len * 4);
    uint8_t *picked = cal_xmalloc(per * 8);
    uint64_t first = 0, used = 0;
    for (uint64_t rr = 0; rr < o.rows; rr++) {
        for (uint64_t k = 0; k < per; k++) {
            uint64_t s;
            if (o.no_replace) { /* partial Fisher-Yates over all segments */
                uint64_t j = used + cal_rng_below(&rng, nseg - used);
                s = perm[j];
                perm[j] = perm[used];
                perm[used++] = s;
            } else {
                s = cal_rng_below(&rng, nseg);
            }
            cal_st64(picked + 8 * k, s);
            if (k == 0) first = s;
            uint64_t at = k * o.seg, n = o.seg < o.len - at ? o.seg : o.len - at;
            memcpy(row + at, all.v + s * o.seg, n * 4);
        }
        /* label of the document the first segment starts in */
        uint64_t pos = first * o.seg;
        size_t lo = 0, hi = ndoc;
        while (hi - lo > 1) {
            size_t mid = (lo + hi) / 2;
            if (start[mid] <= pos) lo = mid;
            else hi = mid;
        }
        uint8_t b[8];
        cal_st64(b, o.seed);
        uint64_t id = cal_hash_seed(picked, per * 8, cal_hash(b, 8) ^ ids[lo]);
        cal_write_row(w, labels[lo], id, row, NULL, (uint32_t)o.len, 0);
    }
    for (size_t i = 0; i < ndoc; i++) free(labels[i]);
    free(labels), free(start), free(ids), free(perm), free(row), free(picked);
    cal_ids_free(&all);
    cal_ids_free(&t);
}

int main(int argc, char **argv) {
    cal_set_progname(argv[0]);
    enum { O_SEED = 256, O_WINDOW, O_SEG, O_NOREP, O_BYID, O_PROGRESS, O_HELP, O_VERSION };
    static const struct option lo[] = {
        {"buffer-size", 1, 0, 'S'}, {"output", 1, 0, 'o'}, {"rows", 1, 0, 'n'}, {"length", 1, 0, 'l'},
        {"verbose", 0, 0, 'v'}, {"seed", 1, 0, O_SEED}, {"window", 1, 0, O_WINDOW},
        {"segments", 1, 0, O_SEG}, {"no-replace", 0, 0, O_NOREP}, {"by-id", 0, 0, O_BYID}, {"progress", 0, 0, O_PROGRESS},
        {"help", 0, 0, O_HELP}, {"version", 0, 0, O_VERSION}, {0, 0, 0, 0}};
    o.mem = 256ull << 20;
    int c;
    while ((c = getopt_long(argc, argv, "S:o:n:l:v", lo, NULL)) != -1) {
        switch (c) {
        case 'S': o.mem = cal_parse_size("-S", optarg); break;
        case 'o': o.out = optarg; break;
        case 'n': o.rows = cal_parse_u64("-n", optarg, 0, UINT32_MAX), o.have_rows = 1; break;
        case 'l': o.len = cal_parse_u64("-l", optarg, 1, CAL_MAX_PAYLOAD / 5); break;
        case 'v': o.verbose = 1; break;
        case O_SEED: o.seed = cal_parse_u64("--seed", optarg, 0, UINT64_MAX); break;
        case O_WINDOW: o.window = cal_parse_u64("--window", optarg, 1, 1u << 28); break;
        case O_SEG: o.seg = cal_parse_u64("--segments", optarg, 1, CAL_MAX_PAYLOAD / 4); break;
        case O_NOREP: o.no_replace = 1; break;
        case O_BYID: o.by_id = 1; break;
        case O_PROGRESS: o.progress = 1; break;
        case O_HELP: fputs(usage, stdout); return 0;
        case O_VERSION: cal_print_version();
        default: fprintf(stderr, "Try 'cal-shuffle --help'.\n"); return CAL_EXIT_USAGE;
        }
    }
    if (optind < argc) o.in = argv[optind++];
    if (optind < argc) cal_usage_error("one input FILE at most (concatenate with cat)");
    if (o.seg && (!o.have_rows || !o.len)) cal_usage_error("--segments needs -n ROWS and -l LENGTH");
    if (!o.seg && (o.have_rows || o.len || o.no_replace)) cal_usage_error("-n, -l and --no-replace need --segments");
    if (o.seg && o.window) cal_usage_error("--segments and --window exclude each other");
    if (o.by_id && (o.seg || o.window)) cal_usage_error("--by-id applies to the full shuffle only");

    cal_reader *r = cal_reader_open(o.in);
    cal_writer *w = cal_writer_open(o.out);
    cal_progress_init(&prog, o.progress);
    /* the resolved default seed, when the command line leaves it implicit */
    char extra[128] = "";
    if (!cal_arg_given(argc, argv, "--seed", NULL)) snprintf(extra, sizeof extra, "--seed %llu", (unsigned long long)o.seed);
    size_t spills = 0;
    if (o.seg || o.window) {
        cal_meta_copy(cal_writer_meta(w), cal_reader_meta(r));
        cal_meta_add_stage(cal_writer_meta(w), argc, argv, *extra ? extra : NULL);
        if (o.seg) segments(r, w);
        else shuffle_window(r, w);
    } else {
        spills = shuffle_all(r, w, argc, argv, *extra ? extra : NULL);
    }
    cal_writer_close(w);
    cal_progress_done(&prog);
    if (o.verbose) {
        if (o.seg)
            fprintf(stderr, "cal-shuffle: %llu records -> %llu rows of %llu from %llu-token segments, seed %llu\n",
                    (unsigned long long)nrec, (unsigned long long)o.rows, (unsigned long long)o.len,
                    (unsigned long long)o.seg, (unsigned long long)o.seed);
        else
            fprintf(stderr, "cal-shuffle: %llu records (%llu bytes) shuffled, seed %llu, %zu runs spilled\n",
                    (unsigned long long)nrec, (unsigned long long)nbytes, (unsigned long long)o.seed, spills);
    }
    cal_reader_close(r);
    return 0;
}
