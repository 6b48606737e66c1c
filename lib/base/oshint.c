/* oshint.c - see oshint.h. F_SETPIPE_SZ, MADV_HUGEPAGE and sync_file_range
 * are Linux's (_GNU_SOURCE); those calls only hint, so their failures are
 * ignored. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/oshint.h"

#define HUGE_PAGE ((size_t)2 << 20)

void cal_pipe_grow(int fd) {
#ifdef F_SETPIPE_SZ
    struct stat st;
    if (fstat(fd, &st) || !S_ISFIFO(st.st_mode)) return;
    int have = fcntl(fd, F_GETPIPE_SZ);
    /* Above pipe-max-size an unprivileged process is refused: try smaller. */
    for (int want = 1 << 18; want > have && want >= 1 << 17; want /= 2)
        if (fcntl(fd, F_SETPIPE_SZ, want) >= 0) break;
#else
    (void)fd;
#endif
}

void cal_hugepages(void *p, size_t n) {
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = HUGE_PAGE;
    if (n < 2 * huge) return;
    uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1), b = ((uintptr_t)p + n) & ~(huge - 1);
    if (b > a) madvise((void *)a, b - a, MADV_HUGEPAGE);
#else
    (void)p, (void)n;
#endif
}

void cal_writeback(int fd) {
#ifdef SYNC_FILE_RANGE_WRITE
    sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#else
    (void)fd;
#endif
}

/* Below 2 MiB a huge page would partly hold untouched memory: calloc. */
static int small(size_t n) { return n < HUGE_PAGE; }

void *cal_huge_zalloc(size_t n) {
#ifdef MAP_ANONYMOUS
    if (small(n)) return cal_xcalloc(1, n);
    size_t len = (n + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    /* Map 2 MiB more, keep the aligned part, give back the rest. */
    char *m = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) cal_die("out of memory (%zu bytes)", n);
    char *a = (char *)(((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    if (a > m) munmap(m, (size_t)(a - m));
    if (m + len + HUGE_PAGE > a + len) munmap(a + len, (size_t)(m + len + HUGE_PAGE - (a + len)));
#ifdef MADV_HUGEPAGE
    madvise(a, len, MADV_HUGEPAGE);
#endif
    return a;
#else
    return cal_xcalloc(1, n);
#endif
}

void cal_huge_free(void *p, size_t n) {
    if (!p) return;
#ifdef MAP_ANONYMOUS
    if (small(n)) free(p);
    else munmap(p, (n + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1));
#else
    (void)n;
    free(p);
#endif
}

#if defined(__SANITIZE_ADDRESS__)
#define CAL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CAL_ASAN 1
#endif
#endif

void cal_thp_malloc(char **argv) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35)) && !defined(CAL_ASAN)
    static const char knob[] = "glibc.malloc.hugetlb";
    const char *t = getenv("GLIBC_TUNABLES");
    if (t && strstr(t, knob)) return; /* ours after the exec, or the user's */
    char mode[128] = "";
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (!f) return;
    int ok = fgets(mode, sizeof mode, f) && strstr(mode, "[madvise]");
    fclose(f);
    if (!ok) return;
    /* Started through the dynamic loader (ld.so PROG ...), /proc/self/exe is
     * the loader, which would take our first argument for the program. */
    char exe[4096];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k <= 0) return;
    exe[k] = 0;
    const char *base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
    if (!strncmp(base, "ld-", 3) || !strncmp(base, "ld.so", 5)) return;
    char *old = t ? cal_xstrdup(t) : NULL;
    size_t n = (t ? strlen(t) + 1 : 0) + sizeof knob + 2;
    char *v = cal_xmalloc(n);
    snprintf(v, n, "%s%s%s=1", t ? t : "", t ? ":" : "", knob);
    if (setenv("GLIBC_TUNABLES", v, 1) == 0) execv("/proc/self/exe", argv);
    /* no /proc or no exec: go on as we are */
    if (old) setenv("GLIBC_TUNABLES", old, 1);
    else unsetenv("GLIBC_TUNABLES");
    free(old);
    free(v);
#else
    (void)argv;
#endif
}
