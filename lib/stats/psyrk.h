/* psyrk.h - C += A^T A over a stream of row blocks, on our own worker
 * threads, each calling single-threaded OpenBLAS on a fixed tiling of C.
 *
 * Why not one multi-threaded dsyrk per block: OpenBLAS splits each call
 * statically between its threads and spins (sched_yield) at the barrier, so
 * the reading/decoding thread that runs beside it stalls both BLAS threads
 * whenever it takes a core. Here the upper triangle of C is cut into tiles
 * (dsyrk on the diagonal, dgemm elsewhere) that idle workers take in order,
 * so other work only delays whichever tile is running, and up to NBUF blocks
 * are in flight so the producer rarely waits.
 *
 * Deterministic: the tiling depends on d only and every tile of C is updated
 * block after block in submission order, so the result is bit-identical for
 * any thread count.
 *
 *     size_t ld = cal_psyrk_ld(d);
 *     double *C = calloc(d * ld, sizeof *C);
 *     cal_psyrk *p = cal_psyrk_new(d, rows_per_block, 0, C);
 *     double *b = cal_psyrk_block(p);  ...fill rows of d, ld apart...
 *     cal_psyrk_submit(p, rows);        // b belongs to the workers now
 *     ...
 *     cal_psyrk_free(p);                // waits for all submitted blocks
 *
 * C is d x d row-major with rows ld apart; only its lower triangle (i >= j)
 * is written. */
#ifndef CAL_PSYRK_H
#define CAL_PSYRK_H

#include <stddef.h>

typedef struct cal_psyrk cal_psyrk;

/* The row stride of the blocks and of C for width d: d rounded up to 8, plus 8
 * when that is a multiple of 512, because a power-of-two stride maps the
 * rows the BLAS packs together onto the same cache sets (measured at d = 4096:
 * 512-wide tiles ran 1.5x slower unpadded). */
size_t cal_psyrk_ld(size_t d);

/* threads 0 = one worker per online CPU. */
cal_psyrk *cal_psyrk_new(size_t d, size_t block_rows, int threads, double *C);
/* The buffer to fill next: block_rows rows of d doubles, ld apart. */
double *cal_psyrk_block(cal_psyrk *p);
/* Adds the first `rows` rows of the buffer into C (asynchronously); returns
 * once the next buffer is free. */
void cal_psyrk_submit(cal_psyrk *p, size_t rows);
/* Returns when every submitted block has been added into C. */
void cal_psyrk_wait(cal_psyrk *p);
/* Waits, stops the workers, frees the buffers (not C). */
void cal_psyrk_free(cal_psyrk *p);
int cal_psyrk_threads(const cal_psyrk *p);

#endif
