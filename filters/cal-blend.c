/* cal-blend - mix several streams into one: exact counts or weights with
 * largest-remainder allocation, interleaved by a seeded schedule or grouped
 * (lib/rows/blend.h). Each source is read by its own thread into a bounded
 * queue (lib/rows/source.h), so sources that are pipes are drained as they
 * produce; only this thread ever reports an error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/num.h"
#include "base/opt.h"
#include "base/progress.h"
#include "rows/blend.h"
#include "rows/source.h"
#include "stream/drops.h"
#include "stream/shards.h"
#include "stream/stream.h"

#define QUEUE_BYTES (64u << 20) /* per source, before its reader waits */

enum { O_GROUPED = 256, O_CYCLE, O_SEED, O_PROGRESS, O_RNG, O_PARTIAL };

static const cal_opt opts[] = {
    {'n', "total", "N", CAL_STAGE, "total records; split among the sources without rows=\n"
                                   "by weight (default 1) with largest-remainder rounding", 0},
    {0, "grouped", NULL, CAL_STAGE, "output the sources one after the other in SPEC order\n"
                                    "(default: interleaved by a seeded schedule)", O_GROUPED},
    {0, "cycle", NULL, CAL_STAGE, "repeat a source that runs short instead of failing", O_CYCLE},
    {0, "seed", "S", CAL_STAGE, "seed of the interleave schedule (default 0)", O_SEED},
    {0, "rng", "KIND", CAL_STAGE, "generator of the schedule: calkit (default), python,\nnumpy or torch", O_RNG},
    {'o', "output", "FILE", 0, "write to FILE (atomically) instead of standard output", 0},
    {0, "allow-partial", NULL, CAL_STAGE, "accept shards of a fan-out that are missing, doubled\nor made differently "
     "(warned; see cal-stream(5))", O_PARTIAL},
    {'v', "verbose", NULL, 0, "one-line summary on standard error", 0},
    {0, "progress", NULL, 0, "progress on standard error", O_PROGRESS},
    {0},
};
static const cal_prog prog = {
    "cal-blend [OPTION]... SPEC...",
    "Mix the records of several streams into one. SPEC is\n"
    "FILE[:rows=N|:weight=W][:label=NAME]; FILE may be '-', a named pipe or a\n"
    "process substitution.",
    opts,
    "Records repeated by --cycle are reported on standard error, even without -v,\n"
    "and recorded in the stream's trailer with what every source dropped.\n",
};

static cal_blend_spec *spec;
static size_t nspec;
static cal_sources *sources;
static cal_writer *w;
static cal_progress progress;
static uint64_t done;

/* Writes source i's next record: 1, or 0 when a source taken whole ended. */
static int emit(size_t i) {
    char err[512];
    const cal_source_rec *r;
    int rc = cal_sources_next(sources, i, &r, err, sizeof err);
    if (rc < 0) cal_die("%s", err);
    if (!rc) {
        if (spec[i].want == CAL_BLEND_ALL) return 0;
        cal_die("%s: has only %llu records, %llu needed (use --cycle to repeat it)", spec[i].path,
                (unsigned long long)cal_sources_got(sources, i), (unsigned long long)spec[i].want);
    }
    if (spec[i].label) {
        cal_write_rec_flags(w, r->kind, r->flags, spec[i].label, strlen(spec[i].label), r->id, cal_source_data(r),
                            r->len);
    } else {
        cal_rec rec;
        memset(&rec, 0, sizeof rec);
        rec.raw = cal_source_data(r);
        rec.raw_len = r->len;
        if (r->kept) cal_write_raw_kept(w, &rec); /* a mapped file's: valid until cal_sources_free */
        else cal_write_raw(w, &rec);
    }
    cal_progress_tick(&progress, ++done, 0);
    return 1;
}

int main(int argc, char **argv) {
    cal_set_progname(argv[0]);
    int have_total = 0, grouped = 0, cycle = 0, verbose = 0, show_progress = 0, partial = 0;
    uint64_t total = 0, seed = 0;
    cal_rng_kind kind = CAL_RNG_CALKIT;
    const char *out = NULL;
    cal_args a;
    cal_args_init(&a, &prog, argc, argv);
    for (int c; (c = cal_args_next(&a)) != -1;) {
        switch (c) {
        case 'n': total = cal_parse_u64(a.name, a.val, 0, INT64_MAX), have_total = 1; break;
        case 'o': out = a.val; break;
        case 'v': verbose = 1; break;
        case O_GROUPED: grouped = 1; break;
        case O_CYCLE: cycle = 1; break;
        case O_SEED: seed = cal_parse_u64(a.name, a.val, 0, UINT64_MAX); break;
        case O_PROGRESS: show_progress = 1; break;
        case O_RNG: kind = cal_rng_kind_opt(a.name, a.val); break;
        case O_PARTIAL: partial = 1; break;
        }
    }
    nspec = (size_t)a.noperands;
    if (!nspec) cal_usage_error("no SPEC given");
    spec = cal_xcalloc(nspec, sizeof *spec);
    size_t nstdin = 0;
    for (size_t i = 0; i < nspec; i++) {
        cal_blend_parse(&spec[i], a.operands[i]);
        nstdin += !strcmp(spec[i].path, "-");
    }
    if (nstdin > 1) cal_usage_error("standard input '-' can be one source only");
    char err[512];
    if (cal_blend_allocate(spec, nspec, have_total, total, grouped, err, sizeof err)) cal_usage_error("%s", err);

    sources = cal_sources_new(nspec, QUEUE_BYTES);
    if (partial) cal_sources_allow_partial(sources);
    for (size_t i = 0; i < nspec; i++)
        cal_sources_start(sources, i, spec[i].path, spec[i].want, cycle, spec[i].label != NULL);
    w = cal_writer_open(out);
    cal_meta *m = cal_writer_meta(w);
    /* Every source's header must agree (tokenizer fingerprint, ids). */
    for (size_t i = 0; i < nspec; i++) {
        const cal_meta *sm = cal_sources_meta(sources, i, err, sizeof err);
        if (!sm) cal_die("%s", err);
        if (i == 0) cal_meta_copy(m, sm);
        else if (!cal_meta_merge(m, sm, err, sizeof err)) cal_die("%s: %s (vs %s)", spec[i].path, err, spec[0].path);
    }
    char extra[64] = "";
    if (!grouped && !cal_args_given(&a, O_SEED)) snprintf(extra, sizeof extra, "--seed %llu", (unsigned long long)seed);
    int sn;
    char **sv = cal_args_stage_options_first(&a, &sn);
    cal_meta_add_stage(m, sn, sv, *extra ? extra : NULL);

    cal_progress_init(&progress, show_progress);
    if (grouped) {
        for (size_t i = 0; i < nspec; i++)
            for (uint64_t k = 0; k < spec[i].want && emit(i); k++) continue;
    } else {
        uint64_t *counts = cal_xmalloc(nspec * sizeof *counts);
        for (size_t i = 0; i < nspec; i++) counts[i] = spec[i].want;
        cal_blend_schedule sched;
        cal_blend_schedule_init(&sched, counts, nspec, kind, seed);
        for (long i; (i = cal_blend_schedule_next(&sched)) >= 0;) emit((size_t)i);
        cal_blend_schedule_free(&sched);
        free(counts);
    }
    if (cal_sources_join(sources, err, sizeof err)) cal_die("%s", err);
    cal_drops drops = {0};
    cal_shards *shards = cal_shards_new(); /* shards of one fan-out split over several sources meet here */
    for (size_t i = 0; i < nspec; i++) {
        if (cal_sources_shards(sources, i)) cal_shards_absorb(shards, cal_sources_shards(sources, i));
        uint64_t cycled;
        const cal_meta *fm = cal_sources_final_meta(sources, i, &cycled);
        if (fm && !cal_meta_merge(m = cal_writer_meta(w), fm, err, sizeof err)) cal_die("%s: %s", spec[i].path, err);
        if (!fm) /* a pipe not read to its end: its trailer never came */
            cal_meta_setf(cal_writer_meta(w), "stopped", "%s took %llu records of %s and stopped", cal_progname(),
                          (unsigned long long)cal_sources_got(sources, i), spec[i].path);
        if (cycled) {
            char why[300];
            snprintf(why, sizeof why, "repeated by --cycle: %s has only %llu", spec[i].path,
                     (unsigned long long)cal_sources_got(sources, i));
            cal_drops_note(&drops, "records", why, cycled, 0, NULL);
        }
    }
    cal_shards_enforce(shards, 0, partial, "input", cal_writer_meta(w));
    cal_shards_free(shards);
    cal_buf b = {0};
    if (verbose) {
        cal_buf_addf(&b, "%llu records:", (unsigned long long)done);
        for (size_t i = 0; i < nspec; i++) {
            uint64_t n = spec[i].want == CAL_BLEND_ALL ? cal_sources_got(sources, i) : spec[i].want;
            cal_buf_addf(&b, "%s %s %llu", i ? "," : "", spec[i].label ? spec[i].label : spec[i].path,
                         (unsigned long long)n);
        }
        cal_buf_addf(&b, " (%s, seed %llu)", grouped ? "grouped" : "interleaved", (unsigned long long)seed);
    }
    cal_drops_finish(&drops, w, NULL, b.p);
    cal_buf_free(&b);
    cal_writer_close(w);
    cal_progress_done(&progress);
    cal_sources_free(sources);
    for (size_t i = 0; i < nspec; i++) cal_blend_spec_free(&spec[i]);
    free(spec);
    cal_args_free(&a);
    return 0;
}
