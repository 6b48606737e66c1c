/* parquet_internal.h - shared by parquet.c and parquet_enc.c. */
#ifndef CAL_PARQUET_INTERNAL_H
#define CAL_PARQUET_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* A bounded view of decoded page bytes; off = file offset of the page for
 * messages; fail never returns. */
typedef struct {
    const uint8_t *p, *end;
    uint64_t off;
    void (*fail)(void *ctx, uint64_t off, const char *what);
    void *ctx;
} pq_span;

typedef struct {
    const uint8_t *p;
    uint32_t n;
} pq_val;

/* RLE/bit-packed hybrid of `count` values of `width` bits (0..32) into out. */
void pq_rle_hybrid(pq_span *s, int width, uint32_t *out, size_t count);
/* DELTA_BINARY_PACKED: exactly `count` values (the header must announce
 * that many) into out; advances s past the data. */
void pq_delta_binary(pq_span *s, int64_t *out, size_t count);

#endif
