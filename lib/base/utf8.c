/* utf8.c - UTF-8 decoding, validation and maximal-subpart U+FFFD repair. */
#include "base/utf8.h"

#include "base/buf.h"
#include "base/num.h"

#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Length of the well-formed sequence at s[i..n), or 0 when ill-formed; on 0,
 * *sub is the length of its maximal subpart (>= 1 byte), per Table 3-7 of
 * the Unicode standard: the second byte's range depends on the lead. */
static size_t seq_len(const unsigned char *s, size_t i, size_t n, size_t *sub) {
    unsigned c = s[i];
    size_t need;
    unsigned lo = 0x80, hi = 0xbf;
    if (c < 0x80) return 1;
    if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c >= 0xe0 && c <= 0xef) {
        need = 2;
        if (c == 0xe0) lo = 0xa0;
        if (c == 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        need = 3;
        if (c == 0xf0) lo = 0x90;
        if (c == 0xf4) hi = 0x8f;
    } else {
        *sub = 1;
        return 0;
    }
    for (size_t k = 1; k <= need; k++) {
        if (i + k >= n || s[i + k] < lo || s[i + k] > hi) {
            *sub = k;
            return 0;
        }
        lo = 0x80, hi = 0xbf;
    }
    return need + 1;
}

size_t cal_utf8_valid_prefix(const char *str, size_t n) {
    const unsigned char *s = (const unsigned char *)str;
    const uint64_t high = 0x8080808080808080ull;
    size_t i = 0, sub;
    while (i < n) {
        /* ASCII runs are the common case: 64 bytes at a time with SSE2
         * (every x86-64 has it; 8 at a time cost cal-read 12% of its CPU
         * on Parquet), then 8, and to the first byte that is not ASCII by
         * its bit */
#ifdef __SSE2__
        while (i + 64 <= n) {
            const __m128i *v = (const __m128i *)(const void *)(s + i);
            __m128i o = _mm_or_si128(_mm_or_si128(_mm_loadu_si128(v), _mm_loadu_si128(v + 1)),
                                     _mm_or_si128(_mm_loadu_si128(v + 2), _mm_loadu_si128(v + 3)));
            if (_mm_movemask_epi8(o)) break;
            i += 64;
        }
        while (i + 16 <= n) {
            unsigned m = (unsigned)_mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(const void *)(s + i)));
            if (m) {
                i += (size_t)__builtin_ctz(m);
                break;
            }
            i += 16;
        }
#endif
        while (i + 8 <= n) {
            uint64_t w = cal_ld64(s + i) & high; /* byte k of the input in bits 8k.. */
            if (w) {
                i += (size_t)__builtin_ctzll(w) / 8;
                break;
            }
            i += 8;
        }
        if (i >= n) break;
        unsigned c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        /* the common sequences without the general rules: 2 bytes, and 3
         * bytes led by E1-EC or EE-EF (no overlong or surrogate cases) */
        if (c >= 0xc2 && c <= 0xdf && i + 1 < n && (s[i + 1] & 0xc0) == 0x80) {
            i += 2;
            continue;
        }
        if (c >= 0xe1 && c <= 0xef && c != 0xed && i + 2 < n && (s[i + 1] & 0xc0) == 0x80 &&
            (s[i + 2] & 0xc0) == 0x80) {
            i += 3;
            continue;
        }
        size_t k = seq_len(s, i, n, &sub);
        if (!k) return i;
        i += k;
    }
    return n;
}

size_t cal_utf8_repair(const char *str, size_t n, cal_buf *out) {
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0, bad = 0, sub;
    cal_buf_reserve(out, out->n + n + 16);
    while (i < n) {
        size_t v = cal_utf8_valid_prefix(str + i, n - i);
        cal_buf_add(out, s + i, v);
        i += v;
        if (i >= n) break;
        seq_len(s, i, n, &sub);
        cal_buf_add(out, "\xef\xbf\xbd", 3);
        bad++;
        i += sub;
    }
    return bad;
}

/* Decodes one character of valid UTF-8 at s[i]; returns its length. */
size_t cal_utf8_next(const char *s, size_t len, size_t i, int32_t *cp) {
    const unsigned char *u = (const unsigned char *)s + i;
    size_t n = len - i;
    if (u[0] < 0x80) { *cp = u[0]; return 1; }
    if (u[0] < 0xE0 && n >= 2) { *cp = (u[0] & 0x1F) << 6 | (u[1] & 0x3F); return 2; }
    if (u[0] < 0xF0 && n >= 3) { *cp = (u[0] & 0x0F) << 12 | (u[1] & 0x3F) << 6 | (u[2] & 0x3F); return 3; }
    if (n >= 4) { *cp = (u[0] & 0x07) << 18 | (u[1] & 0x3F) << 12 | (u[2] & 0x3F) << 6 | (u[3] & 0x3F); return 4; }
    *cp = -1;
    return 1;
}

char *cal_utf8_repaired(const char *s, size_t n, size_t *out_len) {
    if (cal_utf8_valid_prefix(s, n) == n) return NULL;
    cal_buf b = {0};
    cal_utf8_repair(s, n, &b);
    *out_len = b.n;
    cal_buf_addc(&b, 0);
    return b.p;
}

void cal_utf8_escape(const char *str, size_t n, size_t max, cal_buf *out) {
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0, sub;
    while (i < n && i < max) {
        unsigned c = s[i];
        size_t k = c < 0x80 ? 1 : seq_len(s, i, n, &sub);
        if (c == '\\' || c == '\'') cal_buf_addc(out, '\\'), cal_buf_addc(out, (char)c);
        else if (c == '\n') cal_buf_add(out, "\\n", 2);
        else if (c == '\t') cal_buf_add(out, "\\t", 2);
        else if (c == '\r') cal_buf_add(out, "\\r", 2);
        else if (!k || c < 0x20 || c == 0x7f) cal_buf_addf(out, "\\x%02x", c), k = 1;
        else cal_buf_add(out, s + i, k);
        i += k;
    }
    if (i < n) cal_buf_add(out, "...", 3);
    cal_buf_addc(out, 0);
    out->n--;
}
