/* blas.c - OpenBLAS kernel choice from CPUID (see blas.h). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <cblas.h>

#if defined(__GNUC__) && defined(__x86_64__)
#include <cpuid.h>
#endif

#include <sys/resource.h>

#include "base/err.h"
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

/* Set on a re-execution made to start OpenBLAS without its pool (under an
 * address-space limit, see blas.h, Memory) to the user's own
 * OPENBLAS_NUM_THREADS ("" when unset), which is put back. */
#define NOPOOL_ENV "CAL_OPENBLAS_NOPOOL"

void cal_blas_choose(char **argv) {
    int again = 0;
    const char *p = getenv(PICKED_ENV), *n = getenv(NOPOOL_ENV);
    if (p) {
        snprintf(picked, sizeof picked, "%s", p);
        unsetenv(PICKED_ENV);
        unsetenv("OPENBLAS_CORETYPE");
        again = 1;
    }
    if (n) {
        if (*n) setenv("OPENBLAS_NUM_THREADS", n, 1);
        else unsetenv("OPENBLAS_NUM_THREADS");
        unsetenv(NOPOOL_ENV);
        again = 1;
    }
    if (again) return;
    const char *best = NULL;
    if (getenv("OPENBLAS_CORETYPE")) user_set = 1;
    else {
        cal_cpu_features f;
        cal_cpu_features_host(&f);
        const char *cur = cal_blas_core();
        best = cal_blas_upgrade(cur, &f);
        if (best && (setenv("OPENBLAS_CORETYPE", best, 1) || setenv(PICKED_ENV, cur, 1))) return;
    }
    int nopool = openblas_get_num_threads() > 1 && cal_address_room(NULL) != SIZE_MAX;
    if (nopool) {
        const char *u = getenv("OPENBLAS_NUM_THREADS");
        if (setenv(NOPOOL_ENV, u ? u : "", 1) || setenv("OPENBLAS_NUM_THREADS", "1", 1)) nopool = 0;
    }
    if (!best && !nopool) return;
    execv("/proc/self/exe", argv);
    /* exec failed (no /proc): go on with the library's own kernels and pool */
    if (best) {
        unsetenv("OPENBLAS_CORETYPE");
        unsetenv(PICKED_ENV);
    }
    if (nopool) {
        const char *u = getenv(NOPOOL_ENV);
        if (u && *u) setenv("OPENBLAS_NUM_THREADS", u, 1);
        else unsetenv("OPENBLAS_NUM_THREADS");
        unsetenv(NOPOOL_ENV);
    }
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

/* Under an address-space limit (see blas.h, Memory) the library's thread
 * count is never raised: that would start pool threads, each mapping a
 * buffer. -1: not decided yet. */
static int keep_pool = -1, pool_threads;

void cal_blas_threads(int n) {
    if (keep_pool < 0) {
        pool_threads = openblas_get_num_threads();
        keep_pool = cal_address_room(NULL) != SIZE_MAX;
    }
    if (keep_pool) {
        if (n > pool_threads) n = pool_threads;
        if (n > 0) openblas_set_num_threads(n);
        return;
    }
    if (n > 0) openblas_set_num_threads(n);
    /* The pool, started when the library loaded (or just now), spins in
     * sched_yield for its idle timeout, about 0.1 s, on a core the caller's
     * own threads could use. */
    blas_thread_shutdown_();
}

/* ---- Memory ------------------------------------------------------------ */

/* "Name:   N kB" of /proc/self/status, in bytes; -1 when absent. */
static long long status_kb(const char *text, const char *name) {
    const char *p = strstr(text, name);
    if (!p) return -1;
    return strtoll(p + strlen(name), NULL, 10) * 1024;
}

size_t cal_address_room(const char **which) {
    static const struct { int res; const char *field, *name; } lim[] = {
        {RLIMIT_AS, "\nVmSize:", "ulimit -v"},
        {RLIMIT_DATA, "\nVmData:", "ulimit -d"},
    };
    char text[4096];
    size_t n = 0, room = SIZE_MAX;
    int have = 0;
    if (which) *which = "ulimit -v";
    for (size_t i = 0; i < sizeof lim / sizeof *lim; i++) {
        struct rlimit r;
        if (getrlimit(lim[i].res, &r) || r.rlim_cur == RLIM_INFINITY) continue;
        if (!have) {
            FILE *f = fopen("/proc/self/status", "r");
            if (!f) return SIZE_MAX;
            n = fread(text, 1, sizeof text - 1, f);
            fclose(f);
            text[n] = 0;
            have = 1;
        }
        long long used = status_kb(text, lim[i].field);
        if (used < 0) continue;
        size_t left = (unsigned long long)used >= r.rlim_cur ? 0 : (size_t)(r.rlim_cur - (unsigned long long)used);
        if (left < room) {
            room = left;
            if (which) *which = lim[i].name;
        }
    }
    return room;
}

/* A new thread's stack and guard page, and the malloc arena glibc gives
 * a thread at its first malloc (HEAP_MAX_SIZE: 64 MiB on 64-bit). */
static size_t thread_own(void) {
    pthread_attr_t a;
    size_t s = 8u << 20;
    if (!pthread_attr_init(&a)) {
        if (pthread_attr_getstacksize(&a, &s)) s = 8u << 20;
        pthread_attr_destroy(&a);
    }
    return s + 4096 + ((size_t)64 << 20);
}

size_t cal_blas_thread_bytes(void) { return CAL_BLAS_BUFFER + thread_own(); }

int cal_blas_fit(int threads, size_t room, size_t (*more)(int t, void *ctx), void *ctx) {
    size_t per = cal_blas_thread_bytes();
    for (int t = threads; t >= 1; t--) {
        size_t extra = more ? more(t, ctx) : 0;
        if (extra <= room && (room - extra) / per >= (size_t)t) return t;
    }
    return 0;
}

static atomic_int buffer_seen;

void cal_blas_took_buffer(void) { atomic_store_explicit(&buffer_seen, 1, memory_order_relaxed); }

void cal_blas_room_for_caller(const char *what) {
    const char *which;
    size_t room = cal_address_room(&which);
    if (room == SIZE_MAX || room >= CAL_BLAS_BUFFER) return;
    /* Without a pool, what a finished call took is free again. */
    if (atomic_load_explicit(&buffer_seen, memory_order_relaxed) && keep_pool == 1 && pool_threads == 1) return;
    cal_die("out of memory: %s needs %zu MiB of address space (OpenBLAS's work buffer), %zu MiB are left under %s",
            what, (CAL_BLAS_BUFFER + ((size_t)1 << 20) - 1) >> 20, room >> 20, which);
}
