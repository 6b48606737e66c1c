/* dtype.c - the element types of VECTORS records and tensors. */
#include "base/dtype.h"

#include <string.h>

size_t cal_dtype_size(int dtype) {
    switch (dtype) {
    case CAL_F32: return 4;
    case CAL_F16: case CAL_BF16: return 2;
    }
    return 0;
}

const char *cal_dtype_name(int dtype) {
    switch (dtype) {
    case CAL_F32: return "f32";
    case CAL_F16: return "f16";
    case CAL_BF16: return "bf16";
    }
    return "unknown";
}

float cal_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13);            /* inf / nan */
    } else if (exp) {
        bits = sign | ((exp + 112) << 23) | (man << 13);     /* normal: rebias 15 -> 127 */
    } else if (man) {                                        /* subnormal: normalise */
        int e = -1;
        do { man <<= 1; e++; } while (!(man & 0x400));
        bits = sign | ((uint32_t)(112 - e) << 23) | ((man & 0x3ff) << 13);
    } else {
        bits = sign;
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

float cal_dtype_get(int dtype, const void *data, size_t i) {
    const uint8_t *p = (const uint8_t *)data + i * cal_dtype_size(dtype);
    if (dtype == CAL_F32) {
        uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    uint16_t h = (uint16_t)(p[0] | p[1] << 8);
    return dtype == CAL_F16 ? cal_f16_to_f32(h) : cal_bf16_to_f32(h);
}
