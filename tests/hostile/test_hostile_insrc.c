/* test_hostile_insrc.c - compressed input detection and damage: zstd files
 * that begin with a skippable frame (everything pzstd writes), skippable
 * frames between frames, gzip and zstd cut at every byte, and trailing
 * garbage: each is read exactly or ends with one line naming the input and
 * an offset, never read as raw text. Compressed bytes come from libzstd and
 * zlib themselves. */
#include <setjmp.h>
#include <stdio.h>

#include <zlib.h>
#include <zstd.h>

#include "hostile.h"
#include "io/insrc.h"

static const char text[] = "The quick brown fox\njumps over the lazy dog.\n";

static void zstd_frame(cal_buf *b, const char *s, size_t n) {
    size_t cap = ZSTD_compressBound(n);
    cal_buf_reserve(b, b->n + cap);
    size_t k = ZSTD_compress(b->p + b->n, cap, s, n, 3);
    if (ZSTD_isError(k)) abort();
    b->n += k;
}

/* A skippable frame: magic 0x184D2A5X, u32 size, size bytes (pzstd keeps
 * the sizes of its frames there). */
static void skippable(cal_buf *b, unsigned x, const char *data, uint32_t n) {
    h_le(b, 0x184D2A50u | x, 4);
    h_le(b, n, 4);
    cal_buf_add(b, data, n);
}

static void gzip_member(cal_buf *b, const char *s, size_t n) {
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK) abort();
    cal_buf_reserve(b, b->n + deflateBound(&z, (uLong)n) + 32);
    z.next_in = (Bytef *)(uintptr_t)s, z.avail_in = (uInt)n;
    z.next_out = (Bytef *)b->p + b->n, z.avail_out = (uInt)(b->cap - b->n);
    if (deflate(&z, Z_FINISH) != Z_STREAM_END) abort();
    b->n += z.total_out;
    deflateEnd(&z);
}

static const cal_buf *src;
static cal_buf got;

/* In-process errors (cal_insrc_on_error): the message, then a longjmp. */
static jmp_buf jb;
static char msg[512];
static void on_error(void *ctx, uint64_t off, const char *m) {
    (void)ctx;
    snprintf(msg, sizeof msg, "byte %llu: %s", (unsigned long long)off, m);
    longjmp(jb, 1);
}

/* 1 when reading b ends with an error through the hook, 0 at a clean end. */
static int fails(const cal_buf *b) {
    cal_insrc *s = cal_insrc_mem(b->p, b->n, "in.zst");
    cal_insrc_on_error(s, on_error, NULL);
    int failed = 1;
    if (!setjmp(jb)) {
        const uint8_t *p;
        while (cal_insrc_chunk(s, &p)) {}
        failed = 0;
    }
    cal_insrc_close(s);
    return failed;
}

static void read_all(void *arg) {
    (void)arg;
    cal_insrc *s = cal_insrc_mem(src->p, src->n, "in.zst");
    const uint8_t *p;
    size_t n;
    got.n = 0;
    while ((n = cal_insrc_chunk(s, &p))) cal_buf_add(&got, p, n);
    cal_buf_addc(&got, 0);
    got.n--;
    cal_insrc_close(s);
}

static int reads_as(const cal_buf *b, const char *want, const char *codec) {
    src = b;
    cal_insrc *s = cal_insrc_mem(b->p, b->n, "in.zst");
    int ok = !strcmp(cal_insrc_codec(s), codec);
    cal_insrc_close(s);
    read_all(NULL);
    return ok && got.n == strlen(want) && !memcmp(got.p, want, got.n);
}

int main(void) {
    cal_set_progname("hostile");
    cal_buf b = {0}, all = {0};
    size_t n = strlen(text);
    skippable(&b, 0, "\x2d\x00\x00\x00", 4);
    zstd_frame(&b, text, n);
    CHECK(reads_as(&b, text, "zstd"), "a skippable frame first (pzstd's layout) is zstd, not raw text");
    b.n = 0;
    zstd_frame(&b, text, 20);
    skippable(&b, 0xf, "abcdefgh", 8);
    zstd_frame(&b, text + 20, n - 20);
    CHECK(reads_as(&b, text, "zstd"), "a skippable frame between two frames is skipped");
    b.n = 0;
    skippable(&b, 7, "", 0);
    CHECK(reads_as(&b, "", "zstd"), "a file of one empty skippable frame is empty zstd");
    b.n = 0;
    gzip_member(&b, text, 10);
    gzip_member(&b, text + 10, n - 10);
    CHECK(reads_as(&b, text, "gzip"), "two gzip members are read one after the other");
    cal_buf_add(&all, "plain \x28\xb5\x2f text", 14);
    CHECK(reads_as(&all, "plain \x28\xb5\x2f text", "none"), "the magic later in a text does not matter");

    /* every cut of a compressed file after its magic (4 and 2 bytes; shorter
     * is text) is one error line, except the cut after the skippable frame,
     * which leaves a complete empty zstd file */
    const char *names[2] = {"zstd", "gzip"};
    const size_t magic[2] = {4, 2}, whole_at[2] = {12, 0};
    for (int k = 0; k < 2; k++) {
        b.n = 0;
        if (k == 0) skippable(&b, 0, "\x2d\x00\x00\x00", 4), zstd_frame(&b, text, n);
        else gzip_member(&b, text, n);
        size_t bad = 0;
        for (size_t cut = magic[k]; cut < b.n; cut++) {
            cal_buf c = {b.p, cut, cut};
            msg[0] = 0;
            if (fails(&c) != (cut != whole_at[k]) || (msg[0] && !h_match(msg, "^byte [0-9]+: (truncated|corrupt)")))
                bad++, printf("# cut %zu: %s\n", cut, msg);
        }
        CHECK(bad == 0, "each of %zu cuts of a %s file is an error with an offset (%zu are not)", b.n - magic[k],
              names[k], bad);
        cal_buf c = {b.p, b.n / 2, b.n / 2};
        src = &c;
        h_outcome o = h_run(read_all, NULL);
        CHECK(o.status == 1 && o.lines == 1 && h_match(o.err, "^hostile: in.zst: byte [0-9]+: (truncated|corrupt)"),
              "without the hook, a cut %s file ends the program with one line: %s", names[k], o.err);
        cal_buf_add(&b, "garbage!", 8);
        msg[0] = 0;
        CHECK(fails(&b) && h_match(msg, "^byte [0-9]+: corrupt"), "%s with trailing garbage: %s", names[k], msg);
    }
    cal_buf_free(&b);
    cal_buf_free(&all);
    cal_buf_free(&got);
    TEST_END();
}
