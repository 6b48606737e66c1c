/* test_tok_hf_scan.c - the hand-written pre-tokenizer scanners split exactly
 * as the PCRE2 fallback compiled from the same pattern, on generated text:
 * every code point class, white-space runs, contractions, digits, marks.
 * Both read the reference's Unicode 16.0 classes from tok/unicode.h (the
 * scanners directly, PCRE2 through the pattern rewriting of hf_pattern.c);
 * both are checked against the reference itself in test_encode_unicode.sh. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "test.h"
#include "tok/hf_int.h"
#include "tok/unicode.h"

static uint64_t rs = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(uint32_t n)
{
    rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17;
    return (uint32_t)(rs % n);
}

static size_t put(char *o, int32_t c) { return (size_t)utf8proc_encode_char(c, (utf8proc_uint8_t *)o); }

/* pieces that stress the patterns' alternatives */
static const char *const atoms[] = {
    "'s", "'S", "'t", "'T", "'re", "'RE", "'Re", "'ve", "'VE", "'m", "'M", "'ll", "'LL", "'lL", "'d", "'D",
    "'\xc5\xbf", "'x", "'", " ", "  ", "   ", "\t", "\n", "\r", "\r\n", "\n\n", " \n ", "\xc2\xa0", "\xc2\x85",
    "\xe1\xa0\x8e", "\xe2\x80\xa8", "\xe2\x80\xa9", "\xe3\x80\x80", "\x0b", "\x0c", "a", "b", "z", "A", "Z",
    "hello", "HELLO", "Hello", "hELLO", "\xc3\xa9", "\xc3\x89", "e\xcc\x81", "\xcc\x81", "\xc7\x85", "\xca\xb0",
    "\xe4\xb8\xad", "\xe6\x96\x87", "\xe3\x81\x82", "\xe3\x82\xab", "\xed\x95\x9c", "0", "1", "12", "123", "1234",
    "\xd9\xa1\xd9\xa2", "\xc2\xbd", "\xe2\x85\xa0", "!", "?", ".", ",", "/", "//", "-", "_", "@", "#", "$",
    "\xe2\x82\xac", "\xf0\x9f\x91\x8d", "\xf0\x9f\x8f\xbd", "\xe2\x80\x8d", "\xe2\x80\x8b", "\xef\xbb\xbf",
    "\xd8\xb3\xd9\x84\xd8\xa7\xd9\x85", "\xd7\xa9", "\x01", "\x7f",
};

/* compares the scanner (one match at a time, and th_scan_many in batches
 * of up to 4, as the encoder reads it) with PCRE2 on s; 1 when identical */
static int same_split(int sc, pcre2_code *re, pcre2_match_data *md, const char *s, size_t len)
{
    th_pattern a = { 1, sc, NULL, 0, re, NULL }, b = { 1, TH_RE_PCRE, NULL, 0, re, NULL };
    size_t fa = 0, fb = 0, fc = 0, cs[4], ce[4], cn = 0, ci = 0;
    for (;;) {
        size_t as = 0, ae = 0, bs = 0, be = 0;
        int ra = th_pattern_next(&a, md, s, len, fa, &as, &ae);
        int rb = th_pattern_next(&b, md, s, len, fb, &bs, &be);
        if (ci == cn) cn = th_scan_many(sc, s, len, &fc, cs, ce, 1 + rnd(4)), ci = 0;
        int rc = ci < cn;
        if (rc != rb || (rc && (cs[ci] != bs || ce[ci] != be))) {
            printf("# th_scan_many %d: %d [%zu,%zu) pcre2 %d [%zu,%zu)\n", sc, rc, rc ? cs[ci] : 0, rc ? ce[ci] : 0, rb, bs, be);
            ra = !rb; /* report as below */
        }
        ci++;
        if (ra != rb || (ra && (as != bs || ae != be))) {
            printf("# scanner %d: at %zu: scanner %d [%zu,%zu) pcre2 %d [%zu,%zu) in \"", sc, fa, ra, as, ae, rb, bs, be);
            for (size_t i = 0; i < len && i < 200; i++) printf((unsigned char)s[i] < 32 || (unsigned char)s[i] > 126 ? "\\x%02x" : "%c", (unsigned char)s[i]);
            printf("\"\n");
            return 0;
        }
        if (!ra) return 1;
        fa = fb = ae > as ? ae : ae + 1;
    }
}

int main(void)
{
    char *buf = malloc(1 << 16);
    for (int sc = TH_RE_LLAMA3; sc <= TH_RE_DS_MAIN; sc++) {
        const char *p = th_scanner_pattern(sc);
        char em[200];
        pcre2_code *re = th_pcre_compile(p, strlen(p), em, sizeof em);
        CHECK(re != NULL, "scanner %d: pattern compiles with PCRE2", sc);
        CHECK(th_scanner_for(p, strlen(p)) == sc, "scanner %d: recognised by its exact pattern", sc);
        if (!re) continue;
        pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
        int ok = 1;
        /* every code point assigned in Unicode 16.0 (the reference's) and
         * every 61st other one, alone, between letters, after a space and
         * before white space: both sides use tok/unicode.h's tables */
        for (int32_t c = 1; c <= 0x10FFFF && ok; c++) {
            int k = tu_gc(c);
            if (k == TU_CS || ((k == TU_CN || k == TU_CO) && c % 61)) continue;
            size_t n = 0;
            n += put(buf + n, c);
            buf[n++] = 'a'; n += put(buf + n, c); buf[n++] = 'b';
            buf[n++] = ' '; n += put(buf + n, c); n += put(buf + n, c); buf[n++] = ' '; buf[n++] = ' ';
            buf[n++] = '\''; n += put(buf + n, c); buf[n++] = 'A'; n += put(buf + n, c); buf[n++] = '1';
            n += put(buf + n, c); buf[n++] = '\n'; buf[n++] = ' '; n += put(buf + n, c);
            ok = same_split(sc, re, md, buf, n);
        }
        CHECK(ok, "scanner %d: every code point in context splits as PCRE2", sc);
        /* random mixes of the atoms */
        ok = 1;
        for (int it = 0; it < 20000 && ok; it++) {
            size_t n = 0;
            int k = 1 + (int)rnd(24);
            for (int j = 0; j < k; j++) {
                const char *a = atoms[rnd(sizeof atoms / sizeof *atoms)];
                int rep = rnd(8) == 0 ? 1 + (int)rnd(20) : 1;
                for (int r = 0; r < rep; r++) { memcpy(buf + n, a, strlen(a)); n += strlen(a); }
            }
            ok = same_split(sc, re, md, buf, n);
        }
        CHECK(ok, "scanner %d: 20000 random mixes of contractions, white space, letters, digits, marks split as PCRE2", sc);
        /* white-space runs of every kind and length up to 20, between words */
        static const char *const wsk[] = { " ", "\t", "\r", "\n", "\xc2\xa0", "\xe2\x80\xa8", "\xe2\x80\xa9", "\xe3\x80\x80", "\xc2\x85" };
        ok = 1;
        for (size_t w = 0; w < sizeof wsk / sizeof *wsk && ok; w++)
            for (int len = 1; len <= 20 && ok; len++)
                for (int mixed = 0; mixed < 2 && ok; mixed++) {
                    size_t n = 0;
                    memcpy(buf, "word", 4); n = 4;
                    for (int r = 0; r < len; r++) {
                        const char *a = mixed && r % 3 == 1 ? " " : wsk[w];
                        memcpy(buf + n, a, strlen(a)); n += strlen(a);
                    }
                    memcpy(buf + n, "next!", 5); n += 5;
                    ok = same_split(sc, re, md, buf, n) && same_split(sc, re, md, buf + 4, n - 9) &&
                         same_split(sc, re, md, buf, n - 5);
                }
        CHECK(ok, "scanner %d: white-space runs of every kind up to 20 split as PCRE2", sc);
        pcre2_match_data_free(md);
        pcre2_code_free(re);
    }
    free(buf);
    TEST_END();
}
