/* groups.c - psyrk's tile groups and the check that they change no bit
 * (see groups.h). */
#include <string.h>

#include <cblas.h>

#include "stats/groups.h"

/* The neighbours an off-diagonal tile's group may join (Groups), off the
 * diagonal too: for even lanes the tiles just above and below it in its
 * column of C (BLAS view), for odd lanes, which keep tiles transposed, the
 * tiles left and right of it in its row. Either way a group is one call
 * whose first dimension (M) grows: the operand the BLAS packs cheaply (in
 * the other dimension, packing the group cost as much as calls of their
 * own, measured on a 2-core VM).
 *
 * Only tiles whose extent along the group is a multiple of 8 join one.
 * OpenBLAS 0.3.21's AVX-512 dgemm (SkylakeX, Cooperlake) computes rows
 * past the last multiple of 8 of a call's M with other kernels, so an
 * element's bits depend on where its call's rows start and end: a group
 * [432, 436] or [436, 432] differs from its tiles' own calls for some N and
 * K (measured: N 32 to 436, K 1 to 256), a group of multiples of 8 never
 * did; Haswell's kernels differed only at N = 433. The tiling's widths are
 * multiples of 8 but for the last panel when d is not: at d = 1300 (3
 * panels, the last 436 wide) that one tile kept the start-up check from
 * allowing any group with the AVX-512 kernels. */
#define GROUP_ALIGN 8

static int may_join(const cal_psyrk_tile *t, int odd) {
    return t->i0 != t->j0 && cal_group_extent(t, odd) % GROUP_ALIGN == 0;
}

void cal_group_neighbours(const cal_psyrk_tile *t, size_t n, int odd, size_t *prev, size_t *next) {
    for (size_t a = 0; a < n; a++) prev[a] = next[a] = CAL_GROUP_NONE;
    for (size_t a = 0; a < n; a++)
        for (size_t b = 0; b < n; b++) {
            if (!may_join(&t[a], odd) || !may_join(&t[b], odd)) continue;
            if (odd ? t[a].i0 == t[b].i0 && t[a].j0 + t[a].nj == t[b].j0
                    : t[a].j0 == t[b].j0 && t[a].i0 + t[a].ni == t[b].i0)
                next[a] = b, prev[b] = a;
        }
}

size_t cal_group_longest(const size_t *prev, const size_t *next, size_t n, size_t *first) {
    size_t most = 1;
    *first = CAL_GROUP_NONE;
    for (size_t u = 0; u < n; u++) {
        if (prev[u] != CAL_GROUP_NONE) continue; /* not the start of a run */
        size_t len = 0;
        for (size_t v = u; v != CAL_GROUP_NONE; v = next[v]) len++;
        if (len > most) *first = u, most = len;
    }
    return most;
}

/* Whether this BLAS adds each element of a product the same when its tile
 * is a call of its own or part of a group (Groups), tried on the tiling's
 * longest group of each parity, into C = 1 with beta = 1: 64 rows by 32
 * columns, enough multiply-adds (over 10^6) that no small-matrix path is
 * taken. `scratch` holds cal_groups_scratch(d) doubles. */
#define CHECK_K 64
#define CHECK_N 32
size_t cal_groups_scratch(size_t d) { return CHECK_K * (d + CHECK_N) + 2 * d * CHECK_N; }

int cal_groups_exact(const cal_psyrk_tile *t, size_t *const prev[2], size_t *const next[2], size_t ntiles,
                     double *scratch) {
    int same = 1;
    for (int odd = 0; odd < 2; odd++) {
        size_t first;
        cal_group_longest(prev[odd], next[odd], ntiles, &first);
        if (first == CAL_GROUP_NONE) continue; /* no tile has a neighbour: nothing to group */
        size_t m = 0, N = CHECK_N, K = CHECK_K;
        for (size_t u = first; u != CAL_GROUP_NONE; u = next[odd][u]) m += cal_group_extent(&t[u], odd);
        size_t lda = m + N;
        double *A = scratch, *C1 = A + K * lda, *C2 = C1 + m * N;
        uint64_t x = 0x9E3779B97F4A7C15u;
        for (size_t i = 0; i < K * lda; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            A[i] = (double)(x >> 11) / 9007199254740992.0 - 0.5;
        }
        for (size_t i = 0; i < 2 * m * N; i++) C1[i] = 1;
        for (size_t u = first, o = 0; u != CAL_GROUP_NONE; o += cal_group_extent(&t[u], odd), u = next[odd][u])
            cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)cal_group_extent(&t[u], odd), (int)N, (int)K,
                        1.0, A + o, (int)lda, A + m, (int)lda, 1.0, C1 + o, (int)m);
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)m, (int)N, (int)K, 1.0, A, (int)lda, A + m,
                    (int)lda, 1.0, C2, (int)m);
        same &= !memcmp(C1, C2, m * N * sizeof *C1);
    }
    return same;
}

