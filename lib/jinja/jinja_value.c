/* jinja_value.c - the interpreter's values with Python's semantics: truth,
 * ==, ordering, arithmetic, str() and repr() (which templates print), dicts
 * in insertion order, Jinja's Undefined, and conversion from JSON. */
#define _GNU_SOURCE /* memmem */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "jinja/jinja_int.h"

jj_val jj_cstr(jj_rt *rt, const char *s) { return jj_strv(jj_str_new(rt, s, strlen(s))); }
jj_val jj_strn(jj_rt *rt, const char *p, size_t n) { return jj_strv(jj_str_new(rt, p, n)); }

/* ---- undefined ---- */

static jj_val undef(jj_rt *rt, const char *hint, const char *name, const char *objtype,
                    int element) {
    jj_undef *u = jj_alloc(&rt->ar, sizeof *u);
    u->hint = hint;
    u->name = name;
    u->objtype = objtype;
    u->element = element;
    u->unsafe = 0;
    jj_val v = {JJ_UNDEF, 0, {.u = u}};
    return v;
}

jj_val jj_undef_hint(jj_rt *rt, const char *hint) { return undef(rt, hint, NULL, NULL, 0); }
jj_val jj_undef_name(jj_rt *rt, const char *name) { return undef(rt, NULL, name, NULL, 0); }

/* Jinja's object_type_repr. */
static const char *object_type(jj_rt *rt, jj_val obj) {
    if (obj.t == JJ_NONE) return "None";
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%s object", jj_type_name(obj));
    return jj_strndup(&rt->ar, tmp, strlen(tmp));
}

jj_val jj_undef_attr(jj_rt *rt, jj_val obj, const char *name) {
    return undef(rt, NULL, name, object_type(rt, obj), 0);
}

jj_val jj_undef_item(jj_rt *rt, jj_val obj, jj_val key) {
    if (key.t == JJ_STR) return undef(rt, NULL, key.u.s->s, object_type(rt, obj), 0);
    jj_buf b = {0};
    jj_repr_of(rt, &b, key);
    return undef(rt, NULL, b.p ? b.p : "", object_type(rt, obj), 1);
}

void jj_undef_fail(jj_rt *rt, jj_val v) {
    const jj_undef *u = v.u.u;
    if (!u) jj_fail(rt, "UndefinedError: undefined value");
    if (u->hint) jj_fail(rt, "UndefinedError: %s", u->hint);
    if (!u->objtype) jj_fail(rt, "UndefinedError: '%s' is undefined", u->name ? u->name : "");
    if (u->element) jj_fail(rt, "UndefinedError: %s has no element %s", u->objtype, u->name);
    jj_fail(rt, "UndefinedError: '%s' has no attribute '%s'", u->objtype, u->name);
}

/* ---- dicts ---- */

jj_dict *jj_dict_new(jj_rt *rt) {
    jj_dict *d = jj_alloc(&rt->ar, sizeof *d);
    memset(d, 0, sizeof *d);
    d->epoch = rt->epoch;
    return d;
}

/* Nesting deeper than this makes a value unhashable (and its hash flat):
 * tuples built in a loop must not overflow the stack. */
#define HASH_DEPTH 256

static int hashable(jj_val v, int depth) {
    if (depth > HASH_DEPTH) return 0;
    switch (v.t) {
    case JJ_LIST: return (v.flags & (JJ_RANGE | JJ_GENERATOR)) != 0;  /* ranges and iterators are */
    case JJ_DICT: return 0;
    case JJ_TUPLE:
        for (size_t i = 0; i < v.u.l->n; i++)
            if (!hashable(v.u.l->v[i], depth + 1)) return 0;
        return 1;
    default: return 1;
    }
}

int jj_hashable(jj_val v) { return hashable(v, 0); }

static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

/* Equal keys hash equal (1 == 1.0 == True as in Python). */
static uint64_t hash_at(jj_val v, int depth) {
    if (depth > HASH_DEPTH) return 0;
    switch (v.t) {
    case JJ_STR: return cal_hash(v.u.s->s, v.u.s->n);
    case JJ_BOOL: case JJ_INT: return mix((uint64_t)v.u.i);
    case JJ_BIG: return jj_int_hash(v);
    case JJ_COMPLEX:
        /* equal to its real part when the imaginary part is 0 */
        if (v.u.c->im == 0) return hash_at(jj_float(v.u.c->re), depth);
        { uint64_t x, y; memcpy(&x, &v.u.c->re, 8); memcpy(&y, &v.u.c->im, 8); return mix(x) ^ mix(y * 1000003); }
    case JJ_FLOAT:
        /* an integral float hashes as the int it equals */
        if (v.u.f == floor(v.u.f) && v.u.f >= -9223372036854775808.0 && v.u.f < 9223372036854775808.0)
            return mix((uint64_t)(int64_t)v.u.f);
        if (v.u.f == floor(v.u.f) && !isinf(v.u.f)) return jj_float_int_hash(v.u.f);
        { uint64_t x; memcpy(&x, &v.u.f, 8); return mix(x); }
    case JJ_TUPLE: {
        uint64_t h = 0x345678;
        for (size_t i = 0; i < v.u.l->n; i++) h = mix(h ^ hash_at(v.u.l->v[i], depth + 1)) + i;
        return h;
    }
    case JJ_NONE: return 0x9e3779b97f4a7c15ULL;
    default: return mix((uint64_t)(uintptr_t)v.u.s);
    }
}

static uint64_t hash_val(jj_val v) { return hash_at(v, 0); }

static void reindex(jj_rt *rt, jj_dict *d) {
    jj_dict_written(rt, d, 0); /* the index is new (entry 0 stands for it) */
    size_t cap = 16;
    while (cap < d->n * 2 + 2) cap *= 2;
    d->idx = jj_alloc(&rt->ar, cap * sizeof(uint32_t));
    memset(d->idx, 0, cap * sizeof(uint32_t));
    d->idxcap = cap;
    for (size_t e = 0; e < d->n; e++) {
        size_t s = hash_val(d->k[e]) & (cap - 1);
        while (d->idx[s]) s = (s + 1) & (cap - 1);
        d->idx[s] = (uint32_t)(e + 1);
    }
}

static jj_val *find(jj_rt *rt, jj_dict *d, jj_val key, size_t *at) {
    if (key.t == JJ_STR) jj_charge_bytes(&rt->ar, key.u.s->n);
    if (d->n <= 8) {
        for (size_t e = 0; e < d->n; e++)
            if (jj_eq(rt, d->k[e], key)) { *at = e; return &d->v[e]; }
        return NULL;
    }
    if (!d->idx || d->idxcap < d->n * 2) reindex(rt, d);
    size_t s = hash_val(key) & (d->idxcap - 1);
    while (d->idx[s]) {
        size_t e = d->idx[s] - 1;
        if (jj_eq(rt, d->k[e], key)) { *at = e; return &d->v[e]; }
        s = (s + 1) & (d->idxcap - 1);
    }
    return NULL;
}

jj_val *jj_dict_get(jj_rt *rt, jj_dict *d, jj_val key) {
    size_t at;
    return find(rt, d, key, &at);
}

jj_val *jj_dict_gets(jj_rt *rt, jj_dict *d, const char *key) {
    size_t kn = strlen(key);
    if (d->n <= 8) {
        for (size_t e = 0; e < d->n; e++)
            if (d->k[e].t == JJ_STR && d->k[e].u.s->n == kn && memcmp(d->k[e].u.s->s, key, kn) == 0)
                return &d->v[e];
        return NULL;
    }
    jj_val k = jj_strn(rt, key, kn);
    return jj_dict_get(rt, d, k);
}

void jj_dict_set(jj_rt *rt, jj_dict *d, jj_val key, jj_val v) {
    size_t at;
    jj_val *slot = find(rt, d, key, &at);
    if (slot) {
        jj_dict_written(rt, d, at);
        *slot = v;
        return;
    }
    jj_dict_written(rt, d, d->n);
    if (d->n == d->cap) {
        size_t nc = d->cap ? d->cap * 2 : 4;
        if (nc > UINT32_MAX - 1) jj_fail(rt, "dict too large");
        jj_val *nk = jj_alloc(&rt->ar, nc * sizeof(jj_val));
        jj_val *nv = jj_alloc(&rt->ar, nc * sizeof(jj_val));
        if (d->n) {
            memcpy(nk, d->k, d->n * sizeof(jj_val));
            memcpy(nv, d->v, d->n * sizeof(jj_val));
        }
        d->k = nk;
        d->v = nv;
        d->cap = nc;
    }
    d->k[d->n] = key;
    d->v[d->n] = v;
    d->n++;
    if (d->idx) {
        if (d->idxcap < d->n * 2) reindex(rt, d);
        else {
            size_t s = hash_val(key) & (d->idxcap - 1);
            while (d->idx[s]) s = (s + 1) & (d->idxcap - 1);
            d->idx[s] = (uint32_t)d->n;
        }
    }
}

void jj_dict_sets(jj_rt *rt, jj_dict *d, const char *key, jj_val v) {
    jj_dict_set(rt, d, jj_cstr(rt, key), v);
}

/* ---- truth, numbers, equality, order ---- */

int jj_truthy(jj_val v) {
    switch (v.t) {
    case JJ_UNDEF: case JJ_NONE: return 0;
    case JJ_BOOL: case JJ_INT: return v.u.i != 0;
    case JJ_BIG: return 1;
    case JJ_COMPLEX: return v.u.c->re != 0 || v.u.c->im != 0;
    case JJ_FLOAT: return v.u.f != 0;
    case JJ_STR: return v.u.s->n != 0;
    case JJ_LIST: case JJ_TUPLE:
        if (v.flags & JJ_GENERATOR) return 1;
        return v.u.l->n != 0;
    case JJ_DICT: return v.u.d->n != 0;
    default: return 1;
    }
}

int jj_is_num(jj_val v) { return v.t == JJ_BOOL || v.t == JJ_INT || v.t == JJ_FLOAT || v.t == JJ_BIG; }
double jj_num(jj_rt *rt, jj_val v) {
    if (v.t == JJ_FLOAT) return v.u.f;
    return jj_int_to_double(rt, v);
}

/* Numbers compared exactly (ints and floats too): -1, 0, 1 (NaN: 2). */
static int num_cmp(jj_val a, jj_val b) {
    if (a.t != JJ_FLOAT && b.t != JJ_FLOAT) return jj_int_cmp(a, b);
    if (a.t == JJ_FLOAT && b.t == JJ_FLOAT) {
        if (isnan(a.u.f) || isnan(b.u.f)) return 2;
        return a.u.f < b.u.f ? -1 : a.u.f > b.u.f;
    }
    if (a.t == JJ_FLOAT) {
        int c = jj_int_cmp_float(b, a.u.f);
        return c == 2 ? 2 : -c;
    }
    return jj_int_cmp_float(a, b.u.f);
}

static void depth_check(jj_rt *rt);

static int eq_containers(jj_rt *rt, jj_val a, jj_val b);

int jj_eq(jj_rt *rt, jj_val a, jj_val b) {
    if (jj_is_num(a) && jj_is_num(b)) return num_cmp(a, b) == 0;
    if (a.t == JJ_COMPLEX || b.t == JJ_COMPLEX) {
        jj_val c = a.t == JJ_COMPLEX ? a : b, o = a.t == JJ_COMPLEX ? b : a;
        if (o.t == JJ_COMPLEX) return c.u.c->re == o.u.c->re && c.u.c->im == o.u.c->im;
        if (!jj_is_num(o) || c.u.c->im != 0) return 0;
        return num_cmp(jj_float(c.u.c->re), o) == 0;
    }
    if (a.t != b.t) return 0;
    if (a.t == JJ_LIST || a.t == JJ_TUPLE || a.t == JJ_DICT) {
        rt->depth++;
        depth_check(rt);
        int r = eq_containers(rt, a, b);
        rt->depth--;
        return r;
    }
    switch (a.t) {
    case JJ_UNDEF: case JJ_NONE: return 1;
    case JJ_STR:
        if (a.u.s->n != b.u.s->n) return 0;
        jj_charge_bytes(&rt->ar, a.u.s->n);
        return memcmp(a.u.s->s, b.u.s->s, a.u.s->n) == 0;
    case JJ_FUNC:
        return a.u.fn == b.u.fn ||
               (a.u.fn->kind == b.u.fn->kind && a.u.fn->self.t == b.u.fn->self.t &&
                a.u.fn->self.u.s == b.u.fn->self.u.s && a.u.fn->kind < JF_JOINER);
    default: return a.u.s == b.u.s;
    }
}

static int eq_containers(jj_rt *rt, jj_val a, jj_val b) {
    jj_charge(&rt->ar, 1);
    if (a.t == JJ_DICT) {
        if (a.u.d->n != b.u.d->n) return 0;
        for (size_t i = 0; i < a.u.d->n; i++) {
            jj_val *w = jj_dict_get(rt, b.u.d, a.u.d->k[i]);
            if (!w || !jj_eq(rt, a.u.d->v[i], *w)) return 0;
        }
        return 1;
    }
    if ((a.flags | b.flags) & (JJ_GENERATOR | JJ_DICT_ITEMS | JJ_DICT_KEYS | JJ_DICT_VALUES))
        return a.u.l == b.u.l;
    if ((a.flags & JJ_RANGE) != (b.flags & JJ_RANGE)) return 0;
    if (a.u.l->n != b.u.l->n) return 0;
    for (size_t i = 0; i < a.u.l->n; i++)
        if (!jj_eq(rt, a.u.l->v[i], b.u.l->v[i])) return 0;
    return 1;
}

const char *jj_type_name(jj_val v) {
    switch (v.t) {
    case JJ_UNDEF: return "Undefined";
    case JJ_NONE: return "NoneType";
    case JJ_BOOL: return "bool";
    case JJ_INT: case JJ_BIG: return "int";
    case JJ_COMPLEX: return "complex";
    case JJ_FLOAT: return "float";
    case JJ_STR: return v.flags & JJ_MARKUP ? "Markup" : "str";
    case JJ_LIST:
        if (v.flags & JJ_GENERATOR) return "generator";
        if (v.flags & JJ_RANGE) return "range";
        if (v.flags & JJ_DICT_ITEMS) return "dict_items";
        if (v.flags & JJ_DICT_KEYS) return "dict_keys";
        if (v.flags & JJ_DICT_VALUES) return "dict_values";
        return "list";
    case JJ_TUPLE: return v.flags & JJ_GROUP ? "_GroupTuple" : "tuple";
    case JJ_DICT: return "dict";
    case JJ_NS: return "Namespace";
    case JJ_MACRO: return "Macro";
    case JJ_LOOP: return "LoopContext";
    default: return "builtin_function_or_method";
    }
}

int jj_cmp(jj_rt *rt, jj_val a, jj_val b) {
    if (a.t == JJ_UNDEF) jj_undef_fail(rt, a);
    if (b.t == JJ_UNDEF) jj_undef_fail(rt, b);
    if (jj_is_num(a) && jj_is_num(b)) return num_cmp(a, b);
    if (a.t == JJ_STR && b.t == JJ_STR) {
        size_t m = a.u.s->n < b.u.s->n ? a.u.s->n : b.u.s->n;
        jj_charge_bytes(&rt->ar, m);
        int c = memcmp(a.u.s->s, b.u.s->s, m);
        if (c) return c < 0 ? -1 : 1;
        return a.u.s->n < b.u.s->n ? -1 : a.u.s->n > b.u.s->n;
    }
    if (a.t == b.t && (a.t == JJ_LIST || a.t == JJ_TUPLE) &&
        !((a.flags | b.flags) & (JJ_GENERATOR | JJ_RANGE | JJ_DICT_ITEMS | JJ_DICT_KEYS | JJ_DICT_VALUES))) {
        size_t m = a.u.l->n < b.u.l->n ? a.u.l->n : b.u.l->n;
        for (size_t i = 0; i < m; i++) {
            jj_charge(&rt->ar, 1);
            if (jj_eq(rt, a.u.l->v[i], b.u.l->v[i])) continue;
            rt->depth++;
            depth_check(rt);
            int c = jj_cmp(rt, a.u.l->v[i], b.u.l->v[i]);
            rt->depth--;
            return c;
        }
        return a.u.l->n < b.u.l->n ? -1 : a.u.l->n > b.u.l->n;
    }
    jj_fail(rt, "TypeError: '<' not supported between instances of '%s' and '%s'",
            jj_type_name(a), jj_type_name(b));
}

/* ---- str() and repr() ---- */

void jj_float_repr(jj_rt *rt, jj_buf *b, double f) {
    if (isnan(f)) { jj_buf_adds(rt, b, "nan"); return; }
    if (isinf(f)) { jj_buf_adds(rt, b, f < 0 ? "-inf" : "inf"); return; }
    if (f == 0) { jj_buf_adds(rt, b, signbit(f) ? "-0.0" : "0.0"); return; }
    char t[40];
    int prec;
    for (prec = 1; prec <= 17; prec++) {
        snprintf(t, sizeof t, "%.*e", prec - 1, f);
        if (strtod(t, NULL) == f) break;
    }
    char digits[24];
    int nd = 0, neg = 0;
    const char *p = t;
    if (*p == '-') { neg = 1; p++; }
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9') digits[nd++] = *p;
    int exp = atoi(p + 1);
    while (nd > 1 && digits[nd - 1] == '0') nd--;
    int decpt = exp + 1;
    char out[64];
    int o = 0;
    if (neg) out[o++] = '-';
    if (decpt <= -4 || decpt > 16) {
        out[o++] = digits[0];
        if (nd > 1) {
            out[o++] = '.';
            for (int i = 1; i < nd; i++) out[o++] = digits[i];
        }
        o += snprintf(out + o, sizeof out - (size_t)o, "e%c%02d", exp < 0 ? '-' : '+',
                      exp < 0 ? -exp : exp);
    } else if (decpt <= 0) {
        out[o++] = '0';
        out[o++] = '.';
        for (int i = 0; i < -decpt; i++) out[o++] = '0';
        for (int i = 0; i < nd; i++) out[o++] = digits[i];
    } else if (decpt >= nd) {
        for (int i = 0; i < nd; i++) out[o++] = digits[i];
        for (int i = nd; i < decpt; i++) out[o++] = '0';
        out[o++] = '.';
        out[o++] = '0';
    } else {
        for (int i = 0; i < decpt; i++) out[o++] = digits[i];
        out[o++] = '.';
        for (int i = decpt; i < nd; i++) out[o++] = digits[i];
    }
    jj_buf_add(rt, b, out, (size_t)o);
}

static void repr_str(jj_rt *rt, jj_buf *b, const jj_str *s) {
    int sq = memchr(s->s, '\'', s->n) != NULL, dq = memchr(s->s, '"', s->n) != NULL;
    char q = sq && !dq ? '"' : '\'';
    jj_buf_addc(rt, b, q);
    for (size_t i = 0; i < s->n;) {
        size_t at = i;
        int32_t c = jj_u8_next(s->s, s->n, &i);
        if (c == q || c == '\\') { jj_buf_addc(rt, b, '\\'); jj_buf_addc(rt, b, (char)c); }
        else if (c == '\t') jj_buf_adds(rt, b, "\\t");
        else if (c == '\n') jj_buf_adds(rt, b, "\\n");
        else if (c == '\r') jj_buf_adds(rt, b, "\\r");
        else if (c < 0x20 || c == 0x7F) jj_buf_addf(rt, b, "\\x%02x", (unsigned)c);
        else if (c < 0x7F || jj_isprintable(c)) jj_buf_add(rt, b, s->s + at, i - at);
        else if (c < 0x100) jj_buf_addf(rt, b, "\\x%02x", (unsigned)c);
        else if (c < 0x10000) jj_buf_addf(rt, b, "\\u%04x", (unsigned)c);
        else jj_buf_addf(rt, b, "\\U%08x", (unsigned)c);
    }
    jj_buf_addc(rt, b, q);
}

static void repr_items(jj_rt *rt, jj_buf *b, const jj_list *l) {
    for (size_t i = 0; i < l->n; i++) {
        if (i) jj_buf_adds(rt, b, ", ");
        jj_repr_of(rt, b, l->v[i]);
    }
}

static void repr_dict(jj_rt *rt, jj_buf *b, const jj_dict *d) {
    jj_buf_addc(rt, b, '{');
    for (size_t i = 0; i < d->n; i++) {
        if (i) jj_buf_adds(rt, b, ", ");
        jj_repr_of(rt, b, d->k[i]);
        jj_buf_adds(rt, b, ": ");
        jj_repr_of(rt, b, d->v[i]);
    }
    jj_buf_addc(rt, b, '}');
}

static void depth_check(jj_rt *rt) {
    if (rt->depth > rt->max_depth)
        jj_fail(rt, "RecursionError: values nested more than %d deep", rt->max_depth);
}

void jj_repr_of(jj_rt *rt, jj_buf *b, jj_val v) {
    switch (v.t) {
    case JJ_UNDEF: jj_buf_adds(rt, b, "Undefined"); return;
    case JJ_STR:
        if (v.flags & JJ_MARKUP) {
            jj_buf_adds(rt, b, "Markup(");
            repr_str(rt, b, v.u.s);
            jj_buf_addc(rt, b, ')');
        } else {
            repr_str(rt, b, v.u.s);
        }
        return;
    default: jj_str_of(rt, b, v);
    }
}

void jj_str_of(jj_rt *rt, jj_buf *b, jj_val v) {
    switch (v.t) {
    case JJ_UNDEF: return;
    case JJ_NONE: jj_buf_adds(rt, b, "None"); return;
    case JJ_BOOL: jj_buf_adds(rt, b, v.u.i ? "True" : "False"); return;
    case JJ_INT: case JJ_BIG: jj_int_str(rt, b, v); return;
    case JJ_FLOAT: jj_float_repr(rt, b, v.u.f); return;
    case JJ_COMPLEX: jj_complex_repr(rt, b, v.u.c, jj_float_repr); return;
    case JJ_STR: jj_buf_add(rt, b, v.u.s->s, v.u.s->n); return;
    default: break;
    }
    rt->depth++;
    depth_check(rt);
    if (v.t == JJ_LIST) {
        const jj_list *l = v.u.l;
        if (v.flags & JJ_GENERATOR) jj_buf_adds(rt, b, "<generator object>");
        else if (v.flags & JJ_RANGE) {
            jj_buf_adds(rt, b, "range(");
            jj_int_str(rt, b, l->r[0]);
            jj_buf_adds(rt, b, ", ");
            jj_int_str(rt, b, l->r[1]);
            if (!(l->r[2].t == JJ_INT && l->r[2].u.i == 1)) {
                jj_buf_adds(rt, b, ", ");
                jj_int_str(rt, b, l->r[2]);
            }
            jj_buf_addc(rt, b, ')');
        } else {
            const char *view = v.flags & JJ_DICT_ITEMS ? "dict_items(" : v.flags & JJ_DICT_KEYS ? "dict_keys("
                               : v.flags & JJ_DICT_VALUES ? "dict_values(" : NULL;
            if (view) jj_buf_adds(rt, b, view);
            jj_buf_addc(rt, b, '[');
            repr_items(rt, b, l);
            jj_buf_addc(rt, b, ']');
            if (view) jj_buf_addc(rt, b, ')');
        }
    } else if (v.t == JJ_TUPLE) {
        jj_buf_addc(rt, b, '(');
        repr_items(rt, b, v.u.l);
        if (v.u.l->n == 1) jj_buf_addc(rt, b, ',');
        jj_buf_addc(rt, b, ')');
    } else if (v.t == JJ_DICT) {
        repr_dict(rt, b, v.u.d);
    } else if (v.t == JJ_NS) {
        jj_buf_adds(rt, b, "<Namespace ");
        repr_dict(rt, b, v.u.d);
        jj_buf_addc(rt, b, '>');
    } else if (v.t == JJ_MACRO) {
        jj_buf_addf(rt, b, "<Macro '%s'>", v.u.m->name);
    } else if (v.t == JJ_LOOP) {
        jj_buf_addf(rt, b, "<LoopContext %zu/%zu>", v.u.lp->i + 1, v.u.lp->items->n);
    } else {
        /* Markup's own methods (MarkupSafe's Python wrappers) print as bound methods */
        static const char *const markup_own[] = {
            "capitalize", "casefold", "center", "expandtabs", "format", "format_map", "join", "ljust",
            "lower", "lstrip", "partition", "removeprefix", "removesuffix", "replace", "rjust", "rpartition",
            "rsplit", "rstrip", "split", "splitlines", "strip", "swapcase", "title", "translate", "upper",
            "zfill", NULL};
        const jj_func *f = v.u.fn;
        int own = 0;
        if (f->self.t == JJ_STR && (f->self.flags & JJ_MARKUP))
            for (int i = 0; markup_own[i] && !own; i++) own = !strcmp(markup_own[i], f->name);
        if (own) {
            jj_buf_addf(rt, b, "<bound method Markup.%s of ", f->name);
            jj_repr_of(rt, b, f->self);
            jj_buf_addc(rt, b, '>');
        } else {
            jj_buf_addf(rt, b, "<built-in method %s>", f->name);
        }
    }
    rt->depth--;
}

void jj_ascii_of(jj_rt *rt, jj_buf *b, jj_val v) {
    jj_buf r = {0};
    jj_repr_of(rt, &r, v);
    for (size_t i = 0; i < r.n;) {
        size_t at = i;
        int32_t c = jj_u8_next(r.p, r.n, &i);
        if (c < 0x80) jj_buf_add(rt, b, r.p + at, i - at);
        else if (c < 0x100) jj_buf_addf(rt, b, "\\x%02x", (unsigned)c);
        else if (c < 0x10000) jj_buf_addf(rt, b, "\\u%04x", (unsigned)c);
        else jj_buf_addf(rt, b, "\\U%08x", (unsigned)c);
    }
}

jj_str *jj_to_str(jj_rt *rt, jj_val v) {
    if (v.t == JJ_STR) return v.u.s;
    jj_buf b = {0};
    jj_str_of(rt, &b, v);
    return jj_str_buf(rt, &b);
}

jj_str *jj_escape(jj_rt *rt, jj_str *s) {
    if (!strpbrk(s->s, "&<>'\"") && memchr(s->s, 0, s->n) == NULL) return s;
    jj_buf b = {0};
    for (size_t i = 0; i < s->n; i++) {
        switch (s->s[i]) {
        case '&': jj_buf_adds(rt, &b, "&amp;"); break;
        case '<': jj_buf_adds(rt, &b, "&lt;"); break;
        case '>': jj_buf_adds(rt, &b, "&gt;"); break;
        case '\'': jj_buf_adds(rt, &b, "&#39;"); break;
        case '"': jj_buf_adds(rt, &b, "&#34;"); break;
        default: jj_buf_addc(rt, &b, s->s[i]);
        }
    }
    return jj_str_buf(rt, &b);
}

/* ---- iteration and length ---- */

jj_list *jj_iter(jj_rt *rt, jj_val v) {
    switch (v.t) {
    case JJ_UNDEF: return jj_list_new(rt, 0);
    case JJ_LIST: case JJ_TUPLE:
        if (v.flags & JJ_GENERATOR) {
            jj_list *l = jj_list_new(rt, 0);
            l->n = v.u.l->n - v.u.l->pos;
            l->v = l->n ? v.u.l->v + v.u.l->pos : NULL;
            v.u.l->pos = v.u.l->n;
            if (v.u.l->err) jj_fail(rt, "%s", v.u.l->err); /* consumed to its error */
            return l;
        }
        return v.u.l;
    case JJ_DICT: {
        jj_list *l = jj_list_new(rt, v.u.d->n);
        if (v.u.d->n) memcpy(l->v, v.u.d->k, v.u.d->n * sizeof(jj_val));
        return l;
    }
    case JJ_LOOP: {
        /* a LoopContext iterates the loop's remaining items itself, as
         * (item, loop) pairs: the loop has none left after */
        jj_loop *lp = v.u.lp;
        size_t from = lp->i + 1, n = lp->items->n > from ? lp->items->n - from : 0;
        jj_list *l = jj_list_new(rt, n);
        for (size_t k = 0; k < n; k++) {
            jj_list *p = jj_list_new(rt, 2);
            p->v[0] = lp->items->v[from + k];
            p->v[1] = v;
            l->v[k] = jj_listv(p, 1);
        }
        if (n) lp->i = lp->items->n - 1;
        lp->consumed = 1;
        return l;
    }
    case JJ_STR: {
        jj_str *s = v.u.s;
        jj_list *l = jj_list_new(rt, jj_str_len(s));
        size_t k = 0;
        for (size_t i = 0; i < s->n;) {
            size_t at = i;
            jj_u8_next(s->s, s->n, &i);
            l->v[k++] = jj_strn(rt, s->s + at, i - at);
        }
        return l;
    }
    default:
        jj_fail(rt, "TypeError: '%s' object is not iterable", jj_type_name(v));
    }
}

int64_t jj_len(jj_rt *rt, jj_val v) {
    switch (v.t) {
    case JJ_UNDEF: return 0;
    case JJ_STR: return (int64_t)jj_str_len(v.u.s);
    case JJ_LIST: case JJ_TUPLE:
        if (!(v.flags & JJ_GENERATOR)) return (int64_t)v.u.l->n;
        break;
    case JJ_DICT: return (int64_t)v.u.d->n;
    case JJ_LOOP: return (int64_t)v.u.lp->items->n;
    default: break;
    }
    jj_fail(rt, "TypeError: object of type '%s' has no len()", jj_type_name(v));
}

/* ---- arithmetic ---- */


static const char *op_sym(int op) {
    static const char *s[] = {"+", "-", "*", "/", "//", "%", "** or pow()"};
    return op >= 0 && op <= OP_POW ? s[op] : "?";
}

static CAL_NORETURN void bad_operands(jj_rt *rt, int op, jj_val a, jj_val b) {
    if (op == OP_ADD && a.t == JJ_STR)
        jj_fail(rt, "TypeError: can only concatenate str (not \"%s\") to str", jj_type_name(b));
    if (op == OP_ADD && a.t == JJ_LIST && b.t != JJ_UNDEF)
        jj_fail(rt, "TypeError: can only concatenate list (not \"%s\") to list", jj_type_name(b));
    jj_fail(rt, "TypeError: unsupported operand type(s) for %s: '%s' and '%s'", op_sym(op),
            jj_type_name(a), jj_type_name(b));
}

/* Python's float divmod. */
static void fdivmod(double vx, double wx, double *floordiv, double *modp) {
    double mod = fmod(vx, wx);
    double div = (vx - mod) / wx;
    if (mod) {
        if ((wx < 0) != (mod < 0)) { mod += wx; div -= 1.0; }
    } else {
        mod = copysign(0.0, wx);
    }
    double fd;
    if (div) {
        fd = floor(div);
        if (div - fd > 0.5) fd += 1.0;
    } else {
        fd = copysign(0.0, vx / wx);
    }
    *floordiv = fd;
    *modp = mod;
}

/* seq * k (k an int): Python's index-sized count, negative as 0. */
static jj_val repeat(jj_rt *rt, jj_val seq, jj_val kv) {
    int64_t k;
    if (!jj_int_to_i64(kv, &k)) jj_fail(rt, "OverflowError: cannot fit 'int' into an index-sized integer");
    if (k < 0) k = 0;
    if (seq.t == JJ_STR) {
        if (seq.u.s->n && (uint64_t)k > rt->max_output / seq.u.s->n)
            jj_limit(rt, "a string longer than %zu bytes", rt->max_output);
        jj_buf b = {0};
        for (int64_t i = 0; i < k; i++) jj_buf_add(rt, &b, seq.u.s->s, seq.u.s->n);
        jj_val r = jj_strv(jj_str_buf(rt, &b));
        r.flags = seq.flags & JJ_MARKUP;
        return r;
    }
    size_t n = seq.u.l->n;
    if (n && (uint64_t)k > (rt->ar.limit / sizeof(jj_val)) / n)
        jj_limit(rt, "a list too long for the memory limit");
    jj_list *l = jj_list_new(rt, n * (size_t)k);
    for (int64_t i = 0; i < k; i++)
        if (n) memcpy(l->v + (size_t)i * n, seq.u.l->v, n * sizeof(jj_val));
    return jj_listv(l, seq.t == JJ_TUPLE);
}

/* float ** float as Python's float_pow: a complex result is refused (calkit
 * has no complex numbers), an overflow from finite operands is an error. */
static jj_val float_pow(jj_rt *rt, double x, double y) {
    if (x == 0 && y < 0) jj_fail(rt, "ZeroDivisionError: 0.0 cannot be raised to a negative power");
    if (x < 0 && y != floor(y) && isfinite(y)) return jj_complex_pow_real(rt, x, y);
    double r = pow(x, y);
    if (isinf(r) && isfinite(x) && isfinite(y)) jj_fail(rt, "OverflowError: (34, 'Numerical result out of range')");
    return jj_float(r);
}

jj_val jj_binop(jj_rt *rt, int op, jj_val a, jj_val b) {
    if (a.t == JJ_UNDEF) jj_undef_fail(rt, a);
    if (b.t == JJ_UNDEF) jj_undef_fail(rt, b);
    if ((a.t == JJ_COMPLEX && (jj_is_num(b) || b.t == JJ_COMPLEX)) || (b.t == JJ_COMPLEX && jj_is_num(a))) {
        jj_complex x = a.t == JJ_COMPLEX ? *a.u.c : (jj_complex){jj_num(rt, a), 0};
        jj_complex y = b.t == JJ_COMPLEX ? *b.u.c : (jj_complex){jj_num(rt, b), 0};
        return jj_complex_binop(rt, op, x, y, jj_type_name(a), jj_type_name(b));
    }
    if (jj_is_num(a) && jj_is_num(b)) {
        if (a.t != JJ_FLOAT && b.t != JJ_FLOAT) {
            /* int op int: exact, beyond 64 bits when it must */
            int64_t x = a.u.i, y = b.u.i, r;
            int small = a.t != JJ_BIG && b.t != JJ_BIG;
            jj_val q;
            switch (op) {
            case OP_ADD:
                if (small && !__builtin_add_overflow(x, y, &r)) return jj_int(r);
                return jj_int_add(rt, a, b);
            case OP_SUB:
                if (small && !__builtin_sub_overflow(x, y, &r)) return jj_int(r);
                return jj_int_sub(rt, a, b);
            case OP_MUL:
                if (small && !__builtin_mul_overflow(x, y, &r)) return jj_int(r);
                return jj_int_mul(rt, a, b);
            case OP_DIV: return jj_float(jj_int_truediv(rt, a, b));
            case OP_FLOORDIV: case OP_MOD:
                if (jj_int_sign(b) == 0)
                    jj_fail(rt, "ZeroDivisionError: %s", op == OP_MOD ? "integer modulo by zero" : "integer division or modulo by zero");
                if (small && !(x == INT64_MIN && y == -1)) {
                    int64_t d = x / y, md = x % y;
                    if (md != 0 && ((md < 0) != (y < 0))) { d -= 1; md += y; }
                    return jj_int(op == OP_MOD ? md : d);
                }
                if (op == OP_MOD) jj_int_divmod(rt, a, b, NULL, &q);
                else jj_int_divmod(rt, a, b, &q, NULL);
                return q;
            case OP_POW:
                if (jj_int_sign(b) >= 0) return jj_int_pow(rt, a, b);
                return float_pow(rt, jj_num(rt, a), jj_num(rt, b));
            }
        }
        double fx = jj_num(rt, a), fy = jj_num(rt, b), q, m;
        switch (op) {
        case OP_ADD: return jj_float(fx + fy);
        case OP_SUB: return jj_float(fx - fy);
        case OP_MUL: return jj_float(fx * fy);
        case OP_DIV:
            if (fy == 0) jj_fail(rt, "ZeroDivisionError: float division by zero");
            return jj_float(fx / fy);
        case OP_FLOORDIV:
        case OP_MOD:
            if (fy == 0) jj_fail(rt, "ZeroDivisionError: float %s", op == OP_MOD ? "modulo" : "floor division by zero");
            fdivmod(fx, fy, &q, &m);
            return jj_float(op == OP_MOD ? m : q);
        case OP_POW: return float_pow(rt, fx, fy);
        }
    }
    if (op == OP_ADD) {
        if (a.t == JJ_STR && b.t == JJ_STR) {
            jj_str *x = a.u.s, *y = b.u.s;
            int mk = (a.flags | b.flags) & JJ_MARKUP;
            if (mk && !(a.flags & JJ_MARKUP)) x = jj_escape(rt, x);
            if (mk && !(b.flags & JJ_MARKUP)) y = jj_escape(rt, y);
            jj_val r = jj_strv(jj_str_cat(rt, x, y));
            r.flags = (uint8_t)mk;
            return r;
        }
        if (a.t == b.t && (a.t == JJ_LIST || a.t == JJ_TUPLE) &&
            !((a.flags | b.flags) & (JJ_GENERATOR | JJ_RANGE | JJ_DICT_ITEMS | JJ_DICT_KEYS | JJ_DICT_VALUES))) {
            jj_list *l = jj_list_new(rt, a.u.l->n + b.u.l->n);
            if (a.u.l->n) memcpy(l->v, a.u.l->v, a.u.l->n * sizeof(jj_val));
            if (b.u.l->n) memcpy(l->v + a.u.l->n, b.u.l->v, b.u.l->n * sizeof(jj_val));
            return jj_listv(l, a.t == JJ_TUPLE);
        }
    }
    if (op == OP_MUL) {
        int seq_a = a.t == JJ_STR || ((a.t == JJ_LIST || a.t == JJ_TUPLE) && !(a.flags & ~JJ_MARKUP));
        int seq_b = b.t == JJ_STR || ((b.t == JJ_LIST || b.t == JJ_TUPLE) && !(b.flags & ~JJ_MARKUP));
        if (seq_a && jj_is_int(b)) return repeat(rt, a, b);
        if (seq_b && jj_is_int(a)) return repeat(rt, b, a);
        if (seq_a && b.t != JJ_FLOAT && !seq_b) {
            jj_fail(rt, "TypeError: can't multiply sequence by non-int of type '%s'", jj_type_name(b));
        }
    }
    bad_operands(rt, op, a, b);
}

int jj_contains(jj_rt *rt, jj_val seq, jj_val x) {
    switch (seq.t) {
    case JJ_UNDEF: return 0;
    case JJ_STR:
        if (x.t == JJ_UNDEF) jj_undef_fail(rt, x);
        if (x.t != JJ_STR)
            jj_fail(rt, "TypeError: 'in <string>' requires string as left operand, not %s",
                    jj_type_name(x));
        if (x.u.s->n == 0) return 1;
        if (x.u.s->n > seq.u.s->n) return 0;
        jj_charge_bytes(&rt->ar, seq.u.s->n);
        return memmem(seq.u.s->s, seq.u.s->n, x.u.s->s, x.u.s->n) != NULL;
    case JJ_LIST: case JJ_TUPLE: {
        jj_list *l = seq.u.l;
        size_t from = seq.flags & JJ_GENERATOR ? l->pos : 0;
        for (size_t i = from; i < l->n; i++)
            if (jj_charge(&rt->ar, 1), jj_eq(rt, l->v[i], x)) {
                if (seq.flags & JJ_GENERATOR) l->pos = i + 1;
                return 1;
            }
        if (seq.flags & JJ_GENERATOR) {
            l->pos = l->n;
            if (l->err) jj_fail(rt, "%s", l->err);
        }
        return 0;
    }
    case JJ_DICT:
        if (!jj_hashable(x)) jj_fail(rt, "TypeError: unhashable type: '%s'", jj_type_name(x));
        return jj_dict_get(rt, seq.u.d, x) != NULL;
    default:
        jj_fail(rt, "TypeError: argument of type '%s' is not iterable", jj_type_name(seq));
    }
}

/* ---- sorting ---- */

static void merge(jj_rt *rt, jj_val *v, jj_val *tmp, size_t lo, size_t mid, size_t hi, size_t w,
                  jj_cmp_fn cmp, void *ctx) {
    size_t i = lo, j = mid, k = lo;
    jj_charge(&rt->ar, hi - lo);
    while (i < mid && j < hi) {
        /* take from the right only when it is strictly smaller: stable */
        if (cmp(rt, v + j * w, v + i * w, ctx) < 0) memcpy(tmp + (k++) * w, v + (j++) * w, w * sizeof *v);
        else memcpy(tmp + (k++) * w, v + (i++) * w, w * sizeof *v);
    }
    if (i < mid) memcpy(tmp + k * w, v + i * w, (mid - i) * w * sizeof *v), k += mid - i;
    if (j < hi) memcpy(tmp + k * w, v + j * w, (hi - j) * w * sizeof *v);
    memcpy(v + lo * w, tmp + lo * w, (hi - lo) * w * sizeof *v);
}

void jj_sort(jj_rt *rt, jj_val *v, size_t n, size_t w, jj_cmp_fn cmp, void *ctx) {
    if (n < 2) return;
    jj_val *tmp = jj_alloc(&rt->ar, n * w * sizeof *v);
    for (size_t width = 1; width < n; width *= 2)
        for (size_t lo = 0; lo + width < n; lo += 2 * width) {
            size_t mid = lo + width, hi = mid + width < n ? mid + width : n;
            merge(rt, v, tmp, lo, mid, hi, w, cmp, ctx);
        }
}

/* ---- JSON in ---- */

/* A JSON number's text as Python's json.loads makes it: an int of any size,
 * else a float (NaN, Infinity, -Infinity, and inf past the range). */
static jj_val number_of(jj_rt *rt, const char *t) {
    size_t n = strlen(t), i = t[0] == '-';
    int digits = n > i;
    for (size_t k = i; k < n; k++) digits &= t[k] >= '0' && t[k] <= '9';
    if (digits) return jj_int_parse(rt, t + i, n - i, 10, t[0] == '-');
    return jj_float(strtod(t, NULL));
}

jj_val jj_from_json(jj_rt *rt, const json_t *j, int depth) {
    if (depth > rt->max_depth) jj_fail(rt, "JSON nested more than %d deep", rt->max_depth);
    switch (json_typeof(j)) {
    case JSON_NULL: return jj_none;
    case JSON_TRUE: return jj_bool(1);
    case JSON_FALSE: return jj_bool(0);
    case JSON_INTEGER: return jj_int((int64_t)json_integer_value(j));
    case JSON_REAL: return jj_float(json_real_value(j));
    case JSON_STRING: {
        const char *lit = rt->literal ? rt->literal(rt->literal_ctx, j) : NULL;
        if (lit) return number_of(rt, lit);
        return jj_strn(rt, json_string_value(j), json_string_length(j));
    }
    case JSON_ARRAY: {
        size_t n = json_array_size(j);
        jj_list *l = jj_list_new(rt, n);
        for (size_t i = 0; i < n; i++) l->v[i] = jj_from_json(rt, json_array_get(j, i), depth + 1);
        return jj_listv(l, 0);
    }
    case JSON_OBJECT: {
        jj_dict *d = jj_dict_new(rt);
        const char *k;
        json_t *v;
        void *it = json_object_iter((json_t *)j);
        while (it) {
            k = json_object_iter_key(it);
            v = json_object_iter_value(it);
            /* keys may hold NUL (Python's json.loads takes them) */
            jj_dict_set(rt, d, jj_strn(rt, k, json_object_iter_key_len(it)), jj_from_json(rt, v, depth + 1));
            it = json_object_iter_next((json_t *)j, it);
        }
        jj_val r = {JJ_DICT, 0, {.d = d}};
        return r;
    }
    }
    return jj_none;
}

/* ---- arguments of built-ins ---- */

void jj_bind(jj_rt *rt, const char *fname, const char *const *params, size_t nparams,
             const jj_val *args, size_t nargs, const char *const *kwnames, const jj_val *kwvals,
             size_t nkw, jj_val *out, int *got) {
    for (size_t i = 0; i < nparams; i++) { out[i] = jj_undefined; got[i] = 0; }
    if (nargs > nparams)
        jj_fail(rt, "TypeError: %s() takes at most %zu arguments (%zu given)", fname, nparams, nargs);
    for (size_t i = 0; i < nargs; i++) { out[i] = args[i]; got[i] = 1; }
    for (size_t k = 0; k < nkw; k++) {
        size_t i = 0;
        while (i < nparams && strcmp(params[i], kwnames[k]) != 0) i++;
        if (i == nparams)
            jj_fail(rt, "TypeError: %s() got an unexpected keyword argument '%s'", fname, kwnames[k]);
        if (got[i]) jj_fail(rt, "TypeError: %s() got multiple values for argument '%s'", fname, kwnames[k]);
        out[i] = kwvals[k];
        got[i] = 1;
    }
}
