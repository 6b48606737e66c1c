/* tok_hf_pattern.c - pattern matching for Split/Replace: literal strings,
 * hand-written scanners for known regexes (tok_hf_scan.c), PCRE2 otherwise.
 * Matches are leftmost-first and non-overlapping, as the reference's onig
 * find_iter; an empty match moves the search one character on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "tok/hf_int.h"
#include "tok/unicode.h"

int th_pattern_next(const th_pattern *p, pcre2_match_data *md, const char *s, size_t len, size_t from,
                    size_t *ms, size_t *me)
{
    if (!p->is_regex) {
        if (!p->lit_len) return 0;
        for (size_t i = from; i + p->lit_len <= len;) {
            const char *q = memchr(s + i, p->lit[0], len - i - p->lit_len + 1);
            if (!q) return 0;
            i = (size_t)(q - s);
            if (!memcmp(q, p->lit, p->lit_len)) { *ms = i; *me = i + p->lit_len; return 1; }
            i++;
        }
        return 0;
    }
    if (p->scanner != TH_RE_PCRE) return th_scan_next(p->scanner, s, len, from, ms, me);
    if (from > len) return 0;
    int rc = pcre2_match(p->re, (PCRE2_SPTR)s, len, from, PCRE2_NO_UTF_CHECK, md, NULL);
    /* The JIT's stack is small; the interpreter keeps its backtracking on the
     * heap (PCRE2's default heap limit is 20 GB), so it finishes such matches. */
    if (rc == PCRE2_ERROR_JIT_STACKLIMIT)
        rc = pcre2_match(p->re, (PCRE2_SPTR)s, len, from, PCRE2_NO_UTF_CHECK | PCRE2_NO_JIT, md, NULL);
    if (rc == PCRE2_ERROR_NOMATCH) return 0;
    if (rc < 0) return rc;
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
    *ms = ov[0]; *me = ov[1];
    return 1;
}

void th_pattern_error(const tok_hf *t, const th_pattern *p, int rc, char *err, size_t errlen)
{
    char m[160];
    if (pcre2_get_error_message(rc, (PCRE2_UCHAR *)m, sizeof m) < 0) snprintf(m, sizeof m, "error %d", rc);
    snprintf(err, errlen, "%s: %s: the regex engine (PCRE2) gave up: %s", t->path, p->where ? p->where : "pattern", m);
}

/* ---- the character classes of onig (the reference's engine) ----------------
 * PCRE2 10.42 has Unicode 14 tables and its own \s, \w, \h; onig has Unicode
 * 16.0 (tok/unicode.h). So the class escapes, the \p{..} properties below and
 * the scripts (\p{Han}, \p{Old_Italic}: the Script property, by its long
 * name) are spelt out as the code point ranges of onig's definitions before
 * PCRE2 compiles the pattern; \b and \B become look-arounds on onig's \w.
 * Other \p{..} names (script aliases such as Hani, blocks, ...) keep PCRE2's
 * tables. */

typedef struct {
    const char *name;  /* loose form: lower case, no '_', ' ' or '-' */
    uint32_t gcs;      /* general categories (1 << TU_*), or 0 for a predicate */
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
static int in_alpha(int32_t c, const void *a) { (void)a; return (tu_props(c) & TU_ALPHA) != 0; }
static int in_hex(int32_t c, const void *a) { (void)a; return (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'f'); }
static int in_any(int32_t c, const void *a) { (void)a; return c < 0xD800 || c > 0xDFFF; }
static int in_gcs(int32_t c, const void *a) { return (*(const uint32_t *)a >> tu_gc(c)) & 1; }
static int in_script(int32_t c, const void *a) { return tu_script(c) == *(const int *)a; }

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

/* The property named p[0..n) (onig's loose matching), or NULL. */
static const prop *find_prop(const char *p, size_t n)
{
    char k[40];
    if (!tu_loose_name(p, n, k, sizeof k)) return NULL;
    for (size_t i = 0; i < sizeof props / sizeof *props; i++)
        if (!strcmp(props[i].name, k)) return &props[i];
    return NULL;
}

/* Appends the code points of (in, arg), or of their complement, as class
 * items ("\x{41}-\x{5a}..."), inside [...] unless in_class. */
static void put_set(cal_buf *b, int (*in)(int32_t, const void *), const void *arg, int negate, int in_class)
{
    uint32_t (*r)[2];
    size_t n = tu_ranges(in, arg, &r);
    if (!in_class) cal_buf_add(b, "[", 1);
    char item[48];
    uint32_t next = 0; /* the complement: the gaps between the ranges */
    for (size_t i = 0; i <= n; i++) {
        uint32_t lo = negate ? next : r[i < n ? i : 0][0], hi;
        if (negate) {
            hi = i < n ? r[i][0] : 0x110000;
            if (i < n) next = r[i][1] + 1;
            if (hi == lo) continue;
            hi--;
        } else {
            if (i == n) break;
            hi = r[i][1];
        }
        int k = lo == hi ? snprintf(item, sizeof item, "\\x{%x}", lo) : snprintf(item, sizeof item, "\\x{%x}-\\x{%x}", lo, hi);
        cal_buf_add(b, item, (size_t)k);
    }
    if (!in_class) cal_buf_add(b, "]", 1);
    free(r);
}

/* Rewrites the class escape at p[0..n) (p[0] is '\\') into b; returns the
 * bytes it took, or 0 to leave it to PCRE2. */
static size_t class_escape(cal_buf *b, const char *p, size_t n, int in_class)
{
    static const uint32_t nd = G(ND);
    char d = p[1];
    int neg = d >= 'A' && d <= 'Z';
    switch (d) {
    case 's': case 'S': put_set(b, in_space, NULL, neg, in_class); return 2;
    case 'w': case 'W': put_set(b, in_word, NULL, neg, in_class); return 2;
    case 'd': case 'D': put_set(b, in_gcs, &nd, neg, in_class); return 2;
    case 'h': case 'H': put_set(b, in_hex, NULL, neg, in_class); return 2; /* onig's \h: a hex digit */
    case 'p': case 'P': {
        const char *name = p + 2;
        size_t len = 1, took = 3;
        if (n < 3) return 0;
        if (p[2] == '{') {
            const char *e = memchr(p + 3, '}', n - 3);
            if (!e) return 0;
            name = p + 3;
            len = (size_t)(e - name);
            took = (size_t)(e - p) + 1;
            if (len && name[0] == '^') name++, len--, neg = !neg;
        }
        const prop *pr = find_prop(name, len);
        if (!pr) {
            int sc = tu_script_find(name, len);
            if (sc < 0) return 0;
            put_set(b, in_script, &sc, neg, in_class);
            return took;
        }
        if (pr->in) put_set(b, pr->in, NULL, neg, in_class);
        else put_set(b, in_gcs, &pr->gcs, neg, in_class);
        return took;
    }
    case 'b': case 'B': {
        if (in_class) return 0; /* \b in a class is a backspace */
        cal_buf w = { 0 };
        put_set(&w, in_word, NULL, 0, 0);
        const char *f = d == 'b' ? "(?:(?<=%.*s)(?!%.*s)|(?<!%.*s)(?=%.*s))" : "(?:(?<=%.*s)(?=%.*s)|(?<!%.*s)(?!%.*s))";
        int wl = (int)w.n, k = snprintf(NULL, 0, f, wl, w.p, wl, w.p, wl, w.p, wl, w.p);
        char *t = cal_xmalloc((size_t)k + 1);
        snprintf(t, (size_t)k + 1, f, wl, w.p, wl, w.p, wl, w.p, wl, w.p);
        cal_buf_add(b, t, (size_t)k);
        free(t);
        cal_buf_free(&w);
        return 2;
    }
    }
    return 0;
}

pcre2_code *th_pcre_compile(const char *p, size_t n, int *ec, size_t *eo)
{
    cal_buf b = { 0 };
    int in_class = 0;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (c == '\\' && i + 1 < n) {
            size_t took = class_escape(&b, p + i, n - i, in_class);
            if (!took) cal_buf_add(&b, p + i, took = 2);
            i += took - 1;
            continue;
        }
        if (c == '[' && !in_class) {
            in_class = 1;
            cal_buf_addc(&b, c);
            /* a leading ^ and a leading ] are literal parts of the class syntax */
            if (i + 1 < n && p[i + 1] == '^') { cal_buf_addc(&b, '^'); i++; }
            if (i + 1 < n && p[i + 1] == ']') { cal_buf_addc(&b, ']'); i++; }
            continue;
        }
        if (c == ']' && in_class) in_class = 0;
        cal_buf_addc(&b, c);
    }
    PCRE2_SIZE off = 0;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)(b.p ? b.p : ""), b.n, PCRE2_UTF | PCRE2_UCP, ec, &off, NULL);
    *eo = off;
    cal_buf_free(&b);
    if (re) (void)pcre2_jit_compile(re, PCRE2_JIT_COMPLETE); /* the interpreter works too */
    return re;
}
