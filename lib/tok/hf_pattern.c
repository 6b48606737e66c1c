/* tok_hf_pattern.c - pattern matching for Split/Replace: literal strings,
 * hand-written scanners for known regexes (tok_hf_scan.c), PCRE2 otherwise
 * (the patterns rewritten from Oniguruma's syntax by hf_onig.c).
 * Matches are leftmost-first and non-overlapping, as the reference's onig
 * find_iter; an empty match moves the search one character on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "tok/hf_int.h"
#include "tok/unicode.h"

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
