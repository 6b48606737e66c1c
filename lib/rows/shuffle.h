/* shuffle.h - cal-shuffle's record orders.
 *
 * The full shuffle sorts records by a keyed hash (cal_shuffle_key) with the
 * external sort (extsort.h), so the permutation is uniform, fixed by the
 * seed and the record count, and independent of the memory limit. The local
 * shuffle streams records through a window of W of them. With a peer's
 * generator (base/anyrng.h) the whole shuffle is the peer's instead: the
 * records are held in memory and written in the order of its permutation,
 * record i of the output being record permutation(n)[i] of the input
 * (Python's random.shuffle, numpy's Generator.shuffle, datasets'
 * Dataset.shuffle(seed=S), torch.randperm). */
#ifndef CAL_ROWS_SHUFFLE_H
#define CAL_ROWS_SHUFFLE_H

#include <stddef.h>
#include <stdint.h>

#include "base/anyrng.h"

/* XXH3-64 of v as 8 little-endian bytes, with seed as XXH3's seed: the key
 * of record number v (or of record id v with --by-id). */
uint64_t cal_shuffle_key(uint64_t v, uint64_t seed);

typedef void (*cal_bytes_sink)(void *ctx, const void *p, size_t n);
typedef struct cal_window_shuffle cal_window_shuffle;

/* Each record added beyond the first W replaces a uniformly drawn buffered
 * record, which goes to the sink; cal_window_shuffle_end drains the buffer
 * in a uniformly random order. A record moves at most W-1 places earlier. */
cal_window_shuffle *cal_window_shuffle_new(uint64_t w, cal_rng_kind kind, uint64_t seed, cal_bytes_sink sink,
                                           void *ctx);
void cal_window_shuffle_add(cal_window_shuffle *s, const void *p, size_t n);
void cal_window_shuffle_end(cal_window_shuffle *s);
void cal_window_shuffle_free(cal_window_shuffle *s);

/* Records held for a peer's permutation: add each, then write them all in
 * the order of the generator's permutation. */
typedef struct cal_perm_shuffle cal_perm_shuffle;
cal_perm_shuffle *cal_perm_shuffle_new(void);
void cal_perm_shuffle_add(cal_perm_shuffle *s, const void *p, size_t n);
void cal_perm_shuffle_end(cal_perm_shuffle *s, cal_rng_kind kind, uint64_t seed, cal_bytes_sink sink, void *ctx);
void cal_perm_shuffle_free(cal_perm_shuffle *s);

#endif
