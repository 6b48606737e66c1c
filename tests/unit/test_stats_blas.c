/* test_stats_blas.c - lib/stats/blas.c: the decision table from CPU
 * features to OpenBLAS cores, and when to replace the library's own choice
 * (independent of the host: features are given, not read); the room left
 * under an address-space limit and how many BLAS threads fit in it. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "stats/blas.h"
#include "test.h"

static int same(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

static size_t more_fixed(int t, void *ctx) { return (size_t)t * *(size_t *)ctx + 1000; }

/* VmSize or VmData of this process in bytes. */
static size_t vm(const char *field) {
    char line[256];
    size_t kb = 0, n = strlen(field);
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return 0;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, field, n)) kb = strtoull(line + n, NULL, 10);
    fclose(f);
    return kb * 1024;
}

static void room_checks(void) {
    /* how many threads fit: exactly at the edge, one byte short */
    size_t per = cal_blas_thread_bytes(), blk = 5u << 20;
    CHECK(per > CAL_BLAS_BUFFER, "a thread needs its buffer and a stack: %zu", per);
    for (int t = 1; t <= 8; t++) {
        size_t edge = (size_t)t * per + more_fixed(t, &blk);
        CHECK(cal_blas_fit(8, edge, more_fixed, &blk) == t, "room for exactly %d threads", t);
        CHECK(cal_blas_fit(8, edge - 1, more_fixed, &blk) == t - 1, "one byte short of %d threads", t);
        CHECK(cal_blas_fit(t, edge + 10 * per, more_fixed, &blk) == t, "never more than asked (%d)", t);
    }
    CHECK(cal_blas_fit(4, 0, NULL, NULL) == 0, "no room: no thread");
    /* the room under RLIMIT_AS and RLIMIT_DATA, set just above what is used */
    static const struct { int res; const char *field, *name; } lim[] = {
        {RLIMIT_AS, "VmSize:", "ulimit -v"}, {RLIMIT_DATA, "VmData:", "ulimit -d"}};
    for (int i = 0; i < 2; i++) {
        struct rlimit old, r;
        if (getrlimit(lim[i].res, &old)) continue;
        size_t used = vm(lim[i].field), want = (size_t)96 << 20;
        r = old;
        r.rlim_cur = used + want;
        if (old.rlim_max != RLIM_INFINITY && r.rlim_cur > old.rlim_max) continue;
        if (setrlimit(lim[i].res, &r)) continue;
        const char *which = NULL;
        size_t room = cal_address_room(&which);
        setrlimit(lim[i].res, &old);
        CHECK(room <= want && room + ((size_t)1 << 20) >= want, "%s: %zu bytes left of %zu", lim[i].name, room, want);
        CHECK(which && !strcmp(which, lim[i].name), "the limit named: %s", which ? which : "(none)");
    }
    struct rlimit as, data;
    if (!getrlimit(RLIMIT_AS, &as) && !getrlimit(RLIMIT_DATA, &data) && as.rlim_cur == RLIM_INFINITY &&
        data.rlim_cur == RLIM_INFINITY)
        CHECK(cal_address_room(NULL) == SIZE_MAX, "no limit: no bound");
}

int main(void) {
    /* sse3 ssse3 sse42 avx avx2fma avx512 amd */
    const cal_cpu_features sapphire = {1, 1, 1, 1, 1, 1, 0}, zen4 = {1, 1, 1, 1, 1, 1, 1},
                           zen3 = {1, 1, 1, 1, 1, 0, 1}, haswell = {1, 1, 1, 1, 1, 0, 0},
                           sandy = {1, 1, 1, 1, 0, 0, 0}, nehalem = {1, 1, 1, 0, 0, 0, 0},
                           core2 = {1, 1, 0, 0, 0, 0, 0}, prescott = {1, 0, 0, 0, 0, 0, 0},
                           sse2 = {0, 0, 0, 0, 0, 0, 0};
    const struct {
        const char *cpu;
        const cal_cpu_features *f;
        const char *best;
    } table[] = {
        {"AVX-512 Xeon", &sapphire, "SkylakeX"}, {"Zen 4/5", &zen4, "SkylakeX"},
        {"Zen 1-3", &zen3, "Zen"},               {"AVX2+FMA Intel", &haswell, "Haswell"},
        {"AVX only", &sandy, "Sandybridge"},     {"SSE4.2", &nehalem, "Nehalem"},
        {"SSSE3", &core2, "Core2"},              {"SSE3", &prescott, "Prescott"},
        {"SSE2 only", &sse2, NULL},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        CHECK(same(cal_blas_best_core(table[i].f), table[i].best), "best core for %s: %s", table[i].cpu,
              table[i].best ? table[i].best : "none");

    const char *ladder[] = {"Katmai", "Prescott", "Core2", "Nehalem", "Sandybridge", "Haswell", "SkylakeX"};
    int up = 1;
    for (size_t i = 1; i < sizeof ladder / sizeof ladder[0]; i++)
        up &= cal_blas_core_rank(ladder[i - 1]) < cal_blas_core_rank(ladder[i]);
    CHECK(up, "ranks rise Katmai < Prescott < Core2 < Nehalem < Sandybridge < Haswell < SkylakeX");
    CHECK(cal_blas_core_rank("Zen") == cal_blas_core_rank("Haswell") &&
              cal_blas_core_rank("Cooperlake") == cal_blas_core_rank("SkylakeX") &&
              cal_blas_core_rank("skylakex") == cal_blas_core_rank("SkylakeX"),
          "Zen = Haswell, Cooperlake = SkylakeX, names case-insensitive");
    CHECK(cal_blas_core_rank("Zen6") == 0 && cal_blas_core_rank("") == 0 && cal_blas_core_rank(NULL) == 0,
          "unknown names rank 0");

    /* (OpenBLAS's choice, CPU) -> the core to switch to, or none. */
    const struct {
        const char *have;
        const cal_cpu_features *f;
        const char *to;
    } up_cases[] = {
        {"Prescott", &sapphire, "SkylakeX"},  /* a VM that hides the CPU model */
        {"Haswell", &sapphire, "SkylakeX"},   /* an AVX-512 Xeon 0.3.21 does not know */
        {"Zen", &zen4, "SkylakeX"},           /* Zen 4 in 0.3.21 */
        {"Prescott", &zen3, "Zen"},
        {"Sandybridge", &haswell, "Haswell"},
        {"Nehalem", &sandy, "Sandybridge"},
        {"Prescott", &nehalem, "Nehalem"},
        {"Katmai", &prescott, "Prescott"},
        {"SkylakeX", &sapphire, NULL},        /* already the best */
        {"Cooperlake", &zen4, NULL},          /* the same kernels for float64 */
        {"SapphireRapids", &sapphire, NULL},
        {"Haswell", &zen3, NULL},             /* Haswell and Zen are one generation */
        {"Excavator", &zen3, NULL},
        {"Zen", &haswell, NULL},
        {"SkylakeX", &haswell, NULL},         /* never downwards */
        {"NewCoreName", &sapphire, NULL},     /* a newer library knows better */
        {"Prescott", &sse2, NULL},
    };
    for (size_t i = 0; i < sizeof up_cases / sizeof up_cases[0]; i++) {
        const char *to = cal_blas_upgrade(up_cases[i].have, up_cases[i].f);
        CHECK(same(to, up_cases[i].to), "OpenBLAS chose %s, best %s: %s", up_cases[i].have,
              cal_blas_best_core(up_cases[i].f) ? cal_blas_best_core(up_cases[i].f) : "none",
              up_cases[i].to ? up_cases[i].to : "keep");
    }
    room_checks();
    TEST_END();
}
