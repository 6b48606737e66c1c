/* test_parquet_enc.c - the Parquet integer decoders and the Thrift compact
 * reader on hand-encoded inputs (byte layouts worked out from the
 * parquet-format and Thrift specifications), and their errors on damage. */
#include <setjmp.h>
#include <stdint.h>

#include "io/parquet_internal.h"
#include "test.h"
#include "io/thrift.h"

static jmp_buf jb;
static char msg[128];
static void fail(void *ctx, uint64_t off, const char *what) {
    (void)ctx;
    snprintf(msg, sizeof msg, "%llu: %s", (unsigned long long)off, what);
    longjmp(jb, 1);
}

/* Each returns 1 when decoding succeeded (end pointer in *end), 0 on error. */
static int rle(const uint8_t *b, size_t n, int w, uint32_t *out, size_t c, const uint8_t **end) {
    pq_span s = {b, b + n, 0, fail, NULL};
    if (setjmp(jb)) return 0;
    pq_rle_hybrid(&s, w, out, c);
    *end = s.p;
    return 1;
}

static int delta(const uint8_t *b, size_t n, int64_t *out, size_t c, const uint8_t **end) {
    pq_span s = {b, b + n, 0, fail, NULL};
    if (setjmp(jb)) return 0;
    pq_delta_binary(&s, out, c);
    *end = s.p;
    return 1;
}

static int skip(const uint8_t *b, size_t n, int type) {
    tc_reader r = {b, b, b + n, 100, fail, NULL, 0};
    if (setjmp(jb)) return 0;
    tc_skip(&r, type);
    return 1;
}

int main(void) {
    const uint8_t *end;
    /* RLE run of 5 x 3 at width 2 */
    static const uint8_t r1[] = {5 << 1, 3};
    uint32_t o[8] = {0};
    CHECK(rle(r1, 2, 2, o, 5, &end) && o[0] == 3 && o[4] == 3 && end == r1 + 2, "RLE run");
    /* bit-packed group: values 0..7 at 3 bits, LSB first */
    static const uint8_t r2[] = {(1 << 1) | 1, 0x88, 0xC6, 0xFA};
    int good = rle(r2, 4, 3, o, 8, &end);
    for (uint32_t i = 0; i < 8; i++) good &= o[i] == i;
    CHECK(good && end == r2 + 4, "bit-packed group of 8 at width 3");
    CHECK(!rle(r2, 2, 3, o, 8, &end), "truncated bit-packed run is an error (%s)", msg);
    static const uint8_t r3[] = {0, 5};
    CHECK(!rle(r3, 2, 3, o, 1, &end), "empty RLE run is an error (%s)", msg);

    /* DELTA_BINARY_PACKED, block 128 of 4 miniblocks, values 1..5: first 1,
     * min delta 1, all widths 0: no miniblock bytes */
    static const uint8_t d1[] = {0x80, 0x01, 4, 5, 2, 2, 0, 0, 0, 0};
    int64_t v[8];
    CHECK(delta(d1, sizeof d1, v, 5, &end) && v[0] == 1 && v[1] == 2 && v[4] == 5 && end == d1 + sizeof d1,
          "delta, constant step");
    /* 7 5 3 1 2 3 4 5: first 7 (zigzag 14), min delta -2 (zigzag 3), adjusted
     * deltas 0 0 0 3 3 3 3 at width 2 in the first miniblock (8 bytes) */
    static const uint8_t d2[18] = {0x80, 0x01, 4, 8, 14, 3, 2, 0, 0, 0, 0xC0, 0xFF};
    static const int64_t want[8] = {7, 5, 3, 1, 2, 3, 4, 5};
    good = delta(d2, 18, v, 8, &end);
    for (int i = 0; i < 8; i++) good &= v[i] == want[i];
    CHECK(good && end == d2 + 18, "delta with negative deltas and a width-2 miniblock");
    CHECK(!delta(d2, 12, v, 8, &end), "truncated miniblock is an error (%s)", msg);
    CHECK(!delta(d2, 18, v, 7, &end), "value count mismatch is an error (%s)", msg);
    static const uint8_t d3[] = {0x81, 0x01, 4, 5, 2};  /* block 129: not a multiple of 128 */
    CHECK(!delta(d3, sizeof d3, v, 5, &end), "bad delta header is an error (%s)", msg);

    /* Thrift: struct {1: i32 -3, 4: binary "ab", 5: list<i32> [1, 2]} STOP */
    static const uint8_t t1[] = {0x15, 0x05, 0x38, 0x02, 'a', 'b', 0x19, 0x25, 0x02, 0x04, 0x00};
    tc_reader r = {t1, t1, t1 + sizeof t1, 100, fail, NULL, 0};
    if (!setjmp(jb)) {
        int16_t id = 0;
        int t = tc_field(&r, &id);
        int32_t x = tc_i32(&r);
        CHECK(t == TC_I32 && id == 1 && x == -3, "thrift i32 field");
        t = tc_field(&r, &id);
        size_t n;
        const uint8_t *s = tc_binary(&r, &n);
        CHECK(t == TC_BINARY && id == 4 && n == 2 && s[0] == 'a', "thrift binary field (delta id)");
        t = tc_field(&r, &id);
        CHECK(t == TC_LIST && id == 5, "thrift list field");
        tc_skip(&r, TC_LIST);
        CHECK(tc_field(&r, &id) == TC_STOP && r.p == r.end, "thrift skip list, then STOP");
    } else CHECK(0, "thrift: %s", msg);
    CHECK(skip(t1, sizeof t1, TC_STRUCT), "thrift skip whole struct");
    CHECK(!skip(t1, 5, TC_STRUCT) && msg[0] == '1', "truncated thrift struct names the offset (%s)", msg);
    static const uint8_t t2[] = {0xF5, 0xFF, 0xFF, 0x03};
    CHECK(!skip(t2, sizeof t2, TC_LIST), "oversized thrift list is an error (%s)", msg);
    static uint8_t deep[200];
    for (int i = 0; i < 200; i++) deep[i] = 0x1C;  /* field 1: struct, nested */
    CHECK(!skip(deep, sizeof deep, TC_STRUCT), "deep thrift nesting is an error (%s)", msg);
    TEST_END();
}
