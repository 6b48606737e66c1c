/* test_tok_hf_nfc.c - th_norm_quick (NFC/NFKC that skip what the normal
 * form leaves alone) gives exactly what th_normalize gives on the whole
 * text: every code point after a letter and before combining marks, Hangul
 * jamo and syllables, and random mixes of starters, marks and compatibility
 * characters. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "test.h"
#include "tok/hf_int.h"

static uint64_t rs = 0x2545F4914F6CDD1Dull;
static uint32_t rnd(uint32_t n)
{
    rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17;
    return (uint32_t)(rs % n);
}

static size_t put(char *o, int32_t c) { return (size_t)utf8proc_encode_char(c, (utf8proc_uint8_t *)o); }

static void show(const char *s, size_t n)
{
    printf("# \"");
    for (size_t i = 0; i < n && i < 120; i++) printf((unsigned char)s[i] < 32 || (unsigned char)s[i] > 126 ? "\\x%02x" : "%c", (unsigned char)s[i]);
    printf("\"\n");
}

/* 1 when th_norm_quick and th_normalize agree on s */
static int agree(const tok_hf *t, const char *s, size_t n, int *changed)
{
    char *a, *b, err[256];
    size_t an, bn;
    if (th_normalize(t, s, n, &a, &an, err, sizeof err)) return 0;
    if (th_norm_quick(t, s, n, &b, &bn, err, sizeof err)) { free(a); return 0; }
    const char *q = b ? b : s;
    size_t qn = b ? bn : n;
    int ok = an == qn && !memcmp(a, q, an);
    if (b) ++*changed;
    if (!ok) show(s, n);
    free(a); free(b);
    return ok;
}

int main(void)
{
    /* marks, jamo, compatibility characters, starters that compose */
    static const int32_t atoms[] = { 'a', 'e', 'A', ' ', '1', 0x301, 0x300, 0x308, 0x323, 0x327, 0x345, 0x5B0,
        0x93C, 0x94D, 0x9BE, 0x9C7, 0xB3E, 0xB47, 0xBBE, 0xBC6, 0xCC2, 0xCC6, 0xD3E, 0xD46, 0xDCF, 0xDD9, 0x102E,
        0x1025, 0x1100, 0x1161, 0x11A8, 0xAC00, 0xAC01, 0x3099, 0x309A, 0x304B, 0x30AB, 0xFF76, 0xFF9E, 0x212B,
        0x2126, 0x1E0B, 0x1E0D, 0xC5, 0xE9, 0xFB01, 0x2460, 0x1D15E, 0x1D165, 0x1D16E, 0x0F73, 0x0F71, 0x0F72,
        0x344, 0x340, 0x1B05, 0x1B35, 0x110A5, 0x110BA, 0x11131, 0x11127, 0xFDD0, 0x4E00, 0xF900, 0x2F800,
        0x1F600, 0x10FFFF };
    const size_t na = sizeof atoms / sizeof *atoms;
    char *buf = malloc(1 << 12);
    for (int form = 0; form < 2; form++) {
        th_norm nm;
        memset(&nm, 0, sizeof nm);
        nm.kind = form ? TH_N_NFKC : TH_N_NFC;
        tok_hf t;
        memset(&t, 0, sizeof t);
        t.norm = &nm;
        t.nnorm = 1;
        const char *name = form ? "NFKC" : "NFC";
        CHECK(th_norm_quick_kind(&t) == form + 1, "%s: th_norm_quick applies", name);
        int ok = 1, changed = 0;
        for (int32_t c = 0x80; c < 0x110000 && ok; c++) {
            if (c >= 0xD800 && c < 0xE000) continue;
            size_t n = 0;
            buf[n++] = 'x';
            n += put(buf + n, c);
            n += put(buf + n, 0x301);
            n += put(buf + n, c);
            buf[n++] = ' ';
            n += put(buf + n, 0x1100);
            n += put(buf + n, c);
            ok = agree(&t, buf, n, &changed) && agree(&t, buf + 1, n - 1, &changed);
        }
        CHECK(ok, "%s: every code point after a letter, before and after U+0301 and a jamo", name);
        CHECK(changed > 1000, "%s: the normal form changed %d of those texts", name, changed);
        ok = 1;
        for (int it = 0; it < 50000 && ok; it++) {
            size_t n = 0;
            for (int k = 1 + (int)rnd(12); k > 0; k--) n += put(buf + n, atoms[rnd((uint32_t)na)]);
            ok = agree(&t, buf, n, &changed);
        }
        CHECK(ok, "%s: 50000 random mixes of starters, marks, jamo and compatibility characters", name);
        char *o, err[256];
        size_t on;
        CHECK(th_norm_quick(&t, "plain ASCII text", 16, &o, &on, err, sizeof err) == 0 && !o, "%s: ASCII text is not copied", name);
        CHECK(th_norm_quick(&t, "caf\xc3\xa9 \xe4\xb8\xad", 9, &o, &on, err, sizeof err) == 0 && !o,
              "%s: text already normal is not copied", name);
    }
    free(buf);
    TEST_END();
}
