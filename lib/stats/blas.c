/* blas.c - OpenBLAS kernel choice from CPUID (see blas.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <cblas.h>

#if defined(__GNUC__) && defined(__x86_64__)
#include <cpuid.h>
#endif

#include "stats/blas.h"

/* Set on the re-execution to the core OpenBLAS chose by itself, so that -v
 * can say what was replaced; unset again at once. */
#define PICKED_ENV "CAL_OPENBLAS_PICKED"

void cal_cpu_features_host(cal_cpu_features *f) {
    memset(f, 0, sizeof *f);
#if defined(__GNUC__) && defined(__x86_64__)
    /* libgcc sets the AVX and AVX-512 bits only when XGETBV says the OS
     * saves the YMM / ZMM and mask registers. */
    __builtin_cpu_init();
    f->sse3 = __builtin_cpu_supports("sse3") != 0;
    f->ssse3 = __builtin_cpu_supports("ssse3") != 0;
    f->sse42 = __builtin_cpu_supports("sse4.2") != 0;
    f->avx = __builtin_cpu_supports("avx") != 0;
    f->avx2fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    f->avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
    unsigned a, b, c, d;
    char vendor[13] = "";
    if (__get_cpuid(0, &a, &b, &c, &d)) {
        memcpy(vendor, &b, 4);
        memcpy(vendor + 4, &d, 4);
        memcpy(vendor + 8, &c, 4);
    }
    f->amd = !strcmp(vendor, "AuthenticAMD") || !strcmp(vendor, "HygonGenuine");
#endif
}

const char *cal_blas_best_core(const cal_cpu_features *f) {
    if (f->avx512) return "SkylakeX";
    if (f->avx2fma) return f->amd ? "Zen" : "Haswell";
    if (f->avx) return "Sandybridge";
    if (f->sse42) return "Nehalem";
    if (f->ssse3) return "Core2";
    if (f->sse3) return "Prescott";
    return NULL;
}

int cal_blas_core_rank(const char *name) {
    static const struct {
        const char *name;
        int rank;
    } ladder[] = {
        {"Katmai", 1},     {"Coppermine", 1},   {"Northwood", 1},  {"Banias", 1},      {"Athlon", 1},
        {"Opteron", 1},    {"Prescott", 2},     {"Opteron_SSE3", 2}, {"Barcelona", 2},
        {"Bobcat", 2},     {"Nano", 2},         {"Core2", 3},      {"Atom", 3},        {"Penryn", 3},
        {"Dunnington", 3}, {"Nehalem", 4},      {"Sandybridge", 5}, {"Bulldozer", 5},  {"Piledriver", 5},
        {"Steamroller", 5}, {"Haswell", 6},     {"Zen", 6},        {"Excavator", 6},   {"SkylakeX", 7},
        {"Cooperlake", 7}, {"SapphireRapids", 7},
    };
    for (size_t i = 0; name && i < sizeof ladder / sizeof ladder[0]; i++)
        if (!strcasecmp(name, ladder[i].name)) return ladder[i].rank;
    return 0;
}

const char *cal_blas_upgrade(const char *current, const cal_cpu_features *f) {
    const char *best = cal_blas_best_core(f);
    int have = cal_blas_core_rank(current);
    if (!best || !have) return NULL;
    return cal_blas_core_rank(best) > have ? best : NULL;
}

const char *cal_blas_core(void) {
    const char *c = openblas_get_corename();
    return c ? c : "unknown";
}

/* What cal_blas_choose found: the core OpenBLAS chose itself when this
 * process is the re-execution, and whether the user set the core. */
static char picked[32];
static int user_set;

void cal_blas_choose(char **argv) {
    const char *p = getenv(PICKED_ENV);
    if (p) {
        snprintf(picked, sizeof picked, "%s", p);
        unsetenv(PICKED_ENV);
        unsetenv("OPENBLAS_CORETYPE");
        return;
    }
    if (getenv("OPENBLAS_CORETYPE")) {
        user_set = 1;
        return;
    }
    cal_cpu_features f;
    cal_cpu_features_host(&f);
    const char *cur = cal_blas_core(), *best = cal_blas_upgrade(cur, &f);
    if (!best) return;
    if (setenv("OPENBLAS_CORETYPE", best, 1) || setenv(PICKED_ENV, cur, 1)) return;
    execv("/proc/self/exe", argv);
    /* exec failed (no /proc): go on with the library's own kernels */
    unsetenv("OPENBLAS_CORETYPE");
    unsetenv(PICKED_ENV);
}

const char *cal_blas_kernels(void) {
    static char s[96];
    if (picked[0]) snprintf(s, sizeof s, "%s kernels, chosen over OpenBLAS's %s", cal_blas_core(), picked);
    else if (user_set) snprintf(s, sizeof s, "%s kernels, from OPENBLAS_CORETYPE", cal_blas_core());
    else snprintf(s, sizeof s, "%s kernels", cal_blas_core());
    return s;
}

/* OpenBLAS's own (exported for its fork handler, not in cblas.h): stops its
 * thread pool; the next call that needs the pool starts it again. */
int blas_thread_shutdown_(void);

void cal_blas_threads(int n) {
    if (n > 0) openblas_set_num_threads(n);
    /* The pool, started when the library loaded (or just now), spins in
     * sched_yield for its idle timeout, about 0.1 s, on a core the caller's
     * own threads could use. */
    blas_thread_shutdown_();
}
