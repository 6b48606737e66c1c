/* test_text_hygiene.c - lib/text/hygiene.c: valid UTF-8 (NUL and every C0
 * and C1 control included) passes untouched; invalid UTF-8 is repaired as
 * base/utf8.h repairs it (CPython's errors="replace", checked there) and
 * counted, or refused with --strict naming the byte; --crlf and --nfc (NFC
 * against CPython's unicodedata). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/utf8.h"
#include "child.h"
#include "test.h"
#include "text/hygiene.h"

static cal_hygiene H;

static int same(const char *p, size_t n, const char *q, size_t m) { return n == m && !memcmp(p, q, n); }

static void strict_run(void *arg) {
    cal_doc *d = arg;
    size_t n;
    cal_hygiene h = {.strict = 1};
    cal_hygiene_apply(&h, d, &n);
    cal_hygiene_free(&h);
}

int main(void) {
    cal_set_progname("t");
    char ctl[256];
    size_t cn = 0;
    for (int c = 0; c < 0x20; c++) ctl[cn++] = (char)c, ctl[cn++] = 'a';
    ctl[cn++] = 0x7f;
    for (int c = 0x80; c < 0xa0; c++) ctl[cn++] = (char)0xC2, ctl[cn++] = (char)c;
    cal_doc d = {"f", ctl, cn, 100, 1, 0, NULL, 0};
    size_t n;
    const char *t = cal_hygiene_apply(&H, &d, &n);
    CHECK(t == ctl && n == cn && H.replaced == 0, "NUL, C0, DEL and C1 controls pass untouched (no copy)");

    const char bad[] = "ok \xff bad \xc0\xaf x\xe0\xa0" "y\xf0\x9f\x98" "z\xed\xa0\x80";
    cal_buf want = {0};
    size_t k = cal_utf8_repair(bad, sizeof bad - 1, &want);
    d = (cal_doc){"f", bad, sizeof bad - 1, 0, 1, 0, NULL, 0};
    t = cal_hygiene_apply(&H, &d, &n);
    CHECK(same(t, n, want.p, want.n) && H.replaced == k && k == 8, "invalid UTF-8 repaired as base/utf8.h does, counted (%zu)", k);

    char msg[256];
    d = (cal_doc){"in.txt", bad, sizeof bad - 1, 1000, 1, 0, NULL, 0};
    int st = t_child(strict_run, &d, msg, sizeof msg);
    CHECK(st == 1 && !strcmp(msg, "t: in.txt: byte 1003: invalid UTF-8"), "strict: the bad byte's offset: %s", msg);
    d.mapped = 0;
    st = t_child(strict_run, &d, msg, sizeof msg);
    CHECK(st == 1 && !strcmp(msg, "t: in.txt: byte 1000: invalid UTF-8"), "strict, not mapped: the document's: %s", msg);
    d = (cal_doc){"in.txt", "a\0b\x01", 4, 0, 1, 0, NULL, 0};
    st = t_child(strict_run, &d, msg, sizeof msg);
    CHECK(st == 0, "strict accepts NUL and controls: %s", msg);

    H.crlf = 1;
    d = (cal_doc){"f", "a\r\nb\rc\n\r\n\r", 10, 0, 1, 0, NULL, 0};
    t = cal_hygiene_apply(&H, &d, &n);
    CHECK(same(t, n, "a\nb\rc\n\n\r", 8), "--crlf: CRLF -> LF, lone CRs kept");
    d = (cal_doc){"f", "\xff\r\n", 3, 0, 1, 0, NULL, 0};
    t = cal_hygiene_apply(&H, &d, &n);
    CHECK(same(t, n, "\xEF\xBF\xBD\n", 4), "--crlf after a repair");
    H.crlf = 0;

    /* NFC against CPython on text with decomposed letters, controls and NUL. */
    const char *src = "e\xCC\x81 A\xCC\x8A \xE1\x84\x80\xE1\x85\xA1 \x00\x01 \xEF\xAC\x81 \xE2\x84\xAB";
    size_t sn = 25;
    FILE *py = popen("/usr/bin/python3 -c \"import unicodedata, sys;"
                     "s = 'e\\u0301 A\\u030a \\u1100\\u1161 \\x00\\x01 \\ufb01 \\u212b';"
                     "sys.stdout.buffer.write(unicodedata.normalize('NFC', s).encode())\"",
                     "r");
    char nfc[64];
    size_t nn = py ? fread(nfc, 1, sizeof nfc, py) : 0;
    CHECK(py && pclose(py) == 0 && nn > 0, "CPython's NFC");
    H.nfc = 1;
    d = (cal_doc){"f", src, sn, 0, 1, 0, NULL, 0};
    t = cal_hygiene_apply(&H, &d, &n);
    CHECK(same(t, n, nfc, nn), "--nfc as CPython's unicodedata.normalize('NFC')");
    H.nfc = H.crlf = 1;
    d = (cal_doc){"f", "e\xCC\x81\r\n\xff", 6, 0, 1, 0, NULL, 0};
    t = cal_hygiene_apply(&H, &d, &n);
    CHECK(same(t, n, "\xC3\xA9\n\xEF\xBF\xBD", 6), "repair, --crlf and --nfc together");
    cal_buf_free(&want);
    cal_hygiene_free(&H);
    TEST_END();
}
