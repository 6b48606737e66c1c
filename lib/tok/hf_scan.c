/* tok_hf_scan.c - hand-written scanners for the pre-tokenizer regexes of the
 * common models. Each replays the regex engine's leftmost-first alternation
 * (with its backtracking) over UTF-8, with the Unicode 16.0 categories and
 * White_Space of onig (the reference's engine; tok/unicode.h). Tested
 * against PCRE2 in tests/unit/test_tok_hf_scan.c. */
#include <pthread.h>
#include <string.h>

#include "base/utf8.h"
#include "tok/hf_int.h"
#include "tok/unicode.h"

static const char P_LLAMA3[] =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
static const char P_QWEN[] =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
static const char P_O200K[] =
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
    "|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
    "|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
static const char P_GPT2[] = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";
static const char P_DS_DIGITS[] = "\\p{N}{1,3}";
static const char P_DS_CJK[] = "[\xe4\xb8\x80-\xe9\xbe\xa5\xe3\x81\x80-\xe3\x82\x9f\xe3\x82\xa0-\xe3\x83\xbf]+";
static const char P_DS_MAIN[] =
    "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+"
    "| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+";

const char *th_scanner_pattern(int scanner)
{
    switch (scanner) {
    case TH_RE_LLAMA3: return P_LLAMA3;
    case TH_RE_QWEN: return P_QWEN;
    case TH_RE_O200K: return P_O200K;
    case TH_RE_GPT2: return P_GPT2;
    case TH_RE_DS_DIGITS: return P_DS_DIGITS;
    case TH_RE_DS_CJK: return P_DS_CJK;
    case TH_RE_DS_MAIN: return P_DS_MAIN;
    }
    return NULL;
}

static uint16_t ascii_cls[128];
static unsigned cls_of(int32_t c);
static void ascii_init(void)
{
    for (int c = 0; c < 128; c++) ascii_cls[c] = (uint16_t)cls_of(c);
}

/* Every load goes through here, so the ASCII table is ready before any scan. */
int th_scanner_for(const char *pattern, size_t len)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    (void)pthread_once(&once, ascii_init);
    for (int k = TH_RE_LLAMA3; k <= TH_RE_DS_MAIN; k++) {
        const char *p = th_scanner_pattern(k);
        if (strlen(p) == len && !memcmp(p, pattern, len)) return k;
    }
    return TH_RE_PCRE;
}

/* character classes */
enum { C_LU = 1, C_LL = 2, C_LT = 4, C_LM = 8, C_LO = 16, C_M = 32, C_N = 64, C_P = 128, C_S = 256, C_WS = 512, C_CRLF = 1024 };
#define C_L (C_LU | C_LL | C_LT | C_LM | C_LO)
#define C_U (C_LU | C_LT | C_LM | C_LO | C_M)  /* o200k's upper-ish class */
#define C_W (C_LL | C_LM | C_LO | C_M)         /* o200k's lower-ish class */

static unsigned cls_of(int32_t c)
{
    unsigned p = tu_props(c);
    unsigned r = p & TU_SPACE ? C_WS : 0;
    if (c == '\r' || c == '\n') r |= C_CRLF;
    switch (p & TU_GC) {
    case TU_LU: return r | C_LU;
    case TU_LL: return r | C_LL;
    case TU_LT: return r | C_LT;
    case TU_LM: return r | C_LM;
    case TU_LO: return r | C_LO;
    case TU_MN: case TU_MC: case TU_ME: return r | C_M;
    case TU_ND: case TU_NL: case TU_NO: return r | C_N;
    case TU_PC: case TU_PD: case TU_PS: case TU_PE: case TU_PI: case TU_PF: case TU_PO: return r | C_P;
    case TU_SM: case TU_SC: case TU_SK: case TU_SO: return r | C_S;
    default: return r;
    }
}

/* class and code point of the character at s[i]; *n = its byte length (0 at the end) */
static inline unsigned cat(const char *s, size_t len, size_t i, size_t *n, int32_t *cp)
{
    if (i >= len) { *n = 0; *cp = -1; return 0; }
    unsigned char b = (unsigned char)s[i];
    if (b < 0x80) {
        *n = 1; *cp = b;
        return ascii_cls[b];
    }
    *n = cal_utf8_next(s, len, i, cp);
    return cls_of(*cp);
}

/* end of the run of characters in class mask m from i (ASCII in a tight loop) */
static size_t run(const char *s, size_t len, size_t i, unsigned m)
{
    size_t n;
    int32_t c;
    for (;;) {
        while (i < len && (unsigned char)s[i] < 0x80)
            if (ascii_cls[(unsigned char)s[i]] & m) i++;
            else return i;
        if (i >= len || !(cat(s, len, i, &n, &c) & m)) return i;
        i += n;
    }
}

/* run(s, len, i, C_L), ASCII letters 8 at a time */
static size_t run_letters(const char *s, size_t len, size_t i)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t hi = 0x8080808080808080ull, ones = 0x0101010101010101ull;
    while (i + 8 <= len) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        /* per byte b < 0x80: b | 0x20 in 'a'..'z'; a byte >= 0x80 may carry
         * into the bytes above it, which the lowest non-letter hides */
        uint64_t x = w | 0x20 * ones;
        uint64_t letter = (x + (0x80 - 'a') * ones) & ~(x + (0x80 - 'z' - 1) * ones) & ~w & hi;
        if (letter == hi) { i += 8; continue; }
        i += (size_t)__builtin_ctzll(~letter & hi) / 8;
        if ((unsigned char)s[i] < 0x80) return i;
        break;
    }
#endif
    return run(s, len, i, C_L);
}

static size_t run_not(const char *s, size_t len, size_t i, unsigned m)
{
    size_t n;
    int32_t c;
    for (;;) {
        while (i < len && (unsigned char)s[i] < 0x80)
            if (!(ascii_cls[(unsigned char)s[i]] & m)) i++;
            else return i;
        if (i >= len || (cat(s, len, i, &n, &c) & m)) return i;
        i += n;
    }
}

/* (?i:'s|'t|'re|'ve|'m|'ll|'d) at i; returns its end or 0 */
static size_t contraction(const char *s, size_t len, size_t i, int icase)
{
    if (i >= len || s[i] != '\'') return 0;
    size_t n1, n2;
    int32_t a, b;
    cat(s, len, i + 1, &n1, &a);
    if (!n1) return 0;
    cat(s, len, i + 1 + n1, &n2, &b);
    if (icase) {
        if (a == 0x17F) a = 's'; /* LATIN SMALL LETTER LONG S folds to s */
        if (b == 0x17F) b = 's';
        if (a >= 'A' && a <= 'Z') a += 32;
        if (b >= 'A' && b <= 'Z') b += 32;
    }
    if (a == 's' || a == 't' || a == 'm' || a == 'd') return i + 1 + n1;
    if (n2 && ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l'))) return i + 1 + n1 + n2;
    return 0;
}

/* \s*[\r\n]+ | \s+(?!\S) | \s+ at i (s[i] is white space) */
static size_t spaces(const char *s, size_t len, size_t i)
{
    size_t j = i, lastnl = 0, n, prevstart = i;
    int haveln = 0, count = 0;
    int32_t c;
    unsigned k;
    while (j < len && ((k = cat(s, len, j, &n, &c)) & C_WS)) {
        if (k & C_CRLF) { lastnl = j + n; haveln = 1; }
        prevstart = j;
        j += n;
        count++;
    }
    if (haveln) return lastnl;
    if (j == len || count == 1) return j;
    return prevstart; /* leave the last white space to the next word */
}

static size_t scan_llama3(const char *s, size_t len, size_t i, int maxn)
{
    size_t n0, n1, e;
    int32_t c0, c1;
    unsigned k0 = cat(s, len, i, &n0, &c0);
    if (c0 == '\'' && (e = contraction(s, len, i, 1))) return e;
    if (k0 & C_L) return run_letters(s, len, i + n0);
    unsigned k1 = cat(s, len, i + n0, &n1, &c1);
    if (!(k0 & (C_CRLF | C_N)) && (k1 & C_L)) return run_letters(s, len, i + n0 + n1);
    if (k0 & C_N) {
        size_t j = i + n0;
        for (int m = 1; m < maxn && (cat(s, len, j, &n1, &c1) & C_N); m++) j += n1;
        return j;
    }
    size_t j = i;
    if (c0 == ' ' && n1 && !(k1 & (C_WS | C_L | C_N))) j = i + 1;
    else if (k0 & C_WS) return spaces(s, len, i);
    j = run_not(s, len, j, C_WS | C_L | C_N);
    return run(s, len, j, C_CRLF);
}

/* [U]*[W]+ from q with the engine's backtracking; 0 if no match */
static size_t o200k_uw(const char *s, size_t len, size_t q)
{
    size_t j = q, lastw = 0, n;
    int32_t c;
    unsigned k;
    while (j < len && ((k = cat(s, len, j, &n, &c)) & C_U)) {
        if (k & C_W) lastw = j + n;
        j += n;
    }
    if (j < len && (cat(s, len, j, &n, &c) & C_W)) return run(s, len, j, C_W);
    return lastw; /* U* gave back up to the last character also in W */
}

static size_t o200k_tail(const char *s, size_t len, size_t e)
{
    size_t c = contraction(s, len, e, 1);
    return c ? c : e;
}

static size_t scan_o200k(const char *s, size_t len, size_t i)
{
    size_t n0, n1, e;
    int32_t c0, c1;
    unsigned k0 = cat(s, len, i, &n0, &c0);
    int pre = !(k0 & (C_CRLF | C_L | C_N));
    if (pre && (e = o200k_uw(s, len, i + n0))) return o200k_tail(s, len, e);
    if ((k0 & (C_U | C_W)) && (e = o200k_uw(s, len, i))) return o200k_tail(s, len, e);
    unsigned k1 = cat(s, len, i + n0, &n1, &c1);
    if (pre && (k1 & C_U)) return o200k_tail(s, len, run(s, len, run(s, len, i + n0, C_U), C_W));
    if (k0 & C_U) return o200k_tail(s, len, run(s, len, run(s, len, i, C_U), C_W));
    if (k0 & C_N) {
        size_t j = i + n0;
        for (int m = 1; m < 3 && (cat(s, len, j, &n1, &c1) & C_N); m++) j += n1;
        return j;
    }
    size_t j = i;
    if (c0 == ' ' && n1 && !(k1 & (C_WS | C_L | C_N))) j = i + 1;
    else if (k0 & C_WS) return spaces(s, len, i);
    j = run_not(s, len, j, C_WS | C_L | C_N);
    while (j < len && (s[j] == '\r' || s[j] == '\n' || s[j] == '/')) j++;
    return j;
}

static size_t scan_gpt2(const char *s, size_t len, size_t i)
{
    size_t n0, n1, e;
    int32_t c0, c1;
    unsigned k0 = cat(s, len, i, &n0, &c0);
    if ((e = contraction(s, len, i, 0))) return e;
    unsigned k1 = cat(s, len, i + n0, &n1, &c1);
    size_t q = i;
    unsigned kq = k0;
    if (c0 == ' ' && n1) { q = i + 1; kq = k1; }
    if (kq & C_L) return run(s, len, q, C_L);
    if (kq & C_N) return run(s, len, q, C_N);
    if (!(kq & C_WS)) return run_not(s, len, q, C_WS | C_L | C_N);
    /* here s[i] is white space */
    size_t j = i, prevstart = i, n;
    int count = 0;
    while (j < len && (cat(s, len, j, &n, &c1) & C_WS)) { prevstart = j; j += n; count++; }
    if (j == len || count == 1) return j;
    return prevstart;
}

/* DeepSeek-V3 main pattern at i; 0 if nothing matches at i */
static size_t scan_ds_main(const char *s, size_t len, size_t i)
{
    size_t n0, n1;
    int32_t c0, c1;
    unsigned k0 = cat(s, len, i, &n0, &c0);
    unsigned k1 = cat(s, len, i + n0, &n1, &c1);
    if (c0 < 128 && c0 > 32 && strchr("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", (int)c0) &&
        n1 && ((c1 >= 'A' && c1 <= 'Z') || (c1 >= 'a' && c1 <= 'z'))) {
        size_t j = i + 1;
        while (j < len && ((s[j] >= 'A' && s[j] <= 'Z') || (s[j] >= 'a' && s[j] <= 'z'))) j++;
        return j;
    }
    if (!(k0 & (C_CRLF | C_L | C_P | C_S)) && (k1 & (C_L | C_M))) return run(s, len, i + n0, C_L | C_M);
    if (k0 & (C_L | C_M)) return run(s, len, i, C_L | C_M);
    size_t j = i;
    if (c0 == ' ' && (k1 & (C_P | C_S))) j = i + 1;
    if (j > i || (k0 & (C_P | C_S))) {
        j = run(s, len, j, C_P | C_S);
        return run(s, len, j, C_CRLF);
    }
    if (k0 & C_WS) return spaces(s, len, i);
    return 0;
}

static int in_cjk(int32_t c)
{
    return (c >= 0x4E00 && c <= 0x9FA5) || (c >= 0x3040 && c <= 0x309F) || (c >= 0x30A0 && c <= 0x30FF);
}

static inline int scan_next(int scanner, const char *s, size_t len, size_t from, size_t *ms, size_t *me)
{
    if (from >= len) return 0;
    size_t e = 0, i = from, n;
    int32_t c;
    switch (scanner) {
    case TH_RE_LLAMA3: e = scan_llama3(s, len, i, 3); break;
    case TH_RE_QWEN: e = scan_llama3(s, len, i, 1); break;
    case TH_RE_O200K: e = scan_o200k(s, len, i); break;
    case TH_RE_GPT2: e = scan_gpt2(s, len, i); break;
    case TH_RE_DS_DIGITS:
        while (i < len && !(cat(s, len, i, &n, &c) & C_N)) i += n;
        if (i >= len) return 0;
        e = i;
        for (int m = 0; m < 3 && e < len && (cat(s, len, e, &n, &c) & C_N); m++) e += n;
        break;
    case TH_RE_DS_CJK:
        while (i < len) { cal_utf8_next(s, len, i, &c); if (in_cjk(c)) break; i += cal_utf8_next(s, len, i, &c); }
        if (i >= len) return 0;
        e = i;
        while (e < len) { n = cal_utf8_next(s, len, e, &c); if (!in_cjk(c)) break; e += n; }
        break;
    case TH_RE_DS_MAIN:
        while (i < len && !(e = scan_ds_main(s, len, i))) i += cal_utf8_next(s, len, i, &c);
        if (i >= len) return 0;
        break;
    default: return 0;
    }
    *ms = i; *me = e;
    return 1;
}

int th_scan_next(int scanner, const char *s, size_t len, size_t from, size_t *ms, size_t *me)
{
    return scan_next(scanner, s, len, from, ms, me);
}

/* The commonest matches, ASCII words, without the general machinery: the
 * end of the match at i, or 0 when the full scanner must decide. */

/* Llama 3, Qwen: [^\r\n\p{L}\p{N}]?\p{L}+ from an ASCII letter, or from
 * another ASCII character but CR, LF, a digit or an apostrophe (which may
 * start a contraction) followed by an ASCII letter */
static inline size_t llama3_ascii(const char *s, size_t len, size_t i)
{
    unsigned char c0 = (unsigned char)s[i], c1;
    if (c0 >= 0x80) return 0;
    if (ascii_cls[c0] & C_L) return run_letters(s, len, i + 1);
    if (i + 1 < len && c0 != '\'' && !(ascii_cls[c0] & (C_CRLF | C_N)) && (c1 = (unsigned char)s[i + 1]) < 0x80 &&
        (ascii_cls[c1] & C_L))
        return run_letters(s, len, i + 2);
    return 0;
}

/* o200k: an optional prefix (not CR, LF, a letter or a digit), then
 * [A-Z]*[a-z]*, at least one letter, ended by an ASCII character that is
 * not an apostrophe (a contraction may follow) */
static inline size_t o200k_ascii(const char *s, size_t len, size_t i)
{
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x80) return 0;
    size_t j = i;
    if (!(ascii_cls[c] & C_L)) {
        if (ascii_cls[c] & (C_CRLF | C_N)) return 0;
        j++;
    }
    size_t w = j;
    while (j < len && s[j] >= 'A' && s[j] <= 'Z') j++;
    while (j < len && s[j] >= 'a' && s[j] <= 'z') j++;
    if (j == w || (j < len && ((unsigned char)s[j] >= 0x80 || s[j] == '\''))) return 0;
    return j;
}

size_t th_scan_many(int scanner, const char *s, size_t len, size_t *from, size_t *ms, size_t *me, size_t max)
{
    size_t k = 0, f = *from, e;
    /* these patterns match at every position: the match at f ends the piece */
#define EVERY(CALL) for (; k < max && f < len && (me[k] = (CALL)) > f; k++) ms[k] = f, f = me[k]
    switch (scanner) {
    case TH_RE_LLAMA3: EVERY((e = llama3_ascii(s, len, f)) ? e : scan_llama3(s, len, f, 3)); break;
    case TH_RE_QWEN: EVERY((e = llama3_ascii(s, len, f)) ? e : scan_llama3(s, len, f, 1)); break;
    case TH_RE_O200K: EVERY((e = o200k_ascii(s, len, f)) ? e : scan_o200k(s, len, f)); break;
    case TH_RE_GPT2: EVERY(scan_gpt2(s, len, f)); break;
    }
#undef EVERY
    while (k < max && scan_next(scanner, s, len, f, &ms[k], &me[k])) {
        if (me[k] > ms[k]) f = me[k];
        else if (ms[k] >= len) f = len + 1;
        else { int32_t c; f = ms[k] + cal_utf8_next(s, len, ms[k], &c); } /* empty: one character on */
        k++;
    }
    *from = f;
    return k;
}
