/* drops.h - what a program left out of its output, and why.
 *
 * Every program that drops, truncates, pads, skips or refuses something (a
 * length filter, a template that refuses a conversation, the remainder of a
 * stream too short for one more row, a truncation) counts it here under the
 * cause, and reports the counts on standard error whenever any is nonzero,
 * with or without -v: nothing is lost without a word.
 *
 *     cal_drops d = {0};
 *     cal_drops_add(&d, "by --max-tokens 512", 1, 900);  // documents, tokens
 *     cal_drops_add(&d, "as the last partial row (--tail drop)", 0, 27);
 *     cal_drops_note(&d, "documents", "dropped by --min-chars 400", 2845, 310022, "bytes");
 *     cal_drops_report(&d, NULL); // "cal-pack: 1 documents dropped by
 *                            //  --max-tokens 512 (900 tokens), 27 tokens
 *                            //  dropped as the last partial row (--tail drop), ..."
 *
 * cal_drops_add counts documents and tokens under a reason that follows
 * "dropped"; cal_drops_note is the general form: N NOUNs (one word:
 * documents, conversations, records, rows, tokens) WHY (a phrase with its verb:
 * "dropped by ...", "truncated to ...", "padded to ...", "refused by the
 * template"), AMOUNT UNITs among them (one word: tokens, bytes; or no
 * unit). */
#ifndef CAL_STREAM_DROPS_H
#define CAL_STREAM_DROPS_H

#include <stdint.h>

#include "base/buf.h"
#include "stream/stream.h"

#define CAL_DROPS_MAX 32

typedef struct {
    char why[128];
    int whole;     /* whole documents were dropped (else only tokens) */
    int cut;       /* cal_drops_cut: docs documents lost tokens, none dropped whole */
    uint64_t docs, tokens;
    char noun[24]; /* cal_drops_note's: what is counted in docs ("" for cal_drops_add) */
    char unit[16]; /* cal_drops_note's: what is counted in tokens ("" when nothing is) */
} cal_drop;

typedef struct {
    cal_drop v[CAL_DROPS_MAX];
    size_t n;
} cal_drops;

/* The index of reason `why` ("by --min-tokens 5": what follows "dropped"),
 * added when new. Reasons are reported in the order they were added. */
size_t cal_drops_reason(cal_drops *d, const char *why);
/* Counts docs whole documents holding `tokens` tokens (docs = 0: tokens cut
 * from documents that were kept) under reason i; counts add up. */
void cal_drops_count(cal_drops *d, size_t i, uint64_t docs, uint64_t tokens);
/* Counts docs documents that were kept but lost `tokens` tokens (cut to
 * fit a row): "N documents truncated WHY (T tokens dropped)"; they are not
 * documents dropped in cal_drops_docs, their tokens are in cal_drops_tokens. */
void cal_drops_cut(cal_drops *d, size_t i, uint64_t docs, uint64_t tokens);
/* cal_drops_count(d, cal_drops_reason(d, why), docs, tokens) */
void cal_drops_add(cal_drops *d, const char *why, uint64_t docs, uint64_t tokens);
/* The general form: n NOUNs WHY, holding amount UNITs (unit NULL or "":
 * no amount). Counts under the same (noun, why) add up. */
void cal_drops_note(cal_drops *d, const char *noun, const char *why, uint64_t n, uint64_t amount, const char *unit);
/* Totals of cal_drops_add's documents and tokens (notes not counted). */
uint64_t cal_drops_docs(const cal_drops *d);
uint64_t cal_drops_tokens(const cal_drops *d);
/* Appends "N documents dropped WHY (T tokens), T tokens dropped WHY" for
 * every nonzero reason, joined by ", "; appends nothing when none is. */
void cal_drops_format(const cal_drops *d, cal_buf *out);
/* On standard error: "PROG: SUMMARY" (-v's summary, when not NULL or
 * empty), then one line "PROG: N NOUN WHY (A UNIT)" for every nonzero
 * cause; nothing when neither is. */
void cal_drops_report(const cal_drops *d, const char *summary);

/* ---- what travels in the stream ----
 * Every nonzero cause becomes a metadata line
 *     drop=CHAIN PROG N NOUN AMOUNT UNIT WHY
 * e.g. "drop=1f0c... cal-pack 27 tokens 0 - dropped as the last partial row
 * (--tail drop)": CHAIN (16 hex digits, cal_drops_chain) tells apart the
 * same program run on different shards, whose lines would otherwise be one;
 * UNIT is "-" when the cause has no amount; WHY is the rest of the line.
 * A writer's trailer header carries them (cal_drops_finish), and merges
 * keep every distinct line (cal_meta_repeats), so the end of a pipeline
 * knows what every stage before it lost. */

/* XXH3-64 over m's stage and input lines, in order. */
uint64_t cal_drops_chain(const cal_meta *m);
/* Adds a drop line to m for every nonzero cause (after m's stage lines are
 * complete: the chain covers them). */
void cal_drops_record(const cal_drops *d, cal_meta *m);

typedef struct {
    uint64_t chain, n, amount;
    char prog[64], noun[32], unit[32]; /* unit "" for none */
    const char *why;                   /* into the parsed value */
} cal_drop_line;
/* A drop line's value: 0, or -1 when it is not of that form. */
int cal_drop_parse(const char *v, cal_drop_line *out);

/* At the end of a filter, before cal_writer_close: the writer's metadata
 * takes in what the input's later headers brought (concatenated streams and
 * upstream trailers: their stage, input and drop lines), the families of
 * shards the reader accepted partial (--allow-partial), and d's causes
 * (cal_drops_record); then cal_drops_report(d, summary). r may be NULL (no
 * stream input), d too (nothing dropped). */
void cal_drops_finish(const cal_drops *d, cal_writer *w, cal_reader *r, const char *summary);

#endif
