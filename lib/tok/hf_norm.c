/* hf_norm.c - the normalizers of tokenizer.json (NFC, NFKC, Replace, ...),
 * with the reference's Unicode versions (tok/unicode.h): Unicode 9.0 for the
 * normal forms (utf8proc's 15.0 data, masked), 17.0 for Lowercase. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/utf8.h"
#include "tok/charsmap.h"
#include "tok/grapheme.h"
#include "tok/hf_int.h"
#include "tok/unicode.h"


/* Strip: Rust's char::is_whitespace */
static int is_ws(int32_t c) { return (tu_props(c) & TU_SPACE) != 0; }

static void put_cp(cal_buf *b, int32_t c)
{
    utf8proc_uint8_t tmp[4];
    utf8proc_ssize_t k = utf8proc_encode_char(c, tmp);
    cal_buf_add(b, tmp, (size_t)k);
}

#define HOLE 0xFDD0 /* a noncharacter: unassigned in every version */

/* Normal form opt of s into o as the reference's Unicode 9.0 tables give it.
 * A code point assigned after 9.0 is, there, a starter that neither
 * decomposes nor composes: it is swapped for HOLE, which utf8proc treats the
 * same way (a HOLE in the text is swapped too), and swapped back after, in
 * order (starters keep their order). */
static int normal_form(const char *s, size_t len, int opt, cal_buf *o)
{
    cal_buf in = { 0 };
    int32_t *held = NULL;
    size_t nheld = 0, cap = 0, start = 0;
    for (size_t i = 0; i < len;) {
        int32_t c;
        size_t k = cal_utf8_next(s, len, i, &c);
        if ((unsigned char)s[i] >= 0x80 && (tu_props(c) & TU_NEW9)) {
            if (nheld == cap) held = cal_xrealloc(held, (cap = cap ? 2 * cap : 16) * sizeof *held);
            held[nheld++] = c;
            cal_buf_add(&in, s + start, i - start);
            put_cp(&in, HOLE);
            start = i + k;
        }
        i += k;
    }
    if (nheld) {
        cal_buf_add(&in, s + start, len - start);
        s = in.p;
        len = in.n;
    }
    utf8proc_uint8_t *r = NULL;
    utf8proc_ssize_t k = utf8proc_map((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)len, &r, (utf8proc_option_t)opt);
    cal_buf_free(&in);
    if (k < 0) {
        free(held);
        return -1;
    }
    size_t from = 0, next = 0;
    for (size_t i = 0; nheld && i + 3 <= (size_t)k; i++) {
        if (memcmp(r + i, "\xef\xb7\x90", 3)) continue;
        cal_buf_add(o, r + from, i - from);
        put_cp(o, next < nheld ? held[next++] : HOLE);
        from = i + 3;
        i += 2;
    }
    cal_buf_add(o, r + from, (size_t)k - from);
    free(r);
    free(held);
    return 0;
}

/* The rule of the map that is the shortest prefix of s[0..n) (stopping at
 * a NUL, as spm_precompiled's search does) appended to o: 1, or 0 when none. */
static int first_rule(const charsmap *cm, const char *s, size_t n, cal_buf *o)
{
    const char *z = memchr(s, 0, n);
    size_t len[1], ol[1];
    const char *r[1];
    if (z) n = (size_t)(z - s);
    if (!charsmap_starts(cm, (uint8_t)(n ? s[0] : 0)) || !charsmap_prefixes(cm, s, n, len, r, ol, 1)) return 0;
    cal_buf_add(o, r[0], ol[0]);
    return 1;
}

/* Hugging Face's Precompiled (spm_precompiled's transform, per grapheme):
 * a cluster of fewer than 6 bytes that some rule starts is replaced whole
 * by the first (shortest) such rule; else each character by its rule, or
 * kept. */
static void precompiled(const charsmap *cm, const char *s, size_t len, cal_buf *o)
{
    if (!cm) {
        cal_buf_add(o, s, len);
        return;
    }
    for (size_t i = 0; i < len;) {
        size_t e = tg_next(s, len, i);
        if (e - i < 6 && first_rule(cm, s + i, e - i, o)) {
            i = e;
            continue;
        }
        while (i < e) {
            int32_t c;
            size_t k = cal_utf8_next(s, len, i, &c);
            if (!first_rule(cm, s + i, k, o)) cal_buf_add(o, s + i, k);
            i += k;
        }
    }
}

/* BertNormalizer (tokenizers' normalizers/bert.rs): clean_text drops NUL,
 * U+FFFD and "other" characters (Cc, Cf, Co in the unicode_categories
 * crate's Unicode 8.0, tab, LF and CR aside) and makes every whitespace
 * (those three and char::is_whitespace) a space; handle_chinese_chars puts
 * spaces around the CJK ideograph blocks; strip accents is NFD (9.0) without
 * nonspacing marks (Mn, 8.0); lowercase is char::to_lowercase (17.0). */
static int cjk(int32_t c)
{
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
           (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

static int bert(const tok_hf *t, const th_norm *nm, const char *s, size_t len, cal_buf *o, char *err, size_t errlen)
{
    cal_buf a = { 0 }, b = { 0 };
    for (size_t i = 0; i < len;) {
        int32_t c;
        size_t k = cal_utf8_next(s, len, i, &c);
        int tnr = c == '\t' || c == '\n' || c == '\r';
        if (nm->clean && (c == 0 || c == 0xFFFD || (!tnr && (tu_props(c) & TU_OTHER8)))) { i += k; continue; }
        if (nm->clean && (tnr || is_ws(c))) cal_buf_addc(&a, ' ');
        else if (nm->chinese && cjk(c)) cal_buf_addc(&a, ' '), cal_buf_add(&a, s + i, k), cal_buf_addc(&a, ' ');
        else cal_buf_add(&a, s + i, k);
        i += k;
    }
    if (nm->strip_acc && a.n) {
        int ascii = 1;
        for (size_t i = 0; i < a.n && ascii; i++) ascii = (unsigned char)a.p[i] < 0x80;
        if (!ascii) {
            if (normal_form(a.p, a.n, UTF8PROC_STABLE | UTF8PROC_DECOMPOSE, &b)) {
                cal_buf_free(&a), cal_buf_free(&b);
                snprintf(err, errlen, "%s: normalizer: utf8proc cannot normalize the text", t->path);
                return -1;
            }
            a.n = 0;
            for (size_t i = 0; i < b.n;) {
                int32_t c;
                size_t k = cal_utf8_next(b.p, b.n, i, &c);
                if (!(tu_props(c) & TU_MN8)) cal_buf_add(&a, b.p + i, k);
                i += k;
            }
        }
    }
    for (size_t i = 0; i < a.n;) {
        int32_t c, l[3];
        size_t k = cal_utf8_next(a.p, a.n, i, &c);
        if (!nm->lower) cal_buf_add(o, a.p + i, k);
        else for (int q = 0, n = tu_lower(c, l); q < n; q++) put_cp(o, l[q]);
        i += k;
    }
    cal_buf_free(&a);
    cal_buf_free(&b);
    return 0;
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
        if (normal_form(s, len, opt, o) == 0) return 0;
        snprintf(err, errlen, "%s: normalizer: utf8proc cannot normalize the text", t->path);
        return -1;
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
            int32_t c, l[3];
            i += cal_utf8_next(s, len, i, &c);
            for (int k = 0, n = tu_lower(c, l); k < n; k++) put_cp(o, l[k]);
        }
        return 0;
    case TH_N_STRIPACC: /* is_combining_mark: General_Category Mark in 9.0 */
        for (size_t i = 0; i < len;) {
            int32_t c;
            size_t k = cal_utf8_next(s, len, i, &c);
            if (!(tu_props(c) & TU_MARK9)) cal_buf_add(o, s + i, k);
            i += k;
        }
        return 0;
    case TH_N_PRECOMPILED:
        precompiled(nm->cm, s, len, o);
        return 0;
    case TH_N_BERT:
        return bert(t, nm, s, len, o, err, errlen);
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
