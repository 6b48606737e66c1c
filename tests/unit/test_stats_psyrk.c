/* test_stats_psyrk.c - lib/stats/psyrk.c: the tiling covers the upper
 * triangle once and depends on d alone; the model's promises (at least 4
 * tasks per worker, no task above half a worker's share) for 1-64 workers;
 * a simulation of the hand-out policy keeps as many workers busy as the
 * tiling's chains allow (cal_psyrk_busy_threads); and real
 * runs with 1, 2, 3 and 16 threads give the same bits, close to a plain
 * triple loop. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats/psyrk.h"
#include "test.h"

static double cost(const cal_psyrk_tile *t) {
    return t->i0 == t->j0 ? t->ni * (t->ni + 1) / 2.0 : (double)t->ni * (double)t->nj;
}

/* Every (i, j), i <= j < d, in exactly one tile; boundaries on multiples of 8. */
static int covers_once(size_t d, const cal_psyrk_tile *t, size_t n) {
    unsigned char *seen = calloc(d * d, 1);
    int ok = 1;
    for (size_t k = 0; k < n; k++) {
        if (t[k].i0 % 8 || t[k].j0 % 8 || t[k].i0 > t[k].j0) ok = 0;
        for (size_t j = t[k].j0; j < t[k].j0 + t[k].nj; j++)
            for (size_t i = t[k].i0; i < t[k].i0 + t[k].ni && i <= j; i++) seen[i * d + j]++;
    }
    for (size_t i = 0; i < d; i++)
        for (size_t j = i; j < d; j++) ok &= seen[i * d + j] == 1;
    free(seen);
    return ok;
}

/* The hand-out policy of psyrk.c with task time = cost and an instant
 * producer: the first free worker takes the first task in order (block
 * after block, tiles in tiling order) that can start: its block's buffer is
 * filled (nbuf buffers: block g waits until every task of block g - nbuf is
 * done) and the same tile of the previous block is done (products go
 * straight into C, in block order). When none can start yet, it waits for
 * the one that can start first. Returns busy time / (workers x makespan). */
static double simulate(size_t d, int workers, size_t blocks) {
    cal_psyrk_tile *t;
    size_t nt = cal_psyrk_tiling(d, &t), nbuf = cal_psyrk_nbuf(workers, nt), total = blocks * nt;
    size_t lanes = cal_psyrk_lanes(d), *prev = malloc(blocks * sizeof *prev), last[64];
    for (size_t l = 0; l < lanes; l++) last[l] = SIZE_MAX;
    for (size_t g = 0; g < blocks; g++) { /* the block before g in g's lane */
        size_t l = cal_psyrk_lane_of(g, lanes);
        prev[g] = last[l], last[l] = g;
    }
    double *freeat = calloc((size_t)workers, sizeof *freeat), *done = malloc(total * sizeof *done);
    double *bend = calloc(blocks, sizeof *bend); /* when each block's last task ends */
    size_t *handed = calloc(blocks, sizeof *handed);
    double busy = 0, end = 0;
    for (size_t k = 0; k < total; k++) done[k] = INFINITY; /* not yet handed out */
    size_t first = 0; /* every task below it is handed out */
    for (size_t n = 0; n < total; n++) {
        int w = 0;
        for (int i = 1; i < workers; i++)
            if (freeat[i] < freeat[w]) w = i;
        size_t pick = total;
        double pick_ready = INFINITY;
        for (size_t k = first; k < total && k / nt < first / nt + nbuf; k++) {
            if (done[k] < INFINITY) continue;
            size_t g = k / nt;
            double ready = prev[g] != SIZE_MAX ? done[prev[g] * nt + k % nt] : 0;
            if (g >= nbuf) {
                double b = handed[g - nbuf] == nt ? bend[g - nbuf] : INFINITY;
                if (b > ready) ready = b;
            }
            if (ready <= freeat[w]) {
                pick = k, pick_ready = ready;
                break;
            }
            if (ready < pick_ready) pick = k, pick_ready = ready;
        }
        double s = freeat[w] > pick_ready ? freeat[w] : pick_ready, c = cost(&t[pick % nt]);
        done[pick] = freeat[w] = s + c;
        handed[pick / nt]++;
        if (s + c > bend[pick / nt]) bend[pick / nt] = s + c;
        busy += c;
        if (s + c > end) end = s + c;
        while (first < total && done[first] < INFINITY) first++;
    }
    free(t), free(freeat), free(done), free(bend), free(handed), free(prev);
    return busy / (workers * end);
}

/* C += A^T A through psyrk with `threads` workers; A is n x d row-major.
 * With `pause` > 0, waits (the lanes folded into C) after that many rows.
 * `grouped` 0: one BLAS call per task. *calls: the BLAS calls made. */
static int may_group = -1; /* the start-up check's verdict on these kernels */

static double *run(const double *A, size_t n, size_t d, size_t block, int threads, size_t pause, int grouped,
                   uint64_t *calls) {
    double *C = calloc(d * cal_psyrk_ld(d), sizeof *C);
    cal_psyrk *p = cal_psyrk_new(d, block, threads, C);
    if (may_group < 0) may_group = cal_psyrk_grouping(p);
    if (!grouped) cal_psyrk_ungrouped(p);
    cal_psyrk_add_rows(p, A, pause);
    if (pause) cal_psyrk_wait(p);
    cal_psyrk_add_rows(p, A + pause * d, n - pause);
    cal_psyrk_wait(p);
    *calls = cal_psyrk_calls(p);
    cal_psyrk_free(p);
    return C;
}

int main(void) {
    /* The tiling: squares of about 512 columns up to d = 4096, 8 panels up
     * to d = 8192, about 1024 columns beyond; the triangle once. */
    const size_t ds[] = {1, 7, 100, 767, 768, 1100, 2600, 4096, 4352, 6000, 8192, 8704, 12000};
    for (size_t k = 0; k < sizeof ds / sizeof ds[0]; k++) {
        cal_psyrk_tile *t;
        size_t d = ds[k], n = cal_psyrk_tiling(d, &t);
        size_t np = d <= 4096 ? (d + 256) / 512 : d <= 8192 ? 8 : (d + 512) / 1024;
        if (!np) np = 1;
        int sorted = 1;
        for (size_t i = 1; i < n; i++) sorted &= cost(&t[i - 1]) >= cost(&t[i]);
        CHECK(n == np * (np + 1) / 2 && covers_once(d, t, n) && sorted,
              "d = %zu: %zu tiles (%zu panels), the upper triangle once, largest first", d, n, np);
        free(t);
    }
    cal_psyrk_tile *t4;
    size_t n4 = cal_psyrk_tiling(4096, &t4);
    CHECK(n4 == 36 && t4[0].ni == 512 && t4[0].nj == 512 && t4[n4 - 1].i0 == t4[n4 - 1].j0,
          "d = 4096: 36 tiles of 512, diagonal (half-cost) ones last");
    free(t4);

    /* The model: blocks in flight give every worker at least 4 tasks, so no
     * task is more than half of a worker's share of the work on hand (up to
     * the 16-buffer cap, which only small d reaches at many workers). */
    const size_t md[] = {1024, 2048, 4096, 8192, 14336};
    const int mw[] = {1, 2, 3, 16, 32, 64};
    for (size_t a = 0; a < sizeof md / sizeof md[0]; a++)
        for (size_t b = 0; b < sizeof mw / sizeof mw[0]; b++) {
            cal_psyrk_tile *t;
            size_t nt = cal_psyrk_tiling(md[a], &t), nbuf = cal_psyrk_nbuf(mw[b], nt);
            double total = 0, most = 0;
            for (size_t i = 0; i < nt; i++) {
                total += cost(&t[i]);
                if (cost(&t[i]) > most) most = cost(&t[i]);
            }
            double tasks = (double)(nbuf - 1) * nt, share = (nbuf - 1) * total / mw[b];
            int capped = nbuf == 16;
            CHECK(nbuf >= 3 && (capped || (tasks >= 4.0 * mw[b] && most <= share / 2)),
                  "d = %zu, %d workers: %zu buffers, %.0f tasks on hand, largest %.3f of a share%s", md[a],
                  mw[b], nbuf, tasks, most / share, capped ? " (capped)" : "");
            free(t);
        }

    /* Scaling: each tile is a chain of tasks per lane, so the tiling keeps
     * busy as many workers as its work holds twice the largest tile, times
     * the lanes (at most 4, enough for 64 workers from d = 4096 on). */
    const struct {
        size_t d, lanes;
        int busy;
    } most[] = {{1024, 4, 4}, {2048, 4, 16}, {3072, 4, 36}, {4096, 4, 64}, {5120, 4, 64}, {8192, 4, 64}, {14336, 2, 98}};
    for (size_t k = 0; k < sizeof most / sizeof most[0]; k++)
        CHECK(cal_psyrk_lanes(most[k].d) == most[k].lanes && cal_psyrk_busy_threads(most[k].d) == most[k].busy,
              "d = %zu: %zu lanes keep %d workers busy (%zu, %d expected)", most[k].d, cal_psyrk_lanes(most[k].d),
              cal_psyrk_busy_threads(most[k].d), most[k].lanes, most[k].busy);
    /* Lane 1 opens at block 16 (a short input touches no more memory than
     * C), lanes 2 and 3 at block 128; the open lanes take blocks in turn. */
    int order = 1;
    const size_t at16[] = {0, 1, 0, 1}, at128[] = {0, 1, 2, 3, 0}, three[] = {2, 0, 1, 2};
    for (size_t g = 0; g < 16; g++) order &= cal_psyrk_lane_of(g, 4) == 0;
    for (size_t g = 0; g < 4; g++) order &= cal_psyrk_lane_of(16 + g, 4) == at16[g];
    for (size_t g = 0; g < 4; g++) order &= cal_psyrk_lane_of(124 + g, 4) == at16[g];
    for (size_t g = 0; g < 5; g++) order &= cal_psyrk_lane_of(128 + g, 4) == at128[g];
    for (size_t g = 0; g < 4; g++) order &= cal_psyrk_lane_of(128 + g, 3) == three[g];
    for (size_t g = 0; g < 1000; g++) order &= cal_psyrk_lane_of(g, 1) == 0 && cal_psyrk_lane_of(g, 4) < 4;
    CHECK(order, "lanes: blocks 0-15 in lane 0, 16-127 in lanes 0 and 1 in turn, from 128 on in all");
    const struct {
        size_t d;
        int w;
        size_t blocks;
        double least;
    } sim[] = {{2048, 2, 64, 0.9},    {2048, 4, 64, 0.9},    {4096, 2, 64, 0.9},   {4096, 16, 64, 0.9},
               {8192, 16, 64, 0.9},   {14336, 64, 64, 0.9},  {2048, 16, 256, 0.9}, {8192, 64, 256, 0.9}, {4096, 64, 256, 0.85},
               {3072, 32, 256, 0.85}, {5120, 64, 256, 0.85}, {2048, 16, 64, 0.75}, {4096, 32, 64, 0.9},
               {4096, 64, 64, 0.75}, {4096, 64, 128, 0.85}};
    for (size_t k = 0; k < sizeof sim / sizeof sim[0]; k++) {
        double u = simulate(sim[k].d, sim[k].w, sim[k].blocks);
        CHECK(u >= sim[k].least, "d = %zu, %d workers, %zu blocks: %.1f%% busy", sim[k].d, sim[k].w, sim[k].blocks,
              100 * u);
    }
    double u64 = simulate(4096, 64, 16);
    CHECK(u64 <= 36.0 / 64 + 1e-9, "d = 4096, 64 workers, 16 blocks (one lane): at most 36 chains busy (%.1f%%)",
          100 * u64);

    /* Real runs: the same bits for any thread count and with neighbours'
     * tasks in one call or not, and H = A^T A. d = 1300: 3 panels, so
     * column 2's two tiles above the diagonal (even lanes) and row 0's two
     * (odd lanes) can share a call. */
    size_t n = 333, d = 1300;
    double *A = malloc(n * d * sizeof *A);
    uint64_t s = 88172645463325252ull;
    for (size_t i = 0; i < n * d; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        A[i] = (double)(s >> 11) / 9007199254740992.0 - 0.5;
    }
    size_t ld = cal_psyrk_ld(d);
    long double *ref = malloc(d * d * sizeof *ref);
    for (size_t i = 0; i < d; i++)
        for (size_t j = 0; j <= i; j++) {
            long double v = 0;
            for (size_t r = 0; r < n; r++) v += (long double)A[r * d + i] * A[r * d + j];
            ref[i * d + j] = v;
        }
    /* 6 blocks (one lane); 42 blocks (lanes 0 and 1: lane 1 transposed in
     * C's other triangle); 167 blocks (lanes 0-3); and 151 + 16 blocks with
     * the lanes folded in between (they start again from beta = 0). One
     * worker always groups: it has every task that can start. */
    const struct {
        size_t block, pause;
        const char *what;
    } cases[] = {{64, 0, "one lane"},
                 {8, 0, "two lanes"},
                 {2, 0, "four lanes"},
                 {2, 301, "four lanes, folded after 301 rows"}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t blocks = (cases[c].pause + cases[c].block - 1) / cases[c].block +
                        (n - cases[c].pause + cases[c].block - 1) / cases[c].block;
        uint64_t calls, ucalls;
        double *C1 = run(A, n, d, cases[c].block, 1, cases[c].pause, 1, &calls);
        double *U = run(A, n, d, cases[c].block, 1, cases[c].pause, 0, &ucalls);
        /* Where the check finds that these kernels give a group other bits
         * (OpenBLAS 0.3.21's SkylakeX kernels on some AVX-512 CPUs), every
         * task must be a call of its own. */
        CHECK(ucalls == 6 * blocks && (may_group ? calls < ucalls : calls == ucalls) &&
                  !memcmp(U, C1, d * ld * sizeof *U),
              "%s: grouped (%llu calls; grouping %s by the start-up check) and one call a task (%llu) give the "
              "same bits", cases[c].what, (unsigned long long)calls, may_group ? "allowed" : "refused",
              (unsigned long long)ucalls);
        free(U);
        const int th[] = {2, 3, 16};
        for (size_t k = 0; k < 3; k++) {
            double *C = run(A, n, d, cases[c].block, th[k], cases[c].pause, 1, &calls);
            CHECK(!memcmp(C, C1, d * ld * sizeof *C), "%s: %d threads give the same bits as 1 thread", cases[c].what,
                  th[k]);
            free(C);
        }
        double err = 0;
        for (size_t i = 0; i < d; i++)
            for (size_t j = 0; j <= i; j++) {
                double e = fabs((double)(C1[i * ld + j] - ref[i * d + j])) / (1 + fabs((double)ref[i * d + j]));
                if (e > err) err = e;
            }
        CHECK(err < 1e-12, "%s: lower triangle = A^T A (largest relative error %.2g)", cases[c].what, err);
        free(C1);
    }
    free(ref);
    free(A);
    const char *want = getenv("CAL_PSYRK_WANT_GROUPS");
    if (want) CHECK(may_group == 1, "the start-up check allows groups with %s kernels", want);
#if defined(__x86_64__)
    /* Where these kernels refuse groups, the grouped path still runs: once
     * more with OpenBLAS's Haswell kernels, which group here (the variable
     * is read when the library loads, so in a new process). */
    else if (!may_group && !getenv("OPENBLAS_CORETYPE") && __builtin_cpu_supports("avx2")) {
        fflush(stdout);
        int rc = system("OPENBLAS_CORETYPE=Haswell CAL_PSYRK_WANT_GROUPS=Haswell /proc/self/exe");
        CHECK(rc == 0, "the real runs again with Haswell kernels, where groups form (status %d)", rc);
    }
#endif
    TEST_END();
}
