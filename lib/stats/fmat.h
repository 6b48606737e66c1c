/* fmat.h - the documents' feature matrix and squared distances from its
 * rows to a few points, with BLAS, in blocks of rows.
 *
 * Why one module: k-means, k-means++, k-center and --like all ask "how far
 * is every document from these points", and each must give the same bits
 * for any thread count. Here every distance is computed one way:
 *     d2(x, c) = max(0, |x|^2 + |c|^2 - 2 x.c)
 * in float64 (the rows are stored as float32 to halve the memory, widened
 * per block), the products by one single-threaded dgemm per block of
 * CAL_FMAT_BLOCK rows (the caller sets OpenBLAS to one thread: cal_par's
 * threads run the blocks). Block bounds depend on n alone, so the result
 * does not depend on the threads. */
#ifndef CAL_STATS_FMAT_H
#define CAL_STATS_FMAT_H

#include <stddef.h>
#include <stdint.h>

#include "base/par.h"

#define CAL_FMAT_BLOCK 256

typedef struct {
    const float *x; /* n x d, row-major */
    size_t n, d;
    double *norm2;  /* |x_i|^2 in float64 (cal_fmat_init) */
} cal_fmat;

/* Points X at n x d rows x and computes their squared norms. */
void cal_fmat_init(cal_fmat *X, const float *x, size_t n, size_t d);
void cal_fmat_free(cal_fmat *X);

/* Row i widened to float64: out[0 .. d). */
void cal_fmat_row(const cal_fmat *X, size_t i, double *out);

/* The squared distances of rows [i0, i1) to the k points c (k x d, with
 * squared norms cn): out[(i - i0) * k + j]. xd: scratch of (i1 - i0) x d
 * doubles. One dgemm: call it on blocks of at most CAL_FMAT_BLOCK rows
 * cut at multiples of it. */
void cal_fmat_dist2(const cal_fmat *X, size_t i0, size_t i1, const double *c, const double *cn, size_t k, double *xd,
                    double *out);

/* For every row i: fn(ctx, i, d2 + i's k distances) with the distances
 * to the k points c, in blocks of rows on p's threads (points in chunks of
 * at most 256, so memory stays at a block's worth: fn sees row i once per
 * chunk with j0, the chunk's first point). */
typedef void (*cal_fmat_visit)(void *ctx, size_t i, size_t j0, const double *d2, size_t kc);
void cal_fmat_each(const cal_fmat *X, const double *c, const double *cn, size_t k, cal_par *p, cal_fmat_visit fn,
                   void *ctx);

/* Points: rows idx[0 .. k) of X widened into c (k x d) with their norms. */
void cal_fmat_points(const cal_fmat *X, const size_t *idx, size_t k, double *c, double *cn);

#endif
