/* test_dtype.c - lib/base/dtype.c: sizes and names, and cal_dtype_get (the
 * element of little-endian f32/f16/bf16 data) against independent
 * references: every one of the 65,536 f16 values against the IEEE 754
 * binary16 formula (-1)^s * 2^(e-15) * (1 + m/1024), subnormals 2^-24 * m;
 * bf16 as the top half of an f32; f32 bytes as written by memcpy. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/dtype.h"
#include "test.h"

static double f16_ref(unsigned h) {
    unsigned s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    double v = e == 31 ? (m ? NAN : INFINITY) : e ? ldexp(1 + m / 1024.0, (int)e - 15) : ldexp(m, -24);
    return s ? -v : v;
}

int main(void) {
    CHECK(cal_dtype_size(CAL_F32) == 4 && cal_dtype_size(CAL_F16) == 2 && cal_dtype_size(CAL_BF16) == 2 &&
              cal_dtype_size(9) == 0, "sizes");
    CHECK(!strcmp(cal_dtype_name(CAL_F32), "f32") && !strcmp(cal_dtype_name(CAL_F16), "f16") &&
              !strcmp(cal_dtype_name(CAL_BF16), "bf16") && !strcmp(cal_dtype_name(0), "unknown"), "names");

    static uint8_t le[2 * 65536];
    for (unsigned h = 0; h < 65536; h++) le[2 * h] = (uint8_t)h, le[2 * h + 1] = (uint8_t)(h >> 8);
    unsigned bad = 0;
    for (unsigned h = 0; h < 65536; h++) {
        double want = f16_ref(h), got = cal_dtype_get(CAL_F16, le, h);
        int same = isnan(want) ? isnan(got) : got == want && signbit(got) == signbit(want);
        if (!same && bad++ < 5) printf("# f16 %04x: got %.9g want %.9g\n", h, got, want);
    }
    CHECK(!bad, "f16: all 65536 values (zeros, subnormals, normals, inf, nan) = the binary16 formula");

    bad = 0;
    for (unsigned h = 0; h < 65536; h += 7) {
        uint32_t bits = (uint32_t)h << 16;
        float want;
        memcpy(&want, &bits, 4);
        float got = cal_dtype_get(CAL_BF16, le, h);
        if (!(isnan(want) ? isnan(got) : memcmp(&got, &want, 4) == 0)) bad++;
    }
    CHECK(!bad, "bf16: the top 16 bits of an f32");

    float vals[] = {0.0f, -0.0f, 1.5f, -2.25e-40f, 3.4028235e38f, INFINITY, 0.1f};
    uint8_t f32[sizeof vals];
    for (size_t i = 0; i < sizeof vals / 4; i++) {
        uint32_t u;
        memcpy(&u, &vals[i], 4);
        for (int k = 0; k < 4; k++) f32[4 * i + k] = (uint8_t)(u >> 8 * k);
    }
    bad = 0;
    for (size_t i = 0; i < sizeof vals / 4; i++) {
        float got = cal_dtype_get(CAL_F32, f32, i);
        if (memcmp(&got, &vals[i], 4)) bad++;
    }
    CHECK(!bad, "f32: little-endian bytes, element i");
    TEST_END();
}
