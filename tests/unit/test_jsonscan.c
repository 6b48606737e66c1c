/* test_jsonscan.c - lib/io/jsonscan.c, the writing half: cal_json_put_str
 * escapes what JSON needs, keeps valid UTF-8, and repairs invalid UTF-8 with
 * one U+FFFD per maximal subpart, checked against the examples of the
 * Unicode standard (section 3.9, "U+FFFD Substitution of Maximal Subparts"),
 * which Python's bytes.decode("utf-8", "replace") follows. The reading half
 * is tested through cal-read (tests/sh/test_read_*.sh). */
#include <string.h>

#include "base/buf.h"
#include "io/jsonscan.h"
#include "test.h"

#define FFFD "\xef\xbf\xbd"

static int put(const char *in, size_t n, const char *want) {
    cal_buf b = {0};
    cal_buf_add(&b, "x", 1); /* appends: what was there stays */
    cal_json_put_str(&b, in, n);
    int ok = b.n == strlen(want) + 1 && !memcmp(b.p + 1, want, b.n - 1) && b.p[0] == 'x';
    if (!ok) printf("# got %.*s\n", (int)b.n, b.p);
    cal_buf_free(&b);
    return ok;
}
#define PUT(lit, want) put(lit, sizeof lit - 1, want)

int main(void) {
    CHECK(PUT("", "\"\"") && put(NULL, 0, "\"\""), "empty string");
    CHECK(PUT("plain text, caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80", "\"plain text, caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80\""),
          "valid UTF-8 is copied");
    CHECK(PUT("a\"b\\c\nd\te\rf\x01g\x7fh\x1f", "\"a\\\"b\\\\c\\nd\\te\\u000df\\u0001g\\u007fh\\u001f\""),
          "quotes, backslashes, newline, tab, other controls and DEL escaped");
    CHECK(PUT("a\0b", "\"a\\u0000b\""), "NUL byte");
    /* Unicode 15, Table 3-8: 61 F1 80 80 E1 80 C2 62 80 63 80 BF 64 */
    CHECK(PUT("\x61\xf1\x80\x80\xe1\x80\xc2\x62\x80\x63\x80\xbf\x64",
              "\"a" FFFD FFFD FFFD "b" FFFD "c" FFFD FFFD "d\""),
          "Table 3-8: a truncated sequence is one U+FFFD, a lone continuation byte one each");
    CHECK(PUT("\xed\xa0\x80 \xc0\xaf \xf4\x90\x80\x80 \xe0\x80\x80", "\"" FFFD FFFD FFFD " " FFFD FFFD " " FFFD FFFD FFFD FFFD
              " " FFFD FFFD FFFD "\""),
          "surrogates, overlong forms and code points past U+10FFFF: one U+FFFD per byte");
    CHECK(PUT("ok\xe2\x82", "\"ok" FFFD "\""), "a sequence cut by the end is one U+FFFD");
    CHECK(PUT("\"\xff\"", "\"\\\"" FFFD "\\\"\""), "repair and escapes together");
    TEST_END();
}
