/* sketch.c - log-linear bucket sketches with a sliding window (sketch.h). */
#include "stats/sketch.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"

enum { N = CAL_SKETCH_N, SHIFT = 52 - CAL_SKETCH_MBITS };
#define MIN_NORMAL 0x0010000000000000ull /* bits of DBL_MIN */
#define FIRST_BUCKET (MIN_NORMAL >> SHIFT)

cal_sketch *cal_sketch_new(size_t d) {
    cal_sketch *s = cal_xcalloc(1, sizeof *s);
    s->d = d;
    s->c = cal_xcalloc(d * CAL_SKETCH_STRIDE, sizeof *s->c);
    s->min = cal_xmalloc(d * sizeof *s->min);
    s->max = cal_xmalloc(d * sizeof *s->max);
    for (size_t j = 0; j < d; j++) s->min[j] = INFINITY, s->max[j] = -INFINITY;
    return s;
}

void cal_sketch_free(cal_sketch *s) {
    if (!s) return;
    free(s->c);
    free(s->min);
    free(s->max);
    free(s);
}

/* min and max in the total order that puts -0 before +0, so that the result
 * does not depend on which zero came first. */
static void minmax(double *mn, double *mx, double v) {
    if (v < *mn || (v == *mn && signbit(v))) *mn = v;
    if (v > *mx || (v == *mx && !signbit(v))) *mx = v;
}

/* Slides the window of channel c up so that its top is top; the buckets it
 * leaves join the count below it. */
static void raise_top(uint64_t *c, uint64_t top) {
    if (!c[0]) {
        c[0] = top;
        return;
    }
    if (top <= c[0]) return;
    uint64_t delta = top - c[0];
    for (int side = 0; side < 2; side++) {
        uint64_t *a = c + 2 + side * N;
        size_t gone = delta < N ? (size_t)delta : N;
        for (size_t k = 0; k < gone; k++) c[1] += a[k];
        memmove(a, a + gone, (N - gone) * sizeof *a);
        memset(a + N - gone, 0, gone * sizeof *a);
    }
    c[0] = top;
}

static inline void add_value(uint64_t *c, double v, uint64_t w) {
    uint64_t u;
    memcpy(&u, &v, 8);
    uint64_t a = u & ~(1ull << 63);
    if (a < MIN_NORMAL) {
        c[1] += w;
        return;
    }
    uint64_t b = a >> SHIFT;
    if (b + 1 > c[0]) raise_top(c, b + 1);
    if (b + N < c[0]) {
        c[1] += w;
        return;
    }
    c[2 + (u >> 63 ? 0 : N) + (b + N - c[0])] += w;
}

void cal_sketch_add_rows(cal_sketch *s, const double *x, size_t ld, size_t n, uint64_t w, size_t j0, size_t j1) {
    const size_t T = 8; /* channels per tile: one cache line of a row */
    for (size_t t0 = j0; t0 < j1; t0 += T) {
        size_t t1 = t0 + T < j1 ? t0 + T : j1;
        for (size_t r = 0; r < n; r++) {
            const double *row = x + r * ld;
            for (size_t j = t0; j < t1; j++) {
                add_value(s->c + j * CAL_SKETCH_STRIDE, row[j], w);
                minmax(&s->min[j], &s->max[j], row[j]);
            }
        }
    }
}

void cal_sketch_merge_channel(cal_sketch *dst, size_t k, const cal_sketch *src, size_t j) {
    uint64_t *c = dst->c + k * CAL_SKETCH_STRIDE;
    const uint64_t *o = src->c + j * CAL_SKETCH_STRIDE;
    c[1] += o[1];
    if (src->min[j] <= src->max[j]) {
        minmax(&dst->min[k], &dst->max[k], src->min[j]);
        minmax(&dst->min[k], &dst->max[k], src->max[j]);
    }
    if (!o[0]) return;
    raise_top(c, o[0]);
    /* bucket of slot i: top - N + i, in both */
    for (size_t i = 0; i < N; i++) {
        uint64_t b = o[0] - N + i;
        for (int side = 0; side < 2; side++) {
            uint64_t n = o[2 + side * N + i];
            if (!n) continue;
            if (b + N < c[0]) c[1] += n;
            else c[2 + side * N + (b + N - c[0])] += n;
        }
    }
}

void cal_sketch_merge(cal_sketch *dst, const cal_sketch *src) {
    for (size_t j = 0; j < dst->d; j++) cal_sketch_merge_channel(dst, j, src, j);
}

cal_sketch *cal_sketch_total(const cal_sketch *s) {
    cal_sketch *t = cal_sketch_new(1);
    for (size_t j = 0; j < s->d; j++) cal_sketch_merge_channel(t, 0, s, j);
    return t;
}

uint64_t cal_sketch_count(const cal_sketch *s, size_t j) {
    const uint64_t *c = s->c + j * CAL_SKETCH_STRIDE;
    uint64_t n = 0;
    for (size_t i = 1; i < CAL_SKETCH_STRIDE; i++) n += c[i];
    return n;
}

/* The point of bucket b = [L, U) within 1/(129 + 2k) of every value in it:
 * 2LU/(L+U) = L * 2(65+k)/(129+2k) with U/L = (65+k)/(64+k). */
static double bucket_value(uint64_t b) {
    uint64_t u = b << SHIFT;
    double L;
    memcpy(&L, &u, 8);
    double k = (double)(b & ((1u << CAL_SKETCH_MBITS) - 1));
    return L * (2 * (65 + k) / (129 + 2 * k));
}

static double clamp(double v, double lo, double hi) { return fmin(fmax(v, lo), hi); }

/* Order statistic r (0-based) of x, or of |x|, in channel j of n values. */
static double order_stat(const cal_sketch *s, size_t j, uint64_t r, uint64_t n, int absval) {
    const uint64_t *c = s->c + j * CAL_SKETCH_STRIDE, *neg = c + 2, *pos = c + 2 + N;
    double mn = s->min[j], mx = s->max[j], amax = fmax(fabs(mn), fabs(mx));
    if (r == n - 1) return absval ? amax : mx;
    if (r == 0 && !absval) return mn;
    uint64_t base = c[0] - N, seen = 0; /* bucket of slot 0 (c[0] >= 1 unless all is below) */
    double v = 0;
    if (!absval) {
        for (size_t i = N; i-- > 0;)
            if ((seen += neg[i]) > r) return clamp(-bucket_value(base + i), mn, mx);
        if ((seen += c[1]) > r) return clamp(v, mn, mx);
        for (size_t i = 0; i < N; i++)
            if ((seen += pos[i]) > r) return clamp(bucket_value(base + i), mn, mx);
        return mx;
    }
    if ((seen += c[1]) > r) return clamp(v, fabs(clamp(0, mn, mx)), amax);
    for (size_t i = 0; i < N; i++)
        if ((seen += neg[i] + pos[i]) > r) return fmin(bucket_value(base + i), amax);
    return amax;
}

double cal_sketch_percentile(const cal_sketch *s, size_t j, double p, int absval) {
    uint64_t n = cal_sketch_count(s, j);
    if (!n) return 0;
    /* numpy: virtual index (n-1) * p/100, then _lerp */
    double h = (double)(n - 1) * (p / 100), fl = floor(h), t = h - fl;
    uint64_t i = (uint64_t)fl;
    if (i > n - 1) i = n - 1;
    double a = order_stat(s, j, i, n, absval);
    if (t == 0 || i == n - 1) return a;
    double b = order_stat(s, j, i + 1, n, absval), diff = b - a;
    return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

int cal_sketch_check(const uint64_t *ch, uint64_t count, double absmax, char *err, size_t errlen) {
    uint64_t top = ch[0], n = ch[1];
    for (size_t i = 2; i < CAL_SKETCH_STRIDE; i++) {
        if (ch[i] > UINT64_MAX - n) {
            snprintf(err, errlen, "sketch counts overflow");
            return 0;
        }
        n += ch[i];
    }
    if (n != count) {
        snprintf(err, errlen, "sketch counts add up to %llu, want %llu (tokens)", (unsigned long long)n,
                 (unsigned long long)count);
        return 0;
    }
    uint64_t am;
    memcpy(&am, &absmax, 8);
    uint64_t want = am >= MIN_NORMAL ? (am >> SHIFT) + 1 : 0;
    if (top != want) {
        snprintf(err, errlen, "sketch top bucket %llu does not hold absmax %g (bucket %llu)", (unsigned long long)top,
                 absmax, (unsigned long long)want);
        return 0;
    }
    for (size_t i = 0; i < N; i++) {
        int live = top && top - N + i >= FIRST_BUCKET;
        if (!live && (ch[2 + i] || ch[2 + N + i])) {
            snprintf(err, errlen, "sketch bucket %zu is outside the float64 range", i);
            return 0;
        }
    }
    if (top && !ch[2 + N - 1] && !ch[2 + 2 * N - 1]) {
        snprintf(err, errlen, "sketch top bucket is empty");
        return 0;
    }
    return 1;
}
