/* test_text_length.c - lib/text/length.c: characters of UTF-8 text, and the
 * pieces of --max-chars against a reference written over an array of
 * characters (random texts of letters, spaces, newlines and multi-byte
 * characters, every max from 1 to 40), plus exact cases. */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "text/length.h"

/* The reference: start[j] is the byte where character j begins. */
static size_t ref_piece(const char *p, size_t n, unsigned max) {
    size_t start[512], m = 0;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)p[i] & 0xC0) != 0x80) start[m++] = i;
    start[m] = n;
    if (m <= max) return n;
    size_t nl = 0, sp = 0;
    for (size_t j = max / 2 + 1; j <= max; j++) { /* character j (1-based) ends at start[j] */
        if (p[start[j - 1]] == '\n') nl = start[j];
        if (p[start[j - 1]] == ' ') sp = start[j];
    }
    return nl ? nl : sp ? sp : start[max];
}

int main(void) {
    CHECK(cal_text_chars("", 0) == 0 && cal_text_chars("a\xC3\xA9\xF0\x9F\x98\x80\0", 8) == 4, "characters");
    CHECK(cal_text_piece("hello", 5, 0) == 5 && cal_text_piece("hello", 5, 5) == 5 && cal_text_piece("hello", 5, 9) == 5,
          "a text that fits is one piece");
    CHECK(cal_text_piece("aaaa bbbb cccc", 14, 10) == 10, "cut after the last space in the second half");
    CHECK(cal_text_piece("aa\naaa bbbb", 11, 10) == 7, "a space in the second half wins over a newline in the first");
    CHECK(cal_text_piece("aaaa b\nbb bb", 12, 10) == 7, "a newline in the second half wins over a later space");
    CHECK(cal_text_piece("a bbbbbbbbbbbb", 14, 10) == 10, "no break in the second half: a hard cut");
    CHECK(cal_text_piece("\xC3\xA9\xC3\xA9\xC3\xA9", 6, 2) == 4, "never inside a character");
    CHECK(cal_text_piece("ab", 2, 1) == 1, "max 1");

    srand(7);
    const char *alpha[] = {"a", "b", " ", "\n", "\xC3\xA9", "\xF0\x9F\x98\x80", "\r", "\0"};
    int bad = 0, rejoin = 0;
    for (int t = 0; t < 3000; t++) {
        char s[400];
        size_t n = 0, m = (size_t)(rand() % 80);
        for (size_t i = 0; i < m; i++) {
            const char *c = alpha[rand() % 8];
            size_t k = *c ? strlen(c) : 1;
            memcpy(s + n, c, k), n += k;
        }
        unsigned max = 1 + (unsigned)(rand() % 40);
        bad += cal_text_piece(s, n ? n : 1, max) != ref_piece(s, n ? n : 1, max);
        size_t total = 0, pieces = 0;
        for (size_t off = 0, cut; off < n; off += cut, pieces++) {
            cut = cal_text_piece(s + off, n - off, max);
            bad += cut == 0 || cal_text_chars(s + off, cut) > max;
            total += cut;
        }
        rejoin += total != n;
    }
    CHECK(bad == 0, "3000 random texts: pieces as the reference, each within max characters (%d wrong)", bad);
    CHECK(rejoin == 0, "the pieces rejoin to the text");
    TEST_END();
}
