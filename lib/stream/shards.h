/* shards.h - checks that the shards of a fan-out meet whole where they are
 * merged.
 *
 * Why: `parallel "cal-read big.jsonl --shard {}/8 | ... > part{}.cal"` then
 * `cat part*.cal | cal-shuffle --by-id | cal-pack` merged 248 of 505 rows
 * with exit 0 when half of the shard runs failed (empty part files), and
 * merged shards made from different builds of a corpus without a word.
 *
 * A shard is known by its stage line: a stage holding `--shard I/N` (or
 * --shard=I/N) belongs to the family of that line with I written as the letter I
 * ("cal-read big.jsonl --shard I/8"). The ledger is fed every header of
 * the input (cal_shards_header), and tells streams apart: a header without
 * the CONTINUES flag starts a stream (a file of the concatenation), one with
 * it continues the stream before it (its writer's metadata changed, e.g.
 * the trailer that carries what was dropped). A stream whose headers name
 * exactly one shard of a family is that shard's own output; one naming
 * several was merged before (and checked there).
 *
 * cal_shards_check then finds, for every family named by two streams or
 * more, or by one stream that merged several of its shards (or by any,
 * when whole is asked, as cal-shuffle --by-id does):
 *   - missing shards: every I in 0..N-1 must be there;
 *   - a shard twice: two streams of the same shard;
 *   - shards made differently: two shards' streams whose `input` lines (the
 *     content fingerprints of what cal-read read) or other stage lines
 *     differ.
 * A family accepted partial upstream (a `partial` metadata line, written by
 * a program run with --allow-partial) is not checked again, nor one named by
 * a stream with a `stopped` line (a stage that stopped reading early names
 * only the shards it met).
 *
 *     cal_shards *s = cal_shards_new();
 *     cal_shards_header(s, &header_meta, continues);   // every header, in order
 *     cal_buf why = {0};
 *     if (cal_shards_check(s, 0, &why)) ...;            // why: one line
 *     cal_shards_accept(s, cal_writer_meta(w));         // --allow-partial
 */
#ifndef CAL_STREAM_SHARDS_H
#define CAL_STREAM_SHARDS_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "stream/stream.h"

typedef struct cal_shards cal_shards;

cal_shards *cal_shards_new(void);
/* One header's own metadata (not merged), in input order; continues: the
 * header has the CONTINUES flag. */
void cal_shards_header(cal_shards *s, const cal_meta *m, int continues);
/* The ledger's problems as one line in why (replacing its content), e.g.
 * "shards of 'cal-read big.jsonl --shard I/8': 4 of 8 present, missing 1,
 * 3, 5, 7"; returns the number of families with a problem (0: none).
 * whole: a family met even once must be whole. */
int cal_shards_check(cal_shards *s, int whole, cal_buf *why);
/* For --allow-partial: a `partial` line in m naming every family with a
 * problem, so that later stages accept it too (and summaries show it). */
void cal_shards_accept(cal_shards *s, int whole, cal_meta *m);
/* The families met: "cal-read big.jsonl --shard I/8: 8 of 8" for each, in
 * the order met, appended to out one per line. For summaries. */
void cal_shards_describe(cal_shards *s, cal_buf *out);
/* Adds what src met to dst (a program reading several files checks their
 * ledgers together). */
void cal_shards_absorb(cal_shards *dst, cal_shards *src);
/* For a program reading inputs of its own (several files, result files):
 * checks s; on a problem ends the program with "PROG: WHERE: WHY
 * (--allow-partial accepts them)", or with allow_partial warns and adds
 * the `partial` lines to out (when not NULL). */
void cal_shards_enforce(cal_shards *s, int whole, int allow_partial, const char *where, cal_meta *out);
void cal_shards_free(cal_shards *s);

/* The shard of a stage line: 1 with *i, *n and the family (the line with
 * I replaced by '*', into fam) when it holds --shard I/N outside quotes. */
int cal_stage_shard(const char *stage, uint64_t *i, uint64_t *n, cal_buf *fam);

#endif
