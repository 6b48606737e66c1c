/* buf.h - growable byte buffers and arrays of token ids. */
#ifndef CAL_BASE_BUF_H
#define CAL_BASE_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/err.h"

/* Growable array of 32-bit token ids. */
typedef struct {
    uint32_t *v;
    size_t n, cap;
} cal_ids;
void cal_ids_push(cal_ids *a, uint32_t x);
void cal_ids_reserve(cal_ids *a, size_t cap);
void cal_ids_free(cal_ids *a);

/* Growable byte buffer. */
typedef struct {
    char *p;
    size_t n, cap;
} cal_buf;
void cal_buf_add(cal_buf *b, const void *p, size_t n);
void cal_buf_addc(cal_buf *b, char c);
void cal_buf_addf(cal_buf *b, const char *fmt, ...) CAL_PRINTF(2, 3);
void cal_buf_reserve(cal_buf *b, size_t cap);
void cal_buf_free(cal_buf *b);

/* Exchanges the `size` bytes at a and b (distinct or equal, not overlapping
 * otherwise): the swap step of every shuffle. */
static inline void cal_swap_bytes(void *a, void *b, size_t size) {
    unsigned char *x = (unsigned char *)a, *y = (unsigned char *)b, t[64];
    if (size == 8) { /* indices: one word each way */
        memcpy(t, x, 8), memcpy(x, y, 8), memcpy(y, t, 8);
        return;
    }
    for (size_t k; size; x += k, y += k, size -= k) {
        k = size < sizeof t ? size : sizeof t;
        memcpy(t, x, k), memcpy(x, y, k), memcpy(y, t, k);
    }
}

#endif
