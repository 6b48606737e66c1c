/* oshint.c - see oshint.h. F_SETPIPE_SZ and MADV_HUGEPAGE are Linux's
 * (_GNU_SOURCE); both calls only hint, so every failure is ignored. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "base/oshint.h"

void cal_pipe_grow(int fd) {
#ifdef F_SETPIPE_SZ
    struct stat st;
    if (fstat(fd, &st) || !S_ISFIFO(st.st_mode)) return;
    int have = fcntl(fd, F_GETPIPE_SZ);
    /* Above pipe-max-size an unprivileged process is refused: try smaller. */
    for (int want = 1 << 20; want > have && want >= 1 << 17; want /= 2)
        if (fcntl(fd, F_SETPIPE_SZ, want) >= 0) break;
#else
    (void)fd;
#endif
}

void cal_hugepages(void *p, size_t n) {
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (n < 2 * huge) return;
    uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1), b = ((uintptr_t)p + n) & ~(huge - 1);
    if (b > a) madvise((void *)a, b - a, MADV_HUGEPAGE);
#else
    (void)p, (void)n;
#endif
}
