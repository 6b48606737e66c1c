/* hf_nfc.c - NFC and NFKC without the library where they change nothing.
 *
 * Most text is already in NFC (all ASCII is), yet the library decodes,
 * decomposes and recomposes every character. A character that is a starter
 * (combining class 0), that the normal form maps to itself, that is no
 * composition's second character and whose decomposition does not begin
 * with one, is left alone by the normal form, and the text can be cut
 * before it: the normal form of the whole is that of each part (UAX #15's
 * quick check, "NFC_QC=Yes" with class 0). So only the stretches from such a
 * character before each other character up to the next such character go
 * through th_normalize; the rest is copied.
 *
 * Which characters are safe comes from utf8proc's own data, once per
 * process, when a tokenizer that needs it is loaded (a few ms: built at
 * the first non-ASCII character instead, it stalled every thread that met
 * one meanwhile, and -j 2 began at the speed of -j 1): the combining
 * class, each decomposing character's normal forms, and, for the seconds,
 * every character after the first of any canonical decomposition (a second
 * b of a composite x = (a, b) ends up there in x's full decomposition) plus
 * the conjoining jamo, which Hangul composes by rule. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/utf8.h"
#include "tok/hf_int.h"

#define NCP 0x110000

static uint8_t unsafe_nfc[NCP / 8], unsafe_nfkc[NCP / 8];

static void mark(uint8_t *bits, int32_t c) { bits[c >> 3] |= (uint8_t)(1u << (c & 7)); }
static int marked(const uint8_t *bits, int32_t c) { return bits[c >> 3] >> (c & 7) & 1; }

/* 1 when the normal form opt maps the character c to itself */
static int fixed(int32_t c, int opt)
{
    utf8proc_uint8_t u[4], *r = NULL;
    utf8proc_ssize_t n = utf8proc_encode_char(c, u);
    utf8proc_ssize_t k = utf8proc_map(u, n, &r, (utf8proc_option_t)(UTF8PROC_STABLE | UTF8PROC_COMPOSE | opt));
    int same = k == n && !memcmp(r, u, (size_t)n);
    free(r);
    return same;
}

static void build(void)
{
    static uint8_t second[NCP / 8];
    /* the decomposing characters and the first character of each
     * decomposition (some 6,000: a list, not a table of every code point) */
    struct dec { int32_t c, first; } *dec = NULL;
    size_t ndec = 0, cap = 0;
    for (int32_t c = 0; c < NCP; c++) {
        const utf8proc_property_t *p = utf8proc_get_property(c);
        if (p->combining_class || (c >= 0x1100 && c <= 0x11FF)) mark(unsafe_nfc, c), mark(unsafe_nfkc, c);
        if (p->decomp_seqindex == UINT16_MAX) continue; /* Hangul syllables too: their parts are jamo */
        utf8proc_int32_t d[32];
        int last = 0;
        utf8proc_ssize_t n = utf8proc_decompose_char(c, d, 32, UTF8PROC_DECOMPOSE, &last);
        for (utf8proc_ssize_t k = 1; k < n && k < 32; k++) mark(second, d[k]);
        if (n > 0) {
            if (ndec == cap) dec = cal_xrealloc(dec, (cap = cap ? 2 * cap : 4096) * sizeof *dec);
            dec[ndec++] = (struct dec){ c, d[0] };
        }
        if (!fixed(c, 0)) mark(unsafe_nfc, c);
        if (!fixed(c, UTF8PROC_COMPAT)) mark(unsafe_nfkc, c);
    }
    for (size_t i = 0; i < NCP / 8; i++) unsafe_nfc[i] |= second[i], unsafe_nfkc[i] |= second[i];
    for (size_t i = 0; i < ndec; i++)
        if (marked(second, dec[i].first)) mark(unsafe_nfc, dec[i].c), mark(unsafe_nfkc, dec[i].c);
    free(dec);
}

static pthread_once_t built = PTHREAD_ONCE_INIT;

void th_norm_quick_prepare(const tok_hf *t)
{
    if (th_norm_quick_kind(t) && !t->nq_bits) (void)pthread_once(&built, build);
}

int th_norm_quick_kind(const tok_hf *t)
{
    if (t->nnorm != 1) return 0;
    return t->norm[0].kind == TH_N_NFC ? 1 : t->norm[0].kind == TH_N_NFKC ? 2 : 0;
}

const uint8_t *th_norm_quick_bits(const tok_hf *t, size_t *len)
{
    int kind = th_norm_quick_kind(t);
    if (!kind) return NULL;
    (void)pthread_once(&built, build);
    *len = NCP / 8;
    return kind == 2 ? unsafe_nfkc : unsafe_nfc;
}

int th_norm_quick(const tok_hf *t, const char *s, size_t len, char **out, size_t *out_len, char *err, size_t errlen)
{
    int kind = th_norm_quick_kind(t);
    /* the table from a prepared image, else this process's (built once) */
    const uint8_t *bits = t->nq_bits ? t->nq_bits : kind == 2 ? unsafe_nfkc : unsafe_nfc;
    size_t i = 0, bound = 0, done = 0;
    cal_buf o = { 0 };
    *out = NULL;
    while (i < len) {
        if ((unsigned char)s[i] < 0x80) { /* ASCII: safe, 8 bytes at a time */
            uint64_t w;
            while (i + 9 <= len && (memcpy(&w, s + i + 1, 8), !(w & 0x8080808080808080ull))) i += 8;
            bound = i++;
            continue;
        }
        if (!t->nq_bits) (void)pthread_once(&built, build); /* not prepared: a tokenizer made by hand */
        int32_t c;
        size_t k = cal_utf8_next(s, len, i, &c);
        if (c >= 0 && !(bits[c >> 3] & (1u << (c & 7)))) { bound = i; i += k; continue; }
        /* from the last safe character to the next one */
        size_t a = bound > done ? bound : done, e = i + k;
        while (e < len && (unsigned char)s[e] >= 0x80) {
            k = cal_utf8_next(s, len, e, &c);
            if (c >= 0 && !(bits[c >> 3] & (1u << (c & 7)))) break;
            e += k;
        }
        char *nz;
        size_t nn;
        if (th_normalize(t, s + a, e - a, &nz, &nn, err, errlen)) { cal_buf_free(&o); return -1; }
        cal_buf_add(&o, s + done, a - done);
        cal_buf_add(&o, nz, nn);
        free(nz);
        done = bound = i = e;
    }
    if (!o.p) return 0; /* nothing to change */
    cal_buf_add(&o, s + done, len - done);
    *out = o.p;
    *out_len = o.n;
    return 0;
}
