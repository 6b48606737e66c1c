/* sink.h - where the row-making recipes (pack.h, segments.h) put each row
 * they make: a callback, so a program writes it to its stream and a unit
 * test keeps it to compare. */
#ifndef CAL_ROWS_SINK_H
#define CAL_ROWS_SINK_H

#include <stdint.h>

typedef struct {
    const uint32_t *ids; /* len ids */
    const uint8_t *mask; /* len bytes 0/1, or NULL: no padding, no mask */
    uint32_t len, flags; /* flags: CAL_ROW_NOISE or 0 */
    const char *label;   /* NUL-terminated */
    uint64_t id;
    const uint8_t *role; /* len bytes 0/1 (1: the assistant's output), or NULL */
} cal_row_out;

/* Called once per row; the row's memory is valid only during the call. */
typedef void (*cal_row_sink)(void *ctx, const cal_row_out *row);

#endif
