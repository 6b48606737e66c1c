/* cal-shuffle - seeded uniform shuffle of records in bounded memory, EXL2's
 * shuffled-segment rows, and a streaming local shuffle (lib/rows/shuffle.h,
 * extsort.h, segments.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/num.h"
#include "base/opt.h"
#include "base/progress.h"
#include "rows/docstore.h"
#include "stream/drops.h"
#include "rows/extsort.h"
#include "rows/segments.h"
#include "rows/shuffle.h"
#include "stream/stream.h"

enum { O_SEED = 256, O_WINDOW, O_SEG, O_NOREP, O_BYID, O_PROGRESS, O_RNG, O_WHOLE, O_PARTIAL };

static const cal_opt opts[] = {
    {'S', "buffer-size", "SIZE", 0, "memory for records before spilling sorted runs to\n$TMPDIR (default 256M; K/M/G suffixes)", 0},
    {0, "seed", "S", CAL_STAGE, "seed (default 0)", O_SEED},
    {0, "rng", "KIND", CAL_STAGE, "whose generator: calkit (default: keyed-hash order in\n"
     "bounded memory), python, numpy or torch (the peer's\npermutation, records held in memory)", O_RNG},
    {'o', "output", "FILE", 0, "write to FILE (atomically) instead of standard output", 0},
    {0, "by-id", NULL, CAL_STAGE, "key records by their id instead of their position, so\n"
                                  "the order does not depend on the input order (shards)", O_BYID},
    {0, "window", "W", CAL_STAGE, "streaming local shuffle through a W-record buffer", O_WINDOW},
    {0, "segments", "K", CAL_STAGE, "cut the token stream into K-token segments and build\n"
                                    "rows from segments drawn uniformly (needs -n, -l)", O_SEG},
    {'n', "rows", "N", CAL_STAGE, "--segments: number of rows", 0},
    {'l', "length", "N", CAL_STAGE, "--segments: row length in tokens", 0},
    {0, "no-replace", NULL, CAL_STAGE, "--segments: draw segments without replacement", O_NOREP},
    {0, "whole-rows", NULL, CAL_STAGE, "--segments: cut the stream to whole rows of LENGTH\n"
     "first (EXL2)", O_WHOLE},
    {0, "allow-partial", NULL, CAL_STAGE, "accept shards of a fan-out that are missing, doubled\nor made differently "
     "(warned; see cal-stream(5))", O_PARTIAL},
    {'v', "verbose", NULL, 0, "one-line summary on standard error", 0},
    {0, "progress", NULL, 0, "progress on standard error", O_PROGRESS},
    {0},
};
static const cal_prog prog = {
    "cal-shuffle [OPTION]... [FILE]\ncal-shuffle --segments K -n ROWS -l LENGTH [OPTION]... [FILE]",
    "Shuffle the records of FILE (or standard input) uniformly, with a seed.",
    opts,
    "Tokens left out (the partial last segment) are reported on standard error.\n"
    "With --by-id the input is a merge of shards: they must all be there (see\n"
    "cal-stream(5), SHARDS).\n",
};

static struct {
    uint64_t seed, mem, window, rows;
    int have_rows, by_id, verbose, progress, partial;
    cal_rng_kind kind;
    cal_segments_opts seg;
} o;

static cal_progress progress;
static uint64_t nrec, nbytes;

static void count(const cal_rec *rec) {
    nrec++;
    nbytes += rec->raw_len;
    cal_progress_tick(&progress, nrec, nbytes);
}

static void write_raw(void *w, const void *p, size_t n) {
    cal_rec rec;
    memset(&rec, 0, sizeof rec);
    rec.raw = p;
    rec.raw_len = n;
    cal_write_raw(w, &rec);
}

static void write_row(void *w, const cal_row_out *r) {
    cal_write_row(w, r->label, r->id, r->ids, r->mask, r->len, r->flags);
}

static void add_stage(cal_writer *w, cal_reader *r, cal_args *a) {
    char extra[64] = "";
    if (!cal_args_given(a, O_SEED)) snprintf(extra, sizeof extra, "--seed %llu", (unsigned long long)o.seed);
    cal_meta_copy(cal_writer_meta(w), cal_reader_meta(r));
    cal_reader_accept_partial(r, cal_writer_meta(w)); /* after a full read: in the first header */
    int n;
    char **v = cal_args_stage_options_first(a, &n);
    cal_meta_add_stage(cal_writer_meta(w), n, v, *extra ? extra : NULL);
}

/* Full shuffle: sort by the keyed hash of each record's index (or id), so
 * the permutation is uniform and does not depend on -S. */
static size_t shuffle_all(cal_reader *r, cal_writer *w, cal_args *a, uint64_t *io_bytes, uint64_t *io_writes) {
    cal_extsort *s = cal_extsort_new((size_t)o.mem);
    cal_rec rec;
    while (cal_read(r, &rec)) {
        cal_extsort_add(s, cal_shuffle_key(o.by_id ? rec.id : nrec, o.seed), rec.raw, rec.raw_len);
        count(&rec);
    }
    add_stage(w, r, a); /* after every header has been merged: the output carries all of it */
    const void *p;
    size_t n;
    while (cal_extsort_next(s, &p, &n)) write_raw(w, p, n);
    size_t spills = cal_extsort_spills(s);
    cal_extsort_spill_io(s, io_bytes, io_writes);
    cal_extsort_free(s);
    return spills;
}

/* A peer's shuffle: its permutation of the records, held in memory. */
static void shuffle_peer(cal_reader *r, cal_writer *w, cal_args *a) {
    cal_perm_shuffle *s = cal_perm_shuffle_new();
    cal_rec rec;
    while (cal_read(r, &rec)) {
        cal_perm_shuffle_add(s, rec.raw, rec.raw_len);
        count(&rec);
    }
    add_stage(w, r, a);
    cal_perm_shuffle_end(s, o.kind, o.seed, write_raw, w);
    cal_perm_shuffle_free(s);
}

static void shuffle_window(cal_reader *r, cal_writer *w) {
    cal_window_shuffle *s = cal_window_shuffle_new(o.window, o.kind, o.seed, write_raw, w);
    cal_rec rec;
    while (cal_read(r, &rec)) {
        count(&rec);
        cal_window_shuffle_add(s, rec.raw, rec.raw_len);
    }
    cal_window_shuffle_end(s);
    cal_window_shuffle_free(s);
}

static void segments(cal_reader *r, cal_writer *w, cal_drops *drops) {
    static cal_docstore store; /* static: still reachable if an error ends the program */
    cal_ids t = {0};
    cal_rec rec;
    while (cal_read(r, &rec)) {
        if (rec.kind != CAL_TOKENS && rec.kind != CAL_ROW)
            cal_reader_die(r, &rec, "expected TOKENS or ROW records, got %s", cal_kind_name(rec.kind));
        count(&rec);
        cal_rec_ids(&rec, &t);
        cal_docstore_add(&store, t.v, t.n, rec.id, rec.label, rec.label_len);
    }
    cal_ids_free(&t);
    char err[512];
    if (cal_segments_rows(&store, &o.seg, write_row, w, drops, err, sizeof err))
        cal_die("%s: %s", cal_reader_name(r), err);
    cal_docstore_free(&store);
}

int main(int argc, char **argv) {
    cal_set_progname(argv[0]);
    o.mem = 256ull << 20;
    const char *out = NULL;
    cal_args a;
    cal_args_init(&a, &prog, argc, argv);
    for (int c; (c = cal_args_next(&a)) != -1;) {
        switch (c) {
        case 'S': o.mem = cal_parse_size(a.name, a.val); break;
        case 'o': out = a.val; break;
        case 'n': o.seg.rows = cal_parse_u64(a.name, a.val, 0, UINT32_MAX), o.have_rows = 1; break;
        case 'l': o.seg.len = cal_parse_u64(a.name, a.val, 1, CAL_MAX_PAYLOAD / 5); break;
        case 'v': o.verbose = 1; break;
        case O_SEED: o.seed = cal_parse_u64(a.name, a.val, 0, UINT64_MAX); break;
        case O_WINDOW: o.window = cal_parse_u64(a.name, a.val, 1, 1u << 28); break;
        case O_SEG: o.seg.seg = cal_parse_u64(a.name, a.val, 1, CAL_MAX_PAYLOAD / 4); break;
        case O_NOREP: o.seg.no_replace = 1; break;
        case O_BYID: o.by_id = 1; break;
        case O_PROGRESS: o.progress = 1; break;
        case O_RNG: o.kind = cal_rng_kind_opt(a.name, a.val); break;
        case O_WHOLE: o.seg.whole_rows = 1; break;
        case O_PARTIAL: o.partial = 1; break;
        }
    }
    if (a.noperands > 1) cal_usage_error("one input FILE at most (concatenate with cat)");
    int seg = o.seg.seg != 0;
    if (seg && (!o.have_rows || !o.seg.len)) cal_usage_error("--segments needs -n ROWS and -l LENGTH");
    if (!seg && (o.have_rows || o.seg.len || o.seg.no_replace || o.seg.whole_rows))
        cal_usage_error("-n, -l, --no-replace and --whole-rows need --segments");
    if (seg && o.window) cal_usage_error("--segments and --window exclude each other");
    if (o.by_id && (seg || o.window || o.kind != CAL_RNG_CALKIT))
        cal_usage_error("--by-id applies to the full shuffle with calkit's generator only");
    o.seg.seed = o.seed;
    o.seg.kind = o.kind;

    cal_reader *r = cal_reader_open(a.noperands ? a.operands[0] : NULL);
    /* --by-id is how shards are merged: even one shard alone is a partial set */
    cal_reader_shards_mode(r, 1, o.by_id, o.partial);
    cal_writer *w = cal_writer_open(out);
    cal_progress_init(&progress, o.progress);
    cal_drops drops = {0};
    size_t spills = 0;
    uint64_t io_bytes = 0, io_writes = 0;
    if (seg || o.window) add_stage(w, r, &a);
    if (seg) segments(r, w, &drops);
    else if (o.window) shuffle_window(r, w);
    else if (o.kind != CAL_RNG_CALKIT) shuffle_peer(r, w, &a);
    else spills = shuffle_all(r, w, &a, &io_bytes, &io_writes);
    char sum[256] = "";
    if (o.verbose && seg)
        snprintf(sum, sizeof sum, "%llu records -> %llu rows of %llu from %llu-token segments, seed %llu",
                 (unsigned long long)nrec, (unsigned long long)o.seg.rows, (unsigned long long)o.seg.len,
                 (unsigned long long)o.seg.seg, (unsigned long long)o.seed);
    else if (o.verbose)
        snprintf(sum, sizeof sum,
                 "%llu records (%llu bytes) shuffled, seed %llu, temporary files %llu bytes in %llu writes, %zu runs spilled",
                 (unsigned long long)nrec, (unsigned long long)nbytes, (unsigned long long)o.seed,
                 (unsigned long long)io_bytes, (unsigned long long)io_writes, spills);
    cal_drops_finish(&drops, w, r, sum);
    cal_writer_close(w);
    cal_progress_done(&progress);
    cal_reader_close(r);
    cal_args_free(&a);
    return 0;
}
