/* select.h - what cal-select shares with every method: the order the
 * documents are taken in, the seeded random choice, and the record of a
 * choice in the stream's metadata (man/cal-stream.5, "select" keys).
 *
 * Why an order by id: documents are taken in the order of their ids (the
 * input position breaks ties), so the choice does not depend on the order
 * the input came in (shards concatenated in any order choose alike). */
#ifndef CAL_STATS_SELECT_H
#define CAL_STATS_SELECT_H

#include <stddef.h>
#include <stdint.h>

#include "stream/stream.h"

/* order[0 .. n): the positions 0 .. n-1 sorted by (ids[pos], pos). */
void cal_select_order(const uint64_t *ids, size_t n, size_t *order);

/* k of 0 .. n-1 uniformly (k <= n): a partial Fisher-Yates shuffle with
 * calkit's generator seeded by (seed, "cal-select random"): for i = 0 ..
 * k-1, swap a[i] with a[i + below(n - i)]; out = a[0 .. k). */
void cal_select_random(size_t n, size_t k, uint64_t seed, size_t *out);

/* The choice, for the metadata. Clusters are numbered 0 .. nclusters-1;
 * cluster[j] of each chosen document (by its position in out order). */
typedef struct {
    const char *method;      /* random, kmeans, kcenter, like */
    uint64_t docs;           /* documents with features (the pool) */
    size_t nchosen;
    const uint64_t *ids;     /* the chosen documents' ids, in output order */
    const uint32_t *cluster; /* their clusters (NULL: no clusters) */
    size_t nclusters;
    const uint64_t *size;    /* documents of the pool in each cluster */
    size_t max_ids;          /* at most this many ids are listed (0: no limit) */
} cal_select_record;

/* Replaces every select and select.* key of m with the record of r:
 *   select.method=METHOD, select.documents=DOCS, select.chosen=N,
 *   select.clusters=K and, for each cluster J,
 *   select.cluster.J=SIZE CHOSEN ID ID ... (ids as 16 hex digits, in
 *   output order). Returns the ids left out by max_ids (all of a cluster's
 *   ids or none). */
size_t cal_select_meta(cal_meta *m, const cal_select_record *r);

#endif
