/* jinja_ustr.c - Python's str semantics over UTF-8 strings: what counts as
 * whitespace (str.isspace, also the lexer's \s), case mapping, strip, split,
 * replace, find and slicing by code point. Character properties come from
 * utf8proc; Python's full case mappings (SpecialCasing) are covered for the
 * characters listed in full_case below, the rest use the simple mappings. */
/* memmem: glibc declares it for _GNU_SOURCE (musl and the BSDs have it too) */
#define _GNU_SOURCE
#include <string.h>
#include <utf8proc.h>

#include "jinja/jinja_int.h"

int32_t jj_u8_next(const char *s, size_t n, size_t *i) {
    const unsigned char *p = (const unsigned char *)s + *i;
    size_t left = n - *i;
    int32_t c = p[0];
    size_t k = 1;
    if (c >= 0xF0 && left >= 4) {
        c = ((c & 7) << 18) | ((p[1] & 63) << 12) | ((p[2] & 63) << 6) | (p[3] & 63);
        k = 4;
    } else if (c >= 0xE0 && left >= 3) {
        c = ((c & 15) << 12) | ((p[1] & 63) << 6) | (p[2] & 63);
        k = 3;
    } else if (c >= 0xC0 && left >= 2) {
        c = ((c & 31) << 6) | (p[1] & 63);
        k = 2;
    }
    *i += k;
    return c;
}

void jj_u8_put(jj_rt *rt, jj_buf *b, int32_t cp) {
    char t[4];
    size_t k;
    if (cp < 0x80) { t[0] = (char)cp; k = 1; }
    else if (cp < 0x800) { t[0] = (char)(0xC0 | (cp >> 6)); t[1] = (char)(0x80 | (cp & 63)); k = 2; }
    else if (cp < 0x10000) {
        t[0] = (char)(0xE0 | (cp >> 12)); t[1] = (char)(0x80 | ((cp >> 6) & 63));
        t[2] = (char)(0x80 | (cp & 63)); k = 3;
    } else {
        t[0] = (char)(0xF0 | (cp >> 18)); t[1] = (char)(0x80 | ((cp >> 12) & 63));
        t[2] = (char)(0x80 | ((cp >> 6) & 63)); t[3] = (char)(0x80 | (cp & 63)); k = 4;
    }
    jj_buf_add(rt, b, t, k);
}

/* Python's _PyUnicode_IsWhitespace: bidirectional class WS, B or S, or Zs. */
int jj_isspace(int32_t c) {
    if (c < 0x80) return (c >= 9 && c <= 13) || (c >= 0x1C && c <= 0x20);
    return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
           c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

int jj_isprintable(int32_t c) {
    if (c < 0x80) return c >= 0x20 && c < 0x7F;
    switch (utf8proc_category(c)) {
    case UTF8PROC_CATEGORY_CC: case UTF8PROC_CATEGORY_CF: case UTF8PROC_CATEGORY_CS:
    case UTF8PROC_CATEGORY_CO: case UTF8PROC_CATEGORY_CN: case UTF8PROC_CATEGORY_ZL:
    case UTF8PROC_CATEGORY_ZP: case UTF8PROC_CATEGORY_ZS:
        return 0;
    default:
        return 1;
    }
}

size_t jj_str_len(jj_str *s) {
    if (s->ncp == SIZE_MAX) {
        size_t k = 0;
        for (size_t i = 0; i < s->n; i++) k += ((unsigned char)s->s[i] & 0xC0) != 0x80;
        s->ncp = k;
    }
    return s->ncp;
}

size_t jj_str_off(jj_rt *rt, jj_str *s, size_t i) {
    size_t len = jj_str_len(s);
    if (len == s->n) return i;
    size_t o;
    if (i > len / 2) {
        /* nearer the end: walked back from there (s[-1] costs nothing) */
        o = s->n;
        for (size_t k = len; k > i; k--) {
            o--;
            while (o > 0 && ((unsigned char)s->s[o] & 0xC0) == 0x80) o--;
        }
        jj_charge_bytes(&rt->ar, 4 * (s->n - o));
        return o;
    }
    o = 0;
    while (i > 0 && o < s->n) {
        o++;
        while (o < s->n && ((unsigned char)s->s[o] & 0xC0) == 0x80) o++;
        i--;
    }
    /* a walk byte by byte: charged as 4 times the bytes */
    jj_charge_bytes(&rt->ar, 4 * o);
    return o;
}

jj_str *jj_str_new(jj_rt *rt, const char *p, size_t n) {
    jj_str *s = jj_alloc(&rt->ar, sizeof *s + n + 1);
    s->n = n;
    s->ncp = SIZE_MAX;
    if (n) memcpy(s->s, p, n);
    s->s[n] = 0;
    return s;
}

jj_str *jj_str_cat(jj_rt *rt, const jj_str *a, const jj_str *b) {
    if (a->n > SIZE_MAX / 2 || b->n > SIZE_MAX / 2 || a->n + b->n > rt->max_output)
        jj_limit(rt, "a string longer than %zu bytes", rt->max_output);
    jj_str *s = jj_alloc(&rt->ar, sizeof *s + a->n + b->n + 1);
    s->n = a->n + b->n;
    s->ncp = a->ncp != SIZE_MAX && b->ncp != SIZE_MAX ? a->ncp + b->ncp : SIZE_MAX;
    memcpy(s->s, a->s, a->n);
    memcpy(s->s + a->n, b->s, b->n);
    s->s[s->n] = 0;
    return s;
}

jj_str *jj_str_buf(jj_rt *rt, const jj_buf *b) { return jj_str_new(rt, b->p, b->n); }

/* ---- case ---- */

/* Unconditional SpecialCasing mappings Python applies (upper, title; the
 * one lower mapping is U+0130). */
static const struct {
    int32_t cp, up[3], ti[3];
} full_case[] = {
    {0x00DF, {0x53, 0x53, 0}, {0x53, 0x73, 0}},
    {0x0149, {0x2BC, 0x4E, 0}, {0x2BC, 0x4E, 0}},
    {0x01F0, {0x4A, 0x30C, 0}, {0x4A, 0x30C, 0}},
    {0x0390, {0x399, 0x308, 0x301}, {0x399, 0x308, 0x301}},
    {0x03B0, {0x3A5, 0x308, 0x301}, {0x3A5, 0x308, 0x301}},
    {0x0587, {0x535, 0x552, 0}, {0x535, 0x582, 0}},
    {0x1E96, {0x48, 0x331, 0}, {0x48, 0x331, 0}},
    {0x1E97, {0x54, 0x308, 0}, {0x54, 0x308, 0}},
    {0x1E98, {0x57, 0x30A, 0}, {0x57, 0x30A, 0}},
    {0x1E99, {0x59, 0x30A, 0}, {0x59, 0x30A, 0}},
    {0x1E9A, {0x41, 0x2BE, 0}, {0x41, 0x2BE, 0}},
    {0xFB00, {0x46, 0x46, 0}, {0x46, 0x66, 0}},
    {0xFB01, {0x46, 0x49, 0}, {0x46, 0x69, 0}},
    {0xFB02, {0x46, 0x4C, 0}, {0x46, 0x6C, 0}},
    {0xFB03, {0x46, 0x46, 0x49}, {0x46, 0x66, 0x69}},
    {0xFB04, {0x46, 0x46, 0x4C}, {0x46, 0x66, 0x6C}},
    {0xFB05, {0x53, 0x54, 0}, {0x53, 0x74, 0}},
    {0xFB06, {0x53, 0x54, 0}, {0x53, 0x74, 0}},
    {0xFB13, {0x544, 0x546, 0}, {0x544, 0x576, 0}},
    {0xFB14, {0x544, 0x535, 0}, {0x544, 0x565, 0}},
    {0xFB15, {0x544, 0x53B, 0}, {0x544, 0x56B, 0}},
    {0xFB16, {0x54E, 0x546, 0}, {0x54E, 0x576, 0}},
    {0xFB17, {0x544, 0x53D, 0}, {0x544, 0x56D, 0}},
};

void jj_case_put(jj_rt *rt, jj_buf *b, int32_t cp, jj_case c) {
    if (cp < 0x80) {
        char ch = (char)cp;
        if (c == JJ_LOWER) { if (ch >= 'A' && ch <= 'Z') ch = (char)(ch + 32); }
        else if (ch >= 'a' && ch <= 'z') ch = (char)(ch - 32);
        jj_buf_addc(rt, b, ch);
        return;
    }
    if (c == JJ_LOWER) {
        if (cp == 0x130) { jj_buf_addc(rt, b, 'i'); jj_u8_put(rt, b, 0x307); return; }
        jj_u8_put(rt, b, utf8proc_tolower(cp));
        return;
    }
    if (cp >= 0xDF && cp <= 0xFB17)
        for (size_t i = 0; i < sizeof full_case / sizeof full_case[0]; i++)
            if (full_case[i].cp == cp) {
                const int32_t *m = c == JJ_UPPER ? full_case[i].up : full_case[i].ti;
                for (int k = 0; k < 3 && m[k]; k++) jj_u8_put(rt, b, m[k]);
                return;
            }
    jj_u8_put(rt, b, c == JJ_UPPER ? utf8proc_toupper(cp) : utf8proc_totitle(cp));
}

int jj_iscased(int32_t cp) {
    if (cp < 0x80) return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
    utf8proc_category_t k = utf8proc_category(cp);
    return k == UTF8PROC_CATEGORY_LU || k == UTF8PROC_CATEGORY_LL || k == UTF8PROC_CATEGORY_LT;
}
int jj_islower_cp(int32_t cp) {
    if (cp < 0x80) return cp >= 'a' && cp <= 'z';
    return utf8proc_category(cp) == UTF8PROC_CATEGORY_LL;
}
int jj_isupper_cp(int32_t cp) {
    if (cp < 0x80) return cp >= 'A' && cp <= 'Z';
    utf8proc_category_t k = utf8proc_category(cp);
    return k == UTF8PROC_CATEGORY_LU || k == UTF8PROC_CATEGORY_LT;
}
int jj_isalpha_cp(int32_t cp) {
    if (cp < 0x80) return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
    utf8proc_category_t k = utf8proc_category(cp);
    return k >= UTF8PROC_CATEGORY_LU && k <= UTF8PROC_CATEGORY_LO;
}
int jj_isdigit_cp(int32_t cp) {
    if (cp < 0x80) return cp >= '0' && cp <= '9';
    return utf8proc_category(cp) == UTF8PROC_CATEGORY_ND || cp == 0xB2 || cp == 0xB3 ||
           cp == 0xB9 || (cp >= 0x2070 && cp <= 0x2079 && cp != 0x2071 && cp != 0x2072 &&
                          cp != 0x2073) ||
           (cp >= 0x2080 && cp <= 0x2089) || (cp >= 0x2460 && cp <= 0x2468);
}
int jj_isalnum_cp(int32_t cp) {
    if (jj_isalpha_cp(cp) || jj_isdigit_cp(cp)) return 1;
    utf8proc_category_t k = utf8proc_category(cp);
    return k == UTF8PROC_CATEGORY_NL || k == UTF8PROC_CATEGORY_NO;
}

/* Case-ignorable (for the final sigma rule): Mn, Me, Cf, Lm, Sk and the
 * word-break MidLetter/MidNumLet/Single_Quote characters. */
static int case_ignorable(int32_t c) {
    if (c == 0x27 || c == 0x2E || c == 0x3A || c == 0xB7 || c == 0x387 || c == 0x5F4 ||
        c == 0x2018 || c == 0x2019 || c == 0x2024 || c == 0xFE13 || c == 0xFE52 ||
        c == 0xFE55 || c == 0xFF07 || c == 0xFF0E || c == 0xFF1A)
        return 1;
    if (c < 0x80) return c == 0x5E || c == 0x60;
    utf8proc_category_t k = utf8proc_category(c);
    return k == UTF8PROC_CATEGORY_MN || k == UTF8PROC_CATEGORY_ME || k == UTF8PROC_CATEGORY_CF ||
           k == UTF8PROC_CATEGORY_LM || k == UTF8PROC_CATEGORY_SK;
}

/* The lowercase of U+03A3 at byte offset at: final or medial sigma. */
static int32_t sigma(const jj_str *s, size_t at) {
    size_t j = at;
    int32_t c = 0;
    int found = 0;
    while (j > 0) {
        size_t k = j - 1;
        while (k > 0 && ((unsigned char)s->s[k] & 0xC0) == 0x80) k--;
        size_t t = k;
        c = jj_u8_next(s->s, s->n, &t);
        j = k;
        if (!case_ignorable(c)) { found = 1; break; }
    }
    if (!found || !jj_iscased(c)) return 0x3C3;
    size_t i = at;
    jj_u8_next(s->s, s->n, &i);
    while (i < s->n) {
        c = jj_u8_next(s->s, s->n, &i);
        if (!case_ignorable(c)) return jj_iscased(c) ? 0x3C3 : 0x3C2;
    }
    return 0x3C2;
}

static void lower_at(jj_rt *rt, jj_buf *b, const jj_str *s, size_t at, int32_t c) {
    if (c == 0x3A3) jj_u8_put(rt, b, sigma(s, at));
    else jj_case_put(rt, b, c, JJ_LOWER);
}

static int is_ascii(jj_str *s) { return jj_str_len(s) == s->n; }

jj_str *jj_s_recase(jj_rt *rt, jj_str *s, jj_recase mode) {
    jj_buf b = {0};
    int prev_cased = 0;
    for (size_t i = 0; i < s->n;) {
        size_t at = i;
        int32_t c = jj_u8_next(s->s, s->n, &i);
        switch (mode) {
        case JJ_RC_UPPER: jj_case_put(rt, &b, c, JJ_UPPER); break;
        case JJ_RC_LOWER: lower_at(rt, &b, s, at, c); break;
        case JJ_RC_CAPITALIZE:  /* title case first (Python 3.8+), the rest lower */
            if (at == 0) jj_case_put(rt, &b, c, JJ_TITLE);
            else lower_at(rt, &b, s, at, c);
            break;
        case JJ_RC_TITLE:       /* str.title(): a cased character after a cased one is lowered */
            if (prev_cased) lower_at(rt, &b, s, at, c);
            else jj_case_put(rt, &b, c, JJ_TITLE);
            prev_cased = jj_iscased(c);
            break;
        case JJ_RC_SWAPCASE:
            if (jj_isupper_cp(c)) lower_at(rt, &b, s, at, c);
            else if (jj_islower_cp(c)) jj_case_put(rt, &b, c, JJ_UPPER);
            else jj_u8_put(rt, &b, c);
            break;
        }
    }
    return jj_str_buf(rt, &b);
}

int jj_s_pred(jj_rt *rt, jj_str *s, int (*pred)(int32_t)) {
    jj_charge_bytes(&rt->ar, s->n);
    if (s->n == 0) return 0;
    for (size_t i = 0; i < s->n;)
        if (!pred(jj_u8_next(s->s, s->n, &i))) return 0;
    return 1;
}

int jj_s_cased(jj_rt *rt, jj_str *s, int upper) {
    jj_charge_bytes(&rt->ar, s->n);
    int cased = 0;
    for (size_t i = 0; i < s->n;) {
        int32_t c = jj_u8_next(s->s, s->n, &i);
        if (upper ? jj_islower_cp(c) : jj_isupper_cp(c)) return 0;
        if (upper ? jj_isupper_cp(c) : jj_islower_cp(c)) cased = 1;
    }
    return cased;
}

/* ---- strip, split, replace, find ---- */

static int in_chars(const jj_str *chars, int32_t c) {
    if (!chars) return jj_isspace(c);
    for (size_t i = 0; i < chars->n;)
        if (jj_u8_next(chars->s, chars->n, &i) == c) return 1;
    return 0;
}

/* Byte offset of the start of the code point ending at byte end. */
static size_t prev_cp(const char *s, size_t end) {
    size_t k = end - 1;
    while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80) k--;
    return k;
}

jj_str *jj_s_strip(jj_rt *rt, jj_str *s, const jj_str *chars, int which) {
    size_t a = 0, z = s->n;
    if (which & 1)
        while (a < z) {
            size_t i = a;
            if (!in_chars(chars, jj_u8_next(s->s, z, &i))) break;
            a = i;
        }
    if (which & 2)
        while (z > a) {
            size_t k = prev_cp(s->s, z), t = k;
            if (!in_chars(chars, jj_u8_next(s->s, z, &t))) break;
            z = k;
        }
    if (a == 0 && z == s->n) return s;
    return jj_str_new(rt, s->s + a, z - a);
}

static void push_str(jj_rt *rt, jj_list *l, size_t *cap, const char *p, size_t n) {
    jj_list_push(rt, l, cap, jj_strv(jj_str_new(rt, p, n)));
}

static jj_list *reversed(jj_rt *rt, jj_list *l) {
    for (size_t i = 0, j = l->n; i + 1 < j; i++, j--) {
        jj_val t = l->v[i];
        l->v[i] = l->v[j - 1];
        l->v[j - 1] = t;
    }
    (void)rt;
    return l;
}

/* Byte offset of sub in s[from..to), or SIZE_MAX: memmem (two-way, so
 * linear however the strings repeat), charged as bytes searched. */
static size_t find_bytes(jj_rt *rt, const char *s, size_t from, size_t to, const char *sub, size_t m) {
    if (to < from || m > to - from) return SIZE_MAX;
    const char *p = memmem(s + from, to - from, sub, m);
    jj_charge_bytes(&rt->ar, p ? (size_t)(p - (s + from)) + m : to - from);
    return p ? (size_t)(p - s) : SIZE_MAX;
}

/* Searching from the right: the same search over s and sub reversed (made
 * once per call, so rsplit's repeated searches stay linear). */
typedef struct {
    char *s, *sub;
    size_t n, m;
} reversed_pair;

static void reverse_pair(jj_rt *rt, reversed_pair *r, const char *s, size_t n, const char *sub, size_t m) {
    r->s = jj_alloc(&rt->ar, n + 1);
    r->sub = jj_alloc(&rt->ar, m + 1);
    for (size_t i = 0; i < n; i++) r->s[i] = s[n - 1 - i];
    for (size_t i = 0; i < m; i++) r->sub[i] = sub[m - 1 - i];
    r->n = n, r->m = m;
}

/* The last start of sub within [from, to) of the original, or SIZE_MAX. */
static size_t rfind_bytes(jj_rt *rt, const reversed_pair *r, size_t from, size_t to) {
    size_t q = find_bytes(rt, r->s, r->n - to, r->n - from, r->sub, r->m);
    return q == SIZE_MAX ? q : r->n - q - r->m;
}

jj_list *jj_s_split(jj_rt *rt, jj_str *s, const jj_str *sep, int64_t maxsplit, int right) {
    jj_list *l = jj_list_new(rt, 0);
    size_t cap = 0;
    uint64_t left = maxsplit < 0 ? UINT64_MAX : (uint64_t)maxsplit;
    if (sep && sep->n == 0) jj_fail(rt, "ValueError: empty separator");
    if (!sep) {
        if (!right) {
            size_t i = 0;
            while (left-- > 0) {
                size_t t;
                while (i < s->n) {
                    t = i;
                    if (!jj_isspace(jj_u8_next(s->s, s->n, &t))) break;
                    i = t;
                }
                if (i == s->n) break;
                size_t j = i;
                jj_u8_next(s->s, s->n, &i);
                while (i < s->n) {
                    t = i;
                    if (jj_isspace(jj_u8_next(s->s, s->n, &t))) break;
                    i = t;
                }
                push_str(rt, l, &cap, s->s + j, i - j);
            }
            if (i < s->n) {
                while (i < s->n) {
                    size_t t = i;
                    if (!jj_isspace(jj_u8_next(s->s, s->n, &t))) break;
                    i = t;
                }
                if (i != s->n) push_str(rt, l, &cap, s->s + i, s->n - i);
            }
            return l;
        }
        size_t i = s->n;
        while (left-- > 0) {
            while (i > 0) {
                size_t k = prev_cp(s->s, i), t = k;
                if (!jj_isspace(jj_u8_next(s->s, s->n, &t))) break;
                i = k;
            }
            if (i == 0) break;
            size_t j = i;
            i = prev_cp(s->s, i);
            while (i > 0) {
                size_t k = prev_cp(s->s, i), t = k;
                if (jj_isspace(jj_u8_next(s->s, s->n, &t))) break;
                i = k;
            }
            push_str(rt, l, &cap, s->s + i, j - i);
        }
        if (i > 0) {
            while (i > 0) {
                size_t k = prev_cp(s->s, i), t = k;
                if (!jj_isspace(jj_u8_next(s->s, s->n, &t))) break;
                i = k;
            }
            if (i != 0) push_str(rt, l, &cap, s->s, i);
        }
        return reversed(rt, l);
    }
    if (!right) {
        size_t i = 0;
        while (left-- > 0) {
            size_t p = find_bytes(rt, s->s, i, s->n, sep->s, sep->n);
            if (p == SIZE_MAX) break;
            push_str(rt, l, &cap, s->s + i, p - i);
            i = p + sep->n;
        }
        push_str(rt, l, &cap, s->s + i, s->n - i);
        return l;
    }
    size_t j = s->n;
    reversed_pair rv;
    reverse_pair(rt, &rv, s->s, s->n, sep->s, sep->n);
    while (left-- > 0) {
        size_t p = rfind_bytes(rt, &rv, 0, j);
        if (p == SIZE_MAX) break;
        push_str(rt, l, &cap, s->s + p + sep->n, j - p - sep->n);
        j = p;
    }
    push_str(rt, l, &cap, s->s, j);
    return reversed(rt, l);
}

/* Line boundaries of str.splitlines: \n \r \r\n \v \f \x1c \x1d \x1e \x85
 * \u2028 \u2029. */
jj_list *jj_s_splitlines(jj_rt *rt, jj_str *s, int keepends) {
    jj_list *l = jj_list_new(rt, 0);
    size_t cap = 0, i = 0, start = 0;
    while (i < s->n) {
        size_t at = i;
        int32_t c = jj_u8_next(s->s, s->n, &i);
        int brk = c == '\n' || c == '\r' || c == 0x0B || c == 0x0C || c == 0x1C || c == 0x1D ||
                  c == 0x1E || c == 0x85 || c == 0x2028 || c == 0x2029;
        if (!brk) continue;
        if (c == '\r' && i < s->n && s->s[i] == '\n') i++;
        push_str(rt, l, &cap, s->s + start, (keepends ? i : at) - start);
        start = i;
    }
    if (start < s->n) push_str(rt, l, &cap, s->s + start, s->n - start);
    return l;
}

jj_str *jj_s_replace(jj_rt *rt, jj_str *s, const jj_str *old, const jj_str *new_, int64_t count) {
    uint64_t left = count < 0 ? UINT64_MAX : (uint64_t)count;
    jj_buf b = {0};
    if (old->n == 0) {
        size_t i = 0;
        while (i < s->n) {
            if (left) { jj_buf_add(rt, &b, new_->s, new_->n); left--; }
            size_t j = i;
            jj_u8_next(s->s, s->n, &i);
            jj_buf_add(rt, &b, s->s + j, i - j);
        }
        if (left) jj_buf_add(rt, &b, new_->s, new_->n);
        return jj_str_buf(rt, &b);
    }
    size_t i = 0;
    while (left) {
        size_t p = find_bytes(rt, s->s, i, s->n, old->s, old->n);
        if (p == SIZE_MAX) break;
        jj_buf_add(rt, &b, s->s + i, p - i);
        jj_buf_add(rt, &b, new_->s, new_->n);
        i = p + old->n;
        left--;
    }
    if (i == 0) return s;
    jj_buf_add(rt, &b, s->s + i, s->n - i);
    return jj_str_buf(rt, &b);
}

/* Python's slice index adjustment for find/count/startswith: code points. */
static void adjust(int64_t len, int64_t *start, int64_t *end) {
    if (*end > len) *end = len;
    else if (*end < 0) { *end += len; if (*end < 0) *end = 0; }
    if (*start < 0) { *start += len; if (*start < 0) *start = 0; }
}

int64_t jj_s_find(jj_rt *rt, jj_str *s, const jj_str *sub, int64_t start, int64_t end, int right) {
    int64_t len = (int64_t)jj_str_len(s);
    adjust(len, &start, &end);
    if (start > len) return -1;
    if (end - start < (int64_t)jj_str_len((jj_str *)sub)) return -1;
    if (sub->n == 0) return right ? end : start;
    size_t a = jj_str_off(rt, s, (size_t)start), z = jj_str_off(rt, s, (size_t)end), p;
    if (right) {
        reversed_pair rv;
        reverse_pair(rt, &rv, s->s + a, z - a, sub->s, sub->n);
        p = rfind_bytes(rt, &rv, 0, z - a);
        if (p != SIZE_MAX) p += a;
    } else {
        p = find_bytes(rt, s->s, a, z, sub->s, sub->n);
    }
    if (p == SIZE_MAX) return -1;
    if (is_ascii(s)) return (int64_t)p;
    int64_t k = 0;
    for (size_t i = 0; i < p; i++) k += ((unsigned char)s->s[i] & 0xC0) != 0x80;
    jj_charge_bytes(&rt->ar, p);
    return k;
}

int64_t jj_s_count(jj_rt *rt, jj_str *s, const jj_str *sub, int64_t start, int64_t end) {
    int64_t len = (int64_t)jj_str_len(s);
    adjust(len, &start, &end);
    if (start > len) return 0;
    if (sub->n == 0) return start <= end ? end - start + 1 : 0;
    if (end < start) return 0;
    size_t a = jj_str_off(rt, s, (size_t)start), z = jj_str_off(rt, s, (size_t)end);
    int64_t k = 0;
    for (;;) {
        size_t p = find_bytes(rt, s->s, a, z, sub->s, sub->n);
        if (p == SIZE_MAX) return k;
        k++;
        a = p + sub->n;
    }
}

/* Python's PySlice_AdjustIndices. */
static int64_t slice_len(int64_t len, int has_start, int64_t *start, int has_stop, int64_t *stop,
                         int64_t step) {
    if (!has_start) *start = step < 0 ? len - 1 : 0;
    else if (*start < 0) { *start += len; if (*start < 0) *start = step < 0 ? -1 : 0; }
    else if (*start >= len) *start = step < 0 ? len - 1 : len;
    if (!has_stop) *stop = step < 0 ? -1 : len;
    else if (*stop < 0) { *stop += len; if (*stop < 0) *stop = step < 0 ? -1 : 0; }
    else if (*stop >= len) *stop = step < 0 ? len - 1 : len;
    if (step < 0) return *stop < *start ? (*start - *stop - 1) / (-step) + 1 : 0;
    return *start < *stop ? (*stop - *start - 1) / step + 1 : 0;
}

jj_str *jj_s_slice(jj_rt *rt, jj_str *s, int has_start, int64_t start, int has_stop,
                   int64_t stop, int64_t step) {
    int64_t len = (int64_t)jj_str_len(s);
    int64_t k = slice_len(len, has_start, &start, has_stop, &stop, step);
    if (step == 1) {
        size_t a = jj_str_off(rt, s, (size_t)start);
        size_t z = k ? jj_str_off(rt, s, (size_t)(start + k)) : a;
        return jj_str_new(rt, s->s + a, z - a);
    }
    /* one walk over the string, |step| code points at a time */
    jj_buf b = {0};
    size_t o = k ? jj_str_off(rt, s, (size_t)start) : 0;
    for (int64_t i = 0; i < k; i++) {
        size_t e = o;
        jj_u8_next(s->s, s->n, &e);
        jj_buf_add(rt, &b, s->s + o, e - o);
        if (i + 1 == k) break;
        if (step > 0) {
            for (int64_t j = 0; j < step; j++) {
                o++;
                while (o < s->n && ((unsigned char)s->s[o] & 0xC0) == 0x80) o++;
            }
        } else {
            for (int64_t j = 0; j < -step; j++) o = prev_cp(s->s, o);
        }
    }
    jj_charge_bytes(&rt->ar, s->n);
    return jj_str_buf(rt, &b);
}

jj_str *jj_s_at(jj_rt *rt, jj_str *s, int64_t i) {
    int64_t len = (int64_t)jj_str_len(s);
    if (i < 0) i += len;
    if (i < 0 || i >= len) return NULL;
    size_t o = jj_str_off(rt, s, (size_t)i), e = o;
    jj_u8_next(s->s, s->n, &e);
    return jj_str_new(rt, s->s + o, e - o);
}

int64_t jj_slice_indices(int64_t len, int has_start, int64_t *start, int has_stop, int64_t *stop,
                         int64_t step) {
    return slice_len(len, has_start, start, has_stop, stop, step);
}
