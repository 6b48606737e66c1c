/* test_base_utf8.c - lib/base/utf8.c against CPython's
 * bytes.decode("utf-8", errors="replace") (tests/ref/utf8_replace.py, run
 * once through a pipe): every 1-, 2- and 3-byte sequence and every 4-byte
 * sequence of any lead byte with continuation bytes from the boundary values
 * of Table 3-7. Each case is repaired alone (a cut sequence at the end of the
 * input) and inside its whole block (a cut sequence before "\n"); both must
 * give CPython's bytes. cal_utf8_valid_prefix must call a case valid exactly
 * when CPython's decoding gives its bytes back, and cal_utf8_repair must
 * count one replacement per U+FFFD it writes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/utf8.h"
#include "test.h"

/* Boundary values: ASCII, the continuation range's ends and the limits of
 * the second byte after E0, ED, F0, F4, and bytes that are never valid. */
static const unsigned char V[] = {0x00, 0x41, 0x7f, 0x80, 0x81, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0,
                                  0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff};
#define NV (sizeof V)

static FILE *ref;
static unsigned char in_v[256]; /* 1: a boundary value */
static size_t padded_cases;

/* cal_utf8_valid_prefix of case c after k = 0..66 ASCII bytes and before
 * 70 more: its SSE2 (16 and 64 bytes at a time) and word paths meet the
 * case at every position of their blocks. The answer must be k plus the
 * case's own (whose verdict is checked against CPython), or the whole
 * length when the case is valid. */
static int padded_ok(const char *c, size_t w, size_t own) {
    char buf[160];
    padded_cases++;
    for (size_t k = 0; k <= 66; k++) {
        size_t total = k + w + 70;
        memset(buf, 'a', k);
        memcpy(buf + k, c, w);
        memset(buf + k + w, 'b', 70);
        if (cal_utf8_valid_prefix(buf, total) != (own < w ? k + own : total)) return 0;
    }
    return 1;
}
static cal_buf want, input, alone, whole;
static size_t cases, bad_cases;
static size_t starts[65537]; /* where each case of a block begins in `alone` */

static int read_block(void) {
    unsigned char l[4];
    if (fread(l, 1, 4, ref) != 4) return 0;
    size_t n = (size_t)l[0] | (size_t)l[1] << 8 | (size_t)l[2] << 16 | (size_t)l[3] << 24;
    want.n = 0;
    cal_buf_reserve(&want, n + 1);
    if (fread(want.p, 1, n, ref) != n) return 0;
    want.n = n;
    return 1;
}

static size_t marks(const char *p, size_t n) {
    size_t m = 0;
    for (size_t k = 0; k + 3 <= n; k++) m += !memcmp(p + k, "\xef\xbf\xbd", 3);
    return m;
}

/* Checks one block of cases of width w (input holds them, each + "\n"). */
static void block(const char *what, unsigned lead, size_t w) {
    if (!read_block()) {
        CHECK(0, "%s lead %02x: the reference's block", what, lead);
        exit(1);
    }
    alone.n = whole.n = 0;
    int counts_ok = 1, valid_ok = 1;
    size_t nc = 0;
    for (size_t i = 0; i + w < input.n + 1; i += w + 1) {
        const char *c = input.p + i;
        size_t before = starts[nc++] = alone.n;
        size_t fixed = cal_utf8_repair(c, w, &alone);
        const char *o = alone.p + before;
        size_t on = alone.n - before;
        int intact = on == w && !memcmp(o, c, w);
        /* a U+FFFD already in the input stays; each replacement adds one */
        counts_ok &= marks(o, on) == marks(c, w) + fixed;
        size_t own = cal_utf8_valid_prefix(c, w);
        valid_ok &= (own == w) == intact;
        /* every 1- and 2-byte case, 3-byte ones of boundary values, 4-byte ones led by F0-F7 */
        if (w <= 2 || (w == 3 && in_v[(unsigned char)c[1]] && in_v[(unsigned char)c[2]]) ||
            (w == 4 && lead >= 0xf0 && lead <= 0xf7))
            valid_ok &= padded_ok(c, w, own);
        bad_cases += !intact;
        cal_buf_addc(&alone, '\n');
        cases++;
    }
    cal_utf8_repair(input.p, input.n, &whole);
    int ok_alone = alone.n == want.n && !memcmp(alone.p, want.p, want.n);
    int ok_whole = whole.n == want.n && !memcmp(whole.p, want.p, want.n);
    if (!ok_alone || !ok_whole || !counts_ok || !valid_ok)
        CHECK(0, "%s lead %02x: alone %d, in the block %d, counts %d, valid_prefix %d", what, lead, ok_alone,
              ok_whole, counts_ok, valid_ok);
    if (!ok_alone) { /* name the first case that differs */
        size_t k = 0, j = 0;
        while (k < alone.n && k < want.n && alone.p[k] == want.p[k]) k++;
        while (j + 1 < nc && starts[j + 1] <= k) j++;
        printf("# first difference in case");
        for (size_t x = 0; x < w; x++) printf(" %02x", (unsigned char)input.p[j * (w + 1) + x]);
        printf("\n");
    }
}

static void add_case(const unsigned char *b, size_t w) {
    cal_buf_add(&input, b, w);
    cal_buf_addc(&input, '\n');
}

int main(void) {
    char cmd[256] = "/usr/bin/python3 tests/ref/utf8_replace.py ";
    for (size_t i = 0; i < NV; i++) snprintf(cmd + strlen(cmd), 8, "%s%02x", i ? "," : "", V[i]);
    ref = popen(cmd, "r");
    CHECK(ref != NULL, "run %s", cmd);
    if (!ref) return 1;
    int failed_before = t_failed;
    for (size_t i = 0; i < NV; i++) in_v[V[i]] = 1;
    unsigned char b[4];
    input.n = 0;
    for (unsigned x = 0; x < 256; x++) b[0] = (unsigned char)x, add_case(b, 1);
    block("1-byte", 0, 1);
    for (unsigned a = 0; a < 256; a++) {
        input.n = 0;
        for (unsigned x = 0; x < 256; x++) b[0] = (unsigned char)a, b[1] = (unsigned char)x, add_case(b, 2);
        block("2-byte", a, 2);
    }
    CHECK(t_failed == failed_before, "every 1- and 2-byte sequence as CPython");
    for (unsigned a = 0; a < 256; a++) {
        input.n = 0;
        for (unsigned x = 0; x < 65536; x++) {
            b[0] = (unsigned char)a, b[1] = (unsigned char)(x >> 8), b[2] = (unsigned char)x;
            add_case(b, 3);
        }
        block("3-byte", a, 3);
    }
    CHECK(t_failed == failed_before, "every 3-byte sequence as CPython");
    for (unsigned a = 0; a < 256; a++) {
        input.n = 0;
        for (size_t i = 0; i < NV; i++)
            for (size_t j = 0; j < NV; j++)
                for (size_t k = 0; k < NV; k++) {
                    b[0] = (unsigned char)a, b[1] = V[i], b[2] = V[j], b[3] = V[k];
                    add_case(b, 4);
                }
        block("4-byte", a, 4);
    }
    CHECK(t_failed == failed_before, "4-byte sequences, every lead x %zu boundary values cubed, as CPython", NV);
    CHECK(fgetc(ref) == EOF && pclose(ref) == 0, "the reference ran to its end");
    CHECK(cases == 256 + 65536 + 16777216 + 256 * NV * NV * NV, "%zu cases, %zu of them ill-formed", cases,
          bad_cases);

    CHECK(padded_cases == 256 + 65536 + 256 * NV * NV + 8 * NV * NV * NV,
          "%zu cases at every offset 0..66 after ASCII", padded_cases);

    /* Runs of 2-, 3- and 4-byte characters after 0..15 ASCII bytes, in
     * every length up to 180 bytes: the 16-byte blocks end at every byte
     * of a character, where the vector path stops (the end, or an error)
     * and hands over byte by byte from that character's start. Whole, then
     * with a stray continuation byte, then with a lead cut short, and then
     * a surrogate, after the run and 0..33 ASCII bytes (the vector path
     * hands back after a block of ASCII): valid up to the bad byte. */
    static const char *chars[] = {"\xc3\xa9", "\xe4\xb8\xad", "\xf0\x9f\x98\x80", "\xc3\xa9\xf0\x9f\x98\x80\xe4\xb8\xad"};
    static const char *bads[] = {"", "\x80", "\xe4\xb8", "\xed\xa0\x80"};
    static const size_t gaps[] = {0, 1, 15, 16, 17, 31, 32, 33}; /* ASCII between the run and the bad byte */
    enum { NGAP = sizeof gaps / sizeof *gaps };
    int runs_ok = 1;
    size_t runs = 0;
    char rb[300];
    for (size_t c = 0; c < 4; c++)
        for (size_t lead = 0; lead < 16; lead++)
            for (size_t reps = 1; lead + reps * strlen(chars[c]) <= 180; reps++)
                for (size_t b = 0; b < 4 * NGAP; b++) {
                    size_t len = lead;
                    memset(rb, 'x', lead);
                    for (size_t r = 0; r < reps; r++) memcpy(rb + len, chars[c], strlen(chars[c])), len += strlen(chars[c]);
                    memset(rb + len, 'z', gaps[b / 4]), len += gaps[b / 4];
                    size_t good = len;
                    memcpy(rb + len, bads[b % 4], strlen(bads[b % 4])), len += strlen(bads[b % 4]);
                    memset(rb + len, 'y', 20), len += 20;
                    runs_ok &= cal_utf8_valid_prefix(rb, len) == (b % 4 ? good : len);
                    runs++;
                }
    CHECK(runs_ok, "%zu runs of multi-byte characters, whole or before a bad byte, cut at every byte by blocks", runs);

    /* Maximal subparts, as the Unicode standard's example (section 3.9,
     * Table 3-8): 61 F1 80 80 E1 80 C2 62 80 63 80 BF 64 gives
     * a FFFD FFFD FFFD b FFFD c FFFD FFFD d. */
    cal_buf o = {0};
    size_t k = cal_utf8_repair("a\xf1\x80\x80\xe1\x80\xc2" "b\x80" "c\x80\xbf" "d", 13, &o);
    CHECK(k == 6 && o.n == 4 + 18 && !memcmp(o.p, "a\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" "b\xef\xbf\xbd"
                                                   "c\xef\xbf\xbd\xef\xbf\xbd" "d", o.n),
          "Table 3-8 of the Unicode standard");
    o.n = 0;
    k = cal_utf8_repair("\0\x01\x1f\x7f\xc2\x80\xc2\x9f", 8, &o);
    CHECK(k == 0 && o.n == 8 && !memcmp(o.p, "\0\x01\x1f\x7f\xc2\x80\xc2\x9f", 8), "NUL, C0 and C1 controls are valid");
    size_t n;
    CHECK(cal_utf8_repaired("ok\0", 3, &n) == NULL, "cal_utf8_repaired: NULL for valid text");
    char *r = cal_utf8_repaired("x\xff", 2, &n);
    CHECK(r && n == 4 && !memcmp(r, "x\xef\xbf\xbd", 5), "cal_utf8_repaired: a NUL-terminated repaired copy");
    free(r);
    cal_buf_free(&o);
    cal_buf_free(&want), cal_buf_free(&input), cal_buf_free(&alone), cal_buf_free(&whole);
    TEST_END();
}
