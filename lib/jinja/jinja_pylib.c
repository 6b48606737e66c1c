/* jinja_pylib.c - the two Python library functions jinja2 filters are:
 * textwrap.wrap (the wordwrap filter: each line of the text wrapped by
 * itself, chunks split at ASCII whitespace and, with break_on_hyphens, after
 * hyphens between letters and around em-dashes; long words broken when
 * allowed) and pprint.pformat (the pprint filter: repr with dicts sorted,
 * lists, tuples, dicts and strings broken over lines past 80 columns). The
 * hyphen rules of textwrap are lookarounds, matched here with PCRE2 in
 * Unicode mode (\w and \d as Python's). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <pthread.h>
#include <string.h>

#include "jinja/jinja_int.h"

/* ---- textwrap ---- */

/* One chunk: whitespace (textwrap's: \t \n \v \f \r and space), or a word
 * that ends before whitespace or the end, after a hyphen between letters
 * ("goof-" of "goof-ball"), or before an em-dash ("--") that follows word
 * punctuation and precedes a word character; or that em-dash itself. */
static const char chunk_pattern[] =
    "[\\t\\n\\x0b\\x0c\\r ]+"
    "|(?<=[\\w!\"'&.,?])-{2,}(?=\\w)"
    "|[^\\t\\n\\x0b\\x0c\\r ]+?(?:-(?:(?<=[^\\d\\W]{2}-)|(?<=[^\\d\\W]-[^\\d\\W]-))(?=[^\\d\\W]-?[^\\d\\W])"
    "|(?=[\\t\\n\\x0b\\x0c\\r ]|\\z)|(?<=[\\w!\"'&.,?])(?=-{2,}\\w))";

static pcre2_code *chunk_re;
static pthread_once_t compiled = PTHREAD_ONCE_INIT;

static void compile_chunks(void) {
    int ec;
    PCRE2_SIZE eo;
    chunk_re = pcre2_compile((PCRE2_SPTR)chunk_pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP, &ec, &eo, NULL);
}

static int ascii_ws(char c) { return c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' || c == ' '; }

/* A chunk as the code points of [at, at + n) of the line. */
typedef struct {
    size_t at, n;   /* bytes */
    size_t len;     /* code points */
} chunk;

/* str.strip() == '': only Python whitespace. */
static int blank(const char *s, size_t n) {
    for (size_t i = 0; i < n;)
        if (!jj_isspace(jj_u8_next(s, n, &i))) return 0;
    return 1;
}

static size_t cps(const char *s, size_t n) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) k += ((unsigned char)s[i] & 0xC0) != 0x80;
    return k;
}

/* The byte length of the first k code points of s. */
static size_t bytes_of(const char *s, size_t n, size_t k) {
    size_t i = 0;
    while (k-- && i < n) jj_u8_next(s, n, &i);
    return i;
}

/* textwrap.wrap(line, width, expand_tabs=False, replace_whitespace=False,
 * break_long_words=blw, break_on_hyphens=boh), its lines appended to
 * lines (strings). */
static void wrap_line(jj_rt *rt, jj_list *lines, size_t *cap, const char *s, size_t n, int64_t width, int blw, int boh) {
    /* the chunks, in order */
    chunk *c = NULL;
    size_t nc = 0, capc = 0;
    pcre2_match_data *md = NULL;
    for (size_t i = 0; i < n;) {
        size_t e;
        if (boh) {
            if (!md && !(md = pcre2_match_data_create_from_pattern(chunk_re, NULL))) jj_fail(rt, "out of memory");
            int rc = pcre2_match(chunk_re, (PCRE2_SPTR)s, n, i, PCRE2_NO_UTF_CHECK, md, NULL);
            PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
            if (rc < 0 || ov[0] != i || ov[1] <= i) {
                pcre2_match_data_free(md);
                jj_fail(rt, "wordwrap: the regex engine (PCRE2) gave up");
            }
            e = ov[1];
        } else {
            int ws = ascii_ws(s[i]);
            e = i + 1;
            while (e < n && ascii_ws(s[e]) == ws) e++;
            if (!ws) { /* a word: to the next whitespace, whole code points */
                while (e < n && ((unsigned char)s[e] & 0xC0) == 0x80) e++;
            }
        }
        if (nc == capc) {
            size_t nc2 = capc ? 2 * capc : 16;
            chunk *t = jj_alloc(&rt->ar, nc2 * sizeof *t);
            if (nc) memcpy(t, c, nc * sizeof *t);
            c = t, capc = nc2;
        }
        c[nc].at = i, c[nc].n = e - i, c[nc].len = cps(s + i, e - i);
        nc++;
        i = e;
    }
    if (md) pcre2_match_data_free(md);
    jj_charge(&rt->ar, nc);
    /* textwrap's _wrap_chunks, taking chunks from the front */
    size_t k = 0;
    int had_lines = 0;
    jj_buf line = {0};
    while (k < nc) {
        size_t cur_len = 0;
        line.n = 0;
        /* the pieces of this line: (byte start, bytes) */
        size_t starts = 0;
        size_t last_at = 0, last_n = 0; /* the last piece, for dropping trailing whitespace */
        if (had_lines && blank(s + c[k].at, c[k].n)) k++;
        while (k < nc && (int64_t)(cur_len + c[k].len) <= width) {
            jj_buf_add(rt, &line, s + c[k].at, c[k].n);
            last_at = c[k].at, last_n = c[k].n;
            cur_len += c[k].len;
            starts++;
            k++;
        }
        if (k < nc && (int64_t)c[k].len > width) {
            /* a long word */
            int64_t space_left = width < 1 ? 1 : width - (int64_t)cur_len;
            if (blw) {
                int64_t end = space_left;
                const char *w = s + c[k].at;
                if (boh && (int64_t)c[k].len > space_left) {
                    /* after the last hyphen before space_left, if a non-hyphen precedes it */
                    /* one walk: whether a non-hyphen came before the last hyphen is
                       noted as it is passed (a second walk calling bytes_of per
                       position was quadratic) */
                    int64_t hyphen = -1, pos = 0;
                    int other = 0, other_before = 0;
                    for (size_t i = 0; i < c[k].n && pos < space_left;) {
                        if (w[i] == '-') hyphen = pos, other_before = other;
                        else other = 1;
                        jj_u8_next(w, c[k].n, &i);
                        pos++;
                    }
                    if (hyphen > 0 && other_before) end = hyphen + 1;
                }
                size_t b = bytes_of(w, c[k].n, (size_t)end);
                jj_buf_add(rt, &line, w, b);
                last_at = c[k].at, last_n = b;
                starts++;
                c[k].at += b, c[k].n -= b, c[k].len -= (size_t)end;
                if (c[k].n == 0) k++;
            } else if (!starts) {
                jj_buf_add(rt, &line, s + c[k].at, c[k].n);
                last_at = c[k].at, last_n = c[k].n;
                starts++;
                k++;
            }
        }
        if (starts && blank(s + last_at, last_n)) {
            line.n -= last_n;
            starts--;
        }
        if (starts) {
            jj_list_push(rt, lines, cap, jj_strv(jj_str_buf(rt, &line)));
            had_lines = 1;
        }
    }
}

jj_val jj_wordwrap(jj_rt *rt, jj_str *s, int64_t width, int break_long_words, jj_str *wrapstring, int break_on_hyphens) {
    if (width <= 0) jj_fail(rt, "ValueError: invalid width %lld (must be > 0)", (long long)width);
    pthread_once(&compiled, compile_chunks);
    if (!chunk_re) jj_fail(rt, "internal error: the wordwrap pattern does not compile");
    jj_charge_bytes(&rt->ar, 8 * s->n);
    jj_list *paras = jj_s_splitlines(rt, s, 0);
    jj_buf out = {0};
    for (size_t p = 0; p < paras->n; p++) {
        jj_str *para = paras->v[p].u.s;
        jj_list *lines = jj_list_new(rt, 0);
        size_t cap = 0;
        wrap_line(rt, lines, &cap, para->s, para->n, width, break_long_words, break_on_hyphens);
        if (p) jj_buf_add(rt, &out, wrapstring->s, wrapstring->n);
        for (size_t i = 0; i < lines->n; i++) {
            if (i) jj_buf_add(rt, &out, wrapstring->s, wrapstring->n);
            jj_buf_add(rt, &out, lines->v[i].u.s->s, lines->v[i].u.s->n);
        }
    }
    return jj_strv(jj_str_buf(rt, &out));
}

/* ---- pprint.pformat ---- */

#define WIDTH 80

/* Python's type name for _safe_key's fallback order ("<class 'int'>"). */
static const char *class_name(jj_val v) {
    switch (v.t) {
    case JJ_NONE: return "<class 'NoneType'>";
    case JJ_BOOL: return "<class 'bool'>";
    case JJ_INT: case JJ_BIG: return "<class 'int'>";
    case JJ_FLOAT: return "<class 'float'>";
    case JJ_STR: return v.flags & JJ_MARKUP ? "<class 'markupsafe.Markup'>" : "<class 'str'>";
    case JJ_TUPLE: return "<class 'tuple'>";
    default: return "<class 'object'>";
    }
}

/* Orderable as Python's < would (numbers, strs, tuples of those). */
static int orderable(jj_val a, jj_val b) {
    if (jj_is_num(a) && jj_is_num(b)) return 1;
    if (a.t == JJ_STR && b.t == JJ_STR) return 1;
    if (a.t == JJ_TUPLE && b.t == JJ_TUPLE) {
        size_t n = a.u.l->n < b.u.l->n ? a.u.l->n : b.u.l->n;
        for (size_t i = 0; i < n; i++)
            if (!orderable(a.u.l->v[i], b.u.l->v[i])) return 0;
        return 1;
    }
    return 0;
}

/* _safe_key: < when it works, else the type names (ties keep their order). */
static int safe_cmp(jj_rt *rt, const jj_val *a, const jj_val *b, void *ctx) {
    (void)ctx;
    if (orderable(a[0], b[0])) {
        if (jj_eq(rt, a[0], b[0])) return 0;
        int c = jj_cmp(rt, a[0], b[0]);
        return c == 2 ? 0 : c;
    }
    return strcmp(class_name(a[0]), class_name(b[0]));
}

/* The entries of d sorted as pformat sorts them: pairs (key, value). */
static jj_val *sorted_items(jj_rt *rt, const jj_dict *d) {
    jj_val *kv = jj_alloc(&rt->ar, (d->n ? d->n : 1) * 2 * sizeof *kv);
    for (size_t i = 0; i < d->n; i++) kv[2 * i] = d->k[i], kv[2 * i + 1] = d->v[i];
    jj_sort(rt, kv, d->n, 2, safe_cmp, NULL);
    return kv;
}

/* _safe_repr: repr, but dicts (not subclasses) with sorted keys, inside lists
 * and tuples too. */
static void safe_repr(jj_rt *rt, jj_buf *b, jj_val v) {
    if (++rt->depth > rt->max_depth) jj_fail(rt, "RecursionError: values nested more than %d deep", rt->max_depth);
    if (v.t == JJ_DICT) {
        const jj_dict *d = v.u.d;
        jj_val *kv = sorted_items(rt, d);
        jj_buf_addc(rt, b, '{');
        for (size_t i = 0; i < d->n; i++) {
            if (i) jj_buf_adds(rt, b, ", ");
            safe_repr(rt, b, kv[2 * i]);
            jj_buf_adds(rt, b, ": ");
            safe_repr(rt, b, kv[2 * i + 1]);
        }
        jj_buf_addc(rt, b, '}');
    } else if ((v.t == JJ_LIST && !(v.flags & ~JJ_MARKUP)) || (v.t == JJ_TUPLE && !(v.flags & JJ_GROUP))) {
        int list = v.t == JJ_LIST;
        jj_buf_addc(rt, b, list ? '[' : '(');
        for (size_t i = 0; i < v.u.l->n; i++) {
            if (i) jj_buf_adds(rt, b, ", ");
            safe_repr(rt, b, v.u.l->v[i]);
        }
        if (!list && v.u.l->n == 1) jj_buf_addc(rt, b, ',');
        jj_buf_addc(rt, b, list ? ']' : ')');
    } else {
        jj_repr_of(rt, b, v);
    }
    rt->depth--;
}

static jj_str *repr_str(jj_rt *rt, const char *s, size_t n) {
    jj_buf b = {0};
    jj_repr_of(rt, &b, jj_strv(jj_str_new(rt, s, n)));
    return jj_str_buf(rt, &b);
}

static void format(jj_rt *rt, jj_buf *out, jj_val v, int64_t indent, int64_t allowance, int level);

static void indent_nl(jj_rt *rt, jj_buf *out, int64_t indent) {
    jj_buf_adds(rt, out, ",\n");
    for (int64_t i = 0; i < indent; i++) jj_buf_addc(rt, out, ' ');
}

static void items(jj_rt *rt, jj_buf *out, const jj_list *l, int64_t indent, int64_t allowance, int level) {
    indent += 1;
    for (size_t i = 0; i < l->n; i++) {
        if (i) indent_nl(rt, out, indent);
        format(rt, out, l->v[i], indent, i + 1 == l->n ? allowance : 1, level);
    }
}

/* A str past the width: its lines, each cut after whitespace to fit,
 * as adjacent literals (in parentheses at the top). */
static void long_str(jj_rt *rt, jj_buf *out, const jj_str *s, int64_t indent, int64_t allowance, int level) {
    if (s->n == 0) {
        jj_buf_adds(rt, out, "''");
        return;
    }
    jj_list *lines = jj_s_splitlines(rt, (jj_str *)s, 1);
    if (level == 1) indent += 1, allowance += 1;
    int64_t max1 = WIDTH - indent, max = WIDTH - indent;
    jj_list *chunks = jj_list_new(rt, 0);
    size_t cap = 0;
    jj_str *rep = NULL;
    for (size_t i = 0; i < lines->n; i++) {
        jj_str *line = lines->v[i].u.s;
        rep = repr_str(rt, line->s, line->n);
        if (i + 1 == lines->n) max1 -= allowance;
        if ((int64_t)jj_str_len(rep) <= max1) {
            jj_list_push(rt, chunks, &cap, jj_strv(rep));
            continue;
        }
        /* parts: (non-space, space) runs, re.findall(r'\S*\s*') */
        int64_t max2 = max;
        jj_buf cur = {0};
        size_t p = 0;
        while (p < line->n) {
            size_t q = p;
            while (q < line->n) {
                size_t t = q;
                if (jj_isspace(jj_u8_next(line->s, line->n, &t))) break;
                q = t;
            }
            while (q < line->n) {
                size_t t = q;
                if (!jj_isspace(jj_u8_next(line->s, line->n, &t))) break;
                q = t;
            }
            int last_part = q >= line->n;
            jj_buf cand = {0};
            jj_buf_add(rt, &cand, cur.p, cur.n);
            jj_buf_add(rt, &cand, line->s + p, q - p);
            if (last_part && i + 1 == lines->n) max2 -= allowance;
            if ((int64_t)jj_str_len(repr_str(rt, cand.p, cand.n)) > max2) {
                if (cur.n) jj_list_push(rt, chunks, &cap, jj_strv(repr_str(rt, cur.p, cur.n)));
                cur.n = 0;
                jj_buf_add(rt, &cur, line->s + p, q - p);
            } else {
                cur = cand;
            }
            p = q;
        }
        if (cur.n) jj_list_push(rt, chunks, &cap, jj_strv(repr_str(rt, cur.p, cur.n)));
    }
    if (chunks->n == 1) {
        jj_buf_add(rt, out, rep->s, rep->n);
        return;
    }
    if (level == 1) jj_buf_addc(rt, out, '(');
    for (size_t i = 0; i < chunks->n; i++) {
        if (i) {
            jj_buf_addc(rt, out, '\n');
            for (int64_t k = 0; k < indent; k++) jj_buf_addc(rt, out, ' ');
        }
        jj_buf_add(rt, out, chunks->v[i].u.s->s, chunks->v[i].u.s->n);
    }
    if (level == 1) jj_buf_addc(rt, out, ')');
}

/* PrettyPrinter._format: the repr when it fits in the width left, else a
 * dict, list, tuple or str broken over lines. */
static void format(jj_rt *rt, jj_buf *out, jj_val v, int64_t indent, int64_t allowance, int level) {
    if (++rt->depth > rt->max_depth) jj_fail(rt, "RecursionError: values nested more than %d deep", rt->max_depth);
    jj_buf r = {0};
    safe_repr(rt, &r, v);
    int64_t len = (int64_t)cps(r.p, r.n);
    int plain_list = v.t == JJ_LIST && !(v.flags & ~JJ_MARKUP);
    int plain_tuple = v.t == JJ_TUPLE && !(v.flags & JJ_GROUP);
    if (len <= WIDTH - indent - allowance || !(v.t == JJ_DICT || plain_list || plain_tuple ||
                                               (v.t == JJ_STR && !(v.flags & JJ_MARKUP)))) {
        jj_buf_add(rt, out, r.p, r.n);
        rt->depth--;
        return;
    }
    level++;
    if (v.t == JJ_STR) {
        long_str(rt, out, v.u.s, indent, allowance, level);
    } else if (v.t == JJ_DICT) {
        const jj_dict *d = v.u.d;
        jj_val *kv = sorted_items(rt, d);
        jj_buf_addc(rt, out, '{');
        int64_t in = indent + 1;
        for (size_t i = 0; i < d->n; i++) {
            if (i) indent_nl(rt, out, in);
            jj_buf kr = {0};
            safe_repr(rt, &kr, kv[2 * i]);
            jj_buf_add(rt, out, kr.p, kr.n);
            jj_buf_adds(rt, out, ": ");
            format(rt, out, kv[2 * i + 1], in + (int64_t)cps(kr.p, kr.n) + 2,
                   i + 1 == d->n ? allowance + 1 : 1, level);
        }
        jj_buf_addc(rt, out, '}');
    } else if (plain_list) {
        jj_buf_addc(rt, out, '[');
        items(rt, out, v.u.l, indent, allowance + 1, level);
        jj_buf_addc(rt, out, ']');
    } else {
        const char *end = v.u.l->n == 1 ? ",)" : ")";
        jj_buf_addc(rt, out, '(');
        items(rt, out, v.u.l, indent, allowance + (int64_t)strlen(end), level);
        jj_buf_adds(rt, out, end);
    }
    rt->depth--;
}

jj_val jj_pformat(jj_rt *rt, jj_val v) {
    jj_buf out = {0};
    format(rt, &out, v, 0, 0, 0);
    return jj_strv(jj_str_buf(rt, &out));
}
