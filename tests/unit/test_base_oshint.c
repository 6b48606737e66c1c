/* test_base_oshint.c - lib/base/oshint.c: a pipe grows to at least 128 KiB
 * (Linux; the default is 64 KiB), a regular file is left alone, and the
 * huge-page hint accepts any buffer, aligned or not, and keeps its bytes;
 * cal_huge_zalloc gives zeros, 2 MiB-aligned from 2 MiB on (and on Linux
 * huge pages from head to tail). */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/oshint.h"
#include "test.h"

int main(void) {
    int fd[2];
    CHECK(pipe(fd) == 0, "pipe");
    cal_pipe_grow(fd[0]);
#ifdef __linux__
    /* F_GETPIPE_SZ is 1032 in Linux's uapi fcntl.h (not declared here
     * without _GNU_SOURCE). */
    int sz = fcntl(fd[0], 1032);
    CHECK(sz >= 1 << 17, "a pipe grows from 64 KiB to %d bytes", sz);
#endif
    close(fd[0]), close(fd[1]);
    FILE *f = tmpfile();
    cal_pipe_grow(fileno(f));
    CHECK(fputs("x", f) >= 0, "a regular file is left alone");
    fclose(f);

    size_t n = (size_t)9 << 20;
    unsigned char *b = malloc(n + 1);
    memset(b, 7, n + 1);
    cal_hugepages(b + 1, n);  /* unaligned */
    cal_hugepages(b, 100);    /* small: nothing */
    int same = 1;
    for (size_t i = 0; i <= n; i += 4093) same &= b[i] == 7;
    CHECK(same, "the huge-page hint keeps a 9 MiB buffer's bytes");
    free(b);

    const size_t sizes[] = {1, 4096, ((size_t)2 << 20) - 1, (size_t)2 << 20, ((size_t)9 << 20) + 5};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t m = sizes[k];
        unsigned char *z = cal_huge_zalloc(m);
        int zero = 1;
        for (size_t i = 0; i < m; i += 511) zero &= z[i] == 0;
        zero &= z[m - 1] == 0;
        memset(z, 0xa5, m); /* all of it writable */
        int aligned = m < (size_t)2 << 20 || (uintptr_t)z % ((uintptr_t)2 << 20) == 0;
        CHECK(zero && aligned, "cal_huge_zalloc(%zu): zeros%s", m, m < (size_t)2 << 20 ? "" : ", 2 MiB-aligned");
        cal_huge_free(z, m);
    }
#ifdef __linux__
    /* Huge pages where the system has them on ("madvise" or "always"): the
     * whole 9 MiB buffer, head and tail included, takes 5 of them. */
    FILE *thp = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    char mode[128] = "";
    if (thp && fgets(mode, sizeof mode, thp) && !strstr(mode, "[never]")) {
        size_t m = ((size_t)9 << 20) + 5;
        unsigned char *z = cal_huge_zalloc(m);
        memset(z, 1, m);
        FILE *sm = fopen("/proc/self/smaps", "r");
        char line[256];
        unsigned long start = 0, end = 0, kb = 0, found = 0;
        while (sm && fgets(line, sizeof line, sm)) {
            unsigned long a, e;
            if (sscanf(line, "%lx-%lx ", &a, &e) == 2) start = a, end = e;
            else if (start <= (uintptr_t)z && (uintptr_t)z < end && sscanf(line, "AnonHugePages: %lu kB", &kb) == 1)
                found = end - start; /* (a neighbour with the same flags may share the mapping) */
        }
        if (sm) fclose(sm);
        CHECK(found >= (size_t)10 << 20 && kb >= 10240,
              "9 MiB + 5 bytes: 10 MiB mapped, all of it in huge pages (%lu kB of %lu)", kb, found >> 10);
        cal_huge_free(z, m);
    }
    if (thp) fclose(thp);
#endif
    TEST_END();
}
