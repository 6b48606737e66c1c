/* dtype.h - element types of vectors (f32, f16, bf16) and their conversions. */
#ifndef CAL_BASE_DTYPE_H
#define CAL_BASE_DTYPE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* VECTORS dtypes (values stored in the stream) */
typedef enum { CAL_F32 = 1, CAL_F16 = 2, CAL_BF16 = 3 } cal_dtype;

size_t cal_dtype_size(int dtype);
const char *cal_dtype_name(int dtype);
/* Element i of little-endian data of type dtype, as a float (exact: f16 and
 * bf16 values are all f32 values). */
float cal_dtype_get(int dtype, const void *data, size_t i);
float cal_f16_to_f32(uint16_t h);
/* bf16 is the high half of an f32 (inline: the hot loops of cal-hessian). */
static inline float cal_bf16_to_f32(uint16_t h) {
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

#endif
