/* jinja_filters.c - Jinja's built-in filters and tests, with transformers'
 * tojson. Each follows jinja2/filters.py and tests.py (3.1): the same
 * argument names and defaults, the same handling of Undefined, generators
 * where Jinja returns generators (select, map, unique, items, ...). */
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/pyrandom.h"
#include "jinja/jinja_int.h"

enum {
    F_ABS, F_ATTR, F_BATCH, F_CAPITALIZE, F_CENTER, F_COUNT, F_D, F_DEFAULT, F_DICTSORT, F_E,
    F_ESCAPE, F_FILESIZEFORMAT, F_FIRST, F_FLOAT, F_FORCEESCAPE, F_FORMAT, F_GROUPBY, F_INDENT, F_INT,
    F_ITEMS, F_JOIN, F_LAST, F_LENGTH, F_LIST, F_LOWER, F_MAP, F_MAX, F_MIN, F_PPRINT, F_RANDOM, F_REJECT,
    F_REJECTATTR, F_REPLACE, F_REVERSE, F_ROUND, F_SAFE, F_SELECT, F_SELECTATTR, F_SLICE, F_SORT,
    F_STRING, F_STRIPTAGS, F_SUM, F_TITLE, F_TOJSON, F_TRIM, F_TRUNCATE, F_UNIQUE, F_UPPER, F_URLENCODE,
    F_URLIZE, F_WORDCOUNT, F_WORDWRAP, F_XMLATTR
};

/* Every built-in filter of jinja2 3.1 (and transformers' tojson). */
static const char *const filter_names[] = {
    "abs", "attr", "batch", "capitalize", "center", "count", "d", "default", "dictsort", "e",
    "escape", "filesizeformat", "first", "float", "forceescape", "format", "groupby", "indent", "int",
    "items", "join", "last", "length", "list", "lower", "map", "max", "min", "pprint", "random", "reject",
    "rejectattr", "replace", "reverse", "round", "safe", "select", "selectattr", "slice", "sort",
    "string", "striptags", "sum", "title", "tojson", "trim", "truncate", "unique", "upper", "urlencode",
    "urlize", "wordcount", "wordwrap", "xmlattr", NULL};

enum {
    TT_BOOLEAN, TT_CALLABLE, TT_DEFINED, TT_DIVISIBLEBY, TT_EQ, TT_EQUALTO, TT_EQ_OP, TT_ESCAPED,
    TT_EVEN, TT_FALSE, TT_FILTER, TT_FLOAT, TT_GE, TT_GE_OP, TT_GREATERTHAN, TT_GT, TT_GT_OP, TT_IN,
    TT_INTEGER, TT_ITERABLE, TT_LE, TT_LE_OP, TT_LESSTHAN, TT_LOWER, TT_LT, TT_LT_OP, TT_MAPPING,
    TT_NE, TT_NE_OP, TT_NONE, TT_NUMBER, TT_ODD, TT_SAMEAS, TT_SEQUENCE, TT_STRING, TT_TEST, TT_TRUE,
    TT_UNDEFINED, TT_UPPER
};
static const char *const test_names[] = {
    "boolean", "callable", "defined", "divisibleby", "eq", "equalto", "==", "escaped",
    "even", "false", "filter", "float", "ge", ">=", "greaterthan", "gt", ">", "in",
    "integer", "iterable", "le", "<=", "lessthan", "lower", "lt", "<", "mapping",
    "ne", "!=", "none", "number", "odd", "sameas", "sequence", "string", "test", "true",
    "undefined", "upper", NULL};

static int lookup(const char *const *names, const char *name) {
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], name) == 0) return i;
    return -1;
}

int jj_filter_id(const char *name) { return lookup(filter_names, name); }

int jj_test_id(const char *name) { return lookup(test_names, name); }

/* ---- helpers ---- */

static jj_val gen(jj_list *l) {
    jj_val v = jj_listv(l, 0);
    v.flags = JJ_GENERATOR;
    return v;
}

/* The list a generator filter builds, registered so that an error while it
 * is built leaves the items made before it (see jj_call_filter). */
static jj_list *lazy_out(jj_rt *rt, jj_list *l) {
    if (rt->lazy) *rt->lazy = l;
    return l;
}

static jj_val markup(jj_str *s) {
    jj_val v = jj_strv(s);
    v.flags = JJ_MARKUP;
    return v;
}

/* soft_str: strings (Markup included) as they are, the rest through str(). */
static jj_val soft_str(jj_rt *rt, jj_val v) {
    if (v.t == JJ_STR) return v;
    return jj_strv(jj_to_str(rt, v));
}

static jj_val keep_markup(jj_val from, jj_str *s) {
    jj_val v = jj_strv(s);
    v.flags = from.flags & JJ_MARKUP;
    return v;
}

static int64_t need_int(jj_rt *rt, jj_val v) {
    if (v.t == JJ_UNDEF) jj_undef_fail(rt, v);
    if (!jj_is_int(v))
        jj_fail(rt, "TypeError: '%s' object cannot be interpreted as an integer", jj_type_name(v));
    if (v.t == JJ_BIG) jj_fail(rt, "OverflowError: Python int too large to convert to C ssize_t");
    return v.u.i;
}

/* Attribute paths of make_attrgetter: "a.b.0", integer parts as integers. */
static jj_val attr_path(jj_rt *rt, jj_val item, jj_val attribute, jj_val dflt, int has_dflt) {
    if (attribute.t == JJ_NONE || attribute.t == JJ_UNDEF) return item;
    if (attribute.t != JJ_STR) {
        item = jj_getitem(rt, item, attribute);
        if (has_dflt && dflt.t != JJ_NONE && item.t == JJ_UNDEF) item = dflt;
        return item;
    }
    jj_str *s = attribute.u.s;
    size_t a = 0;
    for (;;) {
        size_t z = a;
        while (z < s->n && s->s[z] != '.') z++;
        int digits = z > a;
        for (size_t i = a; i < z; i++) digits &= s->s[i] >= '0' && s->s[i] <= '9';
        jj_val key;
        if (digits) key = jj_int_parse(rt, s->s + a, z - a, 10, 0);
        else key = jj_strn(rt, s->s + a, z - a);
        item = jj_getitem(rt, item, key);
        if (has_dflt && dflt.t != JJ_NONE && item.t == JJ_UNDEF) item = dflt;
        if (z >= s->n) break;
        a = z + 1;
    }
    return item;
}

static jj_val ignore_case(jj_rt *rt, jj_val v) {
    if (v.t == JJ_STR) return jj_strv(jj_s_recase(rt, v.u.s, JJ_RC_LOWER));
    return v;
}

/* Sorting by precomputed keys: elements are (key, item) pairs. */
/* Python's sorted() compares with < alone: None < None and Undefined <
 * Undefined fail even where the values are equal. */
static int cmp_key(jj_rt *rt, const jj_val *a, const jj_val *b, void *ctx) {
    int rev = *(int *)ctx;
    int c = jj_cmp(rt, a[0], b[0]);
    if (c == 2) return 0; /* NaN: not less either way */
    return rev ? -c : c;
}

#define BIND(fname, ...)                                                              \
    static const char *const P[] = {__VA_ARGS__};                                     \
    enum { NP = sizeof P / sizeof P[0] };                                              \
    jj_val A[NP];                                                                     \
    int G[NP];                                                                        \
    jj_bind(rt, fname, P, NP, args, nargs, kwn, kwv, nkw, A, G)

static void no_args(jj_rt *rt, const char *name, size_t nargs, size_t nkw) {
    if (nargs || nkw) jj_fail(rt, "TypeError: %s() takes no arguments", name);
}

/* Python's float(str) of a string already stripped of whitespace. */
static int parse_float(jj_str *t, double *out) {
    size_t a = 0, z = t->n;
    if (z == a || z - a > 400) return 0;
    char buf[410];
    size_t n = 0, i = a;
    if (t->s[i] == '+' || t->s[i] == '-') buf[n++] = t->s[i++];
    /* inf, infinity, nan (any case) */
    size_t rest = z - i;
    if ((rest == 3 && !strncasecmp(t->s + i, "inf", 3)) || (rest == 8 && !strncasecmp(t->s + i, "infinity", 8)) ||
        (rest == 3 && !strncasecmp(t->s + i, "nan", 3))) {
        memcpy(buf + n, t->s + i, rest);
        buf[n + rest] = 0;
        *out = strtod(buf, NULL);
        return 1;
    }
    int digits = 0, dot = 0, exp = 0;
    char prev = 0;
    for (; i < z; i++) {
        char c = t->s[i];
        if (c >= '0' && c <= '9') { digits = 1; buf[n++] = c; }
        else if (c == '_') {
            if (!(prev >= '0' && prev <= '9') || i + 1 >= z || t->s[i + 1] < '0' || t->s[i + 1] > '9') return 0;
        } else if (c == '.' && !dot && !exp) { dot = 1; buf[n++] = c; }
        else if ((c == 'e' || c == 'E') && digits && !exp) {
            exp = 1;
            buf[n++] = c;
            if (i + 1 < z && (t->s[i + 1] == '+' || t->s[i + 1] == '-')) buf[n++] = t->s[++i];
            if (i + 1 >= z) return 0;
            digits = 0;
            c = 0;
        } else return 0;
        prev = c;
    }
    if (!digits) return 0;
    buf[n] = 0;
    char *end;
    *out = strtod(buf, &end);
    return *end == 0;
}

/* Python's int(str, base) of a string already stripped of whitespace:
 * 1 with *out, or 0 when it is not an int literal of that base. */
static int parse_int(jj_rt *rt, jj_str *s, int64_t base, jj_val *out) {
    size_t a = 0, z = s->n;
    int neg = 0;
    if (a < z && (s->s[a] == '+' || s->s[a] == '-')) neg = s->s[a++] == '-';
    if (base == 0 || base == 16 || base == 8 || base == 2) {
        if (z - a > 2 && s->s[a] == '0') {
            char p = (char)(s->s[a + 1] | 32);
            int pb = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 0;
            if (pb && (base == 0 || base == pb)) { base = pb; a += 2; if (a < z && s->s[a] == '_') a++; }
        }
        if (base == 0) {
            /* base 0: a decimal literal has no leading zeros (but 0, 00, 0_0) */
            int zeros = 1;
            for (size_t i = a; i < z; i++) zeros &= s->s[i] == '0' || s->s[i] == '_';
            if (z - a > 1 && s->s[a] == '0' && !zeros) return 0;
            base = 10;
        }
    }
    if (a >= z) return 0;
    jj_buf d = {0};
    char prev = '_';
    for (size_t i = a; i < z; i++) {
        char c = s->s[i];
        if (c == '_') {
            if (prev == '_' || i + 1 >= z) return 0;
            prev = c;
            continue;
        }
        int v = c >= '0' && c <= '9' ? c - '0' : (c | 32) >= 'a' && (c | 32) <= 'z' ? (c | 32) - 'a' + 10 : 99;
        if (v >= base) return 0;
        jj_buf_addc(rt, &d, c);
        prev = c;
    }
    *out = jj_int_parse(rt, d.p, d.n, (int)base, neg);
    return 1;
}

/* round(x, ndigits) for floats, as Python (correctly rounded decimal). */
static double round_float(double x, int64_t nd) {
    if (!isfinite(x) || x == 0) return x;
    if (nd > 330) return x;
    if (nd < -330) return copysign(0.0, x);
    if (nd >= 0) {
        char t[720];
        snprintf(t, sizeof t, "%.*f", (int)nd, x);
        return strtod(t, NULL);
    }
    double p = pow(10.0, (double)-nd);
    double y = x / p, r = nearbyint(y);
    if (fabs(y - trunc(y)) == 0.5) r = 2.0 * nearbyint(y / 2.0);
    double res = r * p;
    return isfinite(res) ? res : copysign(0.0, x) + res;
}

static jj_val do_round(jj_rt *rt, jj_val v, jj_val prec_v, int has_prec, jj_val method) {
    int64_t prec = has_prec ? need_int(rt, prec_v) : 0;
    (void)0;
    const char *m = "common";
    if (method.t == JJ_STR) m = method.u.s->s;
    else if (method.t != JJ_UNDEF) m = "?";
    if (strcmp(m, "common") && strcmp(m, "ceil") && strcmp(m, "floor"))
        jj_fail(rt, "FilterArgumentError: method must be common, ceil or floor");
    if (v.t == JJ_UNDEF) jj_undef_fail(rt, v);
    if (!jj_is_num(v)) jj_fail(rt, "TypeError: type %s doesn't define __round__ method", jj_type_name(v));
    if (!strcmp(m, "common")) {
        if (v.t == JJ_FLOAT) return jj_float(round_float(v.u.f, prec));
        return jj_int_round(rt, v, prec);
    }
    double scale = pow(10.0, (double)prec);
    double x = jj_num(rt, v) * scale;
    double r = m[0] == 'c' ? ceil(x) : floor(x);
    if (!isfinite(r)) jj_fail(rt, "OverflowError: cannot convert float infinity to integer");
    if (r == 0) r = 0.0;  /* math.ceil gives the integer 0, never -0.0 */
    return jj_float(r / scale);
}

/* Jinja's title filter: the string split at runs of [-\s({\[<] (kept), each
 * piece then item[0].upper() + item[1:].lower(). */
static jj_str *do_title(jj_rt *rt, jj_str *s) {
    jj_buf b = {0};
    size_t i = 0;
    while (i < s->n) {
        size_t start = i;
        int sep = -1;
        while (i < s->n) {
            size_t k = i;
            int32_t c = jj_u8_next(s->s, s->n, &k);
            int is_sep = c == '-' || c == '(' || c == '{' || c == '[' || c == '<' || jj_isspace(c);
            if (sep >= 0 && is_sep != sep) break;
            sep = is_sep;
            i = k;
        }
        size_t first = start;
        jj_case_put(rt, &b, jj_u8_next(s->s, s->n, &first), JJ_UPPER);
        jj_str *rest = jj_s_recase(rt, jj_str_new(rt, s->s + first, i - first), JJ_RC_LOWER);
        jj_buf_add(rt, &b, rest->s, rest->n);
    }
    return jj_str_buf(rt, &b);
}

static jj_val do_indent(jj_rt *rt, jj_val s, jj_val width, int has_width, int first, int blank) {
    jj_str *ind;
    if (!has_width) ind = jj_str_new(rt, "    ", 4);
    else if (width.t == JJ_STR) ind = width.u.s;
    else {
        int64_t w = need_int(rt, width);
        if (w < 0) w = 0;
        if ((uint64_t)w > rt->max_output) jj_limit(rt, "a string longer than %zu bytes", rt->max_output);
        jj_buf b = {0};
        for (int64_t i = 0; i < w; i++) jj_buf_addc(rt, &b, ' ');
        ind = jj_str_buf(rt, &b);
    }
    /* s += "\n": only strings (and Markup) can take it */
    if (s.t == JJ_UNDEF) jj_undef_fail(rt, s);
    if (s.t != JJ_STR)
        jj_fail(rt, "TypeError: unsupported operand type(s) for +=: '%s' and 'str'", jj_type_name(s));
    jj_str *src = jj_str_cat(rt, s.u.s, jj_str_new(rt, "\n", 1));
    if (s.flags & JJ_MARKUP) ind = jj_escape(rt, ind);
    jj_list *lines = jj_s_splitlines(rt, src, 0);
    jj_buf b = {0};
    if (first) jj_buf_add(rt, &b, ind->s, ind->n);
    for (size_t i = 0; i < lines->n; i++) {
        jj_str *ln = lines->v[i].u.s;
        if (i) {
            jj_buf_addc(rt, &b, '\n');
            if (blank || ln->n) jj_buf_add(rt, &b, ind->s, ind->n);
        }
        jj_buf_add(rt, &b, ln->s, ln->n);
    }
    return keep_markup(s, jj_str_buf(rt, &b));
}

static jj_val do_truncate(jj_rt *rt, jj_val s, const jj_val *A, const int *G) {
    int64_t length = G[0] ? need_int(rt, A[0]) : 255;
    int killwords = G[1] ? jj_truthy(A[1]) : 0;
    jj_str *end = G[2] ? jj_to_str(rt, A[2]) : jj_str_new(rt, "...", 3);
    int64_t leeway = G[3] && A[3].t != JJ_NONE ? need_int(rt, A[3]) : 5;
    int64_t elen = (int64_t)jj_str_len(end);
    if (length < elen) jj_fail(rt, "AssertionError: expected length >= %lld, got %lld", (long long)elen, (long long)length);
    if (leeway < 0) jj_fail(rt, "AssertionError: expected leeway >= 0, got %lld", (long long)leeway);
    if (jj_len(rt, s) <= length + leeway) return s;
    if (s.t != JJ_STR) jj_fail(rt, "truncate of a %s is not supported", jj_type_name(s));
    jj_str *head = jj_s_slice(rt, s.u.s, 0, 0, 1, length - elen, 1);
    if (!killwords) {
        jj_list *parts = jj_s_split(rt, head, jj_str_new(rt, " ", 1), 1, 1);
        head = parts->v[0].u.s;
    }
    return jj_strv(jj_str_cat(rt, head, end));
}

static jj_val do_tojson(jj_rt *rt, jj_val v, const jj_val *args, size_t nargs,
                        const char *const *kwn, const jj_val *kwv, size_t nkw) {
    BIND("tojson", "ensure_ascii", "indent", "separators", "sort_keys");
    jj_json_opts o = {0};
    o.ensure_ascii = G[0] && jj_truthy(A[0]);
    o.sort_keys = G[3] && jj_truthy(A[3]);
    if (G[1] && A[1].t != JJ_NONE) {
        o.indent_on = 1;
        if (A[1].t == JJ_STR) o.indent = A[1].u.s;
        else {
            int64_t w = need_int(rt, A[1]);
            if (w > 10000) jj_fail(rt, "indent too large");
            jj_buf b = {0};
            for (int64_t i = 0; i < w; i++) jj_buf_addc(rt, &b, ' ');
            o.indent = jj_str_buf(rt, &b);
        }
    }
    if (G[2] && A[2].t != JJ_NONE) {
        jj_list *sep = (A[2].t == JJ_LIST || A[2].t == JJ_TUPLE) ? A[2].u.l : NULL;
        if (!sep || sep->n != 2 || sep->v[0].t != JJ_STR || sep->v[1].t != JJ_STR)
            jj_fail(rt, "TypeError: separators must be a pair of strings");
        o.item_sep = sep->v[0].u.s;
        o.key_sep = sep->v[1].u.s;
    }
    jj_buf b = {0};
    jj_tojson(rt, &b, v, &o);
    return jj_strv(jj_str_buf(rt, &b));
}

/* select/reject/selectattr/rejectattr */
static jj_val select_reject(jj_rt *rt, jj_val v, const jj_val *args, size_t nargs,
                            const char *const *kwn, const jj_val *kwv, size_t nkw, int attr,
                            int want) {
    jj_list *out = lazy_out(rt, jj_list_new(rt, 0));
    size_t cap = 0;
    if (!jj_truthy(v)) return gen(out);
    size_t off = 0;
    jj_val attribute = jj_none;
    if (attr) {
        if (nargs < 1) jj_fail(rt, "FilterArgumentError: Missing parameter for attribute name");
        attribute = args[0];
        off = 1;
    }
    int tid = -1;
    const char *tname = NULL;
    if (nargs > off) {
        if (args[off].t != JJ_STR) {
            if (args[off].t == JJ_UNDEF) jj_undef_fail(rt, args[off]);
            jj_fail(rt, "TemplateRuntimeError: No test named %s.", jj_to_str(rt, args[off])->s);
        }
        tname = args[off].u.s->s;
        tid = jj_test_id(tname);
        if (tid < 0) jj_fail(rt, "TemplateRuntimeError: No test named '%s'.", tname);
    }
    jj_list *items = jj_iter(rt, v);
    for (size_t i = 0; i < items->n; i++) {
        jj_step(rt);
        jj_val x = items->v[i];
        jj_val t = attr ? attr_path(rt, x, attribute, jj_none, 0) : x;
        int r = tname ? jj_call_test(rt, tid, tname, t, args + off + 1, nargs - off - 1, kwn, kwv, nkw)
                      : jj_truthy(t);
        if (r == want) jj_list_push(rt, out, &cap, x);
    }
    return gen(out);
}

static jj_val do_map(jj_rt *rt, jj_val v, const jj_val *args, size_t nargs,
                     const char *const *kwn, const jj_val *kwv, size_t nkw) {
    if (!jj_truthy(v)) return gen(jj_list_new(rt, 0)); /* "if value:" before anything */
    jj_list *out = lazy_out(rt, jj_list_new(rt, 0));
    size_t cap = 0;
    /* prepare_map: by attribute, or by a filter named first */
    int by_attr = 0;
    jj_val attribute = jj_undefined, dflt = jj_none;
    if (nargs == 0) {
        for (size_t k = 0; k < nkw; k++)
            if (!strcmp(kwn[k], "attribute")) attribute = kwv[k], by_attr = 1;
        if (by_attr)
            for (size_t k = 0; k < nkw; k++) {
                if (!strcmp(kwn[k], "default")) dflt = kwv[k];
                else if (strcmp(kwn[k], "attribute"))
                    jj_fail(rt, "FilterArgumentError: Unexpected keyword argument '%s'", kwn[k]);
            }
    }
    if (!by_attr && nargs == 0) jj_fail(rt, "FilterArgumentError: map requires a filter argument");
    jj_list *items = jj_iter(rt, v);
    for (size_t i = 0; i < items->n; i++) {
        jj_step(rt);
        jj_val r;
        if (by_attr) {
            r = attr_path(rt, items->v[i], attribute, dflt, 1);
        } else {
            /* environment.call_filter(name, item, ...) for each item */
            if (args[0].t != JJ_STR) {
                if (args[0].t == JJ_UNDEF) jj_undef_fail(rt, args[0]);
                if (!jj_hashable(args[0])) jj_fail(rt, "TypeError: unhashable type: '%s'", jj_type_name(args[0]));
                jj_fail(rt, "TemplateRuntimeError: No filter named %s.", jj_to_str(rt, args[0])->s);
            }
            const char *fname = args[0].u.s->s;
            int fid = jj_filter_id(fname);
            if (fid < 0) jj_fail(rt, "TemplateRuntimeError: No filter named '%s'.", fname);
            r = jj_call_filter(rt, fid, fname, items->v[i], args + 1, nargs - 1, kwn, kwv, nkw);
        }
        jj_list_push(rt, out, &cap, r);
    }
    return gen(out);
}

/* sort, dictsort, unique, min, max: keys by attribute, case folded. */
static jj_val sort_key(jj_rt *rt, jj_val item, jj_val attribute, int multi, int case_sensitive) {
    if (!multi) {
        jj_val k = attr_path(rt, item, attribute, jj_none, 0);
        return case_sensitive ? k : ignore_case(rt, k);
    }
    /* make_multi_attrgetter: a list of one value per comma-separated path */
    jj_list *l = jj_list_new(rt, 0);
    size_t cap = 0;
    if (attribute.t == JJ_STR) {
        jj_list *paths = jj_s_split(rt, attribute.u.s, jj_str_new(rt, ",", 1), -1, 0);
        for (size_t i = 0; i < paths->n; i++) {
            jj_val k = attr_path(rt, item, paths->v[i], jj_none, 0);
            jj_list_push(rt, l, &cap, case_sensitive ? k : ignore_case(rt, k));
        }
    } else {
        jj_val k = attr_path(rt, item, attribute, jj_none, 0);
        jj_list_push(rt, l, &cap, case_sensitive ? k : ignore_case(rt, k));
    }
    return jj_listv(l, 0);
}

static jj_val do_sort(jj_rt *rt, jj_list *items, int reverse, int case_sensitive, jj_val attribute) {
    size_t n = items->n;
    jj_charge(&rt->ar, n);
    jj_val *kv = jj_alloc(&rt->ar, (n ? n : 1) * 2 * sizeof(jj_val));
    for (size_t i = 0; i < n; i++) {
        kv[2 * i] = sort_key(rt, items->v[i], attribute, 1, case_sensitive);
        kv[2 * i + 1] = items->v[i];
    }
    jj_sort(rt, kv, n, 2, cmp_key, &reverse);
    jj_list *out = jj_list_new(rt, n);
    for (size_t i = 0; i < n; i++) out->v[i] = kv[2 * i + 1];
    return jj_listv(out, 0);
}

static jj_val min_max(jj_rt *rt, jj_val v, int max, int case_sensitive, jj_val attribute) {
    jj_list *items = jj_iter(rt, v);
    jj_charge(&rt->ar, items->n);
    if (items->n == 0) return jj_undef_hint(rt, "No aggregated item, sequence was empty.");
    size_t best = 0;
    jj_val bk = sort_key(rt, items->v[0], attribute, 0, case_sensitive);
    for (size_t i = 1; i < items->n; i++) {
        jj_val k = sort_key(rt, items->v[i], attribute, 0, case_sensitive);
        int c = jj_cmp(rt, k, bk); /* min() compares with <, max() with > */
        if (max ? c == 1 : c == -1) { best = i; bk = k; }
    }
    return items->v[best];
}

static jj_val first_item(jj_rt *rt, jj_val v) {
    if (v.t == JJ_LIST && (v.flags & JJ_GENERATOR)) {
        jj_list *l = v.u.l;
        if (l->pos < l->n) return l->v[l->pos++];
        if (l->err) jj_fail(rt, "%s", l->err);
        return jj_undef_hint(rt, "No first item, sequence was empty.");
    }
    if (v.t == JJ_STR) {
        jj_str *c = jj_s_at(rt, v.u.s, 0);
        return c ? jj_strv(c) : jj_undef_hint(rt, "No first item, sequence was empty.");
    }
    jj_list *items = jj_iter(rt, v);
    return items->n ? items->v[0] : jj_undef_hint(rt, "No first item, sequence was empty.");
}

static jj_val last_item(jj_rt *rt, jj_val v) {
    if (v.t == JJ_LIST && (v.flags & JJ_GENERATOR))
        jj_fail(rt, "TypeError: '%s' object is not reversible", jj_type_name(v));
    if (v.t == JJ_STR) {
        jj_str *c = jj_s_at(rt, v.u.s, -1);
        return c ? jj_strv(c) : jj_undef_hint(rt, "No last item, sequence was empty.");
    }
    if (v.t != JJ_UNDEF && v.t != JJ_LIST && v.t != JJ_TUPLE && v.t != JJ_DICT)
        jj_fail(rt, "TypeError: '%s' object is not reversible", jj_type_name(v));
    jj_list *items = jj_iter(rt, v);
    return items->n ? items->v[items->n - 1] : jj_undef_hint(rt, "No last item, sequence was empty.");
}

static jj_val do_reverse(jj_rt *rt, jj_val v) {
    if (v.t == JJ_STR) return keep_markup(v, jj_s_slice(rt, v.u.s, 0, 0, 0, 0, -1));
    int is_gen = v.t == JJ_LIST && (v.flags & JJ_GENERATOR);
    jj_list *items = jj_iter(rt, v);
    jj_list *out = jj_list_new(rt, items->n);
    for (size_t i = 0; i < items->n; i++) out->v[i] = items->v[items->n - 1 - i];
    if (is_gen) return jj_listv(out, 0); /* list(value) reversed */
    return gen(out);                     /* reversed(value): an iterator */
}

/* filesizeformat: float(value) in bytes, decimal or binary prefixes. */
static jj_val filesizeformat(jj_rt *rt, jj_val v, int binary) {
    double bytes;
    if (v.t == JJ_FLOAT) bytes = v.u.f;
    else if (jj_is_int(v)) bytes = jj_num(rt, v);
    else if (v.t == JJ_STR) {
        if (!parse_float(jj_s_strip(rt, v.u.s, NULL, 3), &bytes)) {
            jj_buf r = {0};
            jj_repr_of(rt, &r, v);
            jj_fail(rt, "ValueError: could not convert string to float: %s", r.p);
        }
    } else {
        if (v.t == JJ_UNDEF) jj_undef_fail(rt, v);
        jj_fail(rt, "TypeError: float() argument must be a string or a real number, not '%s'", jj_type_name(v));
    }
    static const char *const dec[] = {"kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"};
    static const char *const bin[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"};
    int64_t base = binary ? 1024 : 1000;
    jj_buf b = {0};
    if (bytes == 1) return jj_cstr(rt, "1 Byte");
    if (bytes < (double)base) {
        jj_int_str(rt, &b, jj_int_from_double(rt, bytes));
        jj_buf_adds(rt, &b, " Bytes");
        return jj_strv(jj_str_buf(rt, &b));
    }
    int i = 0;
    double unit = 0;
    for (; i < 8; i++) {
        unit = jj_num(rt, jj_int_pow(rt, jj_int(base), jj_int(i + 2)));
        if (bytes < unit) break;
    }
    if (i == 8) i = 7;
    jj_buf_addf(rt, &b, "%.1f %s", (double)base * bytes / unit, binary ? bin[i] : dec[i]);
    return jj_strv(jj_str_buf(rt, &b));
}

/* groupby: sorted by the attribute (lower-cased unless case_sensitive),
 * runs of equal keys grouped; each a (grouper, list) namedtuple whose
 * grouper is the first item's own value. */
static int cmp_pairs(jj_rt *rt, const jj_val *a, const jj_val *b, void *ctx) {
    (void)ctx;
    int c = jj_cmp(rt, a[0], b[0]);
    return c == 2 ? 0 : c;
}

static jj_val groupby(jj_rt *rt, jj_val v, jj_val attribute, jj_val dflt, int case_sensitive) {
    jj_list *items = jj_iter(rt, v);
    size_t n = items->n;
    jj_charge(&rt->ar, n);
    int has_dflt = dflt.t != JJ_NONE;
    jj_val *kv = jj_alloc(&rt->ar, (n ? n : 1) * 2 * sizeof *kv);
    for (size_t i = 0; i < n; i++) {
        jj_val k = attr_path(rt, items->v[i], attribute, dflt, has_dflt);
        kv[2 * i] = case_sensitive ? k : ignore_case(rt, k);
        kv[2 * i + 1] = items->v[i];
    }
    jj_sort(rt, kv, n, 2, cmp_pairs, NULL);
    jj_list *out = jj_list_new(rt, 0);
    size_t cap = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && jj_eq(rt, kv[2 * j], kv[2 * i])) j++;
        jj_list *members = jj_list_new(rt, j - i);
        for (size_t k = i; k < j; k++) members->v[k - i] = kv[2 * k + 1];
        jj_list *g = jj_list_new(rt, 2);
        g->v[0] = case_sensitive ? kv[2 * i] : attr_path(rt, kv[2 * i + 1], attribute, dflt, has_dflt);
        g->v[1] = jj_listv(members, 0);
        jj_val gv = jj_listv(g, 1);
        gv.flags = JJ_GROUP;
        jj_list_push(rt, out, &cap, gv);
        i = j;
    }
    return jj_listv(out, 0);
}

/* random: random.choice(seq) from Python's generator seeded with 0 when
 * the render starts (jinja2's is unseeded: no two runs agree; calkit's
 * output must be the same every run). */
static jj_val random_item(jj_rt *rt, jj_val v) {
    /* choice's `if not seq`: an undefined value is false, so empty */
    int64_t n = v.t == JJ_UNDEF ? 0 : jj_len(rt, v);
    if (n == 0) return jj_undef_hint(rt, "No random item, sequence was empty.");
    if (v.t == JJ_LOOP || (v.t == JJ_LIST && (v.flags & (JJ_GENERATOR | JJ_DICT_ITEMS | JJ_DICT_KEYS | JJ_DICT_VALUES))))
        jj_fail(rt, "TypeError: '%s' object is not subscriptable", jj_type_name(v));
    if (!rt->rng_seeded) {
        cal_py_seed(&rt->rng, 0);
        rt->rng_seeded = 1;
    }
    int64_t i = (int64_t)cal_py_randbelow(&rt->rng, (uint64_t)n);
    if (v.t == JJ_DICT) { /* seq[i]: a dict looks the int up as a key */
        jj_val *p = jj_dict_get(rt, v.u.d, jj_int(i));
        if (!p) jj_fail(rt, "KeyError: %lld", (long long)i);
        return *p;
    }
    return jj_getitem(rt, v, jj_int(i));
}

static jj_val call_filter(jj_rt *rt, int id, const char *name, jj_val v, const jj_val *args,
                          size_t nargs, const char *const *kwn, const jj_val *kwv, size_t nkw) {
    switch (id) {
    case F_ABS:
        no_args(rt, name, nargs, nkw);
        if (v.t == JJ_COMPLEX) return jj_float(hypot(v.u.c->re, v.u.c->im));
        if (v.t == JJ_UNDEF || !jj_is_num(v))
            jj_fail(rt, "TypeError: bad operand type for abs(): '%s'", jj_type_name(v));
        if (v.t == JJ_FLOAT) return jj_float(fabs(v.u.f));
        return jj_int_abs(rt, v);
    case F_ATTR: {
        BIND(name, "name");
        if (!G[0]) jj_fail(rt, "TypeError: do_attr() missing 1 required positional argument: 'name'");
        if (v.t == JJ_UNDEF) jj_undef_fail(rt, v);
        if (A[0].t != JJ_STR) jj_fail(rt, "TypeError: attribute name must be string");
        jj_val r = jj_getattr(rt, v, A[0].u.s->s);
        /* only real attributes, never a dict's items */
        if (v.t == JJ_DICT && r.t != JJ_FUNC && !(r.t == JJ_UNDEF && r.u.u && r.u.u->unsafe))
            return jj_undef_attr(rt, v, A[0].u.s->s);
        return r;
    }
    case F_BATCH: {
        BIND(name, "linecount", "fill_with");
        if (!G[0]) jj_fail(rt, "TypeError: do_batch() missing 1 required positional argument: 'linecount'");
        jj_list *items = jj_iter(rt, v);
        jj_list *out = jj_list_new(rt, 0);
        size_t cap = 0, tcap = 0;
        jj_list *tmp = jj_list_new(rt, 0);
        for (size_t i = 0; i < items->n; i++) {
            jj_step(rt);
            if (jj_eq(rt, jj_int((int64_t)tmp->n), A[0])) {
                jj_list_push(rt, out, &cap, jj_listv(tmp, 0));
                tmp = jj_list_new(rt, 0);
                tcap = 0;
            }
            jj_list_push(rt, tmp, &tcap, items->v[i]);
        }
        if (tmp->n) {
            if (G[1] && A[1].t != JJ_NONE) {
                int64_t want = need_int(rt, A[0]);
                while ((int64_t)tmp->n < want) jj_list_push(rt, tmp, &tcap, A[1]);
            }
            jj_list_push(rt, out, &cap, jj_listv(tmp, 0));
        }
        return gen(out);
    }
    case F_CAPITALIZE: no_args(rt, name, nargs, nkw); { jj_val s = soft_str(rt, v); return keep_markup(s, jj_s_recase(rt, s.u.s, JJ_RC_CAPITALIZE)); }
    case F_LOWER: no_args(rt, name, nargs, nkw); { jj_val s = soft_str(rt, v); return keep_markup(s, jj_s_recase(rt, s.u.s, JJ_RC_LOWER)); }
    case F_UPPER: no_args(rt, name, nargs, nkw); { jj_val s = soft_str(rt, v); return keep_markup(s, jj_s_recase(rt, s.u.s, JJ_RC_UPPER)); }
    case F_TITLE: no_args(rt, name, nargs, nkw); return jj_strv(do_title(rt, soft_str(rt, v).u.s));
    case F_CENTER: {
        BIND(name, "width");
        jj_val s = soft_str(rt, v);
        int64_t w = G[0] ? need_int(rt, A[0]) : 80;
        int64_t len = (int64_t)jj_str_len(s.u.s);
        if (w <= len) return s;
        if ((uint64_t)w > rt->max_output) jj_limit(rt, "a string longer than %zu bytes", rt->max_output);
        int64_t total = w - len, left = total / 2 + (total & w & 1);
        jj_buf b = {0};
        for (int64_t i = 0; i < left; i++) jj_buf_addc(rt, &b, ' ');
        jj_buf_add(rt, &b, s.u.s->s, s.u.s->n);
        for (int64_t i = left; i < total; i++) jj_buf_addc(rt, &b, ' ');
        return keep_markup(s, jj_str_buf(rt, &b));
    }
    case F_COUNT: case F_LENGTH: no_args(rt, name, nargs, nkw); return jj_int(jj_len(rt, v));
    case F_D: case F_DEFAULT: {
        BIND(name, "default_value", "boolean");
        jj_val d = G[0] ? A[0] : jj_cstr(rt, "");
        if (v.t == JJ_UNDEF || (G[1] && jj_truthy(A[1]) && !jj_truthy(v))) return d;
        return v;
    }
    case F_DICTSORT: {
        BIND(name, "case_sensitive", "by", "reverse");
        int cs = G[0] && jj_truthy(A[0]), rev = G[2] && jj_truthy(A[2]);
        int pos = 0;
        if (G[1]) {
            if (A[1].t == JJ_STR && !strcmp(A[1].u.s->s, "key")) pos = 0;
            else if (A[1].t == JJ_STR && !strcmp(A[1].u.s->s, "value")) pos = 1;
            else jj_fail(rt, "FilterArgumentError: You can only sort by either \"key\" or \"value\"");
        }
        if (v.t == JJ_UNDEF) jj_undef_fail(rt, v);
        if (v.t != JJ_DICT) jj_fail(rt, "AttributeError: '%s' object has no attribute 'items'", jj_type_name(v));
        size_t n = v.u.d->n;
        jj_val *kv = jj_alloc(&rt->ar, (n ? n : 1) * 2 * sizeof(jj_val));
        for (size_t i = 0; i < n; i++) {
            jj_list *p = jj_list_new(rt, 2);
            p->v[0] = v.u.d->k[i];
            p->v[1] = v.u.d->v[i];
            jj_val k = p->v[pos];
            kv[2 * i] = cs ? k : ignore_case(rt, k);
            kv[2 * i + 1] = jj_listv(p, 1);
        }
        jj_sort(rt, kv, n, 2, cmp_key, &rev);
        jj_list *out = jj_list_new(rt, n);
        for (size_t i = 0; i < n; i++) out->v[i] = kv[2 * i + 1];
        return jj_listv(out, 0);
    }
    case F_E: case F_ESCAPE:
        no_args(rt, name, nargs, nkw);
        if (v.t == JJ_STR && (v.flags & JJ_MARKUP)) return v;
        return markup(jj_escape(rt, jj_to_str(rt, v)));
    case F_FORCEESCAPE:
        no_args(rt, name, nargs, nkw);
        return markup(jj_escape(rt, jj_to_str(rt, v)));
    case F_FIRST: no_args(rt, name, nargs, nkw); return first_item(rt, v);
    case F_LAST: no_args(rt, name, nargs, nkw); return last_item(rt, v);
    case F_FLOAT: {
        BIND(name, "default");
        jj_val d = G[0] ? A[0] : jj_float(0.0);
        double f;
        switch (v.t) {
        case JJ_UNDEF: jj_undef_fail(rt, v);
        case JJ_FLOAT: return v;
        case JJ_INT: case JJ_BOOL: case JJ_BIG: return jj_float(jj_num(rt, v));
        case JJ_STR: return parse_float(jj_s_strip(rt, v.u.s, NULL, 3), &f) ? jj_float(f) : d;
        default: return d;
        }
    }
    case F_INT: {
        BIND(name, "default", "base");
        jj_val d = G[0] ? A[0] : jj_int(0);
        int64_t base = G[1] ? need_int(rt, A[1]) : 10;
        switch (v.t) {
        case JJ_UNDEF: jj_undef_fail(rt, v);
        case JJ_INT: case JJ_BIG: return v;
        case JJ_BOOL: return jj_int(v.u.i);
        case JJ_FLOAT:
            /* int(value): NaN is a ValueError (the default), infinity an OverflowError */
            if (isnan(v.u.f)) return d;
            return jj_int_from_double(rt, v.u.f);
        case JJ_STR: {
            if ((base < 2 || base > 36) && base != 0) jj_fail(rt, "ValueError: int() base must be >= 2 and <= 36, or 0");
            jj_val x;
            jj_str *t = jj_s_strip(rt, v.u.s, NULL, 3);
            if (parse_int(rt, t, base, &x)) return x;
            /* int(float(value)): a ValueError or OverflowError gives the default */
            double f;
            if (parse_float(t, &f)) {
                if (isnan(f) || isinf(f)) return d;
                return jj_int_from_double(rt, f);
            }
            return d;
        }
        default: return d;
        }
    }
    case F_FORMAT: {
        if (nargs && nkw) jj_fail(rt, "FilterArgumentError: can't handle positional and keyword arguments at the same time");
        jj_val s = soft_str(rt, v);
        jj_val fa;
        if (nkw) {
            jj_dict *d = jj_dict_new(rt);
            for (size_t k = 0; k < nkw; k++) jj_dict_sets(rt, d, kwn[k], kwv[k]);
            jj_val dv = {JJ_DICT, 0, {.d = d}};
            fa = dv;
        } else {
            jj_list *l = jj_list_new(rt, nargs);
            if (nargs) memcpy(l->v, args, nargs * sizeof *args);
            fa = jj_listv(l, 1);
        }
        return jj_percent_format(rt, s, fa);
    }
    case F_INDENT: {
        BIND(name, "width", "first", "blank");
        return do_indent(rt, v, A[0], G[0], G[1] && jj_truthy(A[1]), G[2] && jj_truthy(A[2]));
    }
    case F_ITEMS: {
        no_args(rt, name, nargs, nkw);
        if (v.t == JJ_UNDEF) return gen(jj_list_new(rt, 0));
        if (v.t != JJ_DICT) jj_fail(rt, "TypeError: Can only get item pairs from a mapping.");
        jj_list *out = jj_list_new(rt, v.u.d->n);
        for (size_t i = 0; i < v.u.d->n; i++) {
            jj_list *p = jj_list_new(rt, 2);
            p->v[0] = v.u.d->k[i];
            p->v[1] = v.u.d->v[i];
            out->v[i] = jj_listv(p, 1);
        }
        return gen(out);
    }
    case F_JOIN: {
        BIND(name, "d", "attribute");
        jj_list *items = jj_iter(rt, v);
        jj_charge(&rt->ar, items->n);
        jj_str *d = G[0] ? jj_to_str(rt, A[0]) : jj_str_new(rt, "", 0);
        jj_buf b = {0};
        for (size_t i = 0; i < items->n; i++) {
            jj_val x = items->v[i];
            if (G[1] && A[1].t != JJ_NONE) x = attr_path(rt, x, A[1], jj_none, 0);
            if (i) jj_buf_add(rt, &b, d->s, d->n);
            jj_str_of(rt, &b, x);
        }
        return jj_strv(jj_str_buf(rt, &b));
    }
    case F_LIST: no_args(rt, name, nargs, nkw); {
        jj_list *items = jj_iter(rt, v);
        jj_list *out = jj_list_new(rt, items->n);
        if (items->n) memcpy(out->v, items->v, items->n * sizeof(jj_val));
        return jj_listv(out, 0);
    }
    case F_MAP: return do_map(rt, v, args, nargs, kwn, kwv, nkw);
    case F_MAX: case F_MIN: {
        BIND(name, "case_sensitive", "attribute");
        return min_max(rt, v, id == F_MAX, G[0] && jj_truthy(A[0]), G[1] ? A[1] : jj_none);
    }
    case F_SELECT: return select_reject(rt, v, args, nargs, kwn, kwv, nkw, 0, 1);
    case F_REJECT: return select_reject(rt, v, args, nargs, kwn, kwv, nkw, 0, 0);
    case F_SELECTATTR: return select_reject(rt, v, args, nargs, kwn, kwv, nkw, 1, 1);
    case F_REJECTATTR: return select_reject(rt, v, args, nargs, kwn, kwv, nkw, 1, 0);
    case F_REPLACE: {
        BIND(name, "old", "new", "count");
        if (!G[0] || !G[1]) jj_fail(rt, "TypeError: do_replace() missing required arguments 'old' and 'new'");
        int64_t count = G[2] && A[2].t != JJ_NONE ? need_int(rt, A[2]) : -1;
        return jj_strv(jj_s_replace(rt, jj_to_str(rt, v), jj_to_str(rt, A[0]), jj_to_str(rt, A[1]), count));
    }
    case F_REVERSE: no_args(rt, name, nargs, nkw); return do_reverse(rt, v);
    case F_ROUND: {
        BIND(name, "precision", "method");
        return do_round(rt, v, A[0], G[0], G[1] ? A[1] : jj_undefined);
    }
    case F_SAFE:
        no_args(rt, name, nargs, nkw);
        if (v.t == JJ_STR) return markup(v.u.s);
        return markup(jj_to_str(rt, v));
    case F_SLICE: {
        BIND(name, "slices", "fill_with");
        if (!G[0]) jj_fail(rt, "TypeError: do_slice() missing 1 required positional argument: 'slices'");
        int64_t slices = need_int(rt, A[0]);
        jj_list *seq = jj_iter(rt, v);
        int64_t len = (int64_t)seq->n;
        if (slices == 0) jj_fail(rt, "ZeroDivisionError: integer division or modulo by zero");
        if (slices < 0) return gen(jj_list_new(rt, 0)); /* range(slices) is empty */
        jj_charge(&rt->ar, (uint64_t)slices);
        int64_t per = len / slices, extra = len % slices, offset = 0;
        jj_list *out = jj_list_new(rt, (size_t)slices);
        for (int64_t k = 0; k < slices; k++) {
            int64_t start = offset + k * per;
            if (k < extra) offset++;
            int64_t end = offset + (k + 1) * per;
            jj_list *t = jj_list_new(rt, (size_t)(end - start));
            for (int64_t i = start; i < end; i++) t->v[i - start] = seq->v[i];
            if (G[1] && A[1].t != JJ_NONE && k >= extra) {
                size_t tc = t->n;
                jj_list_push(rt, t, &tc, A[1]);
            }
            out->v[k] = jj_listv(t, 0);
        }
        return gen(out);
    }
    case F_SORT: {
        BIND(name, "reverse", "case_sensitive", "attribute");
        jj_list *items = jj_iter(rt, v);
        return do_sort(rt, items, G[0] && jj_truthy(A[0]), G[1] && jj_truthy(A[1]), G[2] ? A[2] : jj_none);
    }
    case F_STRING: no_args(rt, name, nargs, nkw); return soft_str(rt, v);
    case F_SUM: {
        BIND(name, "attribute", "start");
        jj_val acc = G[1] ? A[1] : jj_int(0);
        if (acc.t == JJ_STR) jj_fail(rt, "TypeError: sum() can't sum strings [use ''.join(seq) instead]");
        jj_list *items = jj_iter(rt, v);
        jj_charge(&rt->ar, items->n);
        for (size_t i = 0; i < items->n; i++) {
            jj_val x = items->v[i];
            if (G[0] && A[0].t != JJ_NONE) x = attr_path(rt, x, A[0], jj_none, 0);
            acc = jj_binop(rt, OP_ADD, acc, x);
        }
        return acc;
    }
    case F_TOJSON: return do_tojson(rt, v, args, nargs, kwn, kwv, nkw);
    case F_TRIM: {
        BIND(name, "chars");
        jj_val s = soft_str(rt, v);
        const jj_str *chars = NULL;
        if (G[0] && A[0].t != JJ_NONE) {
            if (A[0].t != JJ_STR) jj_fail(rt, "TypeError: strip arg must be None or str");
            chars = A[0].u.s;
        }
        return keep_markup(s, jj_s_strip(rt, s.u.s, chars, 3));
    }
    case F_TRUNCATE: {
        BIND(name, "length", "killwords", "end", "leeway");
        return do_truncate(rt, v, A, G);
    }
    case F_UNIQUE: {
        BIND(name, "case_sensitive", "attribute");
        int cs = G[0] && jj_truthy(A[0]);
        jj_list *items = jj_iter(rt, v);
        jj_charge(&rt->ar, items->n);
        jj_list *out = lazy_out(rt, jj_list_new(rt, 0));
        size_t cap = 0;
        jj_dict *seen = jj_dict_new(rt);
        for (size_t i = 0; i < items->n; i++) {
            jj_val k = sort_key(rt, items->v[i], G[1] ? A[1] : jj_none, 0, cs);
            if (!jj_hashable(k)) jj_fail(rt, "TypeError: unhashable type: '%s'", jj_type_name(k));
            if (jj_dict_get(rt, seen, k)) continue;
            jj_dict_set(rt, seen, k, jj_none);
            jj_list_push(rt, out, &cap, items->v[i]);
        }
        return gen(out);
    }
    case F_WORDCOUNT: {
        no_args(rt, name, nargs, nkw);
        jj_str *s = soft_str(rt, v).u.s;
        int64_t k = 0;
        int in = 0;
        for (size_t i = 0; i < s->n;) {
            int32_t c = jj_u8_next(s->s, s->n, &i);
            int w = c == '_' || jj_isalnum_cp(c);
            if (w && !in) k++;
            in = w;
        }
        return jj_int(k);
    }
    case F_FILESIZEFORMAT: {
        BIND(name, "binary");
        return filesizeformat(rt, v, G[0] && jj_truthy(A[0]));
    }
    case F_GROUPBY: {
        BIND(name, "attribute", "default", "case_sensitive");
        if (!G[0]) jj_fail(rt, "TypeError: sync_do_groupby() missing 1 required positional argument: 'attribute'");
        return groupby(rt, v, A[0], G[1] ? A[1] : jj_none, G[2] && jj_truthy(A[2]));
    }
    case F_PPRINT: no_args(rt, name, nargs, nkw); return jj_pformat(rt, v);
    case F_RANDOM: no_args(rt, name, nargs, nkw); return random_item(rt, v);
    case F_STRIPTAGS:
        no_args(rt, name, nargs, nkw);
        return jj_strv(jj_striptags(rt, jj_to_str(rt, v)));
    case F_URLENCODE: no_args(rt, name, nargs, nkw); return jj_urlencode(rt, v);
    case F_URLIZE: {
        BIND(name, "trim_url_limit", "nofollow", "target", "rel", "extra_schemes");
        int64_t trim = -1;
        if (G[0] && A[0].t != JJ_NONE) {
            if (!jj_is_num(A[0])) jj_fail(rt, "TypeError: '>' not supported between instances of 'int' and '%s'", jj_type_name(A[0]));
            trim = A[0].t == JJ_FLOAT ? (int64_t)ceil(A[0].u.f) : need_int(rt, A[0]);
            if (trim < 0) trim = 0;
        }
        return jj_urlize(rt, v, trim, G[1] && jj_truthy(A[1]), G[2] ? A[2] : jj_none, G[3] ? A[3] : jj_none,
                         G[4] ? A[4] : jj_none);
    }
    case F_WORDWRAP: {
        BIND(name, "width", "break_long_words", "wrapstring", "break_on_hyphens");
        if (v.t == JJ_UNDEF) jj_undef_fail(rt, v);
        if (v.t != JJ_STR) jj_fail(rt, "AttributeError: '%s' object has no attribute 'splitlines'", jj_type_name(v));
        int64_t width = G[0] ? need_int(rt, A[0]) : 79;
        jj_str *ws = G[2] && A[2].t != JJ_NONE ? jj_to_str(rt, A[2]) : jj_str_new(rt, "\n", 1);
        if (G[2] && A[2].t != JJ_NONE && A[2].t != JJ_STR)
            jj_fail(rt, "AttributeError: '%s' object has no attribute 'join'", jj_type_name(A[2]));
        return jj_wordwrap(rt, v.u.s, width, G[1] ? jj_truthy(A[1]) : 1, ws, G[3] ? jj_truthy(A[3]) : 1);
    }
    case F_XMLATTR: {
        BIND(name, "autospace");
        return jj_xmlattr(rt, v, G[0] ? jj_truthy(A[0]) : 1);
    }
    default:
        jj_fail(rt, "TemplateRuntimeError: No filter named '%s' found.", name);
    }
}

/* The filters jinja2 writes as generators: an error they meet is raised
 * when the result is consumed that far (never, if it is not), after the
 * items made before it. */
static int is_generator_filter(int id) {
    return id == F_SELECT || id == F_REJECT || id == F_SELECTATTR || id == F_REJECTATTR || id == F_MAP ||
           id == F_UNIQUE || id == F_ITEMS || id == F_BATCH || id == F_SLICE;
}

jj_val jj_call_filter(jj_rt *rt, int id, const char *name, jj_val v, const jj_val *args,
                      size_t nargs, const char *const *kwn, const jj_val *kwv, size_t nkw) {
    if (!is_generator_filter(id)) return call_filter(rt, id, name, v, args, nargs, kwn, kwv, nkw);
    jj_list *made = NULL, **outer = rt->lazy;
    jmp_buf saved;
    memcpy(saved, rt->err.jb, sizeof saved);
    int depth = rt->depth;
    rt->lazy = &made;
    if (setjmp(rt->err.jb)) {
        memcpy(rt->err.jb, saved, sizeof saved);
        rt->lazy = outer;
        if (rt->err.fatal) longjmp(rt->err.jb, 1); /* a limit of calkit's ends the render */
        rt->depth = depth;
        jj_list *l = made ? made : jj_list_new(rt, 0);
        l->err = jj_strndup(&rt->ar, rt->err.bare, strlen(rt->err.bare));
        if (rt->err.msg && rt->err.cap) rt->err.msg[0] = 0;
        return gen(l);
    }
    jj_val r = call_filter(rt, id, name, v, args, nargs, kwn, kwv, nkw);
    memcpy(rt->err.jb, saved, sizeof saved);
    rt->lazy = outer;
    return r;
}

/* ---- tests ---- */

static int identical(jj_val a, jj_val b) {
    if (a.t != b.t) return 0;
    switch (a.t) {
    case JJ_NONE: case JJ_UNDEF: return a.t == JJ_NONE || a.u.u == b.u.u;
    case JJ_BOOL: return a.u.i == b.u.i;
    case JJ_INT: return a.u.i == b.u.i && a.u.i >= -5 && a.u.i <= 256;
    case JJ_BIG: return a.u.z == b.u.z;
    case JJ_FLOAT: return 0;
    default: return a.u.s == b.u.s;
    }
}

int jj_call_test(jj_rt *rt, int id, const char *name, jj_val v, const jj_val *args,
                 size_t nargs, const char *const *kwn, const jj_val *kwv, size_t nkw) {
    (void)kwn;
    (void)kwv;
    int t = id;
    if (t == TT_EQ || t == TT_EQUALTO || t == TT_EQ_OP || t == TT_NE || t == TT_NE_OP || t == TT_GE ||
        t == TT_GE_OP || t == TT_GT || t == TT_GT_OP || t == TT_GREATERTHAN || t == TT_LE ||
        t == TT_LE_OP || t == TT_LT || t == TT_LT_OP || t == TT_LESSTHAN || t == TT_IN ||
        t == TT_SAMEAS || t == TT_DIVISIBLEBY) {
        if (nkw) jj_fail(rt, "TypeError: %s() takes no keyword arguments", name);
        if (nargs != 1) jj_fail(rt, "TypeError: %s expected 2 arguments, got %zu", name, nargs + 1);
        jj_val o = args[0];
        switch (t) {
        case TT_EQ: case TT_EQUALTO: case TT_EQ_OP: return jj_eq(rt, v, o);
        case TT_NE: case TT_NE_OP: return !jj_eq(rt, v, o);
        case TT_GT: case TT_GT_OP: case TT_GREATERTHAN: return jj_cmp(rt, v, o) == 1;
        case TT_GE: case TT_GE_OP: { int c = jj_cmp(rt, v, o); return c == 1 || c == 0; }
        case TT_LT: case TT_LT_OP: case TT_LESSTHAN: return jj_cmp(rt, v, o) == -1;
        case TT_LE: case TT_LE_OP: { int c = jj_cmp(rt, v, o); return c == -1 || c == 0; }
        case TT_IN: return jj_contains(rt, o, v);
        case TT_SAMEAS: return identical(v, o);
        default: return jj_eq(rt, jj_binop(rt, OP_MOD, v, o), jj_int(0));
        }
    }
    if (nargs || nkw) jj_fail(rt, "TypeError: test %s takes no arguments", name);
    switch (t) {
    case TT_BOOLEAN: return v.t == JJ_BOOL;
    case TT_CALLABLE: return v.t == JJ_UNDEF || v.t == JJ_MACRO || v.t == JJ_LOOP ||
                            (v.t == JJ_FUNC && v.u.fn->kind != JF_CYCLER_NEXT);
    case TT_DEFINED: return v.t != JJ_UNDEF;
    case TT_UNDEFINED: return v.t == JJ_UNDEF;
    case TT_ESCAPED: return v.t == JJ_STR && (v.flags & JJ_MARKUP);
    case TT_EVEN: return jj_eq(rt, jj_binop(rt, OP_MOD, v, jj_int(2)), jj_int(0));
    case TT_ODD: return jj_eq(rt, jj_binop(rt, OP_MOD, v, jj_int(2)), jj_int(1));
    case TT_FALSE: return v.t == JJ_BOOL && !v.u.i;
    case TT_TRUE: return v.t == JJ_BOOL && v.u.i;
    case TT_FILTER: case TT_TEST:
        if (v.t == JJ_STR) return (t == TT_FILTER ? jj_filter_id(v.u.s->s) : jj_test_id(v.u.s->s)) >= 0;
        if (!jj_hashable(v)) jj_fail(rt, "TypeError: unhashable type: '%s'", jj_type_name(v));
        return 0;
    case TT_FLOAT: return v.t == JJ_FLOAT;
    case TT_INTEGER: return v.t == JJ_INT || v.t == JJ_BIG;
    case TT_NUMBER: return jj_is_num(v) || v.t == JJ_COMPLEX;
    case TT_NONE: return v.t == JJ_NONE;
    case TT_STRING: return v.t == JJ_STR;
    case TT_MAPPING: return v.t == JJ_DICT;
    case TT_LOWER: return jj_s_cased(rt, jj_to_str(rt, v), 0);
    case TT_UPPER: return jj_s_cased(rt, jj_to_str(rt, v), 1);
    case TT_ITERABLE:
        return v.t == JJ_UNDEF || v.t == JJ_STR || v.t == JJ_LIST || v.t == JJ_TUPLE ||
               v.t == JJ_DICT || v.t == JJ_LOOP;
    case TT_SEQUENCE:
        return v.t == JJ_UNDEF || v.t == JJ_STR || v.t == JJ_DICT || v.t == JJ_TUPLE ||
               (v.t == JJ_LIST && !(v.flags & (JJ_GENERATOR | JJ_DICT_ITEMS | JJ_DICT_KEYS | JJ_DICT_VALUES)));
    default:
        jj_fail(rt, "TemplateRuntimeError: No test named '%s' found.", name);
    }
}
