/* hf_norm.c - the normalizers of tokenizer.json (NFC, NFKC, Replace, ...). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/utf8.h"
#include "tok/hf_int.h"


static int is_ws(int32_t c)
{
    return (c >= 9 && c <= 13) || c == 32 || c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
           c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

static void put_cp(cal_buf *b, int32_t c)
{
    utf8proc_uint8_t tmp[4];
    utf8proc_ssize_t k = utf8proc_encode_char(c, tmp);
    cal_buf_add(b, tmp, (size_t)k);
}

static int one(const tok_hf *t, const th_norm *nm, const char *s, size_t len, cal_buf *o, char *err, size_t errlen)
{
    switch (nm->kind) {
    case TH_N_NFC: case TH_N_NFKC: case TH_N_NFD: case TH_N_NFKD: {
        int opt = UTF8PROC_STABLE | (nm->kind == TH_N_NFC || nm->kind == TH_N_NFKC ? UTF8PROC_COMPOSE : UTF8PROC_DECOMPOSE);
        if (nm->kind == TH_N_NFKC || nm->kind == TH_N_NFKD) opt |= UTF8PROC_COMPAT;
        /* ASCII is its own normal form: skip the library for it */
        size_t i = 0;
        while (i < len && (unsigned char)s[i] < 0x80) i++;
        if (i == len) { cal_buf_add(o, s, len); return 0; }
        utf8proc_uint8_t *r = NULL;
        utf8proc_ssize_t k = utf8proc_map((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)len, &r, (utf8proc_option_t)opt);
        if (k < 0) return -1;
        cal_buf_add(o, r, (size_t)k);
        free(r);
        return 0;
    }
    case TH_N_PREPEND:
        if (len) cal_buf_add(o, nm->str, nm->str_len);
        cal_buf_add(o, s, len);
        return 0;
    case TH_N_REPLACE: {
        pcre2_match_data *md = nm->pat.re ? pcre2_match_data_create_from_pattern(nm->pat.re, NULL) : NULL;
        size_t from = 0, ms, me;
        int rc;
        while (from <= len && (rc = th_pattern_next(&nm->pat, md, s, len, from, &ms, &me)) != 0) {
            if (rc < 0) {
                th_pattern_error(t, &nm->pat, rc, err, errlen);
                if (md) pcre2_match_data_free(md);
                return -1;
            }
            cal_buf_add(o, s + from, ms - from);
            cal_buf_add(o, nm->str, nm->str_len);
            if (me == ms) { /* empty match: keep one character and move on */
                if (ms >= len) { from = len + 1; break; }
                int32_t cp;
                size_t k = cal_utf8_next(s, len, ms, &cp);
                cal_buf_add(o, s + ms, k);
                me = ms + k;
            }
            from = me;
        }
        if (from < len) cal_buf_add(o, s + from, len - from);
        if (md) pcre2_match_data_free(md);
        return 0;
    }
    case TH_N_LOWER:
        for (size_t i = 0; i < len;) {
            int32_t c;
            i += cal_utf8_next(s, len, i, &c);
            if (c == 0x130) { cal_buf_add(o, "i\xCC\x87", 3); continue; } /* full lowercase of U+0130 */
            put_cp(o, utf8proc_tolower(c));
        }
        return 0;
    case TH_N_STRIP: {
        size_t a = 0, b = len;
        if (nm->left) while (a < b) { int32_t c; size_t k = cal_utf8_next(s, len, a, &c); if (!is_ws(c)) break; a += k; }
        if (nm->right) while (b > a) {
            size_t j = b - 1;
            while (j > a && ((unsigned char)s[j] & 0xC0) == 0x80) j--;
            int32_t c; cal_utf8_next(s, len, j, &c);
            if (!is_ws(c)) break;
            b = j;
        }
        cal_buf_add(o, s + a, b - a);
        return 0;
    }
    }
    snprintf(err, errlen, "%s: unknown normalizer", t->path);
    return -1;
}

int th_normalize(const tok_hf *t, const char *s, size_t len, char **out, size_t *out_len, char *err, size_t errlen)
{
    cal_buf a = { 0 }, b = { 0 };
    cal_buf_add(&a, s, len);
    for (size_t i = 0; i < t->nnorm; i++) {
        b.n = 0;
        if (one(t, &t->norm[i], a.p ? a.p : "", a.n, &b, err, errlen)) { cal_buf_free(&a); cal_buf_free(&b); return -1; }
        cal_buf tmp = a; a = b; b = tmp;
    }
    cal_buf_free(&b);
    if (!a.p) cal_buf_addc(&a, 0), a.n = 0;
    *out = a.p;
    *out_len = a.n;
    return 0;
}
