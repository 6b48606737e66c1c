/* kmeans.h - k-means on the feature matrix: greedy k-means++ seeding from
 * calkit's generator, Lloyd's iterations as scikit-learn's KMeans
 * (algorithm='lloyd', tol=0) runs them, and the rows nearest each centroid.
 *
 * Why these rules: scikit-learn is the reference a researcher checks
 * against (tests/sh/test_select.sh runs KMeans(init=C0, n_init=1,
 * algorithm='lloyd', tol=0) from the same initial centroids and finds the
 * same assignments and iteration count), and greedy k-means++ is its
 * default seeding. Distances are fmat.h's (float64, BLAS, any thread count
 * gives the same bits).
 *
 * Seeding (cal_kmeans_pp), with L = 2 + floor(ln k) trials:
 *   the first centre is row below(n); D_i = d2(x_i, nearest centre so far),
 *   P = sum D_i (in row order). For each further centre: L draws
 *   u_t = double() * P, candidate t = the first row whose running sum of D
 *   (in row order) exceeds u_t (the last row if none); the candidate
 *   whose adoption gives the least sum of min(D_i, d2(x_i, candidate))
 *   (the first on a tie) becomes the centre.
 * Lloyd (cal_kmeans_lloyd), at most max_iter times:
 *   label every row with its nearest centroid (the lower index on a tie);
 *   new centroids are the means of their rows; an empty cluster (in index
 *   order) takes the row farthest from its centroid (rows by decreasing
 *   distance, lower index first), which leaves its old cluster's sum but
 *   keeps its label, as scikit-learn's _relocate_empty_clusters does; stop
 *   when the labels equal the previous iteration's, or when no centroid
 *   moved; after a stop without equal labels, label once more. */
#ifndef CAL_STATS_KMEANS_H
#define CAL_STATS_KMEANS_H

#include <stddef.h>
#include <stdint.h>

#include "base/par.h"
#include "base/rng.h"
#include "stats/fmat.h"

/* Greedy k-means++: k distinct rows (1 <= k <= n) into centers, in the order
 * chosen. 0, or -1 with err when the rows hold fewer than k distinct
 * points (the potential fell to 0 before the k-th centre). */
int cal_kmeans_pp(const cal_fmat *X, size_t k, cal_rng *rng, cal_par *p, size_t *centers, char *err, size_t errlen);

typedef struct {
    size_t k, max_iter;
    double *c;        /* k x d: the initial centroids in, the final out */
    uint32_t *label;  /* n: each row's cluster */
    double *dist2;    /* n: its squared distance to its centroid */
    size_t iter;      /* iterations run (scikit-learn's n_iter_) */
    int converged;    /* stopped on equal labels */
    size_t relocated; /* empty clusters given a row, over all iterations */
} cal_kmeans;

/* Allocates km's arrays for n rows of width d and k clusters. */
void cal_kmeans_init(cal_kmeans *km, size_t n, size_t d, size_t k, size_t max_iter);
void cal_kmeans_free(cal_kmeans *km);
void cal_kmeans_lloyd(const cal_fmat *X, cal_kmeans *km, cal_par *p);

/* Cluster sizes: size[j] = rows labelled j. */
void cal_kmeans_sizes(const cal_kmeans *km, size_t n, uint64_t *size);

/* The want[j] rows of each cluster j nearest its centroid (by dist2, the
 * lower row on a tie; want[j] <= its size) into out, cluster by cluster,
 * nearest first. Returns how many were written. */
size_t cal_kmeans_nearest(const cal_kmeans *km, size_t n, const uint64_t *want, size_t *out);

#endif
