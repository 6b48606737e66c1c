/* test_io_insrc_thread.c - the decompression thread of io/insrc, on a
 * 6 MiB zstd file of 61-byte lines.
 * Deciding: whether a source gets the thread is decided once, when two
 * 256 KiB buffers did not hold the input: the load average (and the count of
 * processors, read from /sys) is asked once, not at every refill, and a load
 * that falls part-way through starts no thread then. getloadavg is replaced
 * here to count the calls: a load of 99 at the first, 0 after.
 * Peeking: cal_insrc_peek once the thread runs (CAL_DECOMPRESS_THREAD=1),
 * before every line from the second MiB on, so some straddle the edge of the
 * thread's 1 MiB buffers, returns at once (it spun forever waiting for bytes
 * the reader itself would have to decode, beside the thread) with the file's
 * bytes at the offset; and the lines read after are the file's. */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "base/buf.h"
#include "base/par.h"
#include "io/insrc.h"
#include "test.h"

static int calls;

int getloadavg(double loadavg[], int nelem) {
    if (nelem < 1) return -1;
    loadavg[0] = calls++ ? 0.0 : 99.0;
    return 1;
}

static void deciding(const char *path, const char *text, size_t n) {
    unsetenv("CAL_DECOMPRESS_THREAD");
    cal_insrc *s = cal_insrc_open(path);
    const uint8_t *p;
    size_t got = 0, k;
    int same = 1;
    while ((k = cal_insrc_chunk(s, &p)) > 0) {
        same &= got + k <= n && !memcmp(p, text + got, k);
        got += k;
    }
    cal_insrc_close(s);
    CHECK(same && got == n, "the file's bytes (%zu of %zu)", got, n);
    int want = cal_par_cpus() > 1; /* one processor: no thread, and the load is not asked */
    CHECK(calls == want, "the load asked %d times, want %d", calls, want);
}

static void peeking(const char *path, const char *text, size_t n) {
    setenv("CAL_DECOMPRESS_THREAD", "1", 1);
    alarm(30); /* a peek that waits forever fails here, not the whole run */
    cal_insrc *s = cal_insrc_open(path);
    cal_buf line = {0};
    uint64_t off, at = 0;
    int lines_ok = 1, peeks_ok = 1;
    size_t peeks = 0, short_peeks = 0;
    for (;;) {
        if (cal_insrc_offset(s) >= (1u << 20)) {
            const uint8_t *p;
            size_t k = cal_insrc_peek(s, &p, 4096), o = (size_t)cal_insrc_offset(s);
            peeks_ok &= o <= n && (k >= 1 || o == n) && k <= 4096 && o + k <= n && !memcmp(p, text + o, k);
            peeks++, short_peeks += k < 4096 && o + 4096 <= n;
        }
        int r = cal_insrc_line(s, &line, &off, 1 << 20);
        if (r != 1) break;
        lines_ok &= off == at && at + line.n <= n && !memcmp(line.p, text + at, line.n) &&
                    (at + line.n == n || text[at + line.n] == '\n'); /* the last line has none */
        at += line.n + (at + line.n < n);
    }
    cal_insrc_close(s);
    alarm(0);
    CHECK(peeks_ok && peeks > 10000, "%zu peeks, the file's bytes (%zu of them short, at a buffer's edge)", peeks,
          short_peeks);
    CHECK(lines_ok && at == n, "the lines read after them are the file's (%llu of %zu bytes)", (unsigned long long)at, n);
    cal_buf_free(&line);
}

int main(void) {
    size_t n = 6u << 20;
    char *text = malloc(n);
    for (size_t i = 0; i < n; i++) text[i] = (char)(i % 61 == 60 ? '\n' : 'a' + (i * 31u + i / 97u) % 26);
    size_t cap = ZSTD_compressBound(n);
    char *z = malloc(cap);
    size_t zn = ZSTD_compress(z, cap, text, n, 1);
    char path[] = "/tmp/caltest_insrc.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && !ZSTD_isError(zn) && write(fd, z, zn) == (ssize_t)zn, "a 6 MiB zstd file written");
    close(fd);
    deciding(path, text, n);
    peeking(path, text, n);
    unlink(path);
    free(text);
    free(z);
    TEST_END();
}
