/* par.h - a parallel for over fixed blocks of an index range, on the ordered
 * thread pool (pool.h).
 *
 * Why: cal-select's numerical passes (features, distances, k-means steps)
 * are loops over documents whose iterations are independent. Cutting the
 * range into blocks whose bounds depend on the range and the block size
 * alone, never on the thread count, and having each block write only its own
 * rows, gives the same bits for any number of threads; the caller's thread
 * helps, so N threads keep N cores busy.
 *
 *     cal_par *p = cal_par_new(threads);
 *     cal_par_for(p, n, 1024, fn, ctx);   // fn(ctx, i0, i1, ...) on [i0, i1)
 *     cal_par_free(p);
 */
#ifndef CAL_BASE_PAR_H
#define CAL_BASE_PAR_H

#include <stddef.h>

/* Runs iterations [i0, i1): 0, or nonzero with a one-line message in err.
 * Runs on any thread; it must not exit the program. */
typedef int (*cal_par_fn)(void *ctx, size_t i0, size_t i1, char *err, size_t errsz);

typedef struct cal_par cal_par;

/* threads >= 1 (1: everything runs on the caller's thread). */
cal_par *cal_par_new(unsigned threads);
unsigned cal_par_threads(const cal_par *p);
/* Calls fn on [0, block), [block, 2 block), ... [.., n), each exactly once,
 * and returns when all have ended. A block that fails ends the program with
 * its message (cal_die), after the blocks running beside it have ended. */
void cal_par_for(cal_par *p, size_t n, size_t block, cal_par_fn fn, void *ctx);
void cal_par_free(cal_par *p);

/* The number of online processors (at least 1): the default thread count. */
unsigned cal_par_cpus(void);

#endif
