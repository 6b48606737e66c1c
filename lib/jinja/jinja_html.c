/* jinja_html.c - the filters that treat text as HTML or URLs, as jinja2
 * 3.1 and MarkupSafe do them: striptags (comments and tags removed,
 * whitespace collapsed, character references decoded as Python's
 * html.unescape: the WHATWG names of build/gen/entities.c, numeric
 * references with Python's replacements), urlize (links for http(s)://,
 * www., bare domains of the common top-level domains, IP addresses, e-mail
 * addresses; rel="noopener" as jinja2's default policy), urlencode
 * (urllib.parse.quote) and xmlattr. The URL and e-mail grammars are
 * matched with PCRE2 in Unicode mode, with Python's own whitespace class. */
#define _GNU_SOURCE /* memmem */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "jinja/jinja_int.h"

/* ---- html.unescape ---- */

struct cal_html_entity {
    const char *name, *text;
};
extern const struct cal_html_entity cal_html_entities[];
extern const size_t cal_html_nentities;

static const char *entity(const char *name, size_t n) {
    size_t lo = 0, hi = cal_html_nentities;
    while (lo < hi) {
        size_t m = (lo + hi) / 2;
        const char *e = cal_html_entities[m].name;
        int c = strncmp(e, name, n);
        if (c == 0) c = e[n] ? 1 : 0;
        if (c == 0) return cal_html_entities[m].text;
        if (c < 0) lo = m + 1;
        else hi = m;
    }
    return NULL;
}

/* What Python's html.unescape makes of a numeric reference: the
 * Windows-1252 reading of 0x80..0x9F, U+FFFD for 0, surrogates and values
 * past U+10FFFF, nothing for other controls and noncharacters. */
static void numeric_ref(jj_rt *rt, jj_buf *b, uint64_t v) {
    static const uint16_t w1252[32] = {
        0x20AC, 0x81, 0x201A, 0x192, 0x201E, 0x2026, 0x2020, 0x2021, 0x2C6, 0x2030, 0x160, 0x2039, 0x152, 0x8D,
        0x17D, 0x8F, 0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x2DC, 0x2122, 0x161,
        0x203A, 0x153, 0x9D, 0x17E, 0x178};
    if (v >= 0x80 && v <= 0x9F) {
        jj_u8_put(rt, b, w1252[v - 0x80]);
        return;
    }
    if (v == 0 || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) {
        jj_u8_put(rt, b, 0xFFFD);
        return;
    }
    if ((v >= 1 && v <= 8) || v == 0xB || (v >= 0xE && v <= 0x1F) || v == 0x7F || (v >= 0xFDD0 && v <= 0xFDEF) ||
        (v & 0xFFFE) == 0xFFFE)
        return;
    jj_u8_put(rt, b, (int32_t)v);
}

/* Python's html.unescape: "&#NN;", "&#xHH;" (the ';' optional) and named
 * references of up to 32 characters, the longest name that is one winning
 * when there is no exact match. */
static jj_str *unescape(jj_rt *rt, const char *s, size_t n) {
    if (!memchr(s, '&', n)) return jj_str_new(rt, s, n);
    jj_buf b = {0};
    for (size_t i = 0; i < n;) {
        if (s[i] != '&') {
            const char *amp = memchr(s + i, '&', n - i);
            size_t k = amp ? (size_t)(amp - s) : n;
            jj_buf_add(rt, &b, s + i, k - i);
            i = k;
            continue;
        }
        size_t j = i + 1;
        if (j < n && s[j] == '#') {
            int hex = j + 1 < n && (s[j + 1] == 'x' || s[j + 1] == 'X');
            size_t d = j + 1 + (size_t)hex, e = d;
            uint64_t v = 0;
            int big = 0;
            while (e < n && (hex ? ((s[e] >= '0' && s[e] <= '9') || ((s[e] | 32) >= 'a' && (s[e] | 32) <= 'f'))
                                 : (s[e] >= '0' && s[e] <= '9'))) {
                int x = s[e] <= '9' ? s[e] - '0' : (s[e] | 32) - 'a' + 10;
                if (v > 0x10FFFF) big = 1;
                else v = v * (hex ? 16 : 10) + (uint64_t)x;
                e++;
            }
            if (e == d) { /* "&#" and no digits: kept */
                jj_buf_addc(rt, &b, '&');
                i++;
                continue;
            }
            if (e < n && s[e] == ';') e++;
            numeric_ref(rt, &b, big ? 0x110000 : v);
            i = e;
            continue;
        }
        /* a name: up to 32 characters that are not \t \n \f space < & # ;,
         * and its ';' */
        size_t e = j, count = 0, cut[34];
        while (e < n && count < 32 && !(s[e] && strchr("\t\n\f <&#;", s[e]))) {
            cut[count++] = e;
            jj_u8_next(s, n, &e);
        }
        if (e == j) {
            jj_buf_addc(rt, &b, '&');
            i++;
            continue;
        }
        if (e < n && s[e] == ';') cut[count++] = e++;
        const char *t = entity(s + j, e - j);
        if (t) {
            jj_buf_adds(rt, &b, t);
            i = e;
            continue;
        }
        /* the longest prefix of 2 or more characters (not all of them)
         * that is a name, and the rest as it is */
        size_t x = count - 1;
        for (; x >= 2; x--)
            if ((t = entity(s + j, cut[x] - j)) != NULL) break;
        if (t && x >= 2) {
            jj_buf_adds(rt, &b, t);
            jj_buf_add(rt, &b, s + cut[x], e - cut[x]);
        } else {
            jj_buf_addc(rt, &b, '&');
            jj_buf_add(rt, &b, s + j, e - j);
        }
        i = e;
    }
    return jj_str_buf(rt, &b);
}

/* Removes s[from..to) from the buffer (charged: the bytes moved). */
static void cut_out(jj_rt *rt, jj_buf *b, size_t from, size_t to) {
    jj_charge_bytes(&rt->ar, b->n - to);
    memmove(b->p + from, b->p + to, b->n - to);
    b->n -= to - from;
}

static size_t find_in(const jj_buf *b, size_t from, const char *t, size_t m) {
    if (from > b->n || b->n - from < m) return SIZE_MAX;
    const char *p = memmem(b->p + from, b->n - from, t, m);
    return p ? (size_t)(p - b->p) : SIZE_MAX;
}

/* Markup(value).striptags(): comments, then tags, removed one by one as
 * MarkupSafe does (an unclosed one stays; a removal can join a new one),
 * whitespace runs made one space (str.split()), then unescaped. */
jj_str *jj_striptags(jj_rt *rt, jj_str *in) {
    jj_buf b = {0};
    jj_buf_add(rt, &b, in->s, in->n);
    size_t pos = 0, start, end;
    /* the text before a removed comment has no "<!--" but in its last 3 bytes */
    while ((start = find_in(&b, pos, "<!--", 4)) != SIZE_MAX && (end = find_in(&b, start, "-->", 3)) != SIZE_MAX) {
        cut_out(rt, &b, start, end + 3);
        pos = start >= 3 ? start - 3 : 0;
    }
    pos = 0;
    while ((start = find_in(&b, pos, "<", 1)) != SIZE_MAX && (end = find_in(&b, start, ">", 1)) != SIZE_MAX) {
        cut_out(rt, &b, start, end + 1);
        pos = start;
    }
    jj_buf w = {0};
    const char *s = b.p ? b.p : "";
    size_t n = b.n;
    jj_charge_bytes(&rt->ar, 4 * n);
    for (size_t i = 0; i < n;) {
        size_t at = i;
        int32_t c = jj_u8_next(s, n, &i);
        if (!jj_isspace(c)) {
            jj_buf_add(rt, &w, s + at, i - at);
            continue;
        }
        while (i < n) {
            size_t k = i;
            if (!jj_isspace(jj_u8_next(s, n, &k))) break;
            i = k;
        }
        if (w.n && i < n) jj_buf_addc(rt, &w, ' ');
    }
    return unescape(rt, w.p ? w.p : "", w.n);
}

/* ---- urlencode: urllib.parse.quote ---- */

/* quote_from_bytes(str(v).encode(), safe): A-Z a-z 0-9 _ . - ~ and safe
 * kept, other bytes %XX; for_qs: "/" quoted too and "%20" as "+". */
static void url_quote(jj_rt *rt, jj_buf *b, jj_val v, int for_qs) {
    jj_str *s = jj_to_str(rt, v);
    jj_charge_bytes(&rt->ar, 3 * s->n);
    for (size_t i = 0; i < s->n; i++) {
        unsigned char c = (unsigned char)s->s[i];
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
            c == '-' || c == '~' || (c == '/' && !for_qs))
            jj_buf_addc(rt, b, (char)c);
        else if (c == ' ' && for_qs)
            jj_buf_addc(rt, b, '+');
        else
            jj_buf_addf(rt, b, "%%%02X", c);
    }
}

jj_val jj_urlencode(jj_rt *rt, jj_val v) {
    jj_buf b = {0};
    int iterable = v.t == JJ_LIST || v.t == JJ_TUPLE || v.t == JJ_DICT || v.t == JJ_UNDEF || v.t == JJ_LOOP;
    if (v.t == JJ_STR || !iterable) {
        url_quote(rt, &b, v, 0);
        return jj_strv(jj_str_buf(rt, &b));
    }
    if (v.t == JJ_DICT) {
        for (size_t i = 0; i < v.u.d->n; i++) {
            if (i) jj_buf_addc(rt, &b, '&');
            url_quote(rt, &b, v.u.d->k[i], 1);
            jj_buf_addc(rt, &b, '=');
            url_quote(rt, &b, v.u.d->v[i], 1);
        }
        return jj_strv(jj_str_buf(rt, &b));
    }
    jj_list *items = jj_iter(rt, v);
    for (size_t i = 0; i < items->n; i++) {
        jj_val e = items->v[i];
        if (!(e.t == JJ_LIST || e.t == JJ_TUPLE || e.t == JJ_STR || e.t == JJ_DICT))
            jj_fail(rt, "TypeError: cannot unpack non-iterable %s object", jj_type_name(e));
        jj_list *kv = jj_iter(rt, e);
        if (kv->n != 2)
            jj_fail(rt, kv->n < 2 ? "ValueError: not enough values to unpack (expected 2, got %zu)"
                                  : "ValueError: too many values to unpack (expected 2)%.0zu", kv->n);
        if (i) jj_buf_addc(rt, &b, '&');
        url_quote(rt, &b, kv->v[0], 1);
        jj_buf_addc(rt, &b, '=');
        url_quote(rt, &b, kv->v[1], 1);
    }
    return jj_strv(jj_str_buf(rt, &b));
}

/* ---- xmlattr ---- */

jj_val jj_xmlattr(jj_rt *rt, jj_val d, int autospace) {
    if (d.t == JJ_UNDEF) jj_undef_fail(rt, d);
    if (d.t != JJ_DICT) jj_fail(rt, "AttributeError: '%s' object has no attribute 'items'", jj_type_name(d));
    jj_buf b = {0};
    for (size_t i = 0; i < d.u.d->n; i++) {
        jj_val k = d.u.d->k[i], v = d.u.d->v[i];
        if (v.t == JJ_NONE || v.t == JJ_UNDEF) continue;
        if (k.t != JJ_STR) jj_fail(rt, "TypeError: expected string or bytes-like object, got '%s'", jj_type_name(k));
        for (size_t j = 0; j < k.u.s->n;) {
            int32_t c = jj_u8_next(k.u.s->s, k.u.s->n, &j);
            if (jj_isspace(c) || c == '/' || c == '>' || c == '=') {
                jj_buf r = {0};
                jj_repr_of(rt, &r, k);
                jj_fail(rt, "ValueError: Invalid character in attribute name: %s", r.p);
            }
        }
        if (b.n) jj_buf_addc(rt, &b, ' ');
        jj_str *ek = k.flags & JJ_MARKUP ? k.u.s : jj_escape(rt, k.u.s);
        jj_str *ev = v.t == JJ_STR && (v.flags & JJ_MARKUP) ? v.u.s : jj_escape(rt, jj_to_str(rt, v));
        jj_buf_add(rt, &b, ek->s, ek->n);
        jj_buf_adds(rt, &b, "=\"");
        jj_buf_add(rt, &b, ev->s, ev->n);
        jj_buf_addc(rt, &b, '"');
    }
    jj_buf out = {0};
    if (autospace && b.n) jj_buf_addc(rt, &out, ' ');
    jj_buf_add(rt, &out, b.p, b.n);
    return jj_strv(jj_str_buf(rt, &out));
}

/* ---- urlize ---- */

/* Python's \s as a class body (str.isspace: Unicode White_Space and the
 * separators \x1c-\x1f). */
#define PY_SPACE "\\t\\n\\x0b\\x0c\\r\\x1c-\\x20\\x85\\xa0\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}"

/* A web address jinja2 links: a scheme or "www." and a host with a
 * top-level domain of letters (or an IDNA one), a bare domain under one of
 * the common TLDs, or a scheme and an IP address; then a port and a path. */
static const char http_pattern[] =
    "^(?:(?:https?://|www\\.)(?:[\\w%-]+\\.)*(?:[a-z]{2,63}|xn--[\\w%]{2,59})"
    "|(?:[\\w%-]{2,63}\\.)+(?:com|net|int|edu|gov|org|info|mil)"
    "|https?://(?:\\d{1,3}(?:\\.\\d{1,3}){3}|\\[(?:[\\da-f]{0,4}:){2}(?:[\\da-f]{0,4}:?){1,6}\\]))"
    "(?::\\d{1,5})?(?:[/?#][^" PY_SPACE "]*)?$";
static const char email_pattern[] = "^[^" PY_SPACE "]+@\\w[\\w.-]*\\.\\w+$";
static const char scheme_pattern[] = "^[\\w.+-]{2,}:/{0,2}$";

static pcre2_code *http_re, *email_re, *scheme_re;
static pthread_once_t compiled = PTHREAD_ONCE_INIT;

static void compile_all(void) {
    int ec;
    PCRE2_SIZE eo;
    http_re = pcre2_compile((PCRE2_SPTR)http_pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP | PCRE2_CASELESS,
                            &ec, &eo, NULL);
    email_re = pcre2_compile((PCRE2_SPTR)email_pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP, &ec, &eo, NULL);
    scheme_re = pcre2_compile((PCRE2_SPTR)scheme_pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP, &ec, &eo, NULL);
}

/* Whether re matches s[0..n) (valid UTF-8): 1, 0, or -1 when PCRE2 fails. */
static int matches(pcre2_code *re, const char *s, size_t n) {
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    if (!md) return -1;
    int rc = pcre2_match(re, (PCRE2_SPTR)s, n, 0, PCRE2_NO_UTF_CHECK, md, NULL);
    pcre2_match_data_free(md);
    return rc >= 0 ? 1 : rc == PCRE2_ERROR_NOMATCH ? 0 : -1;
}

static int match_or_fail(jj_rt *rt, pcre2_code *re, const char *s, size_t n) {
    if (!re) jj_fail(rt, "internal error: a urlize pattern does not compile");
    jj_charge_bytes(&rt->ar, 16 * n);
    int m = matches(re, s, n);
    if (m < 0) jj_fail(rt, "urlize: the regex engine (PCRE2) gave up");
    return m;
}

static size_t count_of(const char *s, size_t n, const char *t) {
    size_t k = 0, m = strlen(t);
    for (const char *p = s; n >= m && (p = memmem(p, (size_t)(s + n - p), t, m)) != NULL; p += m) k++;
    return k;
}

static int starts(const jj_buf *b, const char *t) { return b->n >= strlen(t) && !memcmp(b->p, t, strlen(t)); }

/* One word (no whitespace) of the escaped text, linked when it is an
 * address; head and tail punctuation stay outside the link. */
static void urlize_word(jj_rt *rt, jj_buf *out, const char *w, size_t n, int64_t trim, const jj_str *rel,
                        const jj_str *target, const jj_list *schemes) {
    size_t a = 0, z = n;
    /* head: ( < &lt; */
    for (;;) {
        if (a < z && (w[a] == '(' || w[a] == '<')) a++;
        else if (z - a >= 4 && !memcmp(w + a, "&lt;", 4)) a += 4;
        else break;
    }
    /* tail: ) > . , \n &gt; */
    size_t t = z;
    for (;;) {
        if (t > a && strchr(")>.,\n", w[t - 1]) && w[t - 1]) t--;
        else if (t - a >= 4 && !memcmp(w + t - 4, "&gt;", 4)) t -= 4;
        else break;
    }
    jj_buf mid = {0}, tail = {0};
    jj_buf_add(rt, &mid, w + a, t - a);
    jj_buf_add(rt, &tail, w + t, z - t);
    /* balance brackets from the tail */
    static const char *const pairs[3][2] = {{"(", ")"}, {"<", ">"}, {"&lt;", "&gt;"}};
    for (int p = 0; p < 3; p++) {
        size_t opens = count_of(mid.p ? mid.p : "", mid.n, pairs[p][0]);
        if (opens <= count_of(mid.p ? mid.p : "", mid.n, pairs[p][1])) continue;
        size_t moves = count_of(tail.p ? tail.p : "", tail.n, pairs[p][1]);
        if (moves > opens) moves = opens;
        for (size_t k = 0; k < moves; k++) {
            size_t el = strlen(pairs[p][1]);
            const char *at = memmem(tail.p, tail.n, pairs[p][1], el);
            size_t end = (size_t)(at - tail.p) + el;
            jj_buf_add(rt, &mid, tail.p, end);
            memmove(tail.p, tail.p + end, tail.n - end);
            tail.n -= end;
        }
    }
    jj_buf_add(rt, out, w, a);
    const char *m = mid.p ? mid.p : "";
    jj_buf attrs = {0};
    if (rel) {
        jj_str *e = jj_escape(rt, (jj_str *)rel);
        jj_buf_adds(rt, &attrs, " rel=\"");
        jj_buf_add(rt, &attrs, e->s, e->n);
        jj_buf_addc(rt, &attrs, '"');
    }
    if (target) {
        jj_str *e = jj_escape(rt, (jj_str *)target);
        jj_buf_adds(rt, &attrs, " target=\"");
        jj_buf_add(rt, &attrs, e->s, e->n);
        jj_buf_addc(rt, &attrs, '"');
    }
    jj_str *ms = jj_str_new(rt, m, mid.n);
    if (match_or_fail(rt, http_re, m, mid.n)) {
        int scheme = starts(&mid, "https://") || starts(&mid, "http://");
        jj_buf_adds(rt, out, "<a href=\"");
        if (!scheme) jj_buf_adds(rt, out, "https://");
        jj_buf_add(rt, out, m, mid.n);
        jj_buf_addc(rt, out, '"');
        jj_buf_add(rt, out, attrs.p, attrs.n);
        jj_buf_addc(rt, out, '>');
        if (trim >= 0 && (int64_t)jj_str_len(ms) > trim) {
            jj_str *cut = jj_s_slice(rt, ms, 0, 0, 1, trim, 1);
            jj_buf_add(rt, out, cut->s, cut->n);
            jj_buf_adds(rt, out, "...");
        } else {
            jj_buf_add(rt, out, m, mid.n);
        }
        jj_buf_adds(rt, out, "</a>");
    } else if (starts(&mid, "mailto:") && match_or_fail(rt, email_re, m + 7, mid.n - 7)) {
        jj_buf_adds(rt, out, "<a href=\"");
        jj_buf_add(rt, out, m, mid.n);
        jj_buf_adds(rt, out, "\">");
        jj_buf_add(rt, out, m + 7, mid.n - 7);
        jj_buf_adds(rt, out, "</a>");
    } else if (memchr(m, '@', mid.n) && !starts(&mid, "www.") && m[0] != '@' && !memchr(m, ':', mid.n) &&
               match_or_fail(rt, email_re, m, mid.n)) {
        jj_buf_adds(rt, out, "<a href=\"mailto:");
        jj_buf_add(rt, out, m, mid.n);
        jj_buf_adds(rt, out, "\">");
        jj_buf_add(rt, out, m, mid.n);
        jj_buf_adds(rt, out, "</a>");
    } else {
        int linked = 0;
        for (size_t k = 0; schemes && k < schemes->n; k++) {
            const jj_str *sc = schemes->v[k].u.s;
            if (mid.n != sc->n && mid.n > sc->n && !memcmp(m, sc->s, sc->n)) {
                /* every matching scheme wraps the word again, as jinja2's loop does */
                jj_buf again = {0};
                jj_buf_adds(rt, &again, "<a href=\"");
                jj_buf_add(rt, &again, m, mid.n);
                jj_buf_addc(rt, &again, '"');
                jj_buf_add(rt, &again, attrs.p, attrs.n);
                jj_buf_addc(rt, &again, '>');
                jj_buf_add(rt, &again, m, mid.n);
                jj_buf_adds(rt, &again, "</a>");
                mid = again;
                m = mid.p;
                linked = 1;
            }
        }
        (void)linked;
        jj_buf_add(rt, out, m, mid.n);
    }
    jj_buf_add(rt, out, tail.p, tail.n);
}

static int by_value(jj_rt *rt, const jj_val *a, const jj_val *b, void *ctx) {
    (void)ctx;
    return jj_cmp(rt, *a, *b);
}

jj_val jj_urlize(jj_rt *rt, jj_val v, int64_t trim, int nofollow, jj_val target, jj_val rel, jj_val extra) {
    pthread_once(&compiled, compile_all);
    /* rel: the words of rel, "nofollow", and the policy's "noopener", sorted */
    jj_list *words = jj_list_new(rt, 0);
    size_t cap = 0;
    if (rel.t != JJ_NONE && rel.t != JJ_UNDEF && jj_truthy(rel)) {
        if (rel.t != JJ_STR) jj_fail(rt, "AttributeError: '%s' object has no attribute 'split'", jj_type_name(rel));
        jj_list *r = jj_s_split(rt, rel.u.s, NULL, -1, 0);
        for (size_t i = 0; i < r->n; i++) jj_list_push(rt, words, &cap, r->v[i]);
    }
    if (nofollow) jj_list_push(rt, words, &cap, jj_cstr(rt, "nofollow"));
    jj_list_push(rt, words, &cap, jj_cstr(rt, "noopener"));
    jj_sort(rt, words->v, words->n, 1, by_value, NULL);
    jj_buf rb = {0};
    for (size_t i = 0; i < words->n; i++) {
        if (i && jj_eq(rt, words->v[i], words->v[i - 1])) continue; /* a set */
        if (rb.n) jj_buf_addc(rt, &rb, ' ');
        jj_str_of(rt, &rb, words->v[i]);
    }
    jj_str *rels = rb.n ? jj_str_buf(rt, &rb) : NULL;
    jj_str *tgt = NULL;
    if (target.t != JJ_NONE && target.t != JJ_UNDEF && jj_truthy(target)) tgt = jj_to_str(rt, target);
    jj_list *schemes = NULL;
    if (extra.t != JJ_NONE && extra.t != JJ_UNDEF) {
        schemes = jj_iter(rt, extra);
        for (size_t i = 0; i < schemes->n; i++) {
            jj_val s = schemes->v[i];
            if (s.t != JJ_STR) jj_fail(rt, "TypeError: expected string or bytes-like object, got '%s'", jj_type_name(s));
            if (!match_or_fail(rt, scheme_re, s.u.s->s, s.u.s->n)) {
                jj_buf r = {0};
                jj_repr_of(rt, &r, s);
                jj_fail(rt, "FilterArgumentError: %s is not a valid URI scheme prefix.", r.p);
            }
        }
    }
    jj_str *text = v.t == JJ_STR && (v.flags & JJ_MARKUP) ? v.u.s : jj_escape(rt, jj_to_str(rt, v));
    jj_buf out = {0};
    const char *s = text->s;
    size_t n = text->n;
    for (size_t i = 0; i < n;) {
        /* words and the whitespace between them (re.split(r"(\s+)")) */
        size_t j = i, k = i;
        int space = jj_isspace(jj_u8_next(s, n, &k));
        while (j < n) {
            size_t q = j;
            if (jj_isspace(jj_u8_next(s, n, &q)) != space) break;
            j = q;
        }
        if (space) jj_buf_add(rt, &out, s + i, j - i);
        else urlize_word(rt, &out, s + i, j - i, trim, rels, tgt, schemes);
        i = j;
    }
    return jj_strv(jj_str_buf(rt, &out));
}
