/* sample.h - which documents a run keeps besides dedup: --shard I/N (the
 * documents whose id modulo N is I: N shards partition any input, whatever
 * its order) and --sample K (a bottom-k sample: the K documents with the
 * smallest hash of their id keyed by the seed, written in that order, so the
 * sample depends only on the set of documents and the seed). */
#ifndef CAL_TEXT_SAMPLE_H
#define CAL_TEXT_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

/* Parses "I/N" (N in 1..2^32-1, I in 0..N-1); a usage error naming opt
 * otherwise. */
void cal_shard_parse(const char *opt, const char *v, uint64_t *i, uint64_t *n);
/* Whether shard i of n holds the document id (always when n is 0). */
static inline int cal_shard_keeps(uint64_t id, uint64_t i, uint64_t n) { return n == 0 || id % n == i; }

typedef struct {
    uint64_t key, id;
    char *label, *text;
    size_t n;
    unsigned flags; /* the record flags to write it with (CAL_TEXT_CHAT) */
} cal_sampled;

typedef struct {
    size_t k;
    uint64_t seed;
    cal_sampled *doc; /* a max-heap on key while adding; sorted by cal_sample_sort */
    size_t n, cap;
} cal_sample;

void cal_sample_init(cal_sample *s, size_t k, uint64_t seed);
/* Offers a document; keeps a copy while it is among the k smallest keys. */
void cal_sample_add(cal_sample *s, const char *label, uint64_t id, const char *text, size_t n, unsigned flags);
/* Puts doc[0 .. n) in ascending order of key: the order of writing. */
void cal_sample_sort(cal_sample *s);
void cal_sample_free(cal_sample *s);

#endif
