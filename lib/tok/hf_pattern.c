/* tok_hf_pattern.c - pattern matching for Split/Replace: literal strings,
 * hand-written scanners for known regexes (tok_hf_scan.c), PCRE2 otherwise.
 * Matches are leftmost-first and non-overlapping, as the reference's onig
 * find_iter; an empty match moves the search one character on. */
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "tok/hf_int.h"

int th_pattern_next(const th_pattern *p, pcre2_match_data *md, const char *s, size_t len, size_t from,
                    size_t *ms, size_t *me)
{
    if (!p->is_regex) {
        if (!p->lit_len) return 0;
        for (size_t i = from; i + p->lit_len <= len;) {
            const char *q = memchr(s + i, p->lit[0], len - i - p->lit_len + 1);
            if (!q) return 0;
            i = (size_t)(q - s);
            if (!memcmp(q, p->lit, p->lit_len)) { *ms = i; *me = i + p->lit_len; return 1; }
            i++;
        }
        return 0;
    }
    if (p->scanner != TH_RE_PCRE) return th_scan_next(p->scanner, s, len, from, ms, me);
    if (from > len) return 0;
    int rc = pcre2_match(p->re, (PCRE2_SPTR)s, len, from, PCRE2_NO_UTF_CHECK, md, NULL);
    /* The JIT's stack is small; the interpreter keeps its backtracking on the
     * heap (PCRE2's default heap limit is 20 GB), so it finishes such matches. */
    if (rc == PCRE2_ERROR_JIT_STACKLIMIT)
        rc = pcre2_match(p->re, (PCRE2_SPTR)s, len, from, PCRE2_NO_UTF_CHECK | PCRE2_NO_JIT, md, NULL);
    if (rc == PCRE2_ERROR_NOMATCH) return 0;
    if (rc < 0) return rc;
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
    *ms = ov[0]; *me = ov[1];
    return 1;
}

void th_pattern_error(const tok_hf *t, const th_pattern *p, int rc, char *err, size_t errlen)
{
    char m[160];
    if (pcre2_get_error_message(rc, (PCRE2_UCHAR *)m, sizeof m) < 0) snprintf(m, sizeof m, "error %d", rc);
    snprintf(err, errlen, "%s: %s: the regex engine (PCRE2) gave up: %s", t->path, p->where ? p->where : "pattern", m);
}

/* onig (the reference's engine) takes \s as Unicode White_Space; PCRE2's UCP
 * \s differs (U+0085 out, U+180E in), so spell the class out. Known limit:
 * PCRE2 10.42 has Unicode 14 tables while the reference has Unicode 15, so
 * \p{...} differs on the 4489 code points new in 15 (the hand-written
 * scanners, on utf8proc, do not have this problem). */
#define WS_SET "\\t-\\r\\x20\\x{85}\\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}"

/* onig's \w: Alphabetic, marks, decimal digits, connector punctuation
 * (measured against the reference on every code point: 2996 -> 224
 * differences, the rest being code points new in Unicode 15; \b still
 * uses PCRE2's own word definition) */
#define WORD_SET "\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}"

pcre2_code *th_pcre_compile(const char *p, size_t n, int *ec, size_t *eo)
{
    cal_buf b = { 0 };
    int in_class = 0;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (c == '\\' && i + 1 < n) {
            char d = p[i + 1];
            if (d == 's') cal_buf_add(&b, in_class ? WS_SET : "[" WS_SET "]", in_class ? strlen(WS_SET) : strlen(WS_SET) + 2);
            else if (d == 'S' && !in_class) cal_buf_add(&b, "[^" WS_SET "]", strlen(WS_SET) + 3);
            /* onig's word characters: letters, marks, decimal digits, connectors */
            else if (d == 'w') cal_buf_add(&b, in_class ? WORD_SET : "[" WORD_SET "]", in_class ? strlen(WORD_SET) : strlen(WORD_SET) + 2);
            else if (d == 'W' && !in_class) cal_buf_add(&b, "[^" WORD_SET "]", strlen(WORD_SET) + 3);
            /* onig's \h is a hex digit (PCRE2's is horizontal space) */
            else if (d == 'h') cal_buf_add(&b, in_class ? "0-9a-fA-F" : "[0-9a-fA-F]", in_class ? 9 : 11);
            else if (d == 'H' && !in_class) cal_buf_add(&b, "[^0-9a-fA-F]", 12);
            else cal_buf_add(&b, p + i, 2);
            i++;
            continue;
        }
        if (c == '[' && !in_class) {
            in_class = 1;
            cal_buf_addc(&b, c);
            /* a leading ^ and a leading ] are literal parts of the class syntax */
            if (i + 1 < n && p[i + 1] == '^') { cal_buf_addc(&b, '^'); i++; }
            if (i + 1 < n && p[i + 1] == ']') { cal_buf_addc(&b, ']'); i++; }
            continue;
        }
        if (c == ']' && in_class) in_class = 0;
        cal_buf_addc(&b, c);
    }
    PCRE2_SIZE off = 0;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)(b.p ? b.p : ""), b.n, PCRE2_UTF | PCRE2_UCP, ec, &off, NULL);
    *eo = off;
    cal_buf_free(&b);
    if (re) (void)pcre2_jit_compile(re, PCRE2_JIT_COMPLETE); /* the interpreter works too */
    return re;
}
