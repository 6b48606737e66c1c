/* jsonscan.c - see jsonscan.h. */
#include "io/jsonscan.h"

#include "base/buf.h"
#include "base/utf8.h"

#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

static const char *ws(const char *p, const char *e) {
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) p++;
    return p;
}

static int hex4(const char *p, const char *e, unsigned *v) {
    if (e - p < 4) return 0;
    *v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                   : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 99u;
        if (d > 15) return 0;
        *v = *v << 4 | d;
    }
    return 1;
}

/* Writes code point c as UTF-8 at t; returns the byte after it. */
static char *put_utf8(char *t, unsigned c) {
    if (c < 0x80) *t++ = (char)c;
    else if (c < 0x800) *t++ = (char)(0xC0 | c >> 6), *t++ = (char)(0x80 | (c & 63));
    else if (c < 0x10000) *t++ = (char)(0xE0 | c >> 12), *t++ = (char)(0x80 | (c >> 6 & 63)), *t++ = (char)(0x80 | (c & 63));
    else *t++ = (char)(0xF0 | c >> 18), *t++ = (char)(0x80 | (c >> 12 & 63)), *t++ = (char)(0x80 | (c >> 6 & 63)), *t++ = (char)(0x80 | (c & 63));
    return t;
}

/* Nonzero when one of the 8 bytes of w is '"', '\\' or below 0x20. */
static uint64_t special8(uint64_t w) {
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
    return ((q - ones) & ~q & high) | ((b - ones) & ~b & high) | ((w - ones * 0x20) & ~w & high);
}

static int special(char c) { return c == '"' || c == '\\' || (unsigned char)c < 0x20; }

#ifdef __SSE2__
/* A bit for each of the 16 bytes of v that is '"', '\\' or below 0x20. */
static inline unsigned special16(__m128i v) {
    const __m128i quote = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(0x1f);
    __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bs)),
                               _mm_cmpeq_epi8(_mm_min_epu8(v, ctl), v)); /* v <= 0x1f */
    return (unsigned)_mm_movemask_epi8(hit);
}
#endif

/* The first '"', '\\' or control byte at or after p, or e. Text is mostly
 * plain runs: 16 bytes at a time with SSE2 (every x86-64 has it), 8 with
 * the word trick elsewhere. */
static const char *scan_plain(const char *p, const char *e) {
#ifdef __SSE2__
    while (e - p >= 16) {
        unsigned m = special16(_mm_loadu_si128((const __m128i *)(const void *)p));
        if (m) return p + __builtin_ctz(m);
        p += 16;
    }
#endif
    for (;;) {
        while (e - p >= 8) {
            uint64_t w;
            memcpy(&w, p, 8);
            if (special8(w)) break;
            p += 8;
        }
        const char *stop = e - p >= 8 ? p + 8 : e;
        while (p < stop && !special(*p)) p++;
        if (p < stop || p == e) return p;
    }
}


/* What each one-letter escape stands for (0: not one). */
static const char escaped[256] = {['"'] = '"', ['\\'] = '\\', ['/'] = '/', ['b'] = '\b', ['f'] = '\f',
                                  ['n'] = '\n', ['r'] = '\r', ['t'] = '\t'};

#ifdef __SSE2__
/* Decodes from p into *o while 48 bytes or more are left, 16 input bytes a
 * step: plain bytes and the one-letter escapes (\n \t \" \\ ...) of the
 * step are handled from one look at it (source code has an escape every 14
 * bytes: a look per escape cost more than zstd's decompression). Returns
 * where it stopped: a quote, control byte or other escape for the general
 * loop, or the last 48 bytes. Loads and stores stay within 33 bytes of p,
 * and *o never passes the input consumed (the room string() reserved). */
static const char *blocks(const char *p, const char *e, char **op) {
    char *o = *op;
    while (e - p >= 48) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        _mm_storeu_si128((__m128i *)(void *)o, v);
        unsigned m = special16(v);
        if (!m) {
            p += 16, o += 16;
            continue;
        }
        const char *q = p; /* the next byte not yet written */
        do {
            unsigned k = (unsigned)__builtin_ctz(m);
            const char *s = p + k;
            _mm_storeu_si128((__m128i *)(void *)o, _mm_loadu_si128((const __m128i *)(const void *)q));
            o += s - q;
            char x = *s == '\\' ? escaped[(unsigned char)s[1]] : 0;
            if (!x) { /* a quote, a control byte, \u or a bad escape */
                *op = o;
                return s;
            }
            *o++ = x;
            q = s + 2;
            m &= ~(3u << k); /* the escaped byte is plain, a backslash or quote too */
        } while (m);
        if (q < p + 16) { /* the block's plain rest */
            _mm_storeu_si128((__m128i *)(void *)o, _mm_loadu_si128((const __m128i *)(const void *)q));
            o += p + 16 - q;
            p += 16;
        } else {
            p = q; /* the last escape took the block's next byte */
        }
    }
    *op = o;
    return p;
}
#endif

/* p at the opening quote; returns the position after the closing quote or
 * NULL. With out, the decoded string is appended (out unchanged on NULL):
 * written in place in room reserved once, since it is never longer than
 * its JSON form, plain runs copied 16 bytes at a time. Source code escapes
 * every line end and tab: appending piece by piece cost cal-read more than
 * zstd's decompression (perf: string() and memmove 52% of its cycles). */
static const char *string(const char *p, const char *e, cal_buf *out) {
    p++;
    char *o = NULL;
    if (out) {
        cal_buf_reserve(out, out->n + (size_t)(e - p) + 16);
        o = out->p + out->n;
    }
    for (;;) {
        if (!out) {
            p = scan_plain(p, e);
        } else {
#ifdef __SSE2__
            p = blocks(p, e, &o);
            for (;;) { /* the 16 bytes are stored before they are looked at: o has room */
                if (e - p < 16) {
                    while (p < e && !special(*p)) *o++ = *p++;
                    break;
                }
                __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
                _mm_storeu_si128((__m128i *)(void *)o, v);
                unsigned m = special16(v);
                if (m) {
                    p += __builtin_ctz(m), o += __builtin_ctz(m);
                    break;
                }
                p += 16, o += 16;
            }
#else
            const char *s = p;
            p = scan_plain(p, e);
            memcpy(o, s, (size_t)(p - s));
            o += p - s;
#endif
        }
        if (p >= e || (unsigned char)*p < 0x20) return NULL;
        if (*p == '"') {
            if (out) out->n = (size_t)(o - out->p);
            return p + 1;
        }
        if (++p >= e) return NULL;  /* backslash */
        unsigned char c = (unsigned char)*p++;
        if (escaped[c]) { /* \n \t \" \\ \/ \b \f \r */
            if (out) *o++ = escaped[c];
            continue;
        }
        if (c == 'u') {
            unsigned v, w;
            if (!hex4(p, e, &v)) return NULL;
            p += 4;
            if (v >= 0xD800 && v < 0xDC00) {
                if (e - p < 6 || p[0] != '\\' || p[1] != 'u' || !hex4(p + 2, e, &w) || w < 0xDC00 || w > 0xDFFF)
                    return NULL;
                p += 6;
                v = 0x10000 + ((v - 0xD800) << 10) + (w - 0xDC00);
            } else if (v >= 0xDC00 && v < 0xE000) return NULL;
            if (out) o = put_utf8(o, v);
            continue;
        }
        return NULL;
    }
}

static const char *digits(const char *p, const char *e) {
    const char *s = p;
    while (p < e && *p >= '0' && *p <= '9') p++;
    return p > s ? p : NULL;
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static const char *number(const char *p, const char *e) {
    if (p < e && *p == '-') p++;
    if (p < e && *p == '0') p++;
    else if (!(p = digits(p, e))) return NULL;
    if (p < e && *p == '.' && !(p = digits(p + 1, e))) return NULL;
    if (p < e && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < e && (*p == '+' || *p == '-')) p++;
        if (!(p = digits(p, e))) return NULL;
    }
    return p;
}

/* Skips any JSON value (structure checked loosely: the full parser decides
 * when the fast path gives up). */
static const char *value(const char *p, const char *e, int depth) {
    if (p >= e || depth > 64) return NULL;
    if (*p == '"') return string(p, e, NULL);
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        int obj = *p == '{';
        p = ws(p + 1, e);
        if (p < e && *p == close) return p + 1;
        for (;;) {
            if (obj) {
                if (p >= e || *p != '"' || !(p = string(p, e, NULL))) return NULL;
                p = ws(p, e);
                if (p >= e || *p != ':') return NULL;
                p = ws(p + 1, e);
            }
            if (!(p = value(p, e, depth + 1))) return NULL;
            p = ws(p, e);
            if (p < e && *p == ',') { p = ws(p + 1, e); continue; }
            if (p < e && *p == close) return p + 1;
            return NULL;
        }
    }
    if (*p == 't') return e - p >= 4 && !memcmp(p, "true", 4) ? p + 4 : NULL;
    if (*p == 'f') return e - p >= 5 && !memcmp(p, "false", 5) ? p + 5 : NULL;
    if (*p == 'n') return e - p >= 4 && !memcmp(p, "null", 4) ? p + 4 : NULL;
    return number(p, e);
}

int cal_json_field(const char *p, size_t n, const char *key, cal_buf *out) {
    const char *e = p + n;
    size_t kl = strlen(key);
    int found = 0;
    p = ws(p, e);
    if (p >= e || *p != '{') return 0;
    p = ws(p + 1, e);
    if (p < e && *p == '}') return 0;
    for (;;) {
        if (p >= e || *p != '"') return 0;
        const char *ks = p + 1, *ke = string(p, e, NULL);
        if (!ke) return 0;
        p = ws(ke, e);
        if (p >= e || *p != ':') return 0;
        p = ws(p + 1, e);
        /* a key with escapes never matches here: the full parser handles it */
        if ((size_t)(ke - 1 - ks) == kl && memcmp(ks, key, kl) == 0) {
            if (found || p >= e || *p != '"') return 0;
            out->n = 0;
            if (!(p = string(p, e, out))) return 0;
            found = 1;
        } else if (!(p = value(p, e, 0))) return 0;
        p = ws(p, e);
        if (p < e && *p == ',') { p = ws(p + 1, e); continue; }
        if (p < e && *p == '}') break;
        return 0;
    }
    return found && ws(p + 1, e) == e;
}

void cal_json_put_str(cal_buf *b, const char *s, size_t n) {
    cal_buf fixed = {0};
    if (!n) s = "";
    if (cal_utf8_valid_prefix(s, n) != n) {
        cal_utf8_repair(s, n, &fixed);
        s = fixed.p;
        n = fixed.n;
    }
    cal_buf_addc(b, '"');
    for (size_t i = 0, run = 0; i <= n; i++) {
        unsigned char c = i < n ? (unsigned char)s[i] : 0;
        if (i < n && c >= 0x20 && c != 0x7f && c != '"' && c != '\\') continue;
        cal_buf_add(b, s + run, i - run); /* the plain bytes before c */
        run = i + 1;
        if (i == n) break;
        if (c == '"' || c == '\\') cal_buf_addc(b, '\\'), cal_buf_addc(b, (char)c);
        else if (c == '\n') cal_buf_add(b, "\\n", 2);
        else if (c == '\t') cal_buf_add(b, "\\t", 2);
        else cal_buf_addf(b, "\\u%04x", c);
    }
    cal_buf_addc(b, '"');
    cal_buf_free(&fixed);
}
