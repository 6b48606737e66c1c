/* test_io_jsonscan_read.c - lib/io/jsonscan.c, the reading half:
 * cal_json_field decodes a string member exactly as jansson (the full
 * parser cal-read falls back to) does: every code point written as a \u
 * escape (surrogate pairs for the planes above the first), every one-letter
 * escape, and 20000 random strings of plain runs (0 to 40 bytes, so runs
 * end at every place of a 16-byte block) mixed with escapes, raw UTF-8 and
 * the end of the line close behind; and it says "don't know" (0), never a
 * wrong string, for what jansson refuses or decodes otherwise: bad escapes,
 * lone surrogates, raw control bytes, a missing closing quote. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/rng.h"
#include "io/jsonscan.h"
#include "test.h"

/* 1 when cal_json_field and jansson agree on {"text": STR, "n": 1} (with
 * STR as JSON source text): the same string, or the fast path declining. */
static int agree(const char *str, size_t n, int *fast) {
    cal_buf line = {0}, out = {0};
    cal_buf_add(&line, "{\"text\":", 8);
    cal_buf_add(&line, str, n);
    cal_buf_add(&line, ",\"n\":1}", 7);
    *fast = cal_json_field(line.p, line.n, "text", &out);
    json_error_t e;
    json_t *root = json_loadb(line.p, line.n, JSON_ALLOW_NUL, &e);
    json_t *v = root ? json_object_get(root, "text") : NULL;
    int ok = !*fast || (v && json_is_string(v) && json_string_length(v) == out.n &&
                        !memcmp(json_string_value(v), out.p, out.n));
    json_decref(root);
    cal_buf_free(&line);
    cal_buf_free(&out);
    return ok;
}

int main(void) {
    char s[64];
    int fast, ok = 1, nfast = 0, lines = 0;
    cal_buf esc = {0};
    for (unsigned c0 = 1; c0 < 0x110000; c0 += 256, lines++) { /* 256 code points a string */
        esc.n = 0;
        cal_buf_addc(&esc, '"');
        for (unsigned c = c0; c < c0 + 256 && c < 0x110000; c++) {
            if (c >= 0xD800 && c < 0xE000) continue;
            if (c < 0x10000) cal_buf_addf(&esc, c & 1 ? "\\u%04x" : "\\u%04X", c);
            else cal_buf_addf(&esc, "\\u%04x\\u%04X", 0xD800 + ((c - 0x10000) >> 10), 0xDC00 + ((c - 0x10000) & 0x3FF));
            if (c % 7 == 0) cal_buf_addc(&esc, 'x');
        }
        cal_buf_addc(&esc, '"');
        ok &= agree(esc.p, esc.n, &fast);
        nfast += fast;
    }
    cal_buf_free(&esc);
    CHECK(ok && nfast == lines, "every code point as \\u escapes: jansson's strings (%d of %d decoded)", nfast, lines);
    ok = 1, nfast = 0;
    const char *ones = "\"\\/bfnrt";
    for (const char *c = ones; *c; c++) {
        int n = snprintf(s, sizeof s, "\"0123456789abcde\\%c0123456789abcdef\\%c\"", *c, *c);
        ok &= agree(s, (size_t)n, &fast);
        nfast += fast;
    }
    CHECK(ok && nfast == 8, "the eight one-letter escapes, inside and at the end of 16-byte blocks");
    const char *bad[] = {"\"\\x\"", "\"\\ud800\"", "\"\\udc00x\"", "\"\\ud800\\u0041\"", "\"a\x01b\"", "\"abc",
                         "\"\\u12g4\"", "\"\\", "\"0123456789abcdef0123"};
    ok = 1;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ok &= agree(bad[i], strlen(bad[i]), &fast) && !fast;
    }
    CHECK(ok, "bad escapes, lone surrogates, raw control bytes, unclosed strings: declined");

    /* Every pair of escape forms (and raw UTF-8, a raw control byte, a bad
     * escape, a lone surrogate, a quote) after every plain prefix of 0..66
     * bytes and before plain tails around 16-, 32- and 48-byte edges: the
     * SSE2 steps meet each form at every place of a block, two forms in one
     * block, an escape whose letter is the next block's first byte, and the
     * switch to the byte loop near the end. */
    static const char *forms[] = {"\\n", "\\t", "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\r", "\\u00e9", "\\u4e2d",
                                  "\\ud83d\\ude00", "\\u0000", "\xc3\xa9", "\xe4\xb8\xad", "\xf0\x9f\x98\x80", "\\x",
                                  "\x01", "\\ud800", "\""};
    static const int tails[] = {0, 1, 2, 3, 5, 8, 13, 14, 15, 16, 17, 30, 31, 32, 33, 34, 46, 47, 48, 49, 50};
    const size_t nforms = sizeof forms / sizeof *forms, ntails = sizeof tails / sizeof *tails;
    cal_buf pair = {0};
    size_t npairs = 0, agreed = 0;
    for (size_t a = 0; a < nforms; a++)
        for (size_t b = 0; b < nforms; b++)
            for (size_t k = 0; k <= 66; k++)
                for (size_t t = 0; t < ntails; t++) {
                    pair.n = 0;
                    cal_buf_addc(&pair, '"');
                    for (size_t i = 0; i < k; i++) cal_buf_addc(&pair, (char)('a' + i % 26));
                    cal_buf_add(&pair, forms[a], strlen(forms[a]));
                    cal_buf_add(&pair, forms[b], strlen(forms[b]));
                    for (int i = 0; i < tails[t]; i++) cal_buf_addc(&pair, (char)('0' + i % 10));
                    cal_buf_addc(&pair, '"');
                    agreed += agree(pair.p, pair.n, &fast);
                    npairs++;
                }
    cal_buf_free(&pair);
    CHECK(agreed == npairs && npairs == nforms * nforms * 67 * ntails,
          "%zu pairs of escape forms at every offset 0..66 of a block: jansson's strings or declined", npairs);

    cal_rng r;
    cal_rng_init(&r, 30);
    cal_buf str = {0};
    ok = 1, nfast = 0;
    static const char plain[] = "abcdefghijklmnopqrstuvwxyz 0123456789,.:";
    static const char *pieces[] = {"\\n", "\\t", "\\\"", "\\\\", "\\/", "\\u00e9", "\\u4e2d", "\\ud83d\\ude00",
                                    "\xc3\xa9", "\xe4\xb8\xad", "\xf0\x9f\x98\x80", "\\r", "\\b", "\\f"};
    for (int k = 0; k < 20000; k++) {
        str.n = 0;
        cal_buf_addc(&str, '"');
        for (int parts = (int)cal_rng_below(&r, 8); parts >= 0; parts--) {
            for (uint64_t run = cal_rng_below(&r, 41); run; run--) cal_buf_addc(&str, plain[cal_rng_below(&r, 40)]);
            const char *x = pieces[cal_rng_below(&r, 14)];
            cal_buf_add(&str, x, strlen(x));
        }
        cal_buf_addc(&str, '"');
        ok &= agree(str.p, str.n, &fast);
        nfast += fast;
    }
    CHECK(ok && nfast == 20000, "20000 random strings of runs and escapes: jansson's strings (%d decoded)", nfast);
    cal_buf_free(&str);
    TEST_END();
}
