/* parquet_enc.c - Parquet integer encodings: RLE/bit-packed hybrid and
 * DELTA_BINARY_PACKED. All reads are bounds-checked. */
#include "io/parquet_internal.h"

static void fail(pq_span *s, const char *what) { s->fail(s->ctx, s->off, what); }

static uint64_t varint(pq_span *s) {
    uint64_t v = 0;
    for (int sh = 0; sh < 64; sh += 7) {
        if (s->p >= s->end) fail(s, "truncated varint in page");
        uint8_t b = *s->p++;
        v |= (uint64_t)(b & 0x7f) << sh;
        if (!(b & 0x80)) return v;
    }
    fail(s, "varint too long in page");
    return 0;
}

static int64_t zigzag(pq_span *s) {
    uint64_t v = varint(s);
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Bit-unpacks n values of width bits (LSB first) from p. */
static void unpack(const uint8_t *p, int width, uint64_t *out, size_t n) {
    uint64_t acc = 0;
    int have = 0;
    uint64_t mask = width == 64 ? ~0ull : ((1ull << width) - 1);
    for (size_t i = 0; i < n; i++) {
        uint64_t v = 0;
        int got = 0;
        while (got < width) {
            if (have == 0) { acc = *p++; have = 8; }
            int take = width - got < have ? width - got : have;
            v |= (acc & ((1ull << take) - 1)) << got;
            acc >>= take, have -= take, got += take;
        }
        out[i] = v & mask;
    }
}

void pq_rle_hybrid(pq_span *s, int width, uint32_t *out, size_t count) {
    if (width < 0 || width > 32) fail(s, "bad bit width");
    size_t i = 0;
    uint64_t tmp[8];
    while (i < count) {
        uint64_t h = varint(s);
        if (h & 1) {  /* bit-packed groups of 8 */
            uint64_t groups = h >> 1;
            if (groups == 0 || groups > (uint64_t)(s->end - s->p)) fail(s, "bad bit-packed run");
            for (uint64_t g = 0; g < groups; g++) {
                size_t bytes = (size_t)width;  /* 8 values * width bits */
                if ((size_t)(s->end - s->p) < bytes) fail(s, "truncated bit-packed run");
                unpack(s->p, width, tmp, 8);
                s->p += bytes;
                for (int k = 0; k < 8 && i < count; k++) out[i++] = (uint32_t)tmp[k];
            }
        } else {
            uint64_t run = h >> 1;
            size_t bytes = (size_t)(width + 7) / 8;
            if ((size_t)(s->end - s->p) < bytes) fail(s, "truncated RLE run");
            uint32_t v = 0;
            for (size_t k = 0; k < bytes; k++) v |= (uint32_t)s->p[k] << (8 * k);
            s->p += bytes;
            if (run == 0) fail(s, "empty RLE run");
            for (uint64_t k = 0; k < run && i < count; k++) out[i++] = v;
        }
    }
}

void pq_delta_binary(pq_span *s, int64_t *out, size_t count) {
    uint64_t block = varint(s), minis = varint(s), total = varint(s);
    int64_t first = zigzag(s);
    if (block == 0 || block % 128 || minis == 0 || block % minis || (block / minis) % 32 || block > (1u << 20))
        fail(s, "bad DELTA_BINARY_PACKED header");
    if (total != count) fail(s, "DELTA_BINARY_PACKED value count does not match the page");
    if (count == 0) return;
    uint64_t per = block / minis;
    uint64_t buf[1024];
    size_t i = 0;
    uint64_t prev = (uint64_t)first;
    out[i++] = first;
    while (i < count) {
        uint64_t mind = (uint64_t)zigzag(s);
        if ((uint64_t)(s->end - s->p) < minis) fail(s, "truncated delta block");
        const uint8_t *widths = s->p;
        s->p += minis;
        for (uint64_t m = 0; m < minis && i < count; m++) {
            int w = widths[m];
            if (w > 64) fail(s, "bad delta bit width");
            size_t bytes = (size_t)(per * (uint64_t)w / 8);
            if ((size_t)(s->end - s->p) < bytes) fail(s, "truncated delta miniblock");
            for (uint64_t done = 0; done < per && i < count;) {
                size_t chunk = per - done < 1024 ? (size_t)(per - done) : 1024;
                /* unpack from the right bit position: chunks are multiples of 8 values */
                unpack(s->p + (size_t)(done * (uint64_t)w / 8), w, buf, chunk);
                for (size_t k = 0; k < chunk && i < count; k++) {
                    prev = prev + mind + buf[k];  /* wraps like the writers' int64 arithmetic */
                    out[i++] = (int64_t)prev;
                }
                done += chunk;
            }
            s->p += bytes;
        }
    }
}
