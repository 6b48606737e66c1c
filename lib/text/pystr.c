/* pystr.c - see pystr.h. */
#include "text/pystr.h"

#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "base/utf8.h"

int cal_py_space(int32_t cp) {
    if (cp <= 0x20) return cp == ' ' || (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x1F);
    return cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 ||
           cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

void cal_py_strip(const char *s, size_t n, size_t *a, size_t *b) {
    size_t i = 0, end = 0;
    int lead = 1;
    *a = n;
    while (i < n) {
        int32_t cp;
        size_t k = cal_utf8_next(s, n, i, &cp);
        if (!cal_py_space(cp)) {
            if (lead) *a = i, lead = 0;
            end = i + k;
        }
        i += k;
    }
    if (lead) *a = end = n;
    *b = end;
}

int cal_py_isspace(const char *s, size_t n) {
    size_t a, b;
    if (!n) return 0;
    cal_py_strip(s, n, &a, &b);
    return a == b;
}

size_t cal_py_line(const char *p, size_t n) {
    const char *nl = memchr(p, '\n', n);
    return nl ? (size_t)(nl - p) : n;
}

char *cal_py_unescape(const char *opt, const char *v) {
    for (const char *e = v; (e = strchr(e, '\\')); e += 2)
        if (!e[1] || !strchr("ntr\\", e[1]))
            cal_usage_error("%s: unknown escape '\\%c' (\\n, \\t, \\r, \\\\)", opt, e[1] ? e[1] : ' ');
    char *out = cal_xmalloc(strlen(v) + 1), *o = out;
    for (; *v; v++) {
        if (*v != '\\') {
            *o++ = *v;
            continue;
        }
        char c = *++v;
        *o++ = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : '\\';
    }
    *o = 0;
    return out;
}

int cal_join_add(cal_join *j, const char *label, const char *p, size_t n) {
    const char *sep = j->docs ? j->sep : "";
    if (!n && j->empty) p = j->empty, n = strlen(j->empty);
    size_t sl = strlen(sep);
    if (sl + n > j->max - j->text.n) return -1;
    if (!j->docs++) snprintf(j->label, sizeof j->label, "%s", label);
    cal_buf_add(&j->text, sep, sl);
    cal_buf_add(&j->text, p, n);
    return 0;
}

void cal_join_free(cal_join *j) { cal_buf_free(&j->text); }
