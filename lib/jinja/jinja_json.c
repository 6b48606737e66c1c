/* jinja_json.c - the tojson filter as transformers defines it: Python's
 * json.dumps(x, ensure_ascii=False, indent=..., separators=..., sort_keys=...)
 * byte for byte (key order kept, floats as repr, NaN/Infinity, Python's
 * escapes and indentation). */
#include <string.h>

#include "jinja/jinja_int.h"

static void json_str(jj_rt *rt, jj_buf *b, const jj_str *s, int ascii) {
    jj_buf_addc(rt, b, '"');
    size_t run = 0;
    for (size_t i = 0; i < s->n;) {
        size_t at = i;
        int32_t c = jj_u8_next(s->s, s->n, &i);
        const char *esc = NULL;
        switch (c) {
        case '"': esc = "\\\""; break;
        case '\\': esc = "\\\\"; break;
        case '\b': esc = "\\b"; break;
        case '\f': esc = "\\f"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        default: break;
        }
        int plain = !esc && c >= 0x20 && (!ascii || c < 0x7F);
        if (plain) continue;
        if (at > run) jj_buf_add(rt, b, s->s + run, at - run);
        run = i;
        if (esc) jj_buf_adds(rt, b, esc);
        else if (c < 0x10000) jj_buf_addf(rt, b, "\\u%04x", (unsigned)c);
        else {
            unsigned v = (unsigned)c - 0x10000;
            jj_buf_addf(rt, b, "\\u%04x\\u%04x", 0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF));
        }
    }
    if (s->n > run) jj_buf_add(rt, b, s->s + run, s->n - run);
    jj_buf_addc(rt, b, '"');
}

static void json_float(jj_rt *rt, jj_buf *b, double f) {
    if (f != f) jj_buf_adds(rt, b, "NaN");
    else if (f > 1.7976931348623157e308) jj_buf_adds(rt, b, "Infinity");
    else if (f < -1.7976931348623157e308) jj_buf_adds(rt, b, "-Infinity");
    else jj_float_repr(rt, b, f);
}

static void newline(jj_rt *rt, jj_buf *b, const jj_json_opts *o, int level) {
    jj_buf_addc(rt, b, '\n');
    for (int i = 0; i < level; i++) jj_buf_add(rt, b, o->indent->s, o->indent->n);
}

static void item_sep(jj_rt *rt, jj_buf *b, const jj_json_opts *o) {
    if (o->item_sep) jj_buf_add(rt, b, o->item_sep->s, o->item_sep->n);
    else jj_buf_adds(rt, b, o->indent_on ? "," : ", ");
}

/* A dict key as json.dumps converts it. */
static void json_key(jj_rt *rt, jj_buf *b, jj_val k, const jj_json_opts *o) {
    jj_buf t = {0};
    switch (k.t) {
    case JJ_STR: json_str(rt, b, k.u.s, o->ensure_ascii); return;
    case JJ_BOOL: jj_buf_adds(rt, &t, k.u.i ? "true" : "false"); break;
    case JJ_NONE: jj_buf_adds(rt, &t, "null"); break;
    case JJ_INT: case JJ_BIG: jj_int_str(rt, &t, k); break;
    case JJ_FLOAT: json_float(rt, &t, k.u.f); break;
    default:
        jj_fail(rt, "TypeError: keys must be str, int, float, bool or None, not %s", jj_type_name(k));
    }
    jj_buf_addc(rt, b, '"');
    jj_buf_add(rt, b, t.p, t.n);
    jj_buf_addc(rt, b, '"');
}

static int key_cmp(jj_rt *rt, const jj_val *a, const jj_val *b, void *ctx) {
    (void)ctx;
    return jj_cmp(rt, a[0], b[0]);
}

static void dump(jj_rt *rt, jj_buf *b, jj_val v, const jj_json_opts *o, int level) {
    switch (v.t) {
    case JJ_NONE: jj_buf_adds(rt, b, "null"); return;
    case JJ_BOOL: jj_buf_adds(rt, b, v.u.i ? "true" : "false"); return;
    case JJ_INT: case JJ_BIG: jj_int_str(rt, b, v); return;
    case JJ_FLOAT: json_float(rt, b, v.u.f); return;
    case JJ_STR: json_str(rt, b, v.u.s, o->ensure_ascii); return;
    default: break;
    }
    int list = (v.t == JJ_LIST && !(v.flags & ~JJ_MARKUP)) || v.t == JJ_TUPLE;
    if (!list && v.t != JJ_DICT)
        jj_fail(rt, "TypeError: Object of type %s is not JSON serializable", jj_type_name(v));
    if (++rt->depth > rt->max_depth)
        jj_fail(rt, "RecursionError: values nested more than %d deep", rt->max_depth);
    size_t n = list ? v.u.l->n : v.u.d->n;
    jj_buf_addc(rt, b, list ? '[' : '{');
    if (n == 0) {
        jj_buf_addc(rt, b, list ? ']' : '}');
        rt->depth--;
        return;
    }
    /* entries as key/value pairs, sorted if asked */
    jj_val *kv = NULL;
    if (!list) {
        kv = jj_alloc(&rt->ar, n * 2 * sizeof(jj_val));
        for (size_t i = 0; i < n; i++) { kv[2 * i] = v.u.d->k[i]; kv[2 * i + 1] = v.u.d->v[i]; }
        if (o->sort_keys) jj_sort(rt, kv, n, 2, key_cmp, NULL);
    }
    if (o->indent_on) newline(rt, b, o, level + 1);
    for (size_t i = 0; i < n; i++) {
        if (i) {
            item_sep(rt, b, o);
            if (o->indent_on) newline(rt, b, o, level + 1);
        }
        if (list) {
            dump(rt, b, v.u.l->v[i], o, level + 1);
        } else {
            json_key(rt, b, kv[2 * i], o);
            if (o->key_sep) jj_buf_add(rt, b, o->key_sep->s, o->key_sep->n);
            else jj_buf_adds(rt, b, ": ");
            dump(rt, b, kv[2 * i + 1], o, level + 1);
        }
    }
    if (o->indent_on) newline(rt, b, o, level);
    jj_buf_addc(rt, b, list ? ']' : '}');
    rt->depth--;
}

void jj_tojson(jj_rt *rt, jj_buf *b, jj_val v, const jj_json_opts *o) { dump(rt, b, v, o, 0); }
