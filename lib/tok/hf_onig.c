/* hf_onig.c - Oniguruma's pattern syntax, as PCRE2 patterns.
 *
 * The reference (the Rust HF tokenizers) compiles Split and Replace regexes
 * with Oniguruma in its default syntax; calkit matches them with PCRE2. The
 * two agree on most of a pattern but not all of it, and a pattern written
 * for Oniguruma may not even compile in PCRE2 (BLOOM's pre-tokenizer
 * ` ?[^(\s|[.,!?…。，、।۔،])]+` nests a class in a class). So every pattern
 * is read here with Oniguruma's grammar and written out for PCRE2:
 *
 * - A character class becomes the explicit set of its code points: nested
 *   classes are unions, `&&` intersections, POSIX brackets ([:alpha:],
 *   [:^punct:]) and the escapes \s \w \d \h \p{..} are Oniguruma's sets
 *   (tok/unicode.h, Unicode 16.0; PCRE2 10.42 has Unicode 14 tables and its
 *   own \s, \w, \h); a leading ']' is literal; ranges and escapes (\uHHHH,
 *   \x{..}, octal, \cX, \C-X, \M-X, \t \n \r \f \v \a \e, \b) are code
 *   points. A negated class stays negated ([^...]), so that (?i) folds as
 *   Oniguruma folds it.
 * - Outside classes: \uHHHH -> \x{HHHH}, \v (a vertical tab, not PCRE2's
 *   class) -> \x{0b}, \h \H (hex digits), \O (any character) -> (?s:.),
 *   \b \B as look-arounds on Oniguruma's \w; (?m) is Oniguruma's dot-all,
 *   PCRE2's (?s); ^ and $ are always line anchors (PCRE2_MULTILINE); {,n}
 *   -> {0,n}; {n,m} with n > m is Oniguruma's possessive {m,n}; a
 *   quantifier on a quantifier ((X{2})+, X**: Oniguruma nests them, PCRE2
 *   reads {n}+ as possessive or refuses) wraps the first in (?:...); a '{'
 *   that starts no interval is a literal.
 * - Refused with a message, where PCRE2 has nothing to match them with:
 *   the absent operator (?~...), the text segment boundaries \y and \Y,
 *   the options other than i, m and x ((?W), (?D), (?S), (?P): ASCII-only
 *   classes), and the POSIX brackets [:upper:] and [:lower:] (Unicode's
 *   Uppercase and Lowercase properties are not in the tables).
 * - Known to differ: \X is PCRE2's grapheme cluster (Unicode 14 rules: an
 *   emoji followed by an emoji with a modifier stays one), and under (?i)
 *   Oniguruma folds a class member to several characters (U+FB00 matches
 *   "ff"), PCRE2 to one.
 * Checked against the reference over generated patterns (every escape,
 * class item and context, quantifier and atom) by
 * tests/sh/test_encode_onig.sh. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/utf8.h"
#include "tok/hf_int.h"
#include "tok/unicode.h"

/* ---- sets of code points ------------------------------------------------- */

typedef struct {
    uint32_t (*r)[2]; /* ranges [lo, hi], ascending, disjoint, not adjacent */
    size_t n, cap;
} cpset;

static void set_push(cpset *s, uint32_t lo, uint32_t hi)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 16;
        s->r = cal_xrealloc(s->r, s->cap * sizeof *s->r);
    }
    s->r[s->n][0] = lo;
    s->r[s->n][1] = hi;
    s->n++;
}

static int cmp_range(const void *a, const void *b)
{
    const uint32_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Sorts and merges the ranges. */
static void set_norm(cpset *s)
{
    if (s->n < 2) return;
    qsort(s->r, s->n, sizeof *s->r, cmp_range);
    size_t k = 0;
    for (size_t i = 1; i < s->n; i++) {
        if (s->r[i][0] <= s->r[k][1] + 1) {
            if (s->r[i][1] > s->r[k][1]) s->r[k][1] = s->r[i][1];
        } else s->r[++k][0] = s->r[i][0], s->r[k][1] = s->r[i][1];
    }
    s->n = k + 1;
}

static void set_add_set(cpset *s, const cpset *t)
{
    for (size_t i = 0; i < t->n; i++) set_push(s, t->r[i][0], t->r[i][1]);
    set_norm(s);
}

/* s = its complement in 0..0x10FFFF. */
static void set_invert(cpset *s)
{
    set_norm(s);
    cpset c = { 0 };
    uint32_t next = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (s->r[i][0] > next) set_push(&c, next, s->r[i][0] - 1);
        next = s->r[i][1] + 1;
    }
    if (next <= 0x10FFFF) set_push(&c, next, 0x10FFFF);
    free(s->r);
    *s = c;
}

/* s = s n t (both normalised). */
static void set_and(cpset *s, const cpset *t)
{
    cpset c = { 0 };
    for (size_t i = 0, j = 0; i < s->n && j < t->n;) {
        uint32_t lo = s->r[i][0] > t->r[j][0] ? s->r[i][0] : t->r[j][0];
        uint32_t hi = s->r[i][1] < t->r[j][1] ? s->r[i][1] : t->r[j][1];
        if (lo <= hi) set_push(&c, lo, hi);
        if (s->r[i][1] < t->r[j][1]) i++;
        else j++;
    }
    free(s->r);
    *s = c;
}

/* The ranges of (in, arg), kept: a scan of every code point takes
 * milliseconds, and a pattern names the same sets again and again. arg is
 * NULL or points to an int or a uint32_t mask (its value is the key). */
static struct {
    int (*in)(int32_t, const void *);
    uint32_t key;
    uint32_t (*r)[2];
    size_t n;
} kept[64];
static size_t nkept;
static pthread_mutex_t kept_mu = PTHREAD_MUTEX_INITIALIZER;

static size_t ranges_of(int (*in)(int32_t, const void *), const void *arg, int int_arg, uint32_t (**r)[2])
{
    uint32_t key = !arg ? 0 : int_arg ? (uint32_t) * (const int *)arg : *(const uint32_t *)arg;
    pthread_mutex_lock(&kept_mu);
    for (size_t i = 0; i < nkept; i++)
        if (kept[i].in == in && kept[i].key == key) {
            *r = cal_xmalloc(kept[i].n * sizeof **r + 1);
            memcpy(*r, kept[i].r, kept[i].n * sizeof **r);
            size_t n = kept[i].n;
            pthread_mutex_unlock(&kept_mu);
            return n;
        }
    pthread_mutex_unlock(&kept_mu);
    size_t n = tu_ranges(in, arg, r);
    pthread_mutex_lock(&kept_mu);
    if (nkept < sizeof kept / sizeof *kept) {
        kept[nkept].in = in;
        kept[nkept].key = key;
        kept[nkept].r = cal_xmalloc(n * sizeof **r + 1);
        memcpy(kept[nkept].r, *r, n * sizeof **r);
        kept[nkept++].n = n;
    }
    pthread_mutex_unlock(&kept_mu);
    return n;
}

static int in_script(int32_t c, const void *a);

static void set_pred(cpset *s, int (*in)(int32_t, const void *), const void *arg, int negate)
{
    uint32_t (*r)[2];
    size_t n = ranges_of(in, arg, in == in_script, &r);
    cpset t = { r, n, n };
    if (negate) set_invert(&t);
    set_add_set(s, &t);
    free(t.r);
}

/* Writes the set as class items, the surrogates left out (PCRE2 refuses
 * them in UTF mode; no text holds them). */
static void put_items(cal_buf *b, const cpset *s)
{
    char item[48];
    for (size_t i = 0; i < s->n; i++) {
        uint32_t lo = s->r[i][0], hi = s->r[i][1];
        for (int part = 0; part < 2; part++) {
            uint32_t a = lo, z = hi;
            if (part == 0 && a < 0xD800 && z >= 0xD800) z = 0xD7FF;
            else if (part == 0 && a >= 0xD800 && a <= 0xDFFF) a = 0xE000;
            else if (part == 1) {
                if (!(lo < 0xD800 && hi > 0xDFFF)) break;
                a = 0xE000;
            }
            if (a > z) continue;
            int k = a == z ? snprintf(item, sizeof item, "\\x{%x}", a) : snprintf(item, sizeof item, "\\x{%x}-\\x{%x}", a, z);
            cal_buf_add(b, item, (size_t)k);
        }
    }
}

/* Writes the set as a class, [^...] when negate; one that can match
 * nothing as (?!). */
static void put_class(cal_buf *b, const cpset *s, int negate)
{
    int empty = 1;
    for (size_t i = 0; i < s->n && empty; i++)
        if (s->r[i][0] < 0xD800 || s->r[i][1] > 0xDFFF) empty = 0;
    if (empty) {
        { const char *t = negate ? "(?s:.)" : "(?!)"; cal_buf_add(b, t, strlen(t)); }
        return;
    }
    cal_buf_add(b, negate ? "[^" : "[", negate ? 2 : 1);
    put_items(b, s);
    cal_buf_addc(b, ']');
}

/* ---- Oniguruma's named sets --------------------------------------------- */

typedef struct {
    const char *name; /* loose form: lower case, no '_', ' ' or '-' */
    uint32_t gcs;     /* general categories (1 << TU_*), or 0 for a predicate */
    int (*in)(int32_t c, const void *arg);
} prop;

#define G(x) (1u << TU_##x)
#define GL (G(LU) | G(LL) | G(LT) | G(LM) | G(LO))
#define GM (G(MN) | G(MC) | G(ME))
#define GN (G(ND) | G(NL) | G(NO))
#define GP (G(PC) | G(PD) | G(PS) | G(PE) | G(PI) | G(PF) | G(PO))
#define GS (G(SM) | G(SC) | G(SK) | G(SO))
#define GZ (G(ZS) | G(ZL) | G(ZP))
#define GC (G(CC) | G(CF) | G(CS) | G(CO) | G(CN))

static int in_space(int32_t c, const void *a) { (void)a; return (tu_props(c) & TU_SPACE) != 0; }
static int in_word(int32_t c, const void *a) { (void)a; return tu_onig_word(c); }
/* In a class Oniguruma adds Unicode's word set, without the Latin-1 digits
 * and fractions its Latin-1 table gives \w outside classes. */
static int in_cc_word(int32_t c, const void *a)
{
    (void)a;
    return tu_onig_word(c) && !(c == 0xB2 || c == 0xB3 || c == 0xB9 || (c >= 0xBC && c <= 0xBE));
}
static int in_alpha(int32_t c, const void *a) { (void)a; return (tu_props(c) & TU_ALPHA) != 0; }
static int in_hex(int32_t c, const void *a) { (void)a; return (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'f'); }
static int in_any(int32_t c, const void *a) { (void)a; return c < 0xD800 || c > 0xDFFF; }
static int in_gcs(int32_t c, const void *a) { return (*(const uint32_t *)a >> tu_gc(c)) & 1; }
static int in_script(int32_t c, const void *a) { return tu_script(c) == *(const int *)a; }
/* POSIX brackets, as Oniguruma's make_unicode_property_data.py defines them */
static int in_alnum(int32_t c, const void *a) { (void)a; return in_alpha(c, NULL) || tu_gc(c) == TU_ND; }
static int in_blank(int32_t c, const void *a) { (void)a; return c == '\t' || tu_gc(c) == TU_ZS; }
static int in_graph(int32_t c, const void *a)
{
    (void)a;
    int k = tu_gc(c);
    return !in_space(c, NULL) && k != TU_CC && k != TU_CS && k != TU_CN;
}
static int in_print(int32_t c, const void *a) { (void)a; return in_graph(c, NULL) || tu_gc(c) == TU_ZS; }
static int in_ascii(int32_t c, const void *a) { (void)a; return c < 0x80; }

static const prop props[] = {
    {"l", GL, 0}, {"letter", GL, 0}, {"lu", G(LU), 0}, {"uppercaseletter", G(LU), 0},
    {"ll", G(LL), 0}, {"lowercaseletter", G(LL), 0}, {"lt", G(LT), 0}, {"titlecaseletter", G(LT), 0},
    {"lm", G(LM), 0}, {"modifierletter", G(LM), 0}, {"lo", G(LO), 0}, {"otherletter", G(LO), 0},
    {"lc", G(LU) | G(LL) | G(LT), 0}, {"l&", G(LU) | G(LL) | G(LT), 0}, {"casedletter", G(LU) | G(LL) | G(LT), 0},
    {"m", GM, 0}, {"mark", GM, 0}, {"combiningmark", GM, 0}, {"mn", G(MN), 0}, {"nonspacingmark", G(MN), 0},
    {"mc", G(MC), 0}, {"spacingmark", G(MC), 0}, {"me", G(ME), 0}, {"enclosingmark", G(ME), 0},
    {"n", GN, 0}, {"number", GN, 0}, {"nd", G(ND), 0}, {"decimalnumber", G(ND), 0}, {"digit", G(ND), 0},
    {"nl", G(NL), 0}, {"letternumber", G(NL), 0}, {"no", G(NO), 0}, {"othernumber", G(NO), 0},
    {"p", GP, 0}, {"punctuation", GP, 0}, {"pc", G(PC), 0}, {"connectorpunctuation", G(PC), 0},
    {"pd", G(PD), 0}, {"dashpunctuation", G(PD), 0}, {"ps", G(PS), 0}, {"openpunctuation", G(PS), 0},
    {"pe", G(PE), 0}, {"closepunctuation", G(PE), 0}, {"pi", G(PI), 0}, {"initialpunctuation", G(PI), 0},
    {"pf", G(PF), 0}, {"finalpunctuation", G(PF), 0}, {"po", G(PO), 0}, {"otherpunctuation", G(PO), 0},
    {"s", GS, 0}, {"symbol", GS, 0}, {"sm", G(SM), 0}, {"mathsymbol", G(SM), 0}, {"sc", G(SC), 0},
    {"currencysymbol", G(SC), 0}, {"sk", G(SK), 0}, {"modifiersymbol", G(SK), 0}, {"so", G(SO), 0},
    {"othersymbol", G(SO), 0}, {"z", GZ, 0}, {"separator", GZ, 0}, {"zs", G(ZS), 0}, {"spaceseparator", G(ZS), 0},
    {"zl", G(ZL), 0}, {"lineseparator", G(ZL), 0}, {"zp", G(ZP), 0}, {"paragraphseparator", G(ZP), 0},
    {"c", GC, 0}, {"other", GC, 0}, {"cc", G(CC), 0}, {"control", G(CC), 0}, {"cf", G(CF), 0}, {"format", G(CF), 0},
    {"cs", G(CS), 0}, {"surrogate", G(CS), 0}, {"co", G(CO), 0}, {"privateuse", G(CO), 0},
    {"cn", G(CN), 0}, {"unassigned", G(CN), 0}, {"assigned", ~G(CN) & ((1u << TU_NGC) - 1), 0},
    {"alphabetic", 0, in_alpha}, {"alpha", 0, in_alpha}, {"whitespace", 0, in_space}, {"space", 0, in_space},
    {"wspace", 0, in_space}, {"word", 0, in_word}, {"any", 0, in_any},
};

static const prop *find_prop(const char *p, size_t n)
{
    char k[40];
    if (!tu_loose_name(p, n, k, sizeof k)) return NULL;
    for (size_t i = 0; i < sizeof props / sizeof *props; i++)
        if (!strcmp(props[i].name, k)) return &props[i];
    return NULL;
}

/* ---- the reader ---------------------------------------------------------- */

typedef struct {
    const char *p;
    size_t n, i;
    char *err;
    size_t errlen;
    int failed;
    int in_class; /* depth of classes being read */
    int32_t seq[16]; /* the code points of the last \x{H H ...} */
    int nseq;
} rd;

static int fail(rd *r, const char *fmt, const char *what)
{
    if (!r->failed) {
        char m[160];
        snprintf(m, sizeof m, fmt, what ? what : "");
        snprintf(r->err, r->errlen, "at offset %zu: %s", r->i, m);
    }
    r->failed = 1;
    return -1;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if ((c | 32) >= 'a' && (c | 32) <= 'f') return (c | 32) - 'a' + 10;
    return -1;
}

/* The set named by the escape at p[i] ('\\'): \s \S \w \W \d \D \h \H
 * \p{..} \P{..} \p{^..}; 1 when it was one (r->i past it), 0 when not, -1
 * on an unknown name. Unknown names outside classes are left to PCRE2
 * (*keep set): its own properties (scripts by short name, ...). */
static int escape_set(rd *r, cpset *s, int *neg_out, int in_class)
{
    static const uint32_t nd = G(ND);
    const char *p = r->p + r->i;
    size_t n = r->n - r->i;
    if (n < 2) return 0;
    char d = p[1];
    int neg = d >= 'A' && d <= 'Z';
    *neg_out = 0;
    switch (d) {
    case 's': case 'S': set_pred(s, in_space, NULL, neg); r->i += 2; return 1;
    case 'w': case 'W': set_pred(s, in_class ? in_cc_word : in_word, NULL, neg); r->i += 2; return 1;
    case 'd': case 'D': set_pred(s, in_gcs, &nd, neg); r->i += 2; return 1;
    case 'h': case 'H': set_pred(s, in_hex, NULL, neg); r->i += 2; return 1;
    case 'p': case 'P': {
        const char *name = p + 2;
        size_t len = 1, took = 3;
        if (n < 3 || p[2] != '{') return 0; /* \p without {: the letter */
        {
            const char *e = memchr(p + 3, '}', n - 3);
            if (!e) return fail(r, "invalid character property name", NULL);
            name = p + 3;
            len = (size_t)(e - name);
            took = (size_t)(e - p) + 1;
            if (len && name[0] == '^') name++, len--, neg = !neg;
        }
        const prop *pr = find_prop(name, len);
        int sc = pr ? -1 : tu_script_find(name, len);
        if (!pr && sc < 0) {
            if (in_class) return fail(r, "invalid character property name {%s}", NULL);
            return 0;
        }
        if (pr && pr->in) set_pred(s, pr->in, NULL, 0);
        else if (pr) set_pred(s, in_gcs, &pr->gcs, 0);
        else set_pred(s, in_script, &sc, 0);
        *neg_out = neg;
        r->i += took;
        return 1;
    }
    }
    return 0;
}

/* A single code point escape at p[i] ('\\') in a class, or a literal
 * escaped character; the code point or -1 (error). */
static int32_t escape_char(rd *r)
{
    const char *p = r->p;
    size_t i = r->i + 1;
    r->nseq = 0;
    if (i >= r->n) return fail(r, "end pattern at escape", NULL);
    char c = p[i];
    int32_t v = 0;
    switch (c) {
    case 't': r->i = i + 1; return '\t';
    case 'n': r->i = i + 1; return '\n';
    case 'r': r->i = i + 1; return '\r';
    case 'f': r->i = i + 1; return '\f';
    case 'v': r->i = i + 1; return 0x0b;
    case 'a': r->i = i + 1; return 0x07;
    case 'e': r->i = i + 1; return 0x1b;
    case 'b': r->i = i + 1; return 0x08;
    case 'x':
        i++;
        if (i + 1 < r->n && p[i] == '{' && p[i + 1] != ' ') { /* \x{H...}, or a sequence \x{H H ...} */
            size_t j = i + 1;
            r->nseq = 0;
            for (;;) {
                while (j < r->n && p[j] == ' ') j++;
                if (j < r->n && p[j] == '}' && r->nseq) break;
                int k = 0;
                uint32_t u = 0;
                for (; j < r->n && hexval(p[j]) >= 0 && k < 8; j++, k++) u = u * 16 + (uint32_t)hexval(p[j]);
                v = u > 0x13FFFF ? 0x140000 : (int32_t)u;
                if (!k || v > 0x13FFFF || r->nseq == (int)(sizeof r->seq / sizeof *r->seq))
                    return fail(r, "invalid code point value", NULL);
                r->seq[r->nseq++] = v;
            }
            r->i = j + 1;
            return r->seq[0];
        }
        {
            size_t i0 = i;
            for (int k = 0; k < 2 && i < r->n && hexval(p[i]) >= 0; k++, i++) v = v * 16 + hexval(p[i]);
            r->i = i;
            if (i == i0 && !r->in_class) return 'x'; /* \x without digits: a letter, outside classes */
            return v;
        }
    case 'u':
        i++;
        if ((i >= r->n || hexval(p[i]) < 0) && !r->in_class) { r->i = i; return 'u'; } /* \u alone: a letter */
        for (int k = 0; k < 4; k++, i++) {
            if (i >= r->n || hexval(p[i]) < 0) return fail(r, "invalid code point value", NULL);
            v = v * 16 + hexval(p[i]);
        }
        r->i = i;
        return v;
    case 'c':
        if (i + 1 >= r->n) return fail(r, "end pattern at control", NULL);
        r->i = i + 2;
        return p[i + 1] == '?' ? 0x7f : (p[i + 1] & 0x1f);
    case 'C': case 'M':
        if (i + 2 >= r->n || p[i + 1] != '-') return fail(r, c == 'C' ? "end pattern at control" : "end pattern at meta", NULL);
        r->i = i + 3;
        return c == 'C' ? (p[i + 2] == '?' ? 0x7f : (p[i + 2] & 0x1f)) : ((p[i + 2] & 0xff) | 0x80);
    }
    if (c >= '0' && c <= '7') {
        for (int k = 0; k < 3 && i < r->n && p[i] >= '0' && p[i] <= '7'; k++, i++) v = v * 8 + (p[i] - '0');
        r->i = i;
        return v;
    }
    size_t k = cal_utf8_next(p, r->n, i, &v);
    r->i = i + k;
    return v;
}

static int parse_class(rd *r, cpset *out, int *negated);

/* The POSIX bracket at p[i] ("[:name:]" or "[:^name:]"): 1 with the set
 * added, 0 when p[i] starts none, -1 on a bad name. */
static int posix_bracket(rd *r, cpset *s)
{
    static const struct { const char *name; int (*in)(int32_t, const void *); } br[] = {
        {"alnum", in_alnum}, {"alpha", in_alpha}, {"ascii", in_ascii}, {"blank", in_blank}, {"cntrl", NULL},
        {"digit", NULL}, {"graph", in_graph}, {"print", in_print}, {"punct", NULL}, {"space", in_space},
        {"word", in_cc_word}, {"xdigit", in_hex}, {"upper", NULL}, {"lower", NULL},
    };
    const char *p = r->p + r->i;
    size_t n = r->n - r->i;
    if (n < 4 || p[1] != ':') return 0;
    const char *e = NULL;
    for (size_t j = 2; j + 1 < n && j < 24; j++)
        if (p[j] == ':' && p[j + 1] == ']') { e = p + j; break; }
    if (!e) return 0;
    const char *name = p + 2;
    int neg = *name == '^';
    if (neg) name++;
    size_t len = (size_t)(e - name);
    for (size_t k = 0; k < sizeof br / sizeof *br; k++) {
        if (strlen(br[k].name) != len || memcmp(br[k].name, name, len)) continue;
        static const uint32_t cc = G(CC), nd = G(ND), ps = GP | GS;
        cpset t = { 0 };
        if (br[k].in) set_pred(&t, br[k].in, NULL, 0);
        else if (!strcmp(br[k].name, "cntrl")) set_pred(&t, in_gcs, &cc, 0);
        else if (!strcmp(br[k].name, "digit")) set_pred(&t, in_gcs, &nd, 0);
        else if (!strcmp(br[k].name, "punct")) set_pred(&t, in_gcs, &ps, 0);
        else {
            free(t.r);
            return fail(r, "the POSIX bracket [:%s:] (Unicode's Uppercase and Lowercase) is not supported",
                        br[k].name);
        }
        if (neg) set_invert(&t);
        set_add_set(s, &t);
        free(t.r);
        r->i += (size_t)(e - p) + 2;
        return 1;
    }
    return fail(r, "invalid POSIX bracket type", NULL);
}

/* One class at p[i] ('['), to its positive set and whether it is negated.
 * 0, or -1 on error. */
static int parse_class(rd *r, cpset *out, int *negated)
{
    cpset acc = { 0 }, res = { 0 };
    int have_and = 0, neg = 0;
    r->i++;
    r->in_class++;
    if (r->i < r->n && r->p[r->i] == '^') neg = 1, r->i++;
    int first = 1, rc = 0;
    for (;;) {
        if (r->i >= r->n) { rc = fail(r, "premature end of char-class", NULL); break; }
        char c = r->p[r->i];
        if (c == ']') {
            if (first) {
                if (!memchr(r->p + r->i + 1, ']', r->n - r->i - 1)) { rc = fail(r, "empty char-class", NULL); break; }
                set_push(&acc, ']', ']');
                r->i++;
                first = 0;
                continue;
            }
            r->i++;
            break;
        }
        first = 0;
        if (c == '&' && r->i + 1 < r->n && r->p[r->i + 1] == '&') {
            set_norm(&acc);
            if (have_and) {
                set_and(&res, &acc);
                free(acc.r);
            } else res = acc;
            acc = (cpset){ 0 };
            have_and = 1;
            r->i += 2;
            continue;
        }
        if (c == '[') {
            int k = posix_bracket(r, &acc);
            if (k < 0) { rc = -1; break; }
            if (k) goto after_set;
            cpset sub = { 0 };
            int sneg;
            if (parse_class(r, &sub, &sneg) < 0) { free(sub.r); rc = -1; break; }
            if (sneg) set_invert(&sub);
            set_add_set(&acc, &sub);
            free(sub.r);
            goto after_set;
        }
        int32_t lo;
        if (c == '\\') {
            cpset t = { 0 };
            int sneg, k = escape_set(r, &t, &sneg, 1);
            if (k < 0) { free(t.r); rc = -1; break; }
            if (k) {
                if (sneg) set_invert(&t);
                set_add_set(&acc, &t);
                free(t.r);
                goto after_set;
            }
            free(t.r);
            lo = escape_char(r);
            if (lo < 0) { rc = -1; break; }
            if (r->nseq > 1) { /* \x{H H ...}: each one */
                for (int k = 0; k < r->nseq; k++)
                    if (r->seq[k] <= 0x10FFFF) set_push(&acc, (uint32_t)r->seq[k], (uint32_t)r->seq[k]);
                continue;
            }
        } else {
            r->i += cal_utf8_next(r->p, r->n, r->i, &lo);
        }
        /* a range lo-hi, unless '-' ends the class */
        if (r->i + 1 < r->n && r->p[r->i] == '-' && r->p[r->i + 1] != ']') {
            r->i++;
            int32_t hi;
            if (r->p[r->i] == '[') { rc = fail(r, "char-class value at end of range", NULL); break; }
            if (r->p[r->i] == '\\') {
                cpset t = { 0 };
                int sneg, k = escape_set(r, &t, &sneg, 1);
                free(t.r);
                if (k) { rc = fail(r, "char-class value at end of range", NULL); break; }
                hi = escape_char(r);
                if (hi < 0) { rc = -1; break; }
            } else r->i += cal_utf8_next(r->p, r->n, r->i, &hi);
            if (hi < lo) { rc = fail(r, "empty range in char class", NULL); break; }
            if (lo <= 0x10FFFF) set_push(&acc, (uint32_t)lo, (uint32_t)(hi > 0x10FFFF ? 0x10FFFF : hi));
        } else if (lo <= 0x10FFFF) set_push(&acc, (uint32_t)lo, (uint32_t)lo);
        continue;
    after_set:
        /* a set is not the start of a range: "[\w-]" is \w and '-', "[\w-z]" an error */
        if (r->i + 1 < r->n && r->p[r->i] == '-' && r->p[r->i + 1] != ']' &&
            !(r->p[r->i + 1] == '&' && r->i + 2 < r->n && r->p[r->i + 2] == '&')) {
            rc = fail(r, "unmatched range specifier in char-class", NULL);
            break;
        }
    }
    set_norm(&acc);
    if (have_and) {
        set_and(&res, &acc);
        free(acc.r);
    } else res = acc;
    r->in_class--;
    *out = res;
    *negated = neg;
    return rc;
}

/* ---- the whole pattern ---------------------------------------------------- */

/* A valid interval {n} {n,} {n,m} {,m} at p[i]: its length, with lo/hi
 * (-1: none); 0 when '{' starts none (a literal). */
static size_t interval(const char *p, size_t n, long *lo, long *hi)
{
    size_t j = 1;
    long a = -1, b = -1;
    int comma = 0;
    if (j < n && p[j] >= '0' && p[j] <= '9')
        for (a = 0; j < n && p[j] >= '0' && p[j] <= '9' && a < 100001; j++) a = a * 10 + (p[j] - '0');
    if (j < n && p[j] == ',') {
        comma = 1;
        j++;
        if (j < n && p[j] >= '0' && p[j] <= '9')
            for (b = 0; j < n && p[j] >= '0' && p[j] <= '9' && b < 100001; j++) b = b * 10 + (p[j] - '0');
    }
    if (j >= n || p[j] != '}') return 0;
    if (a < 0 && b < 0) return 0; /* {} or {,} */
    if (!comma) b = a;
    *lo = a < 0 ? 0 : a;
    *hi = b;
    return j + 1;
}

pcre2_code *th_pcre_compile(const char *p, size_t n, char *err, size_t errlen)
{
    rd r = { .p = p, .n = n, .err = err, .errlen = errlen };
    cal_buf b = { 0 };
    size_t *groups = NULL, ngroups = 0, capg = 0;
    const size_t NONE = (size_t)-1;
    size_t atom = NONE; /* where the last quantifiable item starts in b */
    int qstate = 0;     /* 0 after an atom, 1 after a quantifier, 2 after its ? or + */
    int qsimple = 0;    /* that quantifier was * + or ? (not an interval) */
    int qexact = 0;     /* that quantifier was {n}: Oniguruma reads {n}? as ({n})? */
    while (r.i < n && !r.failed) {
        char c = p[r.i];
        size_t start = b.n;
        if (c == '*' || c == '+' || c == '?' || (c == '{' && atom != NONE)) {
            long lo = 0, hi = 0;
            size_t il = c == '{' ? interval(p + r.i, n - r.i, &lo, &hi) : 1;
            if (c == '{' && !il) { cal_buf_add(&b, "\\{", 2); r.i++; atom = start; qstate = 0; continue; }
            if (atom == NONE) { fail(&r, "target of repeat operator is not specified", NULL); break; }
            if (qstate == 1 && c == '?' && !qexact) { cal_buf_addc(&b, '?'); r.i++; qstate = 2; continue; }
            if (qstate == 1 && c == '+' && qsimple) { cal_buf_addc(&b, '+'); r.i++; qstate = 2; continue; }
            if (qstate) { /* a quantifier on a quantified item: nest it */
                cal_buf w = { 0 };
                cal_buf_add(&w, "(?:", 3);
                cal_buf_add(&w, b.p + atom, b.n - atom);
                cal_buf_addc(&w, ')');
                b.n = atom;
                cal_buf_add(&b, w.p, w.n);
                cal_buf_free(&w);
            }
            if (c == '{') {
                char q[64];
                int poss = hi >= 0 && lo > hi; /* Oniguruma: {n,m} with n > m is possessive {m,n} */
                if (poss) { long t = lo; lo = hi; hi = t; }
                int k = hi < 0 ? snprintf(q, sizeof q, "{%ld,}", lo)
                      : lo == hi ? snprintf(q, sizeof q, "{%ld}", lo) : snprintf(q, sizeof q, "{%ld,%ld}", lo, hi);
                cal_buf_add(&b, q, (size_t)k);
                if (poss) cal_buf_addc(&b, '+');
                qexact = !memchr(p + r.i, ',', il);
                r.i += il;
                qstate = poss ? 2 : 1;
                qsimple = 0;
            } else {
                cal_buf_addc(&b, c);
                r.i++;
                qstate = 1;
                qsimple = 1;
                qexact = 0;
            }
            continue;
        }
        qstate = 0;
        if (c == '\\') {
            if (r.i + 1 >= n) { fail(&r, "end pattern at escape", NULL); break; }
            char d = p[r.i + 1];
            cpset s = { 0 };
            int neg, k = escape_set(&r, &s, &neg, 0);
            if (k < 0) { free(s.r); break; }
            if (k) {
                /* Oniguruma folds no case into a property outside a class: (?i)\p{Lu} is upper case */
                int prop = d == 'p' || d == 'P';
                if (prop) cal_buf_add(&b, "(?-i:", 5);
                put_class(&b, &s, neg);
                if (prop) cal_buf_addc(&b, ')');
                free(s.r);
                atom = start;
                continue;
            }
            free(s.r);
            if ((d == 'p' || d == 'P') && (r.i + 2 >= n || p[r.i + 2] != '{')) { /* \p without {: the letter */
                cal_buf_addc(&b, d);
                r.i += 2;
                atom = start;
                continue;
            }
            if (d == 'p' || d == 'P') { /* a name only PCRE2 knows (a script's short name): its Script table */
                const char *e = r.i + 2 < n && p[r.i + 2] == '{' ? memchr(p + r.i, '}', n - r.i) : p + r.i + 2;
                if (!e || e >= p + n) { fail(&r, "invalid character property name", NULL); break; }
                const char *name = p + r.i + 3;
                int nneg = name < e && *name == '^';
                if (nneg) name++;
                if (p[r.i + 2] == '{' && e > name) cal_buf_addf(&b, "(?-i:\\%c{sc:%.*s})", (d == 'P') != nneg ? 'P' : 'p', (int)(e - name), name);
                else cal_buf_add(&b, p + r.i, (size_t)(e - (p + r.i)) + 1);
                r.i = (size_t)(e - p) + 1;
                atom = start;
                continue;
            }
            switch (d) {
            case 'b': case 'B': {
                cal_buf w = { 0 };
                cpset ws = { 0 };
                set_pred(&ws, in_word, NULL, 0);
                put_class(&w, &ws, 0);
                free(ws.r);
                int wl = (int)w.n;
                const char *f = d == 'b' ? "(?:(?<=%.*s)(?!%.*s)|(?<!%.*s)(?=%.*s))" : "(?:(?<=%.*s)(?=%.*s)|(?<!%.*s)(?!%.*s))";
                int len = snprintf(NULL, 0, f, wl, w.p, wl, w.p, wl, w.p, wl, w.p);
                char *t = cal_xmalloc((size_t)len + 1);
                snprintf(t, (size_t)len + 1, f, wl, w.p, wl, w.p, wl, w.p, wl, w.p);
                cal_buf_add(&b, t, (size_t)len);
                free(t);
                cal_buf_free(&w);
                r.i += 2;
                atom = NONE;
                continue;
            }
            case 'A': case 'z': case 'Z': case 'G': case 'K':
                cal_buf_add(&b, p + r.i, 2);
                r.i += 2;
                atom = NONE;
                continue;
            case 'O': cal_buf_add(&b, "(?s:.)", 6); r.i += 2; atom = start; continue;
            case 'y': case 'Y': fail(&r, "the text segment boundaries \\y and \\Y are not supported", NULL); break;
            case 'R': case 'X': case 'N':
                cal_buf_add(&b, p + r.i, 2);
                r.i += 2;
                atom = start;
                continue;
            case 'k': case 'g': {
                char close = r.i + 2 < n && p[r.i + 2] == '<' ? '>' : r.i + 2 < n && p[r.i + 2] == '\'' ? '\'' : 0;
                const char *e = close ? memchr(p + r.i + 3, close, n - r.i - 3) : NULL;
                if (!close) { cal_buf_addc(&b, d); r.i += 2; atom = start; continue; } /* the letter */
                if (!e) { fail(&r, "invalid backref number/name", NULL); break; }
                size_t len = (size_t)(e - (p + r.i)) + 1;
                cal_buf_add(&b, p + r.i, len);
                r.i += len;
                atom = start;
                continue;
            }
            }
            if (d >= '1' && d <= '9') { /* a back-reference (PCRE2 reads the digits alike) */
                size_t j = r.i + 1;
                while (j < n && p[j] >= '0' && p[j] <= '9') j++;
                cal_buf_add(&b, p + r.i, j - r.i);
                r.i = j;
                atom = start;
                continue;
            }
            int32_t v = escape_char(&r);
            if (v < 0) break;
            int nv = r.nseq > 1 ? r.nseq : 1;
            if (nv > 1) cal_buf_add(&b, "(?:", 3);
            for (int k = 0; k < nv; k++) {
                int32_t cp = nv > 1 ? r.seq[k] : v;
                if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) cal_buf_add(&b, "(?!)", 4); /* no text holds it */
                else cal_buf_addf(&b, "\\x{%x}", (unsigned)cp);
            }
            if (nv > 1) cal_buf_addc(&b, ')');
            atom = start;
            continue;
        }
        if (c == '[') {
            cpset s = { 0 };
            int neg;
            if (parse_class(&r, &s, &neg) < 0) { free(s.r); break; }
            put_class(&b, &s, neg);
            free(s.r);
            atom = start;
            continue;
        }
        if (c == '(') {
            if (r.i + 1 < n && p[r.i + 1] == '?') {
                size_t j = r.i + 2;
                char e = j < n ? p[j] : 0;
                if (e == '#') { /* a comment */
                    const char *z = memchr(p + j, ')', n - j);
                    if (!z) { fail(&r, "end pattern in group", NULL); break; }
                    r.i = (size_t)(z - p) + 1;
                    continue; /* the atom before it stays quantifiable, as in Oniguruma */
                }
                if (e == '~') { fail(&r, "the absent operator (?~...) is not supported", NULL); break; }
                if (e && strchr("imx-WDSPyIL", e) && !(e == 'P' && j + 1 < n && p[j + 1] == '<')) {
                    /* options (?imx-imx) or (?imx-imx:...) */
                    cal_buf o = { 0 };
                    cal_buf_add(&o, "(?", 2);
                    int bad = 0, any = 0;
                    for (; j < n && p[j] != ')' && p[j] != ':'; j++) {
                        char f = p[j];
                        if (f == 'm') cal_buf_addc(&o, 's');
                        else if (f == 'i' || f == 'x' || f == '-') cal_buf_addc(&o, f);
                        else { bad = strchr("WDSPyIL", f) ? 1 : 2; break; }
                        any |= f != '-';
                    }
                    if (bad || j >= n || !any) {
                        cal_buf_free(&o);
                        if ((j < n && !bad) || bad == 2) fail(&r, "undefined group option", NULL);
                        else if (bad) {
                            char opt[2] = { p[j], 0 };
                            r.i = j;
                            fail(&r, "the group option '%s' is not supported", opt);
                        } else fail(&r, "end pattern in group", NULL);
                        break;
                    }
                    cal_buf_addc(&o, p[j]);
                    cal_buf_add(&b, o.p, o.n);
                    cal_buf_free(&o);
                    r.i = j + 1;
                    if (p[j] == ':') {
                        if (ngroups == capg) groups = cal_xrealloc(groups, (capg = capg ? capg * 2 : 16) * sizeof *groups);
                        groups[ngroups++] = start;
                    }
                    atom = NONE;
                    continue;
                }
                /* (?: (?= (?! (?> (?<= (?<! (?<name> (?'name' (?( */
                size_t len = 0;
                int twice = 0;
                if (e == ':' || e == '=' || e == '!' || e == '>') len = 3;
                else if (e == '<' && j + 1 < n && (p[j + 1] == '=' || p[j + 1] == '!')) len = 4;
                else if (e == '<' || e == '\'') {
                    const char *z = memchr(p + j + 1, e == '<' ? '>' : '\'', n - j - 1);
                    if (z) len = (size_t)(z - (p + r.i)) + 1;
                } else if (e == '(') len = 3, twice = 1;
                if (!len) { fail(&r, "undefined group option", NULL); break; }
                for (int t = 0; t <= twice; t++) {
                    if (ngroups == capg) groups = cal_xrealloc(groups, (capg = capg ? capg * 2 : 16) * sizeof *groups);
                    groups[ngroups++] = start;
                }
                cal_buf_add(&b, p + r.i, len);
                r.i += len;
                atom = NONE;
                continue;
            }
            if (ngroups == capg) groups = cal_xrealloc(groups, (capg = capg ? capg * 2 : 16) * sizeof *groups);
            groups[ngroups++] = start;
            cal_buf_addc(&b, '(');
            r.i++;
            atom = NONE;
            continue;
        }
        if (c == ')') {
            cal_buf_addc(&b, ')');
            r.i++;
            atom = ngroups ? groups[--ngroups] : NONE;
            continue;
        }
        if (c == '|' || c == '^' || c == '$') {
            cal_buf_addc(&b, c);
            r.i++;
            atom = NONE;
            continue;
        }
        /* a character, whole (a multi-byte one too) */
        int32_t v;
        size_t k = cal_utf8_next(p, n, r.i, &v);
        cal_buf_add(&b, p + r.i, k);
        r.i += k;
        atom = start;
    }
    free(groups);
    if (r.failed) {
        cal_buf_free(&b);
        return NULL;
    }
    int ec;
    PCRE2_SIZE off = 0;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)(b.p ? b.p : ""), b.n, PCRE2_UTF | PCRE2_UCP | PCRE2_MULTILINE, &ec,
                                   &off, NULL);
    cal_buf_free(&b);
    if (!re) {
        char m[160];
        if (pcre2_get_error_message(ec, (PCRE2_UCHAR *)m, sizeof m) < 0) snprintf(m, sizeof m, "error %d", ec);
        snprintf(err, errlen, "PCRE2: %s", m);
        return NULL;
    }
    (void)pcre2_jit_compile(re, PCRE2_JIT_COMPLETE); /* the interpreter works too */
    return re;
}
