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

#if defined(__x86_64__) && defined(__GNUC__)
#define VEC_UTF8 1
#include <tmmintrin.h>

/* Non-ASCII text 16 bytes at a time (SSSE3, chosen at run time: not every
 * x86-64 has it). Text with one byte in ten outside ASCII cost cal-read a
 * fifth of its CPU character by character. Each byte is judged with the
 * byte before it by three table lookups (PSHUFB) - of that byte's high and
 * low nibble and of its own high nibble - whose AND has a bit for each way
 * the pair can be wrong; each bit's condition is a product of nibble sets:
 *   TOO_SHORT  lead C-F,    any low,     then not a continuation (0-7, C-F)
 *   TOO_LONG   ASCII 0-7,   any low,     then a continuation (8-B)
 *   OVERLONG2  C,           low 0-1,     then 8-B  (C0, C1)
 *   OVERLONG3  E,           low 0,       then 8-9  (E0 80-9F)
 *   SURROGATE  E,           low D,       then A-B  (ED A0-BF)
 *   TOO_LARGE  F,           low 4-F,     then 9-B  (F4 90-BF, F5-FF)
 *   F_8        F,           low 0, 5-F,  then 8    (F0 80-8F, F5-FF 80-8F)
 *   TWO_CONTS  8-B,         any low,     then 8-B
 * Two continuations in a row are right exactly where the byte two back is
 * a lead of 3 or 4 bytes or the byte three back one of 4: TWO_CONTS is
 * compared with that. The tables are this comment's. */
enum { TOO_SHORT = 1, TOO_LONG = 2, OVERLONG2 = 4, OVERLONG3 = 8, SURROGATE = 16, TOO_LARGE = 32, F_8 = 64,
       TWO_CONTS = 128 };

#define T16(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p) \
    _mm_setr_epi8((char)(a), (char)(b), (char)(c), (char)(d), (char)(e), (char)(f), (char)(g), (char)(h), \
                  (char)(i), (char)(j), (char)(k), (char)(l), (char)(m), (char)(n), (char)(o), (char)(p))

/* From s + i (a character's start) over whole blocks while 16 bytes are
 * left: returns a character start at or before the first block that holds
 * an error (*bad = 1), or after a block of ASCII, or before the last
 * block's unfinished character; every byte before it is valid UTF-8. */
__attribute__((target("ssse3"))) static size_t blocks_ssse3(const unsigned char *s, size_t i, size_t n, int *bad) {
    const __m128i lo4 = _mm_set1_epi8(0x0f);
    const int TS = TOO_SHORT, TL = TOO_LONG, O2 = OVERLONG2, O3 = OVERLONG3, SG = SURROGATE, LG = TOO_LARGE;
    const int F8 = F_8, TC = TWO_CONTS;
    /* by the first byte's high nibble */
    const __m128i t_hi = T16(TL, TL, TL, TL, TL, TL, TL, TL, TC, TC, TC, TC, TS | O2, TS, TS | O3 | SG,
                             TS | LG | F8);
    /* by its low nibble */
    const __m128i t_lo = T16(TS | TL | TC | O2 | O3 | F8, TS | TL | TC | O2, TS | TL | TC, TS | TL | TC,
                             TS | TL | TC | LG, TS | TL | TC | LG | F8, TS | TL | TC | LG | F8, TS | TL | TC | LG | F8,
                             TS | TL | TC | LG | F8, TS | TL | TC | LG | F8, TS | TL | TC | LG | F8,
                             TS | TL | TC | LG | F8, TS | TL | TC | LG | F8, TS | TL | TC | LG | F8 | SG,
                             TS | TL | TC | LG | F8, TS | TL | TC | LG | F8);
    /* by the second byte's high nibble */
    const __m128i t_next = T16(TS, TS, TS, TS, TS, TS, TS, TS, TL | TC | O2 | O3 | F8, TL | TC | O2 | O3 | LG,
                               TL | TC | O2 | SG | LG, TL | TC | O2 | SG | LG, TS, TS, TS, TS);
    __m128i prev = _mm_setzero_si128(), err = _mm_setzero_si128();
    size_t at = i;
    for (; at + 16 <= n; at += 16) {
        __m128i cur = _mm_loadu_si128((const __m128i *)(const void *)(s + at));
        __m128i p1 = _mm_alignr_epi8(cur, prev, 15), p2 = _mm_alignr_epi8(cur, prev, 14);
        __m128i p3 = _mm_alignr_epi8(cur, prev, 13);
        __m128i k = _mm_and_si128(_mm_and_si128(_mm_shuffle_epi8(t_hi, _mm_and_si128(_mm_srli_epi16(p1, 4), lo4)),
                                                _mm_shuffle_epi8(t_lo, _mm_and_si128(p1, lo4))),
                                  _mm_shuffle_epi8(t_next, _mm_and_si128(_mm_srli_epi16(cur, 4), lo4)));
        /* 0x80 where the byte must be a third or fourth one */
        __m128i must = _mm_or_si128(_mm_subs_epu8(p2, _mm_set1_epi8((char)(0xe0 - 1))),
                                    _mm_subs_epu8(p3, _mm_set1_epi8((char)(0xf0 - 1))));
        must = _mm_andnot_si128(_mm_cmpeq_epi8(must, _mm_setzero_si128()), _mm_set1_epi8((char)0x80));
        err = _mm_xor_si128(k, must);
        if (_mm_movemask_epi8(_mm_cmpeq_epi8(err, _mm_setzero_si128())) != 0xffff) break;
        if (!_mm_movemask_epi8(cur)) { /* all ASCII: back to the faster ASCII loop */
            *bad = 0;
            return at + 16;
        }
        prev = cur;
    }
    *bad = at + 16 <= n;
    /* back to the start of a character that may run on past `at` */
    size_t r = at;
    for (size_t k = 1; k <= 3 && at >= i + k; k++) {
        if (s[at - k] >= 0xc0) {
            r = at - k;
            break;
        }
        if (s[at - k] < 0x80) break;
    }
    return r;
}

static int have_ssse3(void) {
    static int known = -1;
    if (known < 0) known = __builtin_cpu_supports("ssse3") ? 1 : 0;
    return known;
}
#endif

size_t cal_utf8_valid_prefix(const char *str, size_t n) {
    const unsigned char *s = (const unsigned char *)str;
    const uint64_t high = 0x8080808080808080ull;
    size_t i = 0, sub;
#ifdef VEC_UTF8
    size_t scalar_until = 0; /* below it the vector path found an error: byte by byte */
#endif
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
#ifdef VEC_UTF8
        if (i >= scalar_until && n - i >= 64 && have_ssse3()) {
            int bad;
            size_t j = blocks_ssse3(s, i, n, &bad);
            if (bad) scalar_until = j + 36; /* the error is within a block and 3 bytes after j: byte by byte */
            if (j > i || bad) {
                i = j;
                continue;
            }
        }
#endif
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
