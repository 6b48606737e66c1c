/* fuzz_insrc.c - libFuzzer target: gzip/zstd detection by magic (skippable
 * frames included) and decompression of arbitrary bytes, read by chunks and
 * by lines. A damaged input must come back through the error hook, never
 * crash, hang or read out of bounds. */
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "io/insrc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static jmp_buf jb;
static cal_buf line; /* static: changed after setjmp, used after longjmp */
static void on_error(void *ctx, uint64_t off, const char *msg) {
    (void)ctx, (void)off, (void)msg;
    longjmp(jb, 1);
}

/* One pass over the input: by chunks, or by lines. */
static void pass(const uint8_t *data, size_t size, int by_line, volatile uint64_t *sink) {
    cal_insrc *s = cal_insrc_mem(data, size, "fuzz");
    cal_insrc_on_error(s, on_error, NULL);
    if (!setjmp(jb)) {
        const uint8_t *p;
        size_t n;
        uint64_t off;
        if (cal_insrc_peek(s, &p, 16)) *sink += p[0];
        if (by_line) {
            cal_insrc_skip_bom(s);
            while (cal_insrc_line(s, &line, &off, 1u << 16) > 0) *sink += line.n + off;
        } else {
            while ((n = cal_insrc_chunk(s, &p))) *sink += p[n - 1];
        }
        *sink += cal_insrc_offset(s);
    }
    cal_insrc_close(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    volatile uint64_t sink = 0;
    pass(data, size, 0, &sink);
    pass(data, size, 1, &sink);
    cal_buf_free(&line);
    line = (cal_buf){0};
    return 0;
}
