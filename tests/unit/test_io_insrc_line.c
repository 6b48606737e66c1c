/* test_io_insrc_line.c - cal_insrc_line_view hands out every line of a
 * source exactly as splitting the bytes at '\n' does, whether the line lies
 * whole in the source's 256 KiB buffer (a view into it) or crosses its edge
 * (copied into the spill buffer): lines of 37 bytes after a first line of
 * 0..63 bytes put the buffer's edge at every offset of a line, its newline
 * included; lines of every length 0..300 and one longer than the buffer
 * follow, the last without a newline; and a line over the limit is -1. */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "io/insrc.h"
#include "test.h"

/* 1 when the lines of text[0..n) read by cal_insrc_line_view are its
 * '\n'-separated pieces (a final piece without '\n' is a line when not
 * empty), each at its offset. */
static int same_lines(const char *text, size_t n) {
    cal_insrc *s = cal_insrc_mem(text, n, "mem");
    cal_buf spill = {0};
    const char *p;
    size_t len, at = 0;
    uint64_t off;
    int ok = 1, got;
    while ((got = cal_insrc_line_view(s, &spill, &p, &len, &off, (size_t)1 << 30)) == 1) {
        const char *nl = memchr(text + at, '\n', n - at);
        size_t want = nl ? (size_t)(nl - (text + at)) : n - at;
        ok &= at < n && off == at && len == want && !memcmp(p, text + at, len);
        at += want + 1;
    }
    ok &= got == 0 && at >= n;
    cal_buf_free(&spill);
    cal_insrc_close(s);
    return ok;
}

int main(void) {
    const size_t edge = 256u << 10;
    cal_buf t = {0};
    int ok = 1;
    for (size_t first = 0; first < 64; first++) {
        t.n = 0;
        for (size_t i = 0; i < first; i++) cal_buf_addc(&t, (char)('A' + i % 26));
        cal_buf_addc(&t, '\n');
        for (size_t k = 0; t.n < edge + 200; k++) {
            for (size_t i = 0; i < 37; i++) cal_buf_addc(&t, (char)('a' + (k + i) % 26));
            cal_buf_addc(&t, '\n');
        }
        ok &= same_lines(t.p, t.n);
    }
    CHECK(ok, "the buffer's edge at every offset of a 37-byte line and its newline");
    t.n = 0;
    for (size_t len = 0; len <= 300; len++) {
        for (size_t i = 0; i < len; i++) cal_buf_addc(&t, (char)('0' + (len + i) % 10));
        cal_buf_addc(&t, '\n');
    }
    for (size_t i = 0; i < edge + edge / 2; i++) cal_buf_addc(&t, (char)('a' + i % 26));
    cal_buf_addc(&t, '\n');
    for (size_t len = 0; len <= 300; len++) {
        for (size_t i = 0; i < len; i++) cal_buf_addc(&t, (char)('0' + (len + i) % 10));
        if (len < 300) cal_buf_addc(&t, '\n');
    }
    CHECK(same_lines(t.p, t.n), "lines of 0..300 bytes, one of 384 KiB, a last line without a newline");
    cal_insrc *s = cal_insrc_mem(t.p, t.n, "mem");
    cal_buf spill = {0};
    const char *p;
    size_t len;
    uint64_t off;
    int got;
    while ((got = cal_insrc_line_view(s, &spill, &p, &len, &off, 200)) == 1) {}
    /* the line of 201 bytes starts after those of 0..200 bytes and their newlines */
    CHECK(got == -1 && off == 201 * 202 / 2, "a line over the limit is -1, at its start (byte %llu)",
          (unsigned long long)off);
    cal_buf_free(&spill);
    cal_insrc_close(s);
    cal_buf_free(&t);
    TEST_END();
}
