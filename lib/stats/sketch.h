/* sketch.h - per-channel percentile sketches of x and |x|, mergeable
 * exactly in any order (man/cal-hessian.1, --percentiles).
 *
 * Why this design: shards of a calibration set must merge to the bytes of
 * the single run whatever their order. A histogram over fixed buckets merges
 * by integer addition, which is exact and commutative; KLL and t-digest
 * compact by what they have seen so far, so their state depends on the
 * order. The buckets are log-linear like HdrHistogram's and give DDSketch's
 * guarantee (error relative to the value, which is what a clipping range
 * needs at the 99.9th percentile): the bucket of a value |x| >= DBL_MIN is
 * its float64 bit pattern without the sign and the low 52 - 6 mantissa bits,
 * so 64 buckets per power of two, upper/lower edge <= 1 + 2^-6, and no log()
 * on the accumulation path.
 *
 * Memory: a channel keeps the 768 buckets (12 powers of two) below the
 * bucket of its max |x|, for negative and positive x, as uint64 counts; what
 * falls below the window (zeros, subnormals, |x| < max|x| / 4096) is one
 * count. When max|x| rises, the window slides and the buckets it leaves join
 * that count. Each value's place is thus a function of its bucket and of the
 * final max|x| alone, so the state after any merge order is the same.
 * CAL_SKETCH_STRIDE * 8 + 16 = 12,320 bytes per channel (with min and max).
 *
 * Error bound (for every percentile p, numpy's default 'linear' method):
 * numpy interpolates q = (1-f) v_i + f v_{i+1} between two order statistics;
 * each is estimated within CAL_SKETCH_ALPHA * |v| (2^-7: the bucket's
 * 2LU/(L+U) point; v_0 and v_{n-1} exactly, from min and max) or, when it is
 * below the window, as 0 within CAL_SKETCH_FLOOR(max|x|), so
 *     |estimate - q| <= 2^-7 ((1-f)|v_i| + f|v_{i+1}|)
 *                        + max(max|x| 2^-12 (1+2^-6), DBL_MIN).
 * Inf and NaN never reach a sketch: cal-hessian refuses or skips such rows. */
#ifndef CAL_STATS_SKETCH_H
#define CAL_STATS_SKETCH_H

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#define CAL_SKETCH_MBITS 6                                     /* mantissa bits kept */
#define CAL_SKETCH_N (12 << CAL_SKETCH_MBITS)                  /* buckets per sign: 768 */
#define CAL_SKETCH_STRIDE (2 + 2 * CAL_SKETCH_N)               /* uint64 per channel */
#define CAL_SKETCH_ALPHA 0.0078125                             /* 2^-7 */
#define CAL_SKETCH_FLOOR(absmax) fmax((absmax) * (1.0 + 1.0 / 64) / 4096, DBL_MIN)
#define CAL_SKETCH_FORMAT "loglinear-m6-w768" /* names the layout in the result file */

/* Channel layout (also the rows of the result's "sketch" tensor):
 *   [0] top: 1 + bucket of max|x|, 0 while no |x| >= DBL_MIN was seen
 *   [1] below: values under the window
 *   [2 + k] negative x in bucket top - N + k, k = 0..N-1
 *   [2 + N + k] positive x in bucket top - N + k */
typedef struct {
    size_t d;
    uint64_t *c;       /* d * CAL_SKETCH_STRIDE */
    double *min, *max; /* exact; +Inf / -Inf while empty */
} cal_sketch;

cal_sketch *cal_sketch_new(size_t d);
void cal_sketch_free(cal_sketch *s);
/* Adds channels [j0, j1) of n rows of finite values (row r at x + r * ld),
 * each with weight w. Works on tiles of channels so that their buckets stay
 * in cache; disjoint channel ranges may be added from different threads. */
void cal_sketch_add_rows(cal_sketch *s, const double *x, size_t ld, size_t n, uint64_t w, size_t j0, size_t j1);
/* Adds channel j of src into channel k of dst (the same as having added
 * src's values there). */
void cal_sketch_merge_channel(cal_sketch *dst, size_t k, const cal_sketch *src, size_t j);
/* dst += src, channel by channel (same d). */
void cal_sketch_merge(cal_sketch *dst, const cal_sketch *src);
/* One channel holding every channel's values (the whole tensor's). */
cal_sketch *cal_sketch_total(const cal_sketch *s);
/* The estimate of percentile p (0..100) of x (absval 0) or |x| (absval 1)
 * in channel j, as np.percentile(..., method='linear'); 0 when empty. */
double cal_sketch_percentile(const cal_sketch *s, size_t j, double p, int absval);
/* The values of channel j: its count (the sum of its buckets). */
uint64_t cal_sketch_count(const cal_sketch *s, size_t j);
/* Checks channel data read from a file (ch: CAL_SKETCH_STRIDE values) against
 * the channel's count of values and its exact max|x|: a top that is not the
 * bucket of absmax, counts that do not add up to count, buckets below the
 * smallest float64. Returns 0 with the reason in err. */
int cal_sketch_check(const uint64_t *ch, uint64_t count, double absmax, char *err, size_t errlen);

#endif
