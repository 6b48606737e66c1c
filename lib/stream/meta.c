/* meta.c - the ordered key=value metadata of a cal-stream header. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/utf8.h"
#include "stream/stream.h"

/* Keys whose values must agree when streams are concatenated or blended. */
static const char *const must_agree[] = {"tokenizer_fp", "vocab", "bos", "eos", "pad", NULL};

static int is_must_agree(const char *k) {
    for (int i = 0; must_agree[i]; i++)
        if (!strcmp(k, must_agree[i])) return 1;
    return 0;
}

/* Keys that repeat, one line each: a merge appends a line that is not
 * there yet (the same line from two inputs is one fact). */
static const char *const repeating[] = {"stage", "input", "drop", "partial", "stopped", NULL};

int cal_meta_repeats(const char *key) {
    for (int i = 0; repeating[i]; i++)
        if (!strcmp(key, repeating[i])) return 1;
    return 0;
}

const char *cal_meta_get(const cal_meta *m, const char *key) {
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp(m->key[i], key)) return m->val[i];
    return NULL;
}

int64_t cal_meta_get_int(const cal_meta *m, const char *key) {
    const char *v = cal_meta_get(m, key);
    if (!v) return -1;
    char *end;
    long long x = strtoll(v, &end, 10);
    if (!*v || *end || x < 0) cal_die("stream metadata: %s=%s is not a non-negative integer", key, v);
    return x;
}

void cal_meta_add(cal_meta *m, const char *key, const char *val) {
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 16;
        m->key = cal_xrealloc(m->key, m->cap * sizeof *m->key);
        m->val = cal_xrealloc(m->val, m->cap * sizeof *m->val);
    }
    m->key[m->n] = cal_xstrdup(key);
    m->val[m->n] = cal_xstrdup(val);
    m->n++;
}

void cal_meta_set(cal_meta *m, const char *key, const char *val) {
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp(m->key[i], key)) {
            char *v = cal_xstrdup(val);
            free(m->val[i]);
            m->val[i] = v;
            return;
        }
    cal_meta_add(m, key, val);
}

void cal_meta_setf(cal_meta *m, const char *key, const char *fmt, ...) {
    cal_buf b = {0};
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    cal_buf_reserve(&b, (size_t)(k < 0 ? 0 : k) + 1);
    va_start(ap, fmt);
    vsnprintf(b.p, b.cap, fmt, ap);
    va_end(ap);
    cal_meta_set(m, key, b.p);
    cal_buf_free(&b);
}

void cal_meta_del(cal_meta *m, const char *key) {
    size_t j = 0;
    for (size_t i = 0; i < m->n; i++) {
        if (!strcmp(m->key[i], key)) {
            free(m->key[i]);
            free(m->val[i]);
            continue;
        }
        m->key[j] = m->key[i];
        m->val[j] = m->val[i];
        j++;
    }
    m->n = j;
}

void cal_meta_free(cal_meta *m) {
    for (size_t i = 0; i < m->n; i++) {
        free(m->key[i]);
        free(m->val[i]);
    }
    free(m->key);
    free(m->val);
    memset(m, 0, sizeof *m);
}

void cal_meta_copy(cal_meta *dst, const cal_meta *src) {
    if (dst == src) return;
    cal_meta_free(dst);
    for (size_t i = 0; i < src->n; i++) cal_meta_add(dst, src->key[i], src->val[i]);
}

static int has_pair(const cal_meta *m, const char *k, const char *v) {
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp(m->key[i], k) && !strcmp(m->val[i], v)) return 1;
    return 0;
}

int cal_meta_merge(cal_meta *dst, const cal_meta *src, char *err, size_t errlen) {
    for (size_t i = 0; i < src->n; i++) {
        const char *k = src->key[i], *v = src->val[i];
        const char *have = cal_meta_get(dst, k);
        if (is_must_agree(k) && have && strcmp(have, v)) {
            snprintf(err, errlen, "%s mismatch between concatenated streams: %s vs %s", k, have, v);
            return 0;
        }
        if (cal_meta_repeats(k)) {
            if (!has_pair(dst, k, v)) cal_meta_add(dst, k, v);
        } else if (!have) {
            cal_meta_add(dst, k, v);
        }
    }
    return 1;
}

int cal_meta_equal(const cal_meta *a, const cal_meta *b) {
    if (a->n != b->n) return 0;
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->key[i], b->key[i]) || strcmp(a->val[i], b->val[i])) return 0;
    return 1;
}

/* Quote an argument for the stage line only when the shell would need it. */
void cal_meta_quote_arg(cal_buf *b, const char *a) {
    int plain = *a != 0;
    for (const char *p = a; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%", *p))
            plain = 0;
    if (plain) {
        cal_buf_add(b, a, strlen(a));
        return;
    }
    size_t n = strlen(a), good = cal_utf8_valid_prefix(a, n);
    if (good < n) {
        /* Metadata is UTF-8: bytes of invalid UTF-8 (a Latin-1 file name)
         * are written as the shell's $'\xHH', which gives back the argument. */
        cal_buf_add(b, "$'", 2);
        for (size_t i = 0; i < n;) {
            size_t v = cal_utf8_valid_prefix(a + i, n - i);
            if (!v) {
                cal_buf_addf(b, "\\x%02x", (unsigned char)a[i++]);
                continue;
            }
            int32_t cp;
            size_t k = cal_utf8_next(a, n, i, &cp);
            if (a[i] == '\'' || a[i] == '\\') cal_buf_addc(b, '\\');
            cal_buf_add(b, a + i, k);
            i += k;
        }
        cal_buf_addc(b, '\'');
        return;
    }
    cal_buf_addc(b, '\'');
    for (const char *p = a; *p; p++) {
        if (*p == '\'') cal_buf_add(b, "'\\''", 4);
        else cal_buf_addc(b, *p);
    }
    cal_buf_addc(b, '\'');
}

/* The output name never changes the records, so it is left out: the same
 * pipeline then writes the same bytes whatever file it writes to. */
static int output_opt(int argc, char **argv, int *i) {
    const char *a = argv[*i];
    if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
        if (*i + 1 < argc) ++*i;
        return 1;
    }
    return !strncmp(a, "--output=", 9) || (a[0] == '-' && a[1] == 'o' && a[2]);
}

void cal_meta_add_stage(cal_meta *m, int argc, char **argv, const char *extra) {
    cal_buf b = {0};
    cal_buf_add(&b, cal_progname(), strlen(cal_progname()));
    int operands = 0;
    for (int i = 1; i < argc; i++) {
        if (!operands && !strcmp(argv[i], "--")) operands = 1;
        else if (!operands && output_opt(argc, argv, &i)) continue;
        cal_buf_addc(&b, ' ');
        cal_meta_quote_arg(&b, argv[i]);
    }
    if (extra && *extra) {
        cal_buf_addc(&b, ' ');
        cal_buf_add(&b, extra, strlen(extra));
    }
    cal_meta_add(m, "stage", b.p);
    cal_buf_free(&b);
}
