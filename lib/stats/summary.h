/* summary.h - what a calibration set is, at a glance (cal-cat --summary).
 *
 * Why: finding that a chat set is 31.6% real tokens, that a stratified set
 * over a mixed pool came out 23 wiki rows and no multilingual one, or that
 * a stage dropped 2,845 documents took jq and Python. A summary is made in
 * one pass over any stream, per label and in total: records of each kind,
 * rows, tokens, real tokens (the mask's 1s) and padding, a length histogram
 * (TEXT: bytes, TOKENS: ids, ROW: real tokens, in powers of two), BOS/EOS
 * among the real tokens, distinct ids and their share of the vocabulary,
 * exact duplicate records; and from the metadata: the tokenizer, inputs,
 * stages, seeds, what every stage dropped (drop lines, summed over shards),
 * partial shards accepted, stages that stopped reading early, and the
 * shards met (stream/shards.h). Text for a person, JSON for scripts, an SVG
 * picture (summary_svg.c) for a browser.
 *
 * Memory: a bitmap of the vocabulary per label (32 KiB for 262,144 ids; at
 * most 256 labels, the rest counted as "(other labels)"), and 16 bytes per
 * record for duplicates. */
#ifndef CAL_STATS_SUMMARY_H
#define CAL_STATS_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "stream/shards.h"
#include "stream/stream.h"

#define CAL_SUM_BUCKETS 34 /* 0, 1, 2-3, 4-7, ..., 2^31-2^32-1, 2^32+ */
#define CAL_SUM_GROUPS 256

typedef struct {
    char label[CAL_MAX_LABEL + 1];
    uint64_t kinds[5];       /* records by kind (index = cal_kind) */
    uint64_t text_bytes;     /* TEXT payload bytes */
    uint64_t tokens;         /* ids of TOKENS records */
    uint64_t positions;      /* ids of ROW records (padding included) */
    uint64_t real;           /* ROW ids the mask keeps (all without a mask), + TOKENS ids */
    uint64_t noise;          /* NOISE rows */
    uint64_t bos, eos;       /* BOS / EOS ids among the real tokens */
    uint64_t rows_bos;       /* rows whose first real token is BOS */
    uint64_t dups;           /* records equal to an earlier one of this label */
    uint64_t hist[CAL_SUM_BUCKETS];
    uint64_t longest;        /* the longest length counted in hist */
    uint64_t distinct;       /* distinct ids among the real tokens */
    uint8_t *seen;           /* bitmap of ids seen (vocabulary-sized) */
} cal_sum_group;

typedef struct {
    cal_sum_group *g;        /* per label, in order met */
    size_t ng;
    cal_sum_group total;
    int64_t vocab, bos, eos; /* from the metadata; -1 when absent */
    size_t bits;             /* bitmap size in ids */
    uint64_t beyond;         /* ids at or past `bits` (not in the distinct counts) */
    uint64_t dups;           /* records equal to an earlier one, any label */
    uint64_t headers, streams;
    cal_meta meta;           /* the merged metadata */
    struct sum_set *all, *per; /* seen record hashes: any label, per label */
} cal_summary;

cal_summary *cal_summary_new(void);
/* The merged metadata so far (call again when it grows: the last wins),
 * after `headers` more headers of which `streams` started a stream. */
void cal_summary_header(cal_summary *s, const cal_meta *merged, unsigned headers, unsigned streams);
void cal_summary_add(cal_summary *s, const cal_rec *r);
/* The whole summary, for a terminal (out is appended to). */
void cal_summary_text(const cal_summary *s, cal_shards *sh, cal_buf *out);
/* The same as one JSON object and a newline. */
void cal_summary_json(const cal_summary *s, cal_shards *sh, cal_buf *out);
/* A picture: the domain mix, real tokens and padding per label, the length
 * histogram and what was lost, as a standalone SVG document. */
void cal_summary_svg(const cal_summary *s, cal_buf *out);
void cal_summary_free(cal_summary *s);

/* What the drop lines of m say, summed over the lines of one cause (the
 * same program, noun, unit and reason on several shards): for each, calls
 * fn with the cause and how many lines (chains) it sums. */
typedef struct {
    char prog[64], noun[32], unit[32];
    const char *why;
    uint64_t n, amount, chains;
} cal_sum_drop;
size_t cal_summary_drops(const cal_meta *m, cal_sum_drop **out);

/* The bucket of a length: 0 for 0, else 1 + floor(log2(len)), capped. */
int cal_sum_bucket(uint64_t len);
/* "0", "1", "2-3", ..., into out (at least 48 bytes); the top ends at
 * longest, the longest length counted: rows of exactly 1024 show as "1024",
 * not "1024-2047". */
void cal_sum_bucket_name(int b, uint64_t longest, char *out, size_t n);

#endif
