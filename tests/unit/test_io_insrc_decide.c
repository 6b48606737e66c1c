/* test_io_insrc_decide.c - whether a source gets a decompression thread is
 * decided once, when two 256 KiB buffers did not hold the input: the load
 * average (and the count of processors, read from /sys) is asked once for
 * a 6 MiB zstd file, not at every refill, and a load that falls part-way
 * through starts no thread then. getloadavg is replaced here to count the
 * calls: a load of 99 at the first, 0 after. */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "base/par.h"
#include "io/insrc.h"
#include "test.h"

static int calls;

int getloadavg(double loadavg[], int nelem) {
    if (nelem < 1) return -1;
    loadavg[0] = calls++ ? 0.0 : 99.0;
    return 1;
}

int main(void) {
    unsetenv("CAL_DECOMPRESS_THREAD");
    size_t n = 6u << 20;
    char *text = malloc(n);
    for (size_t i = 0; i < n; i++) text[i] = (char)((i * 7919u) % 61 == 0 ? '\n' : 'a' + (i * 31u + i / 97u) % 26);
    size_t cap = ZSTD_compressBound(n);
    char *z = malloc(cap);
    size_t zn = ZSTD_compress(z, cap, text, n, 1);
    char path[] = "/tmp/caltest_decide.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && !ZSTD_isError(zn) && write(fd, z, zn) == (ssize_t)zn, "a 6 MiB zstd file written");
    close(fd);
    cal_insrc *s = cal_insrc_open(path);
    const uint8_t *p;
    size_t got = 0, k;
    int same = 1;
    while ((k = cal_insrc_chunk(s, &p)) > 0) {
        same &= got + k <= n && !memcmp(p, text + got, k);
        got += k;
    }
    cal_insrc_close(s);
    unlink(path);
    CHECK(same && got == n, "the file's bytes (%zu of %zu)", got, n);
    int want = cal_par_cpus() > 1; /* one processor: no thread, and the load is not asked */
    CHECK(calls == want, "the load asked %d times, want %d", calls, want);
    free(text);
    free(z);
    TEST_END();
}
