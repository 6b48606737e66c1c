/* jinja_attr.c - attribute and item access as Jinja's sandbox does it
 * (x.y tries the attribute then the item, x['y'] the item then the
 * attribute, misses give Undefined), the str/dict/list methods templates
 * call, and the global functions (range, dict, namespace, joiner, cycler,
 * raise_exception, strftime_now). */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jinja/jinja_int.h"

/* ---- method tables ---- */

typedef struct {
    const char *name;
    jj_func_kind kind;
} method;

static const method str_methods[] = {
    {"capitalize", JF_S_CAPITALIZE}, {"center", JF_S_CENTER}, {"count", JF_S_COUNT},
    {"endswith", JF_S_ENDSWITH}, {"find", JF_S_FIND}, {"format", JF_S_FORMAT},
    {"index", JF_S_INDEX}, {"isalnum", JF_S_ISALNUM}, {"isalpha", JF_S_ISALPHA},
    {"isdigit", JF_S_ISDIGIT}, {"islower", JF_S_ISLOWER}, {"isspace", JF_S_ISSPACE},
    {"isupper", JF_S_ISUPPER}, {"join", JF_S_JOIN}, {"ljust", JF_S_LJUST},
    {"lower", JF_S_LOWER}, {"lstrip", JF_S_LSTRIP}, {"partition", JF_S_PARTITION},
    {"removeprefix", JF_S_REMOVEPREFIX}, {"removesuffix", JF_S_REMOVESUFFIX},
    {"replace", JF_S_REPLACE}, {"rfind", JF_S_RFIND}, {"rindex", JF_S_RINDEX},
    {"rjust", JF_S_RJUST}, {"rpartition", JF_S_RPARTITION}, {"rsplit", JF_S_RSPLIT},
    {"rstrip", JF_S_RSTRIP}, {"split", JF_S_SPLIT}, {"splitlines", JF_S_SPLITLINES},
    {"startswith", JF_S_STARTSWITH}, {"strip", JF_S_STRIP}, {"swapcase", JF_S_SWAPCASE},
    {"title", JF_S_TITLE}, {"upper", JF_S_UPPER}, {"zfill", JF_S_ZFILL}, {NULL, 0}};
static const method dict_methods[] = {{"get", JF_D_GET}, {"items", JF_D_ITEMS},
                                      {"keys", JF_D_KEYS}, {"values", JF_D_VALUES},
                                      {"copy", JF_D_COPY}, {NULL, 0}};
static const method list_methods[] = {{"count", JF_L_COUNT}, {"index", JF_L_INDEX}, {NULL, 0}};

/* Methods that mutate, which the immutable sandbox refuses. */
static const char *const dict_unsafe[] = {"clear", "pop", "popitem", "setdefault", "update", NULL};
static const char *const list_unsafe[] = {"append", "reverse", "insert", "sort", "extend",
                                          "remove", "pop", "clear", NULL};

static jj_val bound(jj_rt *rt, jj_val self, const method *m, const char *name) {
    for (; m->name; m++)
        if (strcmp(m->name, name) == 0) {
            jj_func *f = jj_alloc(&rt->ar, sizeof *f);
            f->kind = m->kind;
            f->self = self;
            f->name = m->name;
            f->state = NULL;
            jj_val v = {JJ_FUNC, 0, {.fn = f}};
            return v;
        }
    return jj_undefined;
}

static int listed(const char *const *names, const char *name) {
    for (; *names; names++)
        if (strcmp(*names, name) == 0) return 1;
    return 0;
}

static jj_val unsafe(jj_rt *rt, jj_val obj, const char *name) {
    char tmp[160];
    snprintf(tmp, sizeof tmp, "access to attribute '%s' of '%s' object is unsafe.", name,
             jj_type_name(obj));
    jj_val u = jj_undef_hint(rt, jj_strndup(&rt->ar, tmp, strlen(tmp)));
    u.u.u->unsafe = 1;
    return u;
}

/* The attribute proper (Python getattr), or a JJ_UNDEF with u == NULL when
 * the object has no such attribute. */
static jj_val attribute(jj_rt *rt, jj_val obj, const char *name) {
    switch (obj.t) {
    case JJ_STR: return bound(rt, obj, str_methods, name);
    case JJ_DICT:
        if (listed(dict_unsafe, name)) return unsafe(rt, obj, name);
        return bound(rt, obj, dict_methods, name);
    case JJ_LIST: case JJ_TUPLE:
        if (obj.flags & (JJ_GENERATOR | JJ_DICT_ITEMS | JJ_DICT_KEYS | JJ_DICT_VALUES))
            return jj_undefined;
        if ((obj.flags & JJ_GROUP) && (!strcmp(name, "grouper") || !strcmp(name, "list")))
            return obj.u.l->v[name[0] == 'l'];
        if (obj.t == JJ_LIST && listed(list_unsafe, name)) return unsafe(rt, obj, name);
        return bound(rt, obj, list_methods, name);
    case JJ_NS: {
        jj_val *v = jj_dict_gets(rt, obj.u.d, name);
        return v ? *v : jj_undefined;
    }
    case JJ_LOOP: {
        jj_loop *lp = obj.u.lp;
        int64_t n = (int64_t)lp->items->n, i = (int64_t)lp->i;
        if (!strcmp(name, "index")) return jj_int(i + 1);
        if (!strcmp(name, "index0")) return jj_int(i);
        if (!strcmp(name, "revindex")) return jj_int(n - i);
        if (!strcmp(name, "revindex0")) return jj_int(n - i - 1);
        if (!strcmp(name, "first")) return jj_bool(i == 0);
        if (!strcmp(name, "last")) return jj_bool(i == n - 1);
        if (!strcmp(name, "length")) return jj_int(n);
        if (!strcmp(name, "depth")) return jj_int(lp->depth0 + 1);
        if (!strcmp(name, "depth0")) return jj_int(lp->depth0);
        if (!strcmp(name, "previtem"))
            return i == 0 ? jj_undef_hint(rt, "there is no previous item") : lp->items->v[i - 1];
        if (!strcmp(name, "nextitem"))
            return i + 1 >= n ? jj_undef_hint(rt, "there is no next item") : lp->items->v[i + 1];
        if (!strcmp(name, "cycle") || !strcmp(name, "changed")) {
            jj_func *f = jj_alloc(&rt->ar, sizeof *f);
            f->kind = name[1] == 'y' ? JF_LOOP_CYCLE : JF_LOOP_CHANGED;
            f->self = obj;
            f->name = name[1] == 'y' ? "cycle" : "changed";
            f->state = NULL;
            jj_val v = {JJ_FUNC, 0, {.fn = f}};
            return v;
        }
        return jj_undefined;
    }
    case JJ_MACRO:
        if (!strcmp(name, "name")) return jj_cstr(rt, obj.u.m->name);
        return jj_undefined;
    case JJ_FUNC:
        if (obj.u.fn->kind == JF_CYCLER_NEXT) {
            jj_func *f = obj.u.fn;
            if (!strcmp(name, "next") || !strcmp(name, "reset")) {
                jj_func *g = jj_alloc(&rt->ar, sizeof *g);
                *g = *f;
                g->kind = name[0] == 'n' ? JF_CYCLER_NEXT : JF_CYCLER_RESET;
                g->name = name;
                jj_val v = {JJ_FUNC, 0, {.fn = g}};
                return v;
            }
            if (!strcmp(name, "current")) {
                jj_val *items = jj_dict_gets(rt, f->state, "items"), *pos = jj_dict_gets(rt, f->state, "pos");
                return items->u.l->v[pos->u.i];
            }
        }
        return jj_undefined;
    default: return jj_undefined;
    }
}

static int missing(jj_val v) { return v.t == JJ_UNDEF && v.u.u == NULL; }

jj_val jj_getattr(jj_rt *rt, jj_val obj, const char *name) {
    if (obj.t == JJ_UNDEF) jj_undef_fail(rt, obj);
    jj_val a = attribute(rt, obj, name);
    if (!missing(a)) return a;
    if (obj.t == JJ_DICT) {
        jj_val *v = jj_dict_gets(rt, obj.u.d, name);
        if (v) return *v;
    }
    return jj_undef_attr(rt, obj, name);
}

jj_val jj_getitem(jj_rt *rt, jj_val obj, jj_val key) {
    if (obj.t == JJ_UNDEF) jj_undef_fail(rt, obj);
    switch (obj.t) {
    case JJ_DICT:
        if (jj_hashable(key)) {
            jj_val *v = jj_dict_get(rt, obj.u.d, key);
            if (v) return *v;
        }
        break;
    case JJ_LIST: case JJ_TUPLE:
        if ((key.t == JJ_INT || key.t == JJ_BOOL) &&
            !(obj.flags & (JJ_GENERATOR | JJ_DICT_ITEMS | JJ_DICT_KEYS | JJ_DICT_VALUES))) {
            int64_t i = key.u.i, n = (int64_t)obj.u.l->n;
            if (i < 0) i += n;
            if (i >= 0 && i < n) return obj.u.l->v[i];
        }
        break;
    case JJ_STR:
        if (key.t == JJ_INT || key.t == JJ_BOOL) {
            jj_str *c = jj_s_at(rt, obj.u.s, key.u.i);
            if (c) return jj_strv(c);
        }
        break;
    default: break;
    }
    if (key.t == JJ_STR) {
        jj_val a = attribute(rt, obj, key.u.s->s);
        if (!missing(a)) return a;
    }
    return jj_undef_item(rt, obj, key);
}

/* ---- helpers for methods ---- */

static jj_str *need_str(jj_rt *rt, const char *what, jj_val v) {
    if (v.t == JJ_UNDEF) jj_undef_fail(rt, v);
    if (v.t != JJ_STR)
        jj_fail(rt, "TypeError: %s must be str, not %s", what, jj_type_name(v));
    return v.u.s;
}

static int64_t need_int(jj_rt *rt, jj_val v) {
    if (v.t == JJ_UNDEF) jj_undef_fail(rt, v);
    if (!jj_is_int(v))
        jj_fail(rt, "TypeError: '%s' object cannot be interpreted as an integer", jj_type_name(v));
    if (v.t == JJ_BIG) jj_fail(rt, "OverflowError: Python int too large to convert to C ssize_t");
    return v.u.i;
}

/* An optional start/end index: None or missing = default; Python clamps
 * ints past the machine's (slice indices). */
static int64_t opt_index(jj_rt *rt, const jj_val *args, size_t nargs, size_t i, int64_t dflt) {
    if (i >= nargs || args[i].t == JJ_NONE) return dflt;
    if (args[i].t == JJ_BIG) return args[i].u.z->neg ? INT64_MIN : INT64_MAX;
    return need_int(rt, args[i]);
}

static void arity(jj_rt *rt, const char *name, size_t nargs, size_t lo, size_t hi, size_t nkw) {
    if (nkw) jj_fail(rt, "TypeError: %s() takes no keyword arguments", name);
    if (nargs < lo || nargs > hi) {
        if (lo == hi) jj_fail(rt, "TypeError: %s() takes exactly %zu argument(s) (%zu given)", name, lo, nargs);
        jj_fail(rt, "TypeError: %s() takes from %zu to %zu arguments (%zu given)", name, lo, hi, nargs);
    }
}

static jj_val pad(jj_rt *rt, jj_str *s, int64_t width, int32_t fill, int how) {
    int64_t len = (int64_t)jj_str_len(s);
    if (width <= len) return jj_strv(s);
    if ((uint64_t)width > rt->max_output) jj_limit(rt, "a string longer than %zu bytes", rt->max_output);
    int64_t total = width - len, left = 0;
    if (how == 0) left = 0;                       /* ljust */
    else if (how == 1) left = total;              /* rjust */
    else left = total / 2 + (total & width & 1);  /* center, as CPython */
    jj_buf b = {0};
    for (int64_t i = 0; i < left; i++) jj_u8_put(rt, &b, fill);
    jj_buf_add(rt, &b, s->s, s->n);
    for (int64_t i = left; i < total; i++) jj_u8_put(rt, &b, fill);
    return jj_strv(jj_str_buf(rt, &b));
}

static int32_t fillchar(jj_rt *rt, const jj_val *args, size_t nargs, size_t i) {
    if (i >= nargs) return ' ';
    jj_str *f = need_str(rt, "fill character", args[i]);
    if (jj_str_len(f) != 1)
        jj_fail(rt, "TypeError: The fill character must be exactly one character long");
    size_t k = 0;
    return jj_u8_next(f->s, f->n, &k);
}

static jj_val tuple3(jj_rt *rt, jj_val a, jj_val b, jj_val c) {
    jj_list *l = jj_list_new(rt, 3);
    l->v[0] = a;
    l->v[1] = b;
    l->v[2] = c;
    return jj_listv(l, 1);
}

static int affix(jj_rt *rt, jj_str *s, jj_val x, int64_t start, int64_t end, int suffix) {
    if (x.t == JJ_TUPLE) {
        for (size_t i = 0; i < x.u.l->n; i++)
            if (affix(rt, s, x.u.l->v[i], start, end, suffix)) return 1;
        return 0;
    }
    if (x.t != JJ_STR)
        jj_fail(rt, "TypeError: %s first arg must be str or a tuple of str, not %s",
                suffix ? "endswith" : "startswith", jj_type_name(x));
    int64_t len = (int64_t)jj_str_len(s), m = (int64_t)jj_str_len(x.u.s);
    if (end > len) end = len;
    else if (end < 0) { end += len; if (end < 0) end = 0; }
    if (start < 0) { start += len; if (start < 0) start = 0; }
    if (start > len) return 0;
    if (end - start < m) return 0;
    size_t a = jj_str_off(rt, s, (size_t)(suffix ? end - m : start));
    return memcmp(s->s + a, x.u.s->s, x.u.s->n) == 0;
}

/* ---- str.format (the sandbox's formatter: fields, !r/!s, simple specs) ---- */

static jj_val format_field_value(jj_rt *rt, const char *name, size_t nlen, size_t *autoidx,
                                 const jj_val *args, size_t nargs, const char *const *kwnames,
                                 const jj_val *kwvals, size_t nkw) {
    size_t i = 0;
    while (i < nlen && name[i] != '.' && name[i] != '[') i++;
    jj_val v;
    if (i == 0) {
        if (*autoidx == SIZE_MAX) jj_fail(rt, "ValueError: cannot switch from manual field specification to automatic field numbering");
        size_t k = (*autoidx)++;
        if (k >= nargs) jj_fail(rt, "IndexError: Replacement index %zu out of range for positional args tuple", k);
        v = args[k];
    } else if (name[0] >= '0' && name[0] <= '9') {
        size_t k = 0;
        for (size_t j = 0; j < i; j++) {
            if (name[j] < '0' || name[j] > '9') jj_fail(rt, "ValueError: bad format field");
            k = k * 10 + (size_t)(name[j] - '0');
            if (k > 1000000) jj_fail(rt, "ValueError: too many decimal digits in format string");
        }
        if (*autoidx != 0 && *autoidx != SIZE_MAX)
            jj_fail(rt, "ValueError: cannot switch from automatic field numbering to manual field specification");
        *autoidx = SIZE_MAX;
        if (k >= nargs) jj_fail(rt, "IndexError: Replacement index %zu out of range for positional args tuple", k);
        v = args[k];
    } else {
        size_t k = 0;
        while (k < nkw && (strlen(kwnames[k]) != i || memcmp(kwnames[k], name, i) != 0)) k++;
        if (k == nkw) jj_fail(rt, "KeyError: '%.*s'", (int)i, name);
        v = kwvals[k];
    }
    while (i < nlen) {
        if (name[i] == '.') {
            size_t j = ++i;
            while (i < nlen && name[i] != '.' && name[i] != '[') i++;
            v = jj_getattr(rt, v, jj_strndup(&rt->ar, name + j, i - j));
        } else {
            size_t j = ++i;
            while (i < nlen && name[i] != ']') i++;
            if (i == nlen) jj_fail(rt, "ValueError: Missing ']' in format string");
            int digits = i > j;
            for (size_t q = j; q < i; q++) digits &= name[q] >= '0' && name[q] <= '9';
            jj_val key = digits ? jj_int(strtoll(name + j, NULL, 10)) : jj_strn(rt, name + j, i - j);
            v = jj_getitem(rt, v, key);
            i++;
        }
    }
    return v;
}

/* The end of a replacement field starting after s[i] == '{': the index of
 * its '}' (nested braces in the spec counted), or n. */
static size_t field_end(const char *s, size_t n, size_t i) {
    int depth = 1;
    for (size_t j = i; j < n; j++) {
        if (s[j] == '{') depth++;
        else if (s[j] == '}' && --depth == 0) return j;
    }
    return n;
}

static void str_format_into(jj_rt *rt, jj_buf *out, const char *s, size_t n, const jj_val *args, size_t nargs,
                            const char *const *kwnames, const jj_val *kwvals, size_t nkw, size_t *autoidx,
                            int depth);

/* One replacement field f[0..fl): name, !conversion, :spec (itself a
 * template of fields, one level deep as Python's Formatter allows). */
static void format_field(jj_rt *rt, jj_buf *out, const char *f, size_t fl, const jj_val *args, size_t nargs,
                         const char *const *kwnames, const jj_val *kwvals, size_t nkw, size_t *autoidx, int depth) {
    size_t nl = 0;
    while (nl < fl && f[nl] != '!' && f[nl] != ':') nl++;
    jj_val v = format_field_value(rt, f, nl, autoidx, args, nargs, kwnames, kwvals, nkw);
    size_t p = nl;
    if (p < fl && f[p] == '!') {
        if (p + 1 >= fl) jj_fail(rt, "ValueError: end of string while looking for conversion specifier");
        char conv = f[p + 1];
        if (p + 2 < fl && f[p + 2] != ':') jj_fail(rt, "ValueError: expected ':' after conversion specifier");
        jj_buf cb = {0};
        if (conv == 'r') jj_repr_of(rt, &cb, v);
        else if (conv == 'a') jj_ascii_of(rt, &cb, v);
        else if (conv == 's') jj_str_of(rt, &cb, v);
        else jj_fail(rt, "ValueError: Unknown conversion specifier %c", conv);
        v = jj_strv(jj_str_buf(rt, &cb));
        p += 2;
    }
    if (p < fl) p++; /* ':' */
    const char *spec = f + p;
    size_t sn = fl - p;
    if (memchr(spec, '{', sn)) {
        if (depth >= 1) jj_fail(rt, "ValueError: Max string recursion exceeded");
        jj_buf sb = {0};
        str_format_into(rt, &sb, spec, sn, args, nargs, kwnames, kwvals, nkw, autoidx, depth + 1);
        spec = sb.p ? sb.p : "";
        sn = sb.n;
    }
    jj_format_spec(rt, out, v, spec, sn);
}

static void str_format_into(jj_rt *rt, jj_buf *out, const char *s, size_t n, const jj_val *args, size_t nargs,
                            const char *const *kwnames, const jj_val *kwvals, size_t nkw, size_t *autoidx,
                            int depth) {
    for (size_t i = 0; i < n;) {
        char c = s[i];
        if (c == '}') {
            if (i + 1 < n && s[i + 1] == '}') { jj_buf_addc(rt, out, '}'); i += 2; continue; }
            jj_fail(rt, "ValueError: Single '}' encountered in format string");
        }
        if (c != '{') {
            size_t j = i;
            while (j < n && s[j] != '{' && s[j] != '}') j++;
            jj_buf_add(rt, out, s + i, j - i);
            i = j;
            continue;
        }
        if (i + 1 < n && s[i + 1] == '{') { jj_buf_addc(rt, out, '{'); i += 2; continue; }
        size_t j = field_end(s, n, i + 1);
        if (j >= n) jj_fail(rt, i + 1 >= n ? "ValueError: Single '{' encountered in format string"
                                           : "ValueError: expected '}' before end of string");
        format_field(rt, out, s + i + 1, j - i - 1, args, nargs, kwnames, kwvals, nkw, autoidx, depth);
        i = j + 1;
    }
}

static jj_val str_format(jj_rt *rt, jj_str *fmt, const jj_val *args, size_t nargs,
                         const char *const *kwnames, const jj_val *kwvals, size_t nkw) {
    jj_buf out = {0};
    size_t autoidx = 0;
    str_format_into(rt, &out, fmt->s, fmt->n, args, nargs, kwnames, kwvals, nkw, &autoidx, 0);
    return jj_strv(jj_str_buf(rt, &out));
}

/* ---- str methods ---- */

static jj_val str_method(jj_rt *rt, jj_func *fn, jj_str *s, const jj_val *a, size_t na,
                         const char *const *kwn, const jj_val *kwv, size_t nkw) {
    const char *name = fn->name;
    switch (fn->kind) {
    case JF_S_UPPER: arity(rt, name, na, 0, 0, nkw); return jj_strv(jj_s_recase(rt, s, JJ_RC_UPPER));
    case JF_S_LOWER: arity(rt, name, na, 0, 0, nkw); return jj_strv(jj_s_recase(rt, s, JJ_RC_LOWER));
    case JF_S_TITLE: arity(rt, name, na, 0, 0, nkw); return jj_strv(jj_s_recase(rt, s, JJ_RC_TITLE));
    case JF_S_CAPITALIZE: arity(rt, name, na, 0, 0, nkw); return jj_strv(jj_s_recase(rt, s, JJ_RC_CAPITALIZE));
    case JF_S_SWAPCASE: arity(rt, name, na, 0, 0, nkw); return jj_strv(jj_s_recase(rt, s, JJ_RC_SWAPCASE));
    case JF_S_STRIP: case JF_S_LSTRIP: case JF_S_RSTRIP: {
        arity(rt, name, na, 0, 1, nkw);
        const jj_str *chars = NULL;
        if (na && a[0].t != JJ_NONE) chars = need_str(rt, "strip arg", a[0]);
        int which = fn->kind == JF_S_STRIP ? 3 : fn->kind == JF_S_LSTRIP ? 1 : 2;
        return jj_strv(jj_s_strip(rt, s, chars, which));
    }
    case JF_S_SPLIT: case JF_S_RSPLIT: {
        static const char *const p[] = {"sep", "maxsplit"};
        jj_val v[2];
        int got[2];
        jj_bind(rt, name, p, 2, a, na, kwn, kwv, nkw, v, got);
        const jj_str *sep = NULL;
        if (got[0] && v[0].t != JJ_NONE) sep = need_str(rt, "sep", v[0]);
        int64_t maxsplit = got[1] ? need_int(rt, v[1]) : -1;
        return jj_listv(jj_s_split(rt, s, sep, maxsplit, fn->kind == JF_S_RSPLIT), 0);
    }
    case JF_S_SPLITLINES: {
        static const char *const p[] = {"keepends"};
        jj_val v[1];
        int got[1];
        jj_bind(rt, name, p, 1, a, na, kwn, kwv, nkw, v, got);
        return jj_listv(jj_s_splitlines(rt, s, got[0] && jj_truthy(v[0])), 0);
    }
    case JF_S_STARTSWITH: case JF_S_ENDSWITH: {
        arity(rt, name, na, 1, 3, nkw);
        int64_t start = opt_index(rt, a, na, 1, 0), end = opt_index(rt, a, na, 2, INT64_MAX);
        return jj_bool(affix(rt, s, a[0], start, end, fn->kind == JF_S_ENDSWITH));
    }
    case JF_S_REPLACE: {
        arity(rt, name, na, 2, 3, nkw);
        jj_str *o = need_str(rt, "replace() argument 1", a[0]);
        jj_str *n = need_str(rt, "replace() argument 2", a[1]);
        int64_t count = na > 2 ? need_int(rt, a[2]) : -1;
        return jj_strv(jj_s_replace(rt, s, o, n, count));
    }
    case JF_S_FIND: case JF_S_RFIND: case JF_S_INDEX: case JF_S_RINDEX: case JF_S_COUNT: {
        arity(rt, name, na, 1, 3, nkw);
        jj_str *sub = need_str(rt, "substring", a[0]);
        int64_t start = opt_index(rt, a, na, 1, 0), end = opt_index(rt, a, na, 2, INT64_MAX);
        if (fn->kind == JF_S_COUNT) return jj_int(jj_s_count(rt, s, sub, start, end));
        int right = fn->kind == JF_S_RFIND || fn->kind == JF_S_RINDEX;
        int64_t r = jj_s_find(rt, s, sub, start, end, right);
        if (r < 0 && (fn->kind == JF_S_INDEX || fn->kind == JF_S_RINDEX))
            jj_fail(rt, "ValueError: substring not found");
        return jj_int(r);
    }
    case JF_S_JOIN: {
        arity(rt, name, na, 1, 1, nkw);
        jj_list *l = jj_iter(rt, a[0]);
        jj_buf b = {0};
        for (size_t i = 0; i < l->n; i++) {
            if (l->v[i].t != JJ_STR)
                jj_fail(rt, "TypeError: sequence item %zu: expected str instance, %s found", i,
                        jj_type_name(l->v[i]));
            if (i) jj_buf_add(rt, &b, s->s, s->n);
            jj_buf_add(rt, &b, l->v[i].u.s->s, l->v[i].u.s->n);
        }
        return jj_strv(jj_str_buf(rt, &b));
    }
    case JF_S_FORMAT: return str_format(rt, s, a, na, kwn, kwv, nkw);
    case JF_S_ISALNUM: arity(rt, name, na, 0, 0, nkw); return jj_bool(jj_s_pred(rt, s, jj_isalnum_cp));
    case JF_S_ISALPHA: arity(rt, name, na, 0, 0, nkw); return jj_bool(jj_s_pred(rt, s, jj_isalpha_cp));
    case JF_S_ISDIGIT: arity(rt, name, na, 0, 0, nkw); return jj_bool(jj_s_pred(rt, s, jj_isdigit_cp));
    case JF_S_ISSPACE: arity(rt, name, na, 0, 0, nkw); return jj_bool(jj_s_pred(rt, s, jj_isspace));
    case JF_S_ISLOWER: arity(rt, name, na, 0, 0, nkw); return jj_bool(jj_s_cased(rt, s, 0));
    case JF_S_ISUPPER: arity(rt, name, na, 0, 0, nkw); return jj_bool(jj_s_cased(rt, s, 1));
    case JF_S_LJUST: case JF_S_RJUST: case JF_S_CENTER:
        arity(rt, name, na, 1, 2, nkw);
        return pad(rt, s, need_int(rt, a[0]), fillchar(rt, a, na, 1),
                   fn->kind == JF_S_LJUST ? 0 : fn->kind == JF_S_RJUST ? 1 : 2);
    case JF_S_ZFILL: {
        arity(rt, name, na, 1, 1, nkw);
        int64_t w = need_int(rt, a[0]), len = (int64_t)jj_str_len(s);
        if (w <= len) return jj_strv(s);
        if ((uint64_t)w > rt->max_output) jj_limit(rt, "a string longer than %zu bytes", rt->max_output);
        jj_buf b = {0};
        size_t at = 0;
        if (s->n && (s->s[0] == '+' || s->s[0] == '-')) { jj_buf_addc(rt, &b, s->s[0]); at = 1; }
        for (int64_t i = 0; i < w - len; i++) jj_buf_addc(rt, &b, '0');
        jj_buf_add(rt, &b, s->s + at, s->n - at);
        return jj_strv(jj_str_buf(rt, &b));
    }
    case JF_S_PARTITION: case JF_S_RPARTITION: {
        arity(rt, name, na, 1, 1, nkw);
        jj_str *sep = need_str(rt, "sep", a[0]);
        if (sep->n == 0) jj_fail(rt, "ValueError: empty separator");
        int right = fn->kind == JF_S_RPARTITION;
        int64_t at = jj_s_find(rt, s, sep, 0, INT64_MAX, right);
        jj_val e = jj_cstr(rt, "");
        if (at < 0) return right ? tuple3(rt, e, e, jj_strv(s)) : tuple3(rt, jj_strv(s), e, e);
        size_t o = jj_str_off(rt, s, (size_t)at);
        return tuple3(rt, jj_strn(rt, s->s, o), jj_strv(sep),
                      jj_strn(rt, s->s + o + sep->n, s->n - o - sep->n));
    }
    case JF_S_REMOVEPREFIX: case JF_S_REMOVESUFFIX: {
        arity(rt, name, na, 1, 1, nkw);
        jj_str *x = need_str(rt, name, a[0]);
        if (x->n > s->n) return jj_strv(s);
        if (fn->kind == JF_S_REMOVEPREFIX)
            return memcmp(s->s, x->s, x->n) == 0 ? jj_strn(rt, s->s + x->n, s->n - x->n) : jj_strv(s);
        return memcmp(s->s + s->n - x->n, x->s, x->n) == 0 ? jj_strn(rt, s->s, s->n - x->n) : jj_strv(s);
    }
    default: break;
    }
    jj_fail(rt, "str.%s is not supported", name);
}

/* ---- global functions ---- */

jj_val jj_range(jj_rt *rt, const jj_val *args, size_t nargs) {
    if (nargs < 1 || nargs > 3)
        jj_fail(rt, "TypeError: range expected at most 3 arguments, got %zu", nargs);
    jj_val start = jj_int(0), stop, step = jj_int(1);
    for (size_t i = 0; i < nargs; i++) {
        if (args[i].t == JJ_UNDEF) jj_undef_fail(rt, args[i]);
        if (!jj_is_int(args[i]))
            jj_fail(rt, "TypeError: '%s' object cannot be interpreted as an integer", jj_type_name(args[i]));
    }
    if (nargs == 1) stop = args[0];
    else {
        start = args[0];
        stop = args[1];
        if (nargs == 3) step = args[2];
    }
    if (start.t == JJ_BOOL) start = jj_int(start.u.i);
    if (stop.t == JJ_BOOL) stop = jj_int(stop.u.i);
    if (step.t == JJ_BOOL) step = jj_int(step.u.i);
    int sg = jj_int_sign(step);
    if (sg == 0) jj_fail(rt, "ValueError: range() arg 3 must not be zero");
    /* its length, as the sandbox measures it before anything is made */
    int64_t n = 0;
    jj_val span = sg > 0 ? jj_int_sub(rt, stop, start) : jj_int_sub(rt, start, stop);
    if (jj_int_sign(span) > 0) {
        jj_val len, st = sg > 0 ? step : jj_int_neg(rt, step);
        jj_int_divmod(rt, jj_int_add(rt, span, jj_int_sub(rt, st, jj_int(1))), st, &len, NULL);
        if (!jj_int_to_i64(len, &n) || n > 100000) n = 100001;
    }
    if (n > 100000)
        jj_fail(rt, "OverflowError: Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000).");
    jj_list *l = jj_list_new(rt, (size_t)n);
    int64_t a, d;
    int small = jj_int_to_i64(start, &a) && jj_int_to_i64(step, &d) && jj_int_to_i64(stop, &d) &&
                jj_int_to_i64(step, &d);
    for (int64_t i = 0; i < n; i++) {
        int64_t x;
        if (small && !__builtin_mul_overflow(i, d, &x) && !__builtin_add_overflow(a, x, &x)) l->v[i] = jj_int(x);
        else l->v[i] = jj_int_add(rt, start, jj_int_mul(rt, jj_int(i), step));
    }
    l->r[0] = start;
    l->r[1] = stop;
    l->r[2] = step;
    jj_val v = jj_listv(l, 0);
    v.flags = JJ_RANGE;
    return v;
}

/* dict(*args, **kwargs) as Python builds it. */
static jj_dict *make_dict(jj_rt *rt, const char *fname, const jj_val *args, size_t nargs,
                          const char *const *kwn, const jj_val *kwv, size_t nkw) {
    jj_dict *d = jj_dict_new(rt);
    if (nargs > 1) jj_fail(rt, "TypeError: %s expected at most 1 argument, got %zu", fname, nargs);
    if (nargs == 1) {
        jj_val src = args[0];
        if (src.t == JJ_DICT || src.t == JJ_NS) {
            for (size_t i = 0; i < src.u.d->n; i++) jj_dict_set(rt, d, src.u.d->k[i], src.u.d->v[i]);
        } else {
            jj_list *l = jj_iter(rt, src);
            for (size_t i = 0; i < l->n; i++) {
                jj_val e = l->v[i];
                jj_list *pair = (e.t == JJ_LIST || e.t == JJ_TUPLE || e.t == JJ_STR) ? jj_iter(rt, e) : NULL;
                if (!pair)
                    jj_fail(rt, "TypeError: cannot convert dictionary update sequence element #%zu to a sequence", i);
                if (pair->n != 2)
                    jj_fail(rt, "ValueError: dictionary update sequence element #%zu has length %zu; 2 is required", i, pair->n);
                if (!jj_hashable(pair->v[0])) jj_fail(rt, "TypeError: unhashable type: '%s'", jj_type_name(pair->v[0]));
                jj_dict_set(rt, d, pair->v[0], pair->v[1]);
            }
        }
    }
    for (size_t k = 0; k < nkw; k++) jj_dict_set(rt, d, jj_cstr(rt, kwn[k]), kwv[k]);
    return d;
}

/* Python's datetime.strftime for a naive time: %f is microseconds (0), %z
 * and %Z are empty, the rest is C strftime in the C locale. */
static jj_val strftime_now(jj_rt *rt, jj_val fmtv) {
    jj_str *fmt = need_str(rt, "format", fmtv);
    if (memchr(fmt->s, 0, fmt->n)) jj_fail(rt, "ValueError: embedded null character");
    jj_buf f = {0};
    for (size_t i = 0; i < fmt->n; i++) {
        char c = fmt->s[i];
        if (c == '%' && i + 1 < fmt->n) {
            char d = fmt->s[++i];
            if (d == 'f') jj_buf_adds(rt, &f, "000000");
            else if (d == 'z' || d == 'Z') continue;
            else { jj_buf_addc(rt, &f, '%'); jj_buf_addc(rt, &f, d); }
            continue;
        }
        jj_buf_addc(rt, &f, c);
    }
    if (f.n == 0) return jj_cstr(rt, "");
    size_t cap = 4096 + f.n * 64;
    char *out = jj_alloc(&rt->ar, cap);
    locale_t loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (!loc) jj_fail(rt, "cannot make the C locale");
    size_t k = strftime_l(out, cap, f.p, &rt->now, loc);
    freelocale(loc);
    return jj_strn(rt, out, k);
}

static jj_val new_func(jj_rt *rt, jj_func_kind kind, const char *name, jj_dict *state) {
    jj_func *f = jj_alloc(&rt->ar, sizeof *f);
    f->kind = kind;
    f->self = jj_none;
    f->name = name;
    f->state = state;
    jj_val v = {JJ_FUNC, 0, {.fn = f}};
    return v;
}

void jj_add_globals(jj_rt *rt, jj_dict *d) {
    static const struct { const char *name; jj_func_kind kind; } g[] = {
        {"range", JF_RANGE}, {"dict", JF_DICT}, {"namespace", JF_NAMESPACE},
        {"raise_exception", JF_RAISE}, {"strftime_now", JF_STRFTIME},
        {"joiner", JF_JOINER_NEW}, {"cycler", JF_CYCLER_NEW}};
    for (size_t i = 0; i < sizeof g / sizeof g[0]; i++)
        jj_dict_sets(rt, d, g[i].name, new_func(rt, g[i].kind, g[i].name, NULL));
}

jj_val jj_call_func(jj_rt *rt, jj_func *f, const jj_val *a, size_t na, const char *const *kwn,
                    const jj_val *kwv, size_t nkw) {
    switch (f->kind) {
    case JF_RANGE: arity(rt, "range", na, 1, 3, nkw); return jj_range(rt, a, na);
    case JF_DICT: {
        jj_val v = {JJ_DICT, 0, {.d = make_dict(rt, "dict", a, na, kwn, kwv, nkw)}};
        return v;
    }
    case JF_NAMESPACE: {
        jj_val v = {JJ_NS, 0, {.d = make_dict(rt, "namespace", a, na, kwn, kwv, nkw)}};
        for (size_t i = 0; i < v.u.d->n; i++)
            if (v.u.d->k[i].t != JJ_STR) jj_fail(rt, "TypeError: namespace keys must be strings");
        return v;
    }
    case JF_RAISE: {
        jj_buf b = {0};
        if (na >= 1) jj_str_of(rt, &b, a[0]);
        else if (nkw == 1 && !strcmp(kwn[0], "message")) jj_str_of(rt, &b, kwv[0]);
        else if (na == 0 && nkw == 0) jj_buf_adds(rt, &b, "None");
        else arity(rt, "raise_exception", na, 1, 1, nkw);
        jj_fail(rt, "%s", b.p ? b.p : "");
    }
    case JF_STRFTIME:
        if (na == 0 && nkw == 1 && !strcmp(kwn[0], "format")) return strftime_now(rt, kwv[0]);
        arity(rt, "strftime_now", na, 1, 1, nkw);
        return strftime_now(rt, a[0]);
    case JF_JOINER_NEW: {
        static const char *const p[] = {"sep"};
        jj_val v[1];
        int got[1];
        jj_bind(rt, "joiner", p, 1, a, na, kwn, kwv, nkw, v, got);
        jj_dict *st = jj_dict_new(rt);
        jj_dict_sets(rt, st, "sep", got[0] ? v[0] : jj_cstr(rt, ", "));
        jj_dict_sets(rt, st, "used", jj_bool(0));
        return new_func(rt, JF_JOINER, "joiner", st);
    }
    case JF_JOINER: {
        arity(rt, "joiner", na, 0, 0, nkw);
        jj_val *used = jj_dict_gets(rt, f->state, "used");
        if (!used->u.i) { *used = jj_bool(1); return jj_cstr(rt, ""); }
        return *jj_dict_gets(rt, f->state, "sep");
    }
    case JF_CYCLER_NEW: {
        if (nkw) jj_fail(rt, "TypeError: cycler() takes no keyword arguments");
        if (na == 0) jj_fail(rt, "RuntimeError: at least one item has to be provided");
        jj_list *l = jj_list_new(rt, na);
        memcpy(l->v, a, na * sizeof *a);
        jj_dict *st = jj_dict_new(rt);
        jj_dict_sets(rt, st, "items", jj_listv(l, 0));
        jj_dict_sets(rt, st, "pos", jj_int(0));
        return new_func(rt, JF_CYCLER_NEXT, "cycler", st);
    }
    case JF_CYCLER_NEXT: case JF_CYCLER_RESET: {
        arity(rt, f->name, na, 0, 0, nkw);
        jj_val *items = jj_dict_gets(rt, f->state, "items"), *pos = jj_dict_gets(rt, f->state, "pos");
        if (f->kind == JF_CYCLER_RESET) { *pos = jj_int(0); return jj_none; }
        jj_val r = items->u.l->v[pos->u.i];
        *pos = jj_int((pos->u.i + 1) % (int64_t)items->u.l->n);
        return r;
    }
    case JF_LOOP_CYCLE: {
        if (nkw) jj_fail(rt, "TypeError: cycle() got an unexpected keyword argument");
        if (na == 0) jj_fail(rt, "TypeError: no items for cycling given");
        return a[f->self.u.lp->i % na];
    }
    case JF_LOOP_CHANGED: {
        if (nkw) jj_fail(rt, "TypeError: changed() got an unexpected keyword argument");
        jj_list *l = jj_list_new(rt, na);
        if (na) memcpy(l->v, a, na * sizeof *a);
        jj_val t = jj_listv(l, 1);
        jj_loop *lp = f->self.u.lp;
        if (lp->has_changed && jj_eq(rt, lp->last_changed, t)) return jj_bool(0);
        if (rt->nframes) jj_gc_written(rt, JJ_LOOP, lp, 0);
        lp->last_changed = t;
        lp->has_changed = 1;
        return jj_bool(1);
    }
    case JF_D_GET: {
        arity(rt, "get", na, 1, 2, nkw);
        if (!jj_hashable(a[0])) jj_fail(rt, "TypeError: unhashable type: '%s'", jj_type_name(a[0]));
        jj_val *v = jj_dict_get(rt, f->self.u.d, a[0]);
        return v ? *v : na > 1 ? a[1] : jj_none;
    }
    case JF_D_ITEMS: case JF_D_KEYS: case JF_D_VALUES: {
        arity(rt, f->name, na, 0, 0, nkw);
        jj_dict *d = f->self.u.d;
        jj_list *l = jj_list_new(rt, d->n);
        for (size_t i = 0; i < d->n; i++) {
            if (f->kind == JF_D_KEYS) l->v[i] = d->k[i];
            else if (f->kind == JF_D_VALUES) l->v[i] = d->v[i];
            else {
                jj_list *p = jj_list_new(rt, 2);
                p->v[0] = d->k[i];
                p->v[1] = d->v[i];
                l->v[i] = jj_listv(p, 1);
            }
        }
        jj_val v = jj_listv(l, 0);
        v.flags = f->kind == JF_D_ITEMS ? JJ_DICT_ITEMS : f->kind == JF_D_KEYS ? JJ_DICT_KEYS : JJ_DICT_VALUES;
        return v;
    }
    case JF_D_COPY: {
        arity(rt, "copy", na, 0, 0, nkw);
        jj_val v = {JJ_DICT, 0, {.d = make_dict(rt, "dict", &f->self, 1, NULL, NULL, 0)}};
        return v;
    }
    case JF_L_COUNT: {
        arity(rt, "count", na, 1, 1, nkw);
        int64_t k = 0;
        jj_charge(&rt->ar, f->self.u.l->n);
        for (size_t i = 0; i < f->self.u.l->n; i++) k += jj_eq(rt, f->self.u.l->v[i], a[0]);
        return jj_int(k);
    }
    case JF_L_INDEX: {
        arity(rt, "index", na, 1, 3, nkw);
        int64_t n = (int64_t)f->self.u.l->n;
        int64_t start = opt_index(rt, a, na, 1, 0), end = opt_index(rt, a, na, 2, n);
        if (start < 0) { start += n; if (start < 0) start = 0; }
        if (end < 0) { end += n; if (end < 0) end = 0; }
        for (int64_t i = start; i < end && i < n; i++)
            if (jj_charge(&rt->ar, 1), jj_eq(rt, f->self.u.l->v[i], a[0])) return jj_int(i);
        jj_fail(rt, "ValueError: value is not in list");
    }
    default:
        return str_method(rt, f, f->self.u.s, a, na, kwn, kwv, nkw);
    }
}
