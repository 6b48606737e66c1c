/* pyjson.c - see pyjson.h. A recursive descent over Python's JSON grammar
 * (the JSON of RFC 8259 plus NaN, Infinity, -Infinity), depth-limited. */
#include "io/pyjson.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"

#define MAX_DEPTH 1000     /* Python's recursion limit, about */
#define MAX_INT_DIGITS 4300 /* sys.get_int_max_str_digits() */

typedef struct {
    const json_t *node;
    char *text;
} mark;

struct cal_pyjson {
    mark *v;
    size_t n, cap;
};

typedef struct {
    const char *p;
    size_t n, i;
    char *err;
    size_t errlen;
    int failed;
    cal_pyjson *marks;
    cal_buf s;
} parser;

static json_t *fail(parser *P, size_t at, const char *fmt, ...) CAL_PRINTF(3, 4);
static json_t *fail(parser *P, size_t at, const char *fmt, ...) {
    if (!P->failed) {
        int k = snprintf(P->err, P->errlen, "byte %zu: ", at);
        va_list ap;
        va_start(ap, fmt);
        if (k >= 0 && (size_t)k < P->errlen) vsnprintf(P->err + k, P->errlen - (size_t)k, fmt, ap);
        va_end(ap);
        P->failed = 1;
    }
    return NULL;
}

static void ws(parser *P) {
    while (P->i < P->n && (P->p[P->i] == ' ' || P->p[P->i] == '\t' || P->p[P->i] == '\n' || P->p[P->i] == '\r'))
        P->i++;
}

/* A string node standing for the number text p[0..n). */
static json_t *marked(parser *P, const char *p, size_t n) {
    json_t *node = json_stringn(p, n);
    if (!node) return fail(P, P->i, "out of memory");
    if (!P->marks) P->marks = cal_xcalloc(1, sizeof *P->marks);
    cal_pyjson *m = P->marks;
    if (m->n == m->cap) m->v = cal_xrealloc(m->v, (m->cap = m->cap ? 2 * m->cap : 8) * sizeof *m->v);
    m->v[m->n].node = json_incref(node); /* held: no later node can take its address */
    m->v[m->n].text = cal_xmalloc(n + 1);
    memcpy(m->v[m->n].text, p, n);
    m->v[m->n++].text[n] = 0;
    return node;
}

static int hex4(const char *p, unsigned *out) {
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        char c = p[k];
        int d = c >= '0' && c <= '9' ? c - '0' : (c | 32) >= 'a' && (c | 32) <= 'f' ? (c | 32) - 'a' + 10 : -1;
        if (d < 0) return 0;
        v = v * 16 + (unsigned)d;
    }
    *out = v;
    return 1;
}

static void put_utf8(cal_buf *b, unsigned c) {
    char t[4];
    size_t k;
    if (c < 0x80) t[0] = (char)c, k = 1;
    else if (c < 0x800) t[0] = (char)(0xC0 | (c >> 6)), t[1] = (char)(0x80 | (c & 63)), k = 2;
    else if (c < 0x10000)
        t[0] = (char)(0xE0 | (c >> 12)), t[1] = (char)(0x80 | ((c >> 6) & 63)), t[2] = (char)(0x80 | (c & 63)), k = 3;
    else
        t[0] = (char)(0xF0 | (c >> 18)), t[1] = (char)(0x80 | ((c >> 12) & 63)), t[2] = (char)(0x80 | ((c >> 6) & 63)),
        t[3] = (char)(0x80 | (c & 63)), k = 4;
    cal_buf_add(b, t, k);
}

/* A string (after its '"') decoded into P->s; 0 or -1. */
static int string(parser *P) {
    P->s.n = 0;
    for (;;) {
        size_t start = P->i;
        while (P->i < P->n && P->p[P->i] != '"' && P->p[P->i] != '\\' && (unsigned char)P->p[P->i] >= 0x20) P->i++;
        cal_buf_add(&P->s, P->p + start, P->i - start);
        if (P->i >= P->n) return fail(P, start, "unterminated string"), -1;
        char c = P->p[P->i];
        if (c == '"') {
            P->i++;
            return 0;
        }
        if ((unsigned char)c < 0x20) return fail(P, P->i, "invalid control character in a string"), -1;
        if (P->i + 1 >= P->n) return fail(P, P->i, "unterminated string"), -1;
        char e = P->p[P->i + 1];
        P->i += 2;
        switch (e) {
        case '"': cal_buf_addc(&P->s, '"'); break;
        case '\\': cal_buf_addc(&P->s, '\\'); break;
        case '/': cal_buf_addc(&P->s, '/'); break;
        case 'b': cal_buf_addc(&P->s, '\b'); break;
        case 'f': cal_buf_addc(&P->s, '\f'); break;
        case 'n': cal_buf_addc(&P->s, '\n'); break;
        case 'r': cal_buf_addc(&P->s, '\r'); break;
        case 't': cal_buf_addc(&P->s, '\t'); break;
        case 'u': {
            unsigned u, lo;
            if (P->n - P->i < 4 || !hex4(P->p + P->i, &u)) return fail(P, P->i - 2, "invalid \\uXXXX escape"), -1;
            P->i += 4;
            if (u >= 0xD800 && u <= 0xDBFF && P->n - P->i >= 6 && P->p[P->i] == '\\' && P->p[P->i + 1] == 'u' &&
                hex4(P->p + P->i + 2, &lo) && lo >= 0xDC00 && lo <= 0xDFFF) {
                P->i += 6;
                u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
            } else if (u >= 0xD800 && u <= 0xDFFF) {
                return fail(P, P->i - 6,
                            "a lone surrogate \\u%04x (Python keeps it, but the text could not be UTF-8 nor tokenized)",
                            u), -1;
            }
            put_utf8(&P->s, u);
            break;
        }
        default: return fail(P, P->i - 2, "invalid escape \\%c", e), -1;
        }
    }
}

static json_t *value(parser *P, int depth);

static json_t *number(parser *P) {
    size_t start = P->i;
    if (P->i < P->n && P->p[P->i] == '-') P->i++;
    if (P->n - P->i >= 8 && !memcmp(P->p + P->i, "Infinity", 8) && P->p[start] == '-') {
        P->i += 8;
        return marked(P, P->p + start, P->i - start);
    }
    if (P->i >= P->n || P->p[P->i] < '0' || P->p[P->i] > '9') return fail(P, start, "expecting a value");
    if (P->p[P->i] == '0') P->i++;
    else
        while (P->i < P->n && P->p[P->i] >= '0' && P->p[P->i] <= '9') P->i++;
    size_t int_end = P->i;
    int is_float = 0;
    if (P->i + 1 < P->n && P->p[P->i] == '.' && P->p[P->i + 1] >= '0' && P->p[P->i + 1] <= '9') {
        is_float = 1;
        P->i++;
        while (P->i < P->n && P->p[P->i] >= '0' && P->p[P->i] <= '9') P->i++;
    }
    if (P->i < P->n && (P->p[P->i] == 'e' || P->p[P->i] == 'E')) {
        size_t e = P->i + 1;
        if (e < P->n && (P->p[e] == '+' || P->p[e] == '-')) e++;
        if (e < P->n && P->p[e] >= '0' && P->p[e] <= '9') {
            is_float = 1;
            while (e < P->n && P->p[e] >= '0' && P->p[e] <= '9') e++;
            P->i = e;
        }
    }
    size_t len = P->i - start;
    if (!is_float) {
        size_t digits = int_end - start - (P->p[start] == '-');
        if (digits > MAX_INT_DIGITS)
            return fail(P, start, "an integer of %zu digits (Python's json.loads refuses more than %d)", digits,
                        MAX_INT_DIGITS);
        if (digits <= 18) {
            char t[24];
            memcpy(t, P->p + start, len);
            t[len] = 0;
            return json_integer(strtoll(t, NULL, 10));
        }
        char *t = cal_xmalloc(len + 1), *end;
        memcpy(t, P->p + start, len);
        t[len] = 0;
        errno = 0;
        long long v = strtoll(t, &end, 10);
        int fits = errno == 0 && *end == 0;
        free(t);
        return fits ? json_integer(v) : marked(P, P->p + start, len);
    }
    char *t = cal_xmalloc(len + 1);
    memcpy(t, P->p + start, len);
    t[len] = 0;
    double d = strtod(t, NULL);
    free(t);
    if (isinf(d)) return marked(P, P->p + start, len); /* 1e400: Python's inf */
    json_t *r = json_real(d);
    return r ? r : fail(P, start, "out of memory");
}

static json_t *value(parser *P, int depth) {
    ws(P);
    if (P->i >= P->n) return fail(P, P->i, "expecting a value");
    if (depth > MAX_DEPTH) return fail(P, P->i, "nested more than %d deep (Python's recursion limit)", MAX_DEPTH);
    const char *p = P->p + P->i;
    size_t left = P->n - P->i;
    switch (*p) {
    case '{': {
        json_t *o = json_object();
        P->i++;
        ws(P);
        if (P->i < P->n && P->p[P->i] == '}') {
            P->i++;
            return o;
        }
        for (;;) {
            ws(P);
            if (P->i >= P->n || P->p[P->i] != '"') {
                json_decref(o);
                return fail(P, P->i, "expecting a property name in double quotes");
            }
            P->i++;
            if (string(P)) {
                json_decref(o);
                return NULL;
            }
            size_t kn = P->s.n;
            char *key = cal_xmalloc(kn + 1);
            if (kn) memcpy(key, P->s.p, kn);
            key[kn] = 0;
            ws(P);
            if (P->i >= P->n || P->p[P->i] != ':') {
                free(key);
                json_decref(o);
                return fail(P, P->i, "expecting ':' delimiter");
            }
            P->i++;
            json_t *v = value(P, depth + 1);
            if (!v) {
                free(key);
                json_decref(o);
                return NULL;
            }
            /* a key given twice: the last value, at the first one's place (a dict's) */
            int rc = json_object_setn_new(o, key, kn, v);
            free(key);
            if (rc) {
                json_decref(o);
                return fail(P, P->i, "a key that is not UTF-8");
            }
            ws(P);
            if (P->i < P->n && P->p[P->i] == ',') {
                P->i++;
                continue;
            }
            if (P->i < P->n && P->p[P->i] == '}') {
                P->i++;
                return o;
            }
            json_decref(o);
            return fail(P, P->i, "expecting ',' delimiter");
        }
    }
    case '[': {
        json_t *a = json_array();
        P->i++;
        ws(P);
        if (P->i < P->n && P->p[P->i] == ']') {
            P->i++;
            return a;
        }
        for (;;) {
            json_t *v = value(P, depth + 1);
            if (!v) {
                json_decref(a);
                return NULL;
            }
            json_array_append_new(a, v);
            ws(P);
            if (P->i < P->n && P->p[P->i] == ',') {
                P->i++;
                continue;
            }
            if (P->i < P->n && P->p[P->i] == ']') {
                P->i++;
                return a;
            }
            json_decref(a);
            return fail(P, P->i, "expecting ',' delimiter");
        }
    }
    case '"': {
        P->i++;
        if (string(P)) return NULL;
        json_t *s = json_stringn(P->s.p ? P->s.p : "", P->s.n);
        return s ? s : fail(P, P->i, "a string that is not UTF-8");
    }
    case 't':
        if (left >= 4 && !memcmp(p, "true", 4)) return P->i += 4, json_true();
        break;
    case 'f':
        if (left >= 5 && !memcmp(p, "false", 5)) return P->i += 5, json_false();
        break;
    case 'n':
        if (left >= 4 && !memcmp(p, "null", 4)) return P->i += 4, json_null();
        break;
    case 'N':
        if (left >= 3 && !memcmp(p, "NaN", 3)) return P->i += 3, marked(P, "NaN", 3);
        break;
    case 'I':
        if (left >= 8 && !memcmp(p, "Infinity", 8)) return P->i += 8, marked(P, "Infinity", 8);
        break;
    default:
        if (*p == '-' || (*p >= '0' && *p <= '9')) return number(P);
    }
    return fail(P, P->i, "expecting a value");
}

static int by_node(const void *a, const void *b) {
    const json_t *x = ((const mark *)a)->node, *y = ((const mark *)b)->node;
    return x < y ? -1 : x > y;
}

int cal_pyjson_loads(const char *p, size_t n, json_t **root, cal_pyjson **marks, char *err, size_t errlen) {
    parser P = {p, n, 0, err, errlen, 0, NULL, {0}};
    *root = NULL;
    *marks = NULL;
    json_t *v = value(&P, 0);
    if (v) {
        ws(&P);
        if (P.i < P.n) {
            json_decref(v);
            v = fail(&P, P.i, "extra data after the value");
        }
    }
    cal_buf_free(&P.s);
    if (!v) {
        cal_pyjson_free(P.marks);
        return -1;
    }
    if (P.marks) qsort(P.marks->v, P.marks->n, sizeof *P.marks->v, by_node);
    *root = v;
    *marks = P.marks;
    return 0;
}

const char *cal_pyjson_literal(const cal_pyjson *m, const json_t *node) {
    if (!m || !json_is_string(node)) return NULL;
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->v[mid].node == node) return m->v[mid].text;
        if ((const void *)m->v[mid].node < (const void *)node) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

void cal_pyjson_free(cal_pyjson *m) {
    if (!m) return;
    for (size_t i = 0; i < m->n; i++) {
        free(m->v[i].text);
        json_decref((json_t *)m->v[i].node);
    }
    free(m->v);
    free(m);
}
