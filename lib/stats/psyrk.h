/* psyrk.h - C += A^T A over a stream of row blocks, on our own worker
 * threads, each calling single-threaded OpenBLAS on a fixed tiling of C.
 *
 * Why not one multi-threaded dsyrk per block: OpenBLAS splits each call
 * statically between its threads and spins (sched_yield) at the barrier, so
 * the reading/decoding thread that runs beside it stalls every BLAS thread
 * whenever it takes a core. Here idle workers take small tasks in turn, so
 * other work only delays whichever task is running.
 *
 * The model (man/cal-hessian.1 says it too):
 *   - Tiles. The upper triangle of C is cut into T x T square tiles on
 *     column boundaries that are multiples of 8: T(T+1)/2 tiles, dsyrk on
 *     the diagonal, dgemm above it. T = round(d / 512) (at least 1) up to
 *     d = 4096, 8 from there to d = 8192 (tiles 512 to 1024 wide), then
 *     round(d / 1024). Wide tiles spread the BLAS's packing over more work
 *     (measured on a 2-core VM: 1024-wide tiles took 8-12% less CPU than
 *     512-wide at d = 4096 and 8192; on Xeon and Zen 5, 256-wide lose
 *     10-25%, 128-wide 30%), but fewer tiles are fewer chains (Scaling):
 *     so tiles widen only where 36 of them remain (d = 4096 to 8192).
 *   - Tasks. A task is one tile of one block: one BLAS call adds the
 *     block's product on the tile into a lane in place (beta = 1; beta = 0
 *     where a lane other than C holds nothing yet: at its first block and
 *     after each fold, so no lane relies on zeroed memory). A scratch
 *     product added afterwards would let one tile's blocks run at the same
 *     time, but its extra pass over every tile (and the zeroing of the
 *     scratch) cost 15% of the CPU time at 512 rows per block (measured on
 *     Zen 5, 2 threads, d = 2048).
 *   - Lanes. Lane 0 is C; L = cal_psyrk_lanes(d) = 64 / (workers one lane
 *     keeps busy, below), at most 4. Lanes 2 and 3 share one more d x d
 *     matrix; lanes 1 and 3 keep their tiles transposed, in the triangle of
 *     C (lane 1) or of that matrix (lane 3) that the even lane leaves free,
 *     and their diagonal tiles in a d x (tile width) buffer each. So lane 1
 *     costs next to no fresh memory, which is dear (when each lane was a
 *     matrix of its own, the kernel zeroing lanes 1-3 took 11% of the CPU
 *     time at d = 4096 on a 2-core VM, ~5% a lane). Lane 1 opens at block
 *     16 and lanes 2 and 3 at block 128 (cal_psyrk_lane_of); the open lanes
 *     take the blocks in turn. In a lane a tile takes the lane's blocks in order:
 *     its task of a block starts only once its task of the lane's previous
 *     block has ended. cal_psyrk_wait has the workers add the lanes into C,
 *     tile by tile, in lane order.
 *   - Hand-out. A free worker takes the first task, in order (block after
 *     block, largest tile first), whose tile is done with the lane's
 *     previous block; so a worker never waits while another tile has work.
 *   - Groups. A worker that takes a tile's task also takes, in the same
 *     call, the tasks of the same block on the tile's neighbours that can
 *     start too: off the diagonal, above and below it in its column of C
 *     (BLAS view) in even lanes, left and right of it in its row in odd
 *     lanes (which keep tiles transposed), so that the call grows along the
 *     operand the BLAS packs cheaply. It takes up to half of a worker's
 *     share of the tasks that can start now (a whole column or row at 2
 *     workers, seldom two tiles at 16). One call packs the shared panel
 *     once instead of once a tile: 7-15% less CPU time on one thread at
 *     d = 4096 on a 2-core VM. Only full blocks group, and only tiles whose
 *     extent along the group is a multiple of 8 (groups.c: OpenBLAS's
 *     AVX-512 kernels add other rows differently).
 *   - Blocks in flight. The producer fills one block while up to NBUF - 1
 *     wait for or are in the workers' hands (a tile may run blocks ahead of
 *     another); NBUF (3 to 16) is chosen from the thread count so that
 *     there are at least 4 tasks per worker on hand. Buffers are allocated
 *     when first filled.
 *   - Scaling. Each tile is a chain of tasks per lane, so at most L T(T+1)/2
 *     workers are busy at once, and a worker's share of a block must hold
 *     at least two of the largest tiles for the chains to even out: one lane
 *     keeps (work of all tiles) / (2 x the largest tile) workers busy (4 at
 *     d = 2048, 16 from d = 4096 to 8192), and cal_psyrk_busy_threads(d)
 *     = L times that: 16 at d = 2048, 36 at 3072, 64 at 4096 and 8192.
 *     A bound: as tiles run blocks ahead, the simulated hand-out keeps 64
 *     workers at d = 4096 80% busy over 64 blocks (lanes 0 and 1 alone)
 *     and 95% over 256 (test_stats_psyrk.c).
 *   - Determinism. Every tile of a lane is the chain L_t += P_g over the
 *     lane's blocks g in order, each product's shape depending on d and the
 *     block's rows alone, the lane of a block on its number alone, and the
 *     lanes are added in lane order. The thread count changes only who
 *     computes what and when, and which tiles share a call (Groups), never
 *     an operand or an order: the result is bit-identical for any number of
 *     threads. That a group adds each element as its tile's own call would
 *     holds for OpenBLAS's kernels (each element is one chain of fused
 *     multiply-adds over the rows, whichever register block holds it), and
 *     cal_psyrk_new checks it on the tiling's longest group of each
 *     kind, with the kernels in use: where it fails, every task is a call
 *     of its own.
 *
 *     size_t ld = cal_psyrk_ld(d);
 *     double *C = calloc(d * ld, sizeof *C);
 *     cal_psyrk *p = cal_psyrk_new(d, rows_per_block, 0, C);
 *     double *b = cal_psyrk_block(p);  ...fill rows of d, ld apart...
 *     cal_psyrk_submit(p, rows);        // b belongs to the workers now
 *     ...
 *     cal_psyrk_free(p);                // waits for all submitted blocks
 *
 * C is d x d row-major with rows ld apart. Its lower triangle (i >= j) gets
 * the sum; its upper triangle is lane 1's (see Lanes): what is left there
 * means nothing. */
#ifndef CAL_PSYRK_H
#define CAL_PSYRK_H

#include <stddef.h>
#include <stdint.h>

typedef struct cal_psyrk cal_psyrk;

/* The row stride of the blocks and of C for width d: d rounded up to 8, plus 8
 * when that is a multiple of 512, because a power-of-two stride maps the
 * rows the BLAS packs together onto the same cache sets (measured at d = 4096:
 * 512-wide tiles ran 1.5x slower unpadded). */
size_t cal_psyrk_ld(size_t d);

/* A tile of C in BLAS's column-major view (the transpose of the row-major
 * C): rows [i0, i0+ni) x columns [j0, j0+nj), i0 <= j0; i0 == j0 is a
 * diagonal tile (its upper triangle only). */
typedef struct {
    size_t i0, ni, j0, nj;
} cal_psyrk_tile;

/* The tiling for width d, in the order tasks are handed out (largest
 * first); depends on d alone. Returns the count; *tiles is the caller's to
 * free. */
size_t cal_psyrk_tiling(size_t d, cal_psyrk_tile **tiles);

/* Blocks in flight (the producer's included) for `threads` workers on
 * `ntiles` tiles. */
size_t cal_psyrk_nbuf(int threads, size_t ntiles);

/* Lanes for width d (see Lanes). */
size_t cal_psyrk_lanes(size_t d);

/* The lane of block g (0, 1, ...) when there are `lanes` lanes (see
 * Lanes). */
size_t cal_psyrk_lane_of(uint64_t g, size_t lanes);

/* The most workers the tiling for width d keeps busy (see Scaling). */
int cal_psyrk_busy_threads(size_t d);

/* threads 0 = one worker per online CPU. From the first cal_psyrk_new to
 * the last cal_psyrk_free, BLAS calls run single-threaded and OpenBLAS's
 * own pool is parked; the thread count is then restored. */
cal_psyrk *cal_psyrk_new(size_t d, size_t block_rows, int threads, double *C);
/* The buffer to fill next: block_rows rows of d doubles, ld apart. */
double *cal_psyrk_block(cal_psyrk *p);
/* Adds the first `rows` rows of the buffer into C (asynchronously); returns
 * once the next buffer is free. */
void cal_psyrk_submit(cal_psyrk *p, size_t rows);
/* Adds n rows held in memory (row-major, d doubles each, contiguous),
 * copying them into the blocks as a reading thread would fill them. */
void cal_psyrk_add_rows(cal_psyrk *p, const double *x, size_t n);
/* Returns when every submitted block has been added into C (the lanes
 * folded into it; blocks submitted afterwards start the lanes anew). */
void cal_psyrk_wait(cal_psyrk *p);
/* Waits, stops the workers, frees the buffers (not C). */
void cal_psyrk_free(cal_psyrk *p);
int cal_psyrk_threads(const cal_psyrk *p);
/* One BLAS call per task from now on (see Groups): for tests, which check
 * that grouping changes no bit. */
void cal_psyrk_ungrouped(cal_psyrk *p);
/* Whether neighbours' tasks may share a call: 0 after cal_psyrk_ungrouped,
 * and where the start-up check found that the kernels in use give other
 * bits for a group than for its tiles' own calls (Groups). */
int cal_psyrk_grouping(cal_psyrk *p);
/* BLAS calls made so far (a group is one). */
uint64_t cal_psyrk_calls(cal_psyrk *p);

#endif
