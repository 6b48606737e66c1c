/* source.h - input streams read by threads of their own into bounded
 * queues, so that several sources that are pipes (one producer may feed
 * two) are drained as they produce.
 *
 * No reader thread ever ends the program: a thread that meets an error (a
 * file that cannot be opened, a bad header or record) stops and hands the
 * one-line message, naming the file and byte offset, to the caller's
 * thread; the first error of any source is what every later call returns,
 * so the caller prints it once.
 *
 *     cal_sources *s = cal_sources_new(n, 64 << 20);
 *     cal_sources_start(s, i, path, want, cycle, payload_only);  // each i
 *     const cal_meta *m = cal_sources_meta(s, i, err, sizeof err);  // header
 *     const cal_source_rec *r;
 *     while (cal_sources_next(s, i, &r, err, sizeof err) == 1) use(r);
 *     cal_sources_free(s);  // joins the threads */
#ifndef CAL_ROWS_SOURCE_H
#define CAL_ROWS_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "stream/stream.h"

typedef struct cal_source_rec {
    int kind;
    unsigned flags;   /* the record flags (CAL_TEXT_CHAT) */
    uint64_t id;
    size_t len;       /* bytes of data */
    const uint8_t *kept; /* the data where it stays valid until cal_sources_free
                          * (a named regular file is mapped, not read: its
                          * records are not copied); NULL: in data[] */
    uint8_t data[];   /* the whole record, or its payload (payload_only) */
} cal_source_rec;

/* A record's data: the whole record, or its payload (payload_only). */
static inline const uint8_t *cal_source_data(const cal_source_rec *r) { return r->kept ? r->kept : r->data; }

typedef struct cal_sources cal_sources;

/* n sources, each queueing up to about queue_bytes before its reader waits
 * (records cross in batches: a source holds at most about twice that). */
cal_sources *cal_sources_new(size_t n, size_t queue_bytes);
/* Starts source i's thread: it reads path ("-" = standard input) until it
 * has `want` records (UINT64_MAX: all), keeping whole records or only their
 * payloads; with cycle, a source that ends early is repeated from its first
 * record up to `want`. Dies (this thread) if no thread can be started. */
void cal_sources_start(cal_sources *s, size_t i, const char *path, uint64_t want, int cycle, int payload_only);
/* Waits for source i's header: its metadata, or NULL with the first error
 * of any source in err. */
const cal_meta *cal_sources_meta(cal_sources *s, size_t i, char *err, size_t errlen);
/* Source i's next record: 1; 0 when it has no more; -1 with the first
 * error of any source in err. The record stays valid until the next call
 * for source i (its memory is reused then). */
int cal_sources_next(cal_sources *s, size_t i, const cal_source_rec **rec, char *err, size_t errlen);
/* Before any start: a source's shards that meet incomplete are accepted
 * with a warning instead of failing it (--allow-partial; stream/shards.h). */
void cal_sources_allow_partial(cal_sources *s);
/* After cal_sources_join: source i's metadata merged from every header when
 * it was read to the end (its trailer too: what upstream dropped), else
 * NULL; *cycled: the copies --cycle made of its records. */
const cal_meta *cal_sources_final_meta(cal_sources *s, size_t i, uint64_t *cycled);
/* After cal_sources_join: the shards source i's headers named, when it was
 * read to its end (else NULL), to check the sources' shards together. */
struct cal_shards *cal_sources_shards(cal_sources *s, size_t i);
/* Records read from source i so far (before any cycling). */
uint64_t cal_sources_got(cal_sources *s, size_t i);
/* Waits for every thread to end: 0, or -1 with the first error. */
int cal_sources_join(cal_sources *s, char *err, size_t errlen);
/* Joins (when not yet) and frees everything; readers the consumer left
 * behind stop reading and end. */
void cal_sources_free(cal_sources *s);

#endif
