/* test_text_pystr.c - lib/text/pystr.c: str.isspace() for every code point
 * against CPython (run once through a pipe), str.strip(), isspace() and
 * split("\n") of strings with Unicode blanks against exact expectations,
 * the escapes of --join/--empty, and sep.join with --empty's substitution. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "text/pystr.h"
#include "test.h"

static int same(const char *p, size_t n, const char *want) { return n == strlen(want) && memcmp(p, want, n) == 0; }

static int strips_to(const char *s, const char *want) {
    size_t a, b;
    cal_py_strip(s, strlen(s), &a, &b);
    return same(s + a, b - a, want);
}

int main(void) {
    /* Every code point: CPython prints the whitespace ones. */
    static unsigned char space[0x110000];
    FILE *py = popen("/usr/bin/python3 -c \"print(*(c for c in range(0x110000) if chr(c).isspace()))\"", "r");
    size_t listed = 0, mismatches = 0;
    for (long c; py && fscanf(py, "%ld", &c) == 1 && c >= 0 && c < 0x110000; listed++) space[c] = 1;
    CHECK(py && pclose(py) == 0 && listed > 20, "CPython lists its %zu whitespace code points", listed);
    for (int32_t c = 0; c < 0x110000; c++) mismatches += !cal_py_space(c) != !space[c];
    CHECK(mismatches == 0, "cal_py_space as CPython's isspace() on every code point (%zu differ)", mismatches);

    CHECK(strips_to("  \xC2\xA0" "a b\xE3\x80\x80\n", "a b"), "strip: NBSP and ideographic space go, inner space stays");
    CHECK(strips_to("\t\x1C\xE2\x80\xA8x\xC2\x85", "x"), "strip: U+001C, U+2028 and U+0085");
    CHECK(strips_to("\xE2\x80\x8B" "a\xE2\x80\x8B", "\xE2\x80\x8B" "a\xE2\x80\x8B"), "strip: U+200B is not whitespace");
    CHECK(strips_to(" \n\t ", "") && strips_to("", ""), "strip: all blank, or empty, leaves nothing");
    CHECK(cal_py_isspace("\t \xE3\x80\x80", 5) && !cal_py_isspace("", 0) && !cal_py_isspace(" a", 2),
          "isspace: blank yes; empty and text no");

    const char *t = "x\n\n \ny";
    size_t n = strlen(t), k = 0;
    const char *want[] = {"x", "", " ", "y"};
    int ok = 1;
    for (size_t len;; t += len + 1, n -= len + 1, k++) {
        len = cal_py_line(t, n);
        ok &= k < 4 && same(t, len, want[k]);
        if (len == n) break;
    }
    CHECK(ok && k == 3, "split(\"\\n\"): x, empty, blank, y");
    CHECK(cal_py_line("ab\n", 3) == 2 && cal_py_line("ab", 2) == 2, "a trailing newline leaves an empty last piece");

    char *u = cal_py_unescape("--join", "a\\n\\n\\t\\r\\\\b");
    CHECK(strcmp(u, "a\n\n\t\r\\b") == 0, "unescape \\n \\t \\r \\\\");
    free(u);

    cal_join j = {.sep = "\n\n", .empty = " \n", .max = 100};
    CHECK(cal_join_add(&j, "first", "a", 1) == 0 && cal_join_add(&j, "second", "", 0) == 0 &&
              cal_join_add(&j, "third", "b", 1) == 0,
          "join three");
    CHECK(same(j.text.p, j.text.n, "a\n\n \n\n\nb") && strcmp(j.label, "first") == 0 && j.docs == 3,
          "sep.join, the empty one as --empty, the first label");
    cal_join_free(&j);
    j = (cal_join){.sep = "", .max = 4};
    CHECK(cal_join_add(&j, "l", "abc", 3) == 0 && cal_join_add(&j, "l", "", 0) == 0 && cal_join_add(&j, "l", "de", 2) < 0 &&
              same(j.text.p, j.text.n, "abc"),
          "an empty document joins as itself without --empty; the limit refuses what exceeds it");
    cal_join_free(&j);
    TEST_END();
}
