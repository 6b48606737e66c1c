/* fieldfmt.c - see fieldfmt.h. A template is kept as its literal pieces,
 * fields and sections, in order; a section knows where its pieces end. */
#include "text/fieldfmt.h"

#include "base/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { P_TEXT, P_FIELD, P_IF, P_UNLESS }; /* literal, {field}, {?field:...}, {!field:...} */

typedef struct {
    char *text; /* literal text, or the field path */
    size_t n;
    int kind;
    size_t end; /* P_IF, P_UNLESS: the index after the section's last piece */
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

static size_t add_piece(cal_fieldfmt *f, cal_buf *b, int kind) {
    if (kind == P_TEXT && b->n == 0) return f->np;
    f->p = cal_xrealloc(f->p, (f->np + 1) * sizeof *f->p);
    piece *p = &f->p[f->np++];
    p->text = cal_xmalloc(b->n + 1);
    memcpy(p->text, b->p ? b->p : "", b->n);
    p->text[b->n] = 0, p->n = b->n, p->kind = kind, p->end = f->np;
    f->nfields += kind != P_TEXT;
    b->n = 0;
    return f->np - 1;
}

/* Parses s from *i up to the end, or (depth > 0) up to the '}' that closes
 * the section, which it takes. */
static int parse(cal_fieldfmt *f, const char *s, size_t *i, int depth, char *err, size_t errlen) {
    cal_buf b = {0};
    int rc = 0;
    for (; s[*i]; (*i)++) {
        size_t at = *i;
        char c = s[at];
        if (c == '\\') {
            const char *from = "nrt\\{}", *to = "\n\r\t\\{}";
            const char *k = s[at + 1] ? strchr(from, s[at + 1]) : NULL;
            if (!k) { rc = cal_errf(err, errlen, "unknown escape '\\%.1s' at character %zu (\\n \\t \\r \\\\ \\{ \\})", s + at + 1, at); break; }
            cal_buf_addc(&b, to[k - from]), (*i)++;
        } else if ((c == '{' || (c == '}' && !depth)) && s[at + 1] == c) { /* in a section '}' closes it: \} */
            cal_buf_addc(&b, c), (*i)++;
        } else if (c == '}' && depth) {
            add_piece(f, &b, P_TEXT);
            cal_buf_free(&b);
            return 0;
        } else if (c == '}') {
            rc = cal_errf(err, errlen, "a lone '}' at character %zu (write \\} or }})", at);
            break;
        } else if (c == '{' && (s[at + 1] == '?' || s[at + 1] == '!')) { /* a section */
            size_t k = strcspn(s + at + 2, ":{}");
            if (s[at + 2 + k] != ':' || k == 0) {
                rc = cal_errf(err, errlen, "section at character %zu: write {?FIELD:text} or {!FIELD:text}", at);
                break;
            }
            add_piece(f, &b, P_TEXT);
            cal_buf_add(&b, s + at + 2, k);
            size_t sec = add_piece(f, &b, s[at + 1] == '?' ? P_IF : P_UNLESS);
            *i = at + 3 + k;
            if (depth > 8) { rc = cal_errf(err, errlen, "sections nested more than 8 deep at character %zu", at); break; }
            if ((rc = parse(f, s, i, depth + 1, err, errlen))) break;
            if (!s[*i]) { rc = cal_errf(err, errlen, "the section at character %zu is not closed", at); break; }
            f->p[sec].end = f->np;
        } else if (c == '{') {
            size_t k = strcspn(s + at + 1, "{}");
            if (s[at + 1 + k] != '}') { rc = cal_errf(err, errlen, "'{' at character %zu is not closed", at); break; }
            if (k == 0) { rc = cal_errf(err, errlen, "an empty field '{}' at character %zu (name it: {text})", at); break; }
            if (strcspn(s + at + 1, ":!") < k) {
                rc = cal_errf(err, errlen, "field at character %zu: format specs (':', '!') are not supported", at);
                break;
            }
            add_piece(f, &b, P_TEXT);
            cal_buf_add(&b, s + at + 1, k);
            add_piece(f, &b, P_FIELD);
            *i = at + k + 1;
        } else {
            cal_buf_addc(&b, c);
        }
    }
    if (!rc) add_piece(f, &b, P_TEXT);
    cal_buf_free(&b);
    return rc;
}

cal_fieldfmt *cal_fieldfmt_parse(const char *tmpl, char *err, size_t errlen) {
    cal_fieldfmt *f = cal_xcalloc(1, sizeof *f);
    size_t i = 0;
    if (parse(f, tmpl, &i, 0, err, errlen) < 0) {
        cal_fieldfmt_free(f);
        return NULL;
    }
    f->fields = cal_xcalloc(f->nfields + 1, sizeof *f->fields);
    for (size_t k = 0, n = 0; k < f->np; k++)
        if (f->p[k].kind != P_TEXT) f->fields[n++] = f->p[k].text;
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

/* str() of the number Python's json.loads makes of the JSON number text
 * lit that jansson could not hold: an integer (any size) as its digits,
 * NaN and the infinities (Infinity, or a float past a double such as 1e400)
 * as float's nan, inf, -inf. */
static void py_number(cal_buf *out, const char *lit) {
    if (!strcmp(lit, "NaN")) cal_buf_add(out, "nan", 3);
    else if (!strcmp(lit, "Infinity")) cal_buf_add(out, "inf", 3);
    else if (!strcmp(lit, "-Infinity")) cal_buf_add(out, "-inf", 4);
    else if (!lit[strspn(lit + (*lit == '-'), "0123456789") + (*lit == '-')]) cal_buf_addf(out, "%s", lit);
    else py_float(out, strtod(lit, NULL));
}

/* A section's field is there: present, not null, not an empty string. */
static int present(const json_t *v) {
    return v && !json_is_null(v) && !(json_is_string(v) && json_string_length(v) == 0);
}

int cal_fieldfmt_render(const cal_fieldfmt *f, const json_t *root, const cal_pyjson *marks, int missing_empty,
                        cal_buf *out, char *err, size_t errlen) {
    out->n = 0;
    for (size_t i = 0; i < f->np; i++) {
        const piece *p = &f->p[i];
        if (p->kind == P_TEXT) {
            cal_buf_add(out, p->text, p->n);
            continue;
        }
        if (p->kind != P_FIELD) { /* a section: its pieces, or none */
            if (present(cal_json_at(root, p->text)) != (p->kind == P_IF)) i = p->end - 1;
            continue;
        }
        json_t *v = cal_json_at(root, p->text);
        const char *lit = marks ? cal_pyjson_literal(marks, v) : NULL;
        if (lit) py_number(out, lit);
        else if (json_is_string(v)) cal_buf_add(out, json_string_value(v), json_string_length(v));
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
