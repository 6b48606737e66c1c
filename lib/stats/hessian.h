/* hessian.h - exact accumulation of H = sum x x^T and per-channel statistics.
 *
 * Rows are written into a block of float64 (cal_hess_row), committed one at a
 * time (cal_hess_commit), and each full block goes to worker threads that
 * add it into H (psyrk.h) while the caller fills the next block.
 * Everything is kept as exact float64 sums plus counts; scaling happens only
 * on output, so results from shards add up exactly.
 *
 *     cal_hess *h = cal_hess_new(d, 0, 0);
 *     double *x = cal_hess_row(h); ...fill d values...; cal_hess_commit(h);
 *     cal_hess_finish(h);           // H, sum, ... final (H symmetric, full)
 *     cal_hess_free(h);
 */
#ifndef CAL_HESSIAN_H
#define CAL_HESSIAN_H

#include <stddef.h>
#include <stdint.h>

#include "stats/sketch.h"

typedef struct {
    size_t d;
    double *H;       /* d*d row-major; full and symmetric after cal_hess_finish */
    size_t Hmap;     /* bytes of H's own mapping (cal_huge_zalloc), 0: malloc */
    double *sum;     /* sum of x */
    double *sumsq;   /* sum of x^2 (llama.cpp imatrix) */
    double *abssum;  /* sum of |x| */
    double *absmax;  /* max |x| */
    double count;    /* number of vectors (weights included), an exact integer */
    cal_sketch *sk;  /* percentile sketches and exact min/max, or NULL */
} cal_hess_stats;

typedef struct cal_hess cal_hess;

/* The widest vectors: H of d*d doubles is 8 TiB at this d. Callers check
 * their d against it where they can name the input (file, offset). */
#define CAL_HESS_MAX_D (1u << 20)

/* block_rows 0 = a default sized for the BLAS (about 8 MB per block);
 * threads 0 = one worker per online CPU; d in 1..CAL_HESS_MAX_D. */
cal_hess *cal_hess_new(size_t d, size_t block_rows, int threads);
/* Also keep percentile sketches (stats/sketch.h); before the first row. */
void cal_hess_sketch(cal_hess *h);
int cal_hess_threads(const cal_hess *h);
size_t cal_hess_block_rows(const cal_hess *h);
/* The next free row (d doubles); valid until cal_hess_commit. */
double *cal_hess_row(cal_hess *h);
/* Adds the row filled in by the caller with weight 1. */
void cal_hess_commit(cal_hess *h);
/* Adds the row with integer weight c >= 1: statistics get c*x, c*x^2, c*|x|,
 * and H gets c*x*x^T (the row is scaled by sqrt(c) for the BLAS). */
void cal_hess_commit_weighted(cal_hess *h, uint64_t c);
/* Flushes the last block, stops the worker, symmetrises H. */
cal_hess_stats *cal_hess_finish(cal_hess *h);
/* cal_hess_finish, and the statistics become the caller's (free them with
 * cal_hess_stats_free; h is then only to be freed). */
cal_hess_stats *cal_hess_take(cal_hess *h);
void cal_hess_free(cal_hess *h);

/* Statistics not tied to an accumulator (used by --merge). */
cal_hess_stats *cal_hess_stats_new(size_t d);
void cal_hess_stats_free(cal_hess_stats *s);

/* 1 when every value of x[0..n) is finite. */
int cal_all_finite(const double *x, size_t n);

/* Upper Cholesky factor U of the inverse of the damped matrix, as GPTQ
 * consumes it: columns with a zero diagonal get diagonal 1, then
 * damp * mean(diag) is added to the diagonal; inverse(A) = U^T U.
 * A is d*d row-major symmetric and is not changed; U (row-major, zeros below
 * the diagonal) goes to out. Returns 0 on success, else the LAPACK info
 * (the damped matrix is not positive definite). *dead receives the number of
 * dead columns. */
int cal_gptq_inverse(const double *A, size_t d, double damp, double *out, size_t *dead);

/* Converts a VECTORS row of d values in dtype (cal_dtype) to float64;
 * returns 1 when every value is finite. */
int cal_decode_row(const uint8_t *src, int dtype, size_t d, double *dst);

#endif
