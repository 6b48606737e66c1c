/* hessian.c - block accumulation of X^T X (psyrk.c does the BLAS work) and
 * exact per-channel statistics. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/hessian.h"
#include "stats/blas.h"
#include "base/dtype.h"
#include "base/err.h"
#include "base/num.h"
#include "base/oshint.h"
#include "base/pool.h"
#include "stats/psyrk.h"
#include "stream/stream.h"

/* The per-row loops (decoding, statistics) run on the reading thread beside
 * the BLAS workers; wider vectors than the baseline's SSE2 where the CPU has
 * them, chosen at load time. Same operations per element, so the same bits. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
/* (GCC only: clang 14 leaves an external function's clones unresolved at
 * link time; the fuzz build uses clang.) */
#define CAL_HESS_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define CAL_HESS_CLONES
#endif

struct cal_hess {
    cal_hess_stats *s;
    cal_psyrk *p;
    size_t block;          /* rows per block */
    size_t ld;             /* row stride of the blocks and of H until finish */
    int finished;
    double *cur;           /* the block being filled */
    size_t rows;           /* rows filled in it */
    size_t sketched;       /* rows of it already in the sketch */
    cal_pool *skpool;      /* sketch jobs: one range of channels each */
    size_t skjobs;
    struct sketch_job { size_t j0, j1; const double *x; size_t n; } *job;
};

cal_hess_stats *cal_hess_stats_new(size_t d) {
    cal_hess_stats *s = cal_xcalloc(1, sizeof *s);
    s->d = d;
    s->H = cal_xcalloc(d * d, sizeof(double));
    s->sum = cal_xcalloc(d, sizeof(double));
    s->sumsq = cal_xcalloc(d, sizeof(double));
    s->abssum = cal_xcalloc(d, sizeof(double));
    s->absmax = cal_xcalloc(d, sizeof(double));
    return s;
}

void cal_hess_stats_free(cal_hess_stats *s) {
    if (!s) return;
    if (s->Hmap) cal_huge_free(s->H, s->Hmap);
    else free(s->H);
    free(s->sum);
    free(s->sumsq);
    free(s->abssum);
    free(s->absmax);
    cal_sketch_free(s->sk);
    free(s);
}

cal_hess *cal_hess_new(size_t d, size_t block_rows, int threads) {
    if (d == 0 || d > CAL_HESS_MAX_D) cal_die("vector width %zu is out of range (1 to %u)", d, CAL_HESS_MAX_D);
    cal_hess *h = cal_xcalloc(1, sizeof *h);
    h->s = cal_hess_stats_new(d);
    if (!block_rows) {
        /* 8 MB of doubles: 512-column tiles run fastest at 256-512 rows per
         * call (measured: 1024 rows lose 10%), and small blocks start the
         * workers sooner and touch less fresh memory. */
        block_rows = ((size_t)1 << 20) / d;
        if (block_rows < 256) block_rows = 256;
        if (block_rows > 4096) block_rows = 4096;
    }
    h->block = block_rows;
    h->ld = cal_psyrk_ld(d);
    /* padded rows while accumulating (cal_hess_finish packs them), on huge
     * pages from head to tail */
    free(h->s->H);
    h->s->Hmap = d * h->ld * sizeof(double);
    h->s->H = cal_huge_zalloc(h->s->Hmap);
    h->p = cal_psyrk_new(d, block_rows, threads, h->s->H);
    h->cur = cal_psyrk_block(h->p);
    return h;
}

static int sketch_job(void *ctx, void *job, char *err, size_t errsz) {
    cal_hess *h = ctx;
    struct sketch_job *j = job;
    (void)err, (void)errsz;
    cal_sketch_add_rows(h->s->sk, j->x, h->ld, j->n, 1, j->j0, j->j1);
    return 0;
}

void cal_hess_sketch(cal_hess *h) {
    if (h->s->sk) return;
    size_t d = h->s->d, k = (size_t)cal_psyrk_threads(h->p), per;
    h->s->sk = cal_sketch_new(d);
    /* ranges of whole 64-byte lines, at least 64 channels each */
    per = ((d + k - 1) / k + 63) / 64 * 64;
    h->skjobs = (d + per - 1) / per;
    h->job = cal_xcalloc(h->skjobs, sizeof *h->job);
    for (size_t i = 0; i < h->skjobs; i++) {
        h->job[i].j0 = i * per;
        h->job[i].j1 = (i + 1) * per < d ? (i + 1) * per : d;
    }
    h->skpool = cal_pool_new(h->skjobs > 1 ? (unsigned)h->skjobs : 0, h->skjobs, sketch_job, h);
}

int cal_hess_threads(const cal_hess *h) { return cal_psyrk_threads(h->p); }

size_t cal_hess_block_rows(const cal_hess *h) { return h->block; }

double *cal_hess_row(cal_hess *h) { return h->cur + h->rows * h->ld; }

/* The block's rows not yet sketched go into the sketch in one pass over
 * tiles of channels (row by row, every row would touch d far-apart buckets),
 * on as many threads as H has workers, each its own range of channels; the
 * caller waits, as the block is handed to the BLAS workers next. */
static void sketch_pending(cal_hess *h) {
    if (h->s->sk && h->rows > h->sketched) {
        const char *err;
        for (size_t i = 0; i < h->skjobs; i++) {
            h->job[i].x = h->cur + h->sketched * h->ld;
            h->job[i].n = h->rows - h->sketched;
            cal_pool_submit(h->skpool, &h->job[i]);
        }
        while (cal_pool_take(h->skpool, &err)) {}
    }
    h->sketched = h->rows;
}

/* Hands the filled block to the workers and moves on to a free one. */
static void dispatch(cal_hess *h) {
    sketch_pending(h);
    h->sketched = 0;
    cal_psyrk_submit(h->p, h->rows);
    h->cur = cal_psyrk_block(h->p);
    h->rows = 0;
}

/* Adds w*x, w*x^2, w*|x| and max |x| into the statistics; plain loops over
 * restrict pointers, so that the compiler vectorizes them (this runs on the
 * reading thread, beside the BLAS workers). */
CAL_HESS_CLONES static void add_stats(cal_hess_stats *s, const double *restrict x, double w) {
    double *restrict sum = s->sum, *restrict sumsq = s->sumsq, *restrict abssum = s->abssum,
                     *restrict absmax = s->absmax;
    for (size_t j = 0; j < s->d; j++) {
        double v = x[j], a = fabs(v);
        sum[j] += w * v;
        sumsq[j] += w * (v * v);
        abssum[j] += w * a;
        absmax[j] = a > absmax[j] ? a : absmax[j];
    }
    s->count += w;
}

void cal_hess_commit(cal_hess *h) {
    add_stats(h->s, cal_hess_row(h), 1);
    if (++h->rows == h->block) dispatch(h);
}

void cal_hess_commit_weighted(cal_hess *h, uint64_t c) {
    double *x = cal_hess_row(h), r = sqrt((double)c);
    add_stats(h->s, x, (double)c);
    if (h->s->sk) {
        sketch_pending(h);
        cal_sketch_add_rows(h->s->sk, x, h->ld, 1, c, 0, h->s->d);
        h->sketched++;
    }
    for (size_t j = 0; j < h->s->d; j++) x[j] *= r;
    if (++h->rows == h->block) dispatch(h);
}

cal_hess_stats *cal_hess_finish(cal_hess *h) {
    if (h->rows) dispatch(h);
    cal_psyrk_wait(h->p);
    cal_hess_stats *s = h->s;
    size_t d = s->d, ld = h->ld;
    if (h->finished) return s;
    /* The BLAS filled the row-major lower triangle; mirror it in tiles so that
     * the strided reads stay in cache, then close up the padded rows. */
    const size_t B = 64;
    for (size_t i0 = 0; i0 < d; i0 += B)
        for (size_t j0 = i0; j0 < d; j0 += B)
            for (size_t i = i0; i < i0 + B && i < d; i++)
                for (size_t j = j0 > i + 1 ? j0 : i + 1; j < j0 + B && j < d; j++)
                    s->H[i * ld + j] = s->H[j * ld + i];
    for (size_t i = 1; i < d; i++) memmove(s->H + i * d, s->H + i * ld, d * sizeof(double));
    h->finished = 1;
    return s;
}

cal_hess_stats *cal_hess_take(cal_hess *h) {
    cal_hess_stats *s = cal_hess_finish(h);
    h->s = NULL;
    return s;
}

void cal_hess_free(cal_hess *h) {
    if (!h) return;
    cal_pool_free(h->skpool);
    free(h->job);
    cal_psyrk_free(h->p);
    cal_hess_stats_free(h->s);
    free(h);
}

int cal_all_finite(const double *x, size_t n) {
    /* x - x is 0 for a finite x and NaN for Inf or NaN; an AND of
     * comparisons vectorizes where a floating-point sum would not. */
    int ok = 1;
    for (size_t i = 0; i < n; i++) ok &= x[i] - x[i] == 0;
    return ok;
}

/* Each loop also ORs together whether a value's exponent bits are all ones
 * (Inf or NaN), an integer test on the source that vectorizes with the
 * conversion, so the caller needs no second pass over the row. */
CAL_HESS_CLONES int cal_decode_row(const uint8_t *restrict src, int dtype, size_t d, double *restrict dst) {
    int bad = 0;
    switch (dtype) {
    case CAL_F32:
        for (size_t j = 0; j < d; j++) {
            uint32_t u = cal_ld32(src + 4 * j);
            float f;
            memcpy(&f, &u, 4);
            dst[j] = f;
            bad |= (u & 0x7f800000u) == 0x7f800000u;
        }
        break;
    case CAL_F16:
        for (size_t j = 0; j < d; j++) {
            uint16_t u = (uint16_t)(src[2 * j] | src[2 * j + 1] << 8);
            dst[j] = cal_f16_to_f32(u);
            bad |= (u & 0x7c00u) == 0x7c00u;
        }
        break;
    case CAL_BF16:
        for (size_t j = 0; j < d; j++) {
            uint16_t u = (uint16_t)(src[2 * j] | src[2 * j + 1] << 8);
            dst[j] = cal_bf16_to_f32(u);
            bad |= (u & 0x7f80u) == 0x7f80u;
        }
        break;
    default:
        cal_die("unknown dtype %d", dtype);
    }
    return !bad;
}

/* ---- GPTQ inverse ------------------------------------------------------- */
void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info);
void dpotri_(const char *uplo, const int *n, double *a, const int *lda, int *info);

int cal_gptq_inverse(const double *A, size_t d, double damp, double *out, size_t *dead) {
    int n = (int)d, info = 0;
    memcpy(out, A, d * d * sizeof(double));
    size_t nd = 0;
    double mean = 0;
    for (size_t i = 0; i < d; i++)
        if (out[i * d + i] == 0) {
            out[i * d + i] = 1;
            nd++;
        }
    for (size_t i = 0; i < d; i++) mean += out[i * d + i];
    mean /= (double)d;
    for (size_t i = 0; i < d; i++) out[i * d + i] += damp * mean;
    if (dead) *dead = nd;
    cal_blas_room_for_caller("the GPTQ inverse (LAPACK)");
    /* The matrix is symmetric, so its row-major and column-major views agree;
     * LAPACK works column-major on the upper triangle throughout. */
    dpotrf_("U", &n, out, &n, &info);
    if (info) return info;
    dpotri_("U", &n, out, &n, &info);
    if (info) return info;
    dpotrf_("U", &n, out, &n, &info); /* reads only the upper triangle of the inverse */
    if (info) return info;
    /* Column-major upper U(i,j), i <= j, sits at out[i + j*d]; as row-major it
     * is the transpose. Transpose in place and clear below the diagonal. */
    for (size_t i = 0; i < d; i++)
        for (size_t j = i + 1; j < d; j++) {
            out[i * d + j] = out[j * d + i];
            out[j * d + i] = 0;
        }
    return 0;
}
