/* fieldfmt.c - see fieldfmt.h. A template is kept as its literal pieces
 * and fields, in order. */
#include "text/fieldfmt.h"

#include "base/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *text; /* literal text (is_field 0) or the field path */
    size_t n;
    int is_field;
} piece;

struct cal_fieldfmt {
    piece *p;
    size_t np, nfields;
    const char **fields;
};

json_t *cal_json_at(const json_t *v, const char *path) {
    char part[256];
    while (v && *path) {
        size_t k = strcspn(path, ".");
        if (k >= sizeof part) return NULL;
        memcpy(part, path, k);
        part[k] = 0;
        path += k + (path[k] == '.');
        if (json_is_object(v)) {
            v = json_object_get(v, part);
        } else if (json_is_array(v)) {
            char *e;
            unsigned long i = strtoul(part, &e, 10);
            v = (*part && !*e) ? json_array_get(v, i) : NULL;
        } else {
            return NULL;
        }
    }
    return (json_t *)v;
}

int cal_fieldfmt_is(const char *s) { return strpbrk(s, "{}") != NULL; }

static void add_piece(cal_fieldfmt *f, cal_buf *b, int is_field) {
    if (!is_field && b->n == 0) return;
    f->p = cal_xrealloc(f->p, (f->np + 1) * sizeof *f->p);
    piece *p = &f->p[f->np++];
    p->text = cal_xmalloc(b->n + 1);
    memcpy(p->text, b->p ? b->p : "", b->n);
    p->text[b->n] = 0, p->n = b->n, p->is_field = is_field;
    f->nfields += is_field;
    b->n = 0;
}

static int parse(cal_fieldfmt *f, const char *s, cal_buf *b, char *err, size_t errlen) {
    for (size_t i = 0; s[i]; i++) {
        char c = s[i];
        if (c == '\\') {
            const char *from = "nrt\\{}", *to = "\n\r\t\\{}";
            const char *k = s[i + 1] ? strchr(from, s[i + 1]) : NULL;
            if (!k) return cal_errf(err, errlen, "unknown escape '\\%.1s' at character %zu (\\n \\t \\r \\\\ \\{ \\})", s + i + 1, i);
            cal_buf_addc(b, to[k - from]), i++;
        } else if ((c == '{' || c == '}') && s[i + 1] == c) {
            cal_buf_addc(b, c), i++;
        } else if (c == '}') {
            return cal_errf(err, errlen, "a lone '}' at character %zu (write \\} or }})", i);
        } else if (c == '{') {
            size_t k = strcspn(s + i + 1, "{}");
            if (s[i + 1 + k] != '}') return cal_errf(err, errlen, "'{' at character %zu is not closed", i);
            if (k == 0) return cal_errf(err, errlen, "an empty field '{}' at character %zu (name it: {text})", i);
            if (strcspn(s + i + 1, ":!") < k)
                return cal_errf(err, errlen, "field at character %zu: format specs (':', '!') are not supported", i);
            add_piece(f, b, 0);
            cal_buf_add(b, s + i + 1, k);
            add_piece(f, b, 1);
            i += k + 1;
        } else {
            cal_buf_addc(b, c);
        }
    }
    add_piece(f, b, 0);
    return 0;
}

cal_fieldfmt *cal_fieldfmt_parse(const char *tmpl, char *err, size_t errlen) {
    cal_fieldfmt *f = cal_xcalloc(1, sizeof *f);
    cal_buf b = {0};
    int r = parse(f, tmpl, &b, err, errlen);
    cal_buf_free(&b);
    if (r < 0) {
        cal_fieldfmt_free(f);
        return NULL;
    }
    f->fields = cal_xcalloc(f->nfields + 1, sizeof *f->fields);
    for (size_t i = 0, k = 0; i < f->np; i++)
        if (f->p[i].is_field) f->fields[k++] = f->p[i].text;
    return f;
}

size_t cal_fieldfmt_nfields(const cal_fieldfmt *f) { return f->nfields; }
const char *cal_fieldfmt_field(const cal_fieldfmt *f, size_t i) { return i < f->nfields ? f->fields[i] : NULL; }

/* repr(float) of Python: the shortest digits that read back as x, written
 * fixed when the exponent is in [-4, 16), else as d.ddde+XX. */
static void py_float(cal_buf *out, double x) {
    char t[64];
    int prec = 1;
    for (; prec < 17; prec++) {
        snprintf(t, sizeof t, "%.*e", prec - 1, x);
        if (strtod(t, NULL) == x) break;
    }
    snprintf(t, sizeof t, "%.*e", prec - 1, x);
    if (!strcmp(t, "inf") || !strcmp(t, "-inf") || !strcmp(t, "nan") || !strcmp(t, "-nan")) {
        cal_buf_addf(out, "%s", t);
        return;
    }
    char *e = strchr(t, 'e');
    int exp = atoi(e + 1);
    *e = 0;
    const char *m = t;
    if (*m == '-') cal_buf_addc(out, '-'), m++;
    char dig[32];
    size_t nd = 0;
    for (const char *p = m; *p; p++)
        if (*p != '.') dig[nd++] = *p;
    if (exp >= -4 && exp < 16) {
        if (exp < 0) {
            cal_buf_add(out, "0.", 2);
            for (int z = -1; z > exp; z--) cal_buf_addc(out, '0');
            cal_buf_add(out, dig, nd);
        } else {
            for (int k = 0; k <= exp; k++) cal_buf_addc(out, (size_t)k < nd ? dig[k] : '0');
            cal_buf_addc(out, '.');
            if ((size_t)exp + 1 < nd) cal_buf_add(out, dig + exp + 1, nd - (size_t)exp - 1);
            else cal_buf_addc(out, '0');
        }
    } else {
        cal_buf_addc(out, dig[0]);
        if (nd > 1) cal_buf_addc(out, '.'), cal_buf_add(out, dig + 1, nd - 1);
        cal_buf_addf(out, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    }
}

int cal_fieldfmt_render(const cal_fieldfmt *f, const json_t *root, int missing_empty, cal_buf *out, char *err,
                        size_t errlen) {
    out->n = 0;
    for (size_t i = 0; i < f->np; i++) {
        const piece *p = &f->p[i];
        if (!p->is_field) {
            cal_buf_add(out, p->text, p->n);
            continue;
        }
        json_t *v = cal_json_at(root, p->text);
        if (json_is_string(v)) cal_buf_add(out, json_string_value(v), json_string_length(v));
        else if (json_is_integer(v)) cal_buf_addf(out, "%lld", (long long)json_integer_value(v));
        else if (json_is_real(v)) py_float(out, json_real_value(v));
        else if (json_is_boolean(v)) cal_buf_addf(out, "%s", json_is_true(v) ? "True" : "False");
        else if (json_is_array(v) || json_is_object(v))
            return cal_errf(err, errlen, "field '%s' is %s: a template takes strings, numbers and booleans", p->text,
                       json_is_array(v) ? "a list" : "an object");
        else if (!missing_empty)
            return cal_errf(err, errlen, "%s field '%s' (--missing empty writes it as empty)", v ? "null" : "no", p->text);
    }
    return 0;
}

void cal_fieldfmt_free(cal_fieldfmt *f) {
    if (!f) return;
    for (size_t i = 0; i < f->np; i++) free(f->p[i].text);
    free(f->p), free(f->fields), free(f);
}
