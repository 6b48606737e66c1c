/* test_base_oshint.c - lib/base/oshint.c: a pipe grows to at least 128 KiB
 * (Linux; the default is 64 KiB), a regular file is left alone, and the
 * huge-page hint accepts any buffer, aligned or not, and keeps its bytes. */
#include <fcntl.h>
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
    TEST_END();
}
