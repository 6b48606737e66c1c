/* jinja_format.c - Python's two ways of formatting values, which templates
 * reach through `fmt % args`, the format filter (printf style) and
 * str.format (the format-spec mini-language: fill, align, sign, #, 0,
 * width, grouping, precision, type). Numbers are formatted here, not by a
 * fixed-size C buffer: any width, precision and integer size (big ints
 * included) gives Python's text, and the same errors. Floats in e, f and
 * g notation come from the C library with the precision given (both it
 * and Python round correctly, so the digits agree); padding, signs,
 * prefixes, grouping, inf and nan are done here as Python does them. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "jinja/jinja_int.h"

/* ---- pieces of a formatted number ---- */

typedef struct {
    jj_buf sign;    /* "-", "+", " " or "" */
    jj_buf prefix;  /* "0x", ... */
    jj_buf digits;  /* the integer part (what grouping and zero padding act on) */
    jj_buf rest;    /* fraction, exponent, "%" */
} numtext;

static size_t cps(const char *p, size_t n) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) k += ((unsigned char)p[i] & 0xC0) != 0x80;
    return k;
}

static void put_fill(jj_rt *rt, jj_buf *out, int32_t fill, int64_t n) {
    for (int64_t i = 0; i < n; i++) jj_u8_put(rt, out, fill);
}

/* digits grouped by sep every `every` digits from the right; with
 * min_len (zero padding), leading zeros (and separators) until the text
 * has at least min_len characters, never starting with a separator. */
static void grouped(jj_rt *rt, jj_buf *out, const char *d, size_t n, char sep, int every, int64_t min_len) {
    jj_buf rev = {0};
    size_t k = 0, len = 0;
    int in_group = 0;
    while (k < n || (int64_t)len < min_len) {
        if (sep && in_group == every) {
            jj_buf_addc(rt, &rev, sep);
            len++;
            in_group = 0;
        }
        jj_buf_addc(rt, &rev, k < n ? d[n - 1 - k] : '0');
        k++, len++, in_group++;
    }
    for (size_t i = rev.n; i-- > 0;) jj_buf_addc(rt, out, rev.p[i]);
}

/* sign, prefix, digits and rest padded to width: align '<', '>', '^' or
 * '=' (fill between sign/prefix and digits); zero: '0' padding that
 * Python groups as digits. */
static void lay_out(jj_rt *rt, jj_buf *out, numtext *t, int32_t fill, char align, int64_t width, int zero,
                    char sep, int every) {
    jj_buf body = {0};
    size_t head = t->sign.n + t->prefix.n;
    if (zero && fill == '0' && align == '=') {
        /* the digits absorb the padding (with their separators) */
        int64_t min = width - (int64_t)head - (int64_t)cps(t->rest.p, t->rest.n);
        jj_buf_add(rt, &body, t->sign.p, t->sign.n);
        jj_buf_add(rt, &body, t->prefix.p, t->prefix.n);
        grouped(rt, &body, t->digits.p, t->digits.n, sep, every, min);
        jj_buf_add(rt, &body, t->rest.p, t->rest.n);
        jj_buf_add(rt, out, body.p, body.n);
        return;
    }
    jj_buf num = {0};
    grouped(rt, &num, t->digits.p, t->digits.n, sep, every, 0);
    jj_buf_add(rt, &num, t->rest.p, t->rest.n);
    int64_t len = (int64_t)(head + cps(num.p, num.n));
    int64_t pad = width > len ? width - len : 0;
    if (align == '=') {
        jj_buf_add(rt, out, t->sign.p, t->sign.n);
        jj_buf_add(rt, out, t->prefix.p, t->prefix.n);
        put_fill(rt, out, fill, pad);
        jj_buf_add(rt, out, num.p, num.n);
        return;
    }
    int64_t left = align == '>' ? pad : align == '^' ? pad / 2 : 0;
    put_fill(rt, out, fill, left);
    jj_buf_add(rt, out, t->sign.p, t->sign.n);
    jj_buf_add(rt, out, t->prefix.p, t->prefix.n);
    jj_buf_add(rt, out, num.p, num.n);
    put_fill(rt, out, fill, pad - left);
}

static void sign_of(jj_rt *rt, jj_buf *b, int neg, char sign) {
    if (neg) jj_buf_addc(rt, b, '-');
    else if (sign == '+' || sign == ' ') jj_buf_addc(rt, b, sign);
}

/* A double in type e/E/f/F/g/G (C's, at precision prec; alt: '#') into t:
 * Python's inf and nan (never signed for nan), the integer part split
 * off for grouping. pct: Python's '%' type (f of x*100, then '%'). */
static void float_text(jj_rt *rt, numtext *t, double x, char type, int64_t prec, int alt, char sign,
                       int add_dot0, int zcoerce) {
    int neg = signbit(x) && !isnan(x);
    int upper = type == 'E' || type == 'F' || type == 'G';
    sign_of(rt, &t->sign, neg, sign);
    if (isnan(x) || isinf(x)) {
        jj_buf_adds(rt, &t->digits, isnan(x) ? (upper ? "NAN" : "nan") : (upper ? "INF" : "inf"));
        return;
    }
    double a = fabs(x);
    jj_buf s = {0};
    if (type == 'r') {
        jj_float_repr(rt, &s, a);
    } else {
        char f[16];
        snprintf(f, sizeof f, "%%%s.*%c", alt ? "#" : "", type);
        if (prec > 100000000) jj_fail(rt, "ValueError: precision too big");
        jj_buf_addf(rt, &s, f, (int)prec, a);
        if (add_dot0 && !memchr(s.p, '.', s.n) && !memchr(s.p, 'e', s.n) && !memchr(s.p, 'E', s.n))
            jj_buf_adds(rt, &s, ".0");
    }
    if (zcoerce && neg && !strpbrk(s.p, "123456789")) {
        /* 'z': a negative number that rounds to zero prints as zero */
        t->sign.n = 0;
        sign_of(rt, &t->sign, 0, sign);
    }
    size_t i = 0;
    while (i < s.n && s.p[i] >= '0' && s.p[i] <= '9') i++;
    jj_buf_add(rt, &t->digits, s.p, i);
    jj_buf_add(rt, &t->rest, s.p + i, s.n - i);
}

/* ---- format(value, spec): the format-spec mini-language ---- */

typedef struct {
    int32_t fill;
    char align, sign, type, grouping;
    int fill_given, align_given, alt, zero, zcoerce;
    int64_t width, prec;
} spec_t;

static CAL_NORETURN void invalid(jj_rt *rt, const char *spec, size_t n, jj_val v) {
    jj_fail(rt, "ValueError: Invalid format specifier '%.*s' for object of type '%s'", (int)n, spec,
            jj_type_name(v));
}

static int64_t spec_number(jj_rt *rt, const char *s, size_t n, size_t *i) {
    int64_t x = 0;
    while (*i < n && s[*i] >= '0' && s[*i] <= '9') {
        if (x > (INT64_MAX - 9) / 10 || x > 1000000000)
            jj_fail(rt, "ValueError: Too many decimal digits in format string");
        x = x * 10 + (s[(*i)++] - '0');
    }
    return x;
}

static void parse_spec(jj_rt *rt, const char *s, size_t n, jj_val v, char default_align, spec_t *p) {
    memset(p, 0, sizeof *p);
    p->fill = ' ';
    p->align = default_align;
    p->width = -1;
    p->prec = -1;
    size_t i = 0, k = 0;
    if (n) {
        int32_t c = jj_u8_next(s, n, &k);
        if (k < n && strchr("<>=^", s[k]) && s[k]) {
            p->fill = c, p->fill_given = 1, p->align = s[k], p->align_given = 1;
            i = k + 1;
        } else if (strchr("<>=^", s[0]) && s[0]) {
            p->align = s[0], p->align_given = 1;
            i = 1;
        }
    }
    if (i < n && (s[i] == '+' || s[i] == '-' || s[i] == ' ')) p->sign = s[i++];
    if (i < n && s[i] == 'z') p->zcoerce = 1, i++;
    if (i < n && s[i] == '#') p->alt = 1, i++;
    if (i < n && s[i] == '0' && !p->fill_given) {
        p->fill = '0', p->zero = 1;
        if (!p->align_given && default_align == '>') p->align = '=';
        i++;
    }
    if (i < n && s[i] >= '0' && s[i] <= '9') p->width = spec_number(rt, s, n, &i);
    if (i < n && (s[i] == ',' || s[i] == '_')) {
        p->grouping = s[i++];
        if (i < n && (s[i] == ',' || s[i] == '_')) jj_fail(rt, "ValueError: Cannot specify both ',' and '_'.");
    }
    if (i < n && s[i] == '.') {
        i++;
        if (i >= n || s[i] < '0' || s[i] > '9') jj_fail(rt, "ValueError: Format specifier missing precision");
        p->prec = spec_number(rt, s, n, &i);
    }
    if (n - i > 1) invalid(rt, s, n, v);
    if (i < n) p->type = s[i];
    if (p->grouping == ',' && p->type && !strchr("deEfFgG%", p->type))
        jj_fail(rt, "ValueError: Cannot specify ',' with '%c'.", p->type);
    if (p->grouping == '_' && p->type && !strchr("dbBoxXeEfFgG%", p->type))
        jj_fail(rt, "ValueError: Cannot specify '_' with '%c'.", p->type);
}

static CAL_NORETURN void unknown_code(jj_rt *rt, char type, jj_val v) {
    if (type >= 0x20 && type < 0x7f)
        jj_fail(rt, "ValueError: Unknown format code '%c' for object of type '%s'", type, jj_type_name(v));
    jj_fail(rt, "ValueError: Unknown format code '\\x%x' for object of type '%s'", (unsigned char)type,
            jj_type_name(v));
}

static void format_float(jj_rt *rt, jj_buf *out, jj_val v, double x, spec_t *p) {
    char type = p->type;
    int64_t prec = p->prec;
    int add_dot0 = 0;
    numtext t = {{0}, {0}, {0}, {0}};
    if (type == 'n') type = 'g';
    if (!type) {
        add_dot0 = 1;
        type = prec < 0 ? 'r' : 'g';
    }
    if (!strchr("eEfFgGr%", type)) unknown_code(rt, p->type, v);
    if (prec < 0) prec = 6;
    int pct = type == '%';
    if (pct) x *= 100, type = 'f';
    float_text(rt, &t, x, type, prec, p->alt, p->sign, add_dot0, p->zcoerce);
    if (pct) jj_buf_addc(rt, &t.rest, '%');
    int nonfinite = isnan(x) || isinf(x);
    lay_out(rt, out, &t, p->fill, p->align, p->width, p->zero, nonfinite ? 0 : p->grouping, 3);
}

static void format_int(jj_rt *rt, jj_buf *out, jj_val v, spec_t *p) {
    char type = p->type;
    if (p->zcoerce) jj_fail(rt, "ValueError: Negative zero coercion (z) not allowed in integer format specifier");
    if (type && strchr("eEfFgG%", type)) {
        format_float(rt, out, v, jj_num(rt, v), p);
        return;
    }
    if (type && !strchr("bcdoxXn", type)) unknown_code(rt, type, v);
    if (p->prec >= 0) jj_fail(rt, "ValueError: Precision not allowed in integer format specifier");
    numtext t = {{0}, {0}, {0}, {0}};
    if (type == 'c') {
        if (p->sign) jj_fail(rt, "ValueError: Sign not allowed with integer format specifier 'c'");
        if (p->alt) jj_fail(rt, "ValueError: Alternate form (#) not allowed with integer format specifier 'c'");
        int64_t c;
        if (!jj_int_to_i64(v, &c) || c < 0 || c > 0x10FFFF)
            jj_fail(rt, "OverflowError: %%c arg not in range(0x110000)");
        if (c >= 0xD800 && c <= 0xDFFF)
            jj_fail(rt, "UnicodeEncodeError: a lone surrogate (U+%04X) cannot be encoded in UTF-8", (unsigned)c);
        jj_u8_put(rt, &t.digits, (int32_t)c);
        jj_buf body = {0};
        jj_buf_add(rt, &body, t.digits.p, t.digits.n);
        int64_t len = 1, pad = p->width > len ? p->width - len : 0;
        char align = p->align == '=' ? '>' : p->align;
        int64_t left = align == '>' ? pad : align == '^' ? pad / 2 : 0;
        put_fill(rt, out, p->fill, left);
        jj_buf_add(rt, out, body.p, body.n);
        put_fill(rt, out, p->fill, pad - left);
        return;
    }
    int base = type == 'b' ? 2 : type == 'o' ? 8 : type == 'x' || type == 'X' ? 16 : 10;
    sign_of(rt, &t.sign, jj_int_sign(v) < 0, p->sign);
    if (p->alt && base != 10) jj_buf_adds(rt, &t.prefix, base == 2 ? "0b" : base == 8 ? "0o" : type == 'X' ? "0X" : "0x");
    jj_int_digits(rt, &t.digits, v, base, type == 'X');
    lay_out(rt, out, &t, p->fill, p->align, p->width, p->zero, p->grouping, base == 10 ? 3 : 4);
}

static void format_str(jj_rt *rt, jj_buf *out, jj_val v, jj_str *s, spec_t *p) {
    if (p->type && p->type != 's') unknown_code(rt, p->type, v);
    if (p->sign) jj_fail(rt, "ValueError: Sign not allowed in string format specifier");
    if (p->alt) jj_fail(rt, "ValueError: Alternate form (#) not allowed in string format specifier");
    if (p->grouping) jj_fail(rt, "ValueError: Cannot specify '%c' with 's'.", p->grouping);
    if (p->align == '=') jj_fail(rt, "ValueError: '=' alignment not allowed in string format specifier");
    size_t bytes = s->n;
    if (p->prec >= 0 && (size_t)p->prec < jj_str_len(s)) bytes = jj_str_off(rt, s, (size_t)p->prec);
    int64_t len = (int64_t)cps(s->s, bytes), pad = p->width > len ? p->width - len : 0;
    int64_t left = p->align == '>' ? pad : p->align == '^' ? pad / 2 : 0;
    if ((uint64_t)pad > rt->max_output) jj_limit(rt, "the output is larger than %zu bytes", rt->max_output);
    put_fill(rt, out, p->fill, left);
    jj_buf_add(rt, out, s->s, bytes);
    put_fill(rt, out, p->fill, pad - left);
}

void jj_format_spec(jj_rt *rt, jj_buf *out, jj_val v, const char *spec, size_t n) {
    if (n == 0) {
        jj_str_of(rt, out, v);
        return;
    }
    spec_t p;
    switch (v.t) {
    case JJ_STR:
        parse_spec(rt, spec, n, v, '<', &p);
        format_str(rt, out, v, v.u.s, &p);
        return;
    case JJ_BOOL: case JJ_INT: case JJ_BIG:
        parse_spec(rt, spec, n, v, '>', &p);
        if ((uint64_t)(p.width > 0 ? p.width : 0) > rt->max_output)
            jj_limit(rt, "the output is larger than %zu bytes", rt->max_output);
        format_int(rt, out, v, &p);
        return;
    case JJ_FLOAT:
        parse_spec(rt, spec, n, v, '>', &p);
        if ((uint64_t)(p.width > 0 ? p.width : 0) > rt->max_output)
            jj_limit(rt, "the output is larger than %zu bytes", rt->max_output);
        format_float(rt, out, v, v.u.f, &p);
        return;
    default:
        jj_fail(rt, "TypeError: unsupported format string passed to %s.__format__", jj_type_name(v));
    }
}

/* ---- fmt % args: printf-style formatting ---- */

static CAL_NORETURN void unsupported_char(jj_rt *rt, const jj_str *fmt, size_t at) {
    size_t k = at;
    int32_t c = jj_u8_next(fmt->s, fmt->n, &k);
    size_t idx = cps(fmt->s, at);
    if (c >= 0x20 && c < 0x7f)
        jj_fail(rt, "ValueError: unsupported format character '%c' (0x%x) at index %zu", (char)c, (unsigned)c, idx);
    char u[8];
    size_t m = k - at < sizeof u - 1 ? k - at : sizeof u - 1;
    memcpy(u, fmt->s + at, m);
    u[m] = 0;
    jj_fail(rt, "ValueError: unsupported format character '%s' (0x%x) at index %zu", u, (unsigned)c, idx);
}

/* The C-style pieces of one conversion. */
typedef struct {
    int left, plus, space, alt, zero;
    int64_t width, prec;
} pspec;

static void pad_text(jj_rt *rt, jj_buf *out, const char *p, size_t n, const pspec *s) {
    int64_t len = (int64_t)cps(p, n), pad = s->width > len ? s->width - len : 0;
    if (!s->left) put_fill(rt, out, ' ', pad);
    jj_buf_add(rt, out, p, n);
    if (s->left) put_fill(rt, out, ' ', pad);
}

/* A number's pieces laid out as printf-style: '-' pads on the right, '0'
 * with zeros after the sign and prefix, else spaces on the left. */
static void pad_number(jj_rt *rt, jj_buf *out, numtext *t, const pspec *s) {
    char align = s->left ? '<' : s->zero ? '=' : '>';
    lay_out(rt, out, t, s->left ? ' ' : s->zero ? '0' : ' ', align, s->width, s->zero && !s->left, 0, 3);
}

static void percent_one(jj_rt *rt, jj_buf *out, const jj_str *fmt, int markup, size_t at, char conv, jj_val v,
                        const pspec *s) {
    char sign = s->plus ? '+' : s->space ? ' ' : 0;
    switch (conv) {
    case 's': case 'r': case 'a': {
        jj_buf t = {0};
        if (conv == 's') jj_str_of(rt, &t, v);
        else if (conv == 'r') jj_repr_of(rt, &t, v);
        else jj_ascii_of(rt, &t, v);
        if (markup && !(conv == 's' && v.t == JJ_STR && (v.flags & JJ_MARKUP))) {
            /* Markup % args escapes the text of its arguments */
            jj_str *e = jj_escape(rt, jj_str_buf(rt, &t));
            t.p = e->s, t.n = e->n, t.cap = e->n + 1;
        }
        size_t bytes = t.n;
        if (s->prec >= 0) {
            jj_str *st = jj_str_buf(rt, &t);
            if ((size_t)s->prec < jj_str_len(st)) bytes = jj_str_off(rt, st, (size_t)s->prec);
        }
        pad_text(rt, out, t.p, bytes, s);
        return;
    }
    case 'c': {
        jj_buf t = {0};
        if (v.t == JJ_STR) {
            if (jj_str_len(v.u.s) != 1) jj_fail(rt, "TypeError: %%c requires int or char");
            jj_buf_add(rt, &t, v.u.s->s, v.u.s->n);
        } else if (jj_is_int(v)) {
            int64_t c;
            if (!jj_int_to_i64(v, &c) || c < 0 || c > 0x10FFFF)
                jj_fail(rt, "OverflowError: %%c arg not in range(0x110000)");
            if (c >= 0xD800 && c <= 0xDFFF)
                jj_fail(rt, "UnicodeEncodeError: a lone surrogate (U+%04X) cannot be encoded in UTF-8", (unsigned)c);
            jj_u8_put(rt, &t, (int32_t)c);
        } else {
            if (v.t == JJ_UNDEF) jj_undef_fail(rt, v);
            jj_fail(rt, "TypeError: %%c requires int or char");
        }
        pad_text(rt, out, t.p, t.n, s);
        return;
    }
    case 'd': case 'i': case 'u': case 'o': case 'x': case 'X': {
        if (v.t == JJ_UNDEF) jj_undef_fail(rt, v);
        if (v.t == JJ_FLOAT && (conv == 'd' || conv == 'i' || conv == 'u')) v = jj_int_from_double(rt, v.u.f);
        if (!jj_is_int(v)) {
            if (conv == 'd' || conv == 'i' || conv == 'u')
                jj_fail(rt, "TypeError: %%%c format: a real number is required, not %s", conv, jj_type_name(v));
            jj_fail(rt, "TypeError: %%%c format: an integer is required, not %s", conv, jj_type_name(v));
        }
        int base = conv == 'o' ? 8 : conv == 'x' || conv == 'X' ? 16 : 10;
        numtext t = {{0}, {0}, {0}, {0}};
        sign_of(rt, &t.sign, jj_int_sign(v) < 0, sign);
        if (s->alt && base != 10) jj_buf_adds(rt, &t.prefix, base == 8 ? "0o" : conv == 'X' ? "0X" : "0x");
        jj_buf d = {0};
        jj_int_digits(rt, &d, v, base, conv == 'X');
        /* a precision is a minimum number of digits */
        for (int64_t k = (int64_t)d.n; k < s->prec; k++) jj_buf_addc(rt, &t.digits, '0');
        jj_buf_add(rt, &t.digits, d.p, d.n);
        pad_number(rt, out, &t, s);
        return;
    }
    case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': {
        if (v.t == JJ_UNDEF) jj_undef_fail(rt, v);
        if (!jj_is_num(v)) jj_fail(rt, "TypeError: must be real number, not %s", jj_type_name(v));
        numtext t = {{0}, {0}, {0}, {0}};
        float_text(rt, &t, jj_num(rt, v), conv, s->prec < 0 ? 6 : s->prec, s->alt, sign, 0, 0);
        pad_number(rt, out, &t, s);
        return;
    }
    default:
        unsupported_char(rt, fmt, at);
    }
}

/* args[key] for a str key, as Python's % operator looks it up. */
static jj_val mapping_item(jj_rt *rt, jj_val args, jj_val key) {
    if (args.t == JJ_UNDEF) jj_undef_fail(rt, args);
    if (args.t == JJ_DICT) {
        jj_val *p = jj_dict_get(rt, args.u.d, key);
        if (p) return *p;
        jj_buf r = {0};
        jj_repr_of(rt, &r, key);
        jj_fail(rt, "KeyError: %s", r.p);
    }
    jj_fail(rt, "TypeError: %s indices must be integers or slices, not str", jj_type_name(args));
}

/* Python's `*` width or precision: an int from the arguments. */
static int64_t star(jj_rt *rt, jj_val args, int is_tuple, size_t nargs, size_t *ai) {
    if (!is_tuple) jj_fail(rt, "TypeError: * wants int");
    if (*ai >= nargs) jj_fail(rt, "TypeError: not enough arguments for format string");
    jj_val w = args.u.l->v[(*ai)++];
    if (!jj_is_int(w)) jj_fail(rt, "TypeError: * wants int");
    int64_t x;
    if (!jj_int_to_i64(w, &x) || x > INT32_MAX || x < -INT32_MAX) jj_fail(rt, "OverflowError: Python int too large to convert to C int");
    return x;
}

jj_val jj_percent_format(jj_rt *rt, jj_val fmtv, jj_val args) {
    jj_str *fmt = fmtv.u.s;
    int markup = (fmtv.flags & JJ_MARKUP) != 0;
    jj_buf out = {0};
    size_t ai = 0;
    int is_tuple = args.t == JJ_TUPLE;
    size_t nargs = is_tuple ? args.u.l->n : 1;
    /* Python takes any subscriptable non-tuple, non-str argument for a
     * mapping: then unused arguments are no error */
    int mapping = args.t == JJ_DICT || args.t == JJ_UNDEF ||
                  (args.t == JJ_LIST && !(args.flags & (JJ_GENERATOR | JJ_DICT_ITEMS | JJ_DICT_KEYS | JJ_DICT_VALUES)));
    int used_map = 0;
    const char *f = fmt->s;
    size_t n = fmt->n;
    for (size_t i = 0; i < n; i++) {
        const char *pct = memchr(f + i, '%', n - i);
        if (!pct) {
            jj_buf_add(rt, &out, f + i, n - i);
            break;
        }
        jj_buf_add(rt, &out, f + i, (size_t)(pct - (f + i)));
        i = (size_t)(pct - f);
        if (++i >= n) jj_fail(rt, "ValueError: incomplete format");
        if (f[i] == '%') {
            jj_buf_addc(rt, &out, '%');
            continue;
        }
        jj_val v;
        int have = 0;
        if (f[i] == '(') {
            size_t j = i + 1;
            int depth = 1;
            while (j < n && depth) {
                if (f[j] == '(') depth++;
                else if (f[j] == ')') depth--;
                if (depth) j++;
            }
            if (j >= n) jj_fail(rt, "ValueError: incomplete format key");
            if (!mapping) jj_fail(rt, "TypeError: format requires a mapping");
            jj_val key = jj_strn(rt, f + i + 1, j - i - 1);
            v = mapping_item(rt, args, key);
            have = 1;
            used_map = 1;
            i = j + 1;
        }
        pspec s = {0, 0, 0, 0, 0, -1, -1};
        for (; i < n && strchr("-+ #0", f[i]) && f[i]; i++) {
            switch (f[i]) {
            case '-': s.left = 1; break;
            case '+': s.plus = 1; break;
            case ' ': s.space = 1; break;
            case '#': s.alt = 1; break;
            default: s.zero = 1;
            }
        }
        if (i < n && f[i] == '*') {
            s.width = star(rt, args, is_tuple, nargs, &ai);
            if (s.width < 0) s.left = 1, s.width = -s.width;
            i++;
        } else {
            s.width = 0;
            while (i < n && f[i] >= '0' && f[i] <= '9') {
                if (s.width > (INT32_MAX - 9) / 10) jj_fail(rt, "ValueError: width too big");
                s.width = s.width * 10 + (f[i++] - '0');
            }
        }
        if (i < n && f[i] == '.') {
            i++;
            if (i < n && f[i] == '*') {
                s.prec = star(rt, args, is_tuple, nargs, &ai);
                if (s.prec < 0) s.prec = 0;
                i++;
            } else {
                s.prec = 0;
                while (i < n && f[i] >= '0' && f[i] <= '9') {
                    if (s.prec > (INT32_MAX - 9) / 10) jj_fail(rt, "ValueError: precision too big");
                    s.prec = s.prec * 10 + (f[i++] - '0');
                }
            }
        }
        if (i < n && (f[i] == 'h' || f[i] == 'l' || f[i] == 'L')) i++;
        if (i >= n) jj_fail(rt, "ValueError: incomplete format");
        if ((uint64_t)s.width > rt->max_output) jj_limit(rt, "the output is larger than %zu bytes", rt->max_output);
        if (!have) {
            if (ai >= nargs) jj_fail(rt, "TypeError: not enough arguments for format string");
            v = is_tuple ? args.u.l->v[ai] : args;
            ai++;
        }
        percent_one(rt, &out, fmt, markup, i, f[i], v, &s);
    }
    (void)used_map;
    if (!mapping && ai < nargs)
        jj_fail(rt, "TypeError: not all arguments converted during string formatting");
    jj_val r = jj_strv(jj_str_buf(rt, &out));
    r.flags = (uint8_t)(markup ? JJ_MARKUP : 0);
    return r;
}
