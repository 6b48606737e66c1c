/* num.h - numbers: strict option-value parsers, little-endian loads/stores. */
#ifndef CAL_BASE_NUM_H
#define CAL_BASE_NUM_H

#include <stddef.h>
#include <stdint.h>

/* Strict parsers for option values: the whole string must be a number in
 * range, else a usage error naming OPT. Sizes accept K/M/G suffixes. */
uint64_t cal_parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max);
double cal_parse_double(const char *opt, const char *s);
uint64_t cal_parse_size(const char *opt, const char *s);
/* The shortest %g form of x (6 to 17 digits) that reads back as x. */
const char *cal_fmt_double(double x, char *buf, size_t n);

/* Little-endian loads/stores without alignment assumptions. */
static inline uint32_t cal_ld32(const void *p) {
    const uint8_t *b = (const uint8_t *)p;
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}
static inline uint64_t cal_ld64(const void *p) {
    return (uint64_t)cal_ld32(p) | (uint64_t)cal_ld32((const uint8_t *)p + 4) << 32;
}
static inline void cal_st32(void *p, uint32_t x) {
    uint8_t *b = (uint8_t *)p;
    b[0] = (uint8_t)x; b[1] = (uint8_t)(x >> 8); b[2] = (uint8_t)(x >> 16); b[3] = (uint8_t)(x >> 24);
}
static inline void cal_st64(void *p, uint64_t x) {
    cal_st32(p, (uint32_t)x);
    cal_st32((uint8_t *)p + 4, (uint32_t)(x >> 32));
}

#endif
