/* npy.c - .npy writer (int64) and reader (int64/int32, 1-D/2-D). See npy.h. */
#include "io/npy.h"

#include "base/num.h"
#include "base/buf.h"
#include "base/err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NPY_MAGIC "\x93NUMPY"

static void header(cal_buf *out, const char *descr, int ndim, const uint64_t *shape) {
    char dict[256];
    if (ndim == 1)
        snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%llu,), }", descr,
                 (unsigned long long)shape[0]);
    else
        snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%llu, %llu), }",
                 descr, (unsigned long long)shape[0], (unsigned long long)shape[1]);
    size_t n = strlen(dict);
    size_t total = (10 + n + 1 + 63) / 64 * 64; /* magic+version+len, dict, '\n' */
    size_t hlen = total - 10;
    out->n = 0;
    cal_buf_add(out, NPY_MAGIC "\x01\x00", 8);
    cal_buf_addc(out, (char)(hlen & 0xff));
    cal_buf_addc(out, (char)(hlen >> 8));
    cal_buf_add(out, dict, n);
    while (out->n < total - 1) cal_buf_addc(out, ' ');
    cal_buf_addc(out, '\n');
}

void cal_npy_header_i64(cal_buf *out, int ndim, const uint64_t *shape) { header(out, "<i8", ndim, shape); }

void cal_npy_header_f32(cal_buf *out, int ndim, const uint64_t *shape) { header(out, "<f4", ndim, shape); }

CAL_PRINTF(5, 6)
static int fail(const char *name, char *err, size_t errlen, uint64_t off, const char *fmt, ...) {
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(err, errlen, "%s: byte %llu: %s", name, (unsigned long long)off, msg);
    return 0;
}

/* The header is a Python dict literal with exactly the keys 'descr',
 * 'fortran_order' and 'shape' (numpy rejects any other key too). It is
 * parsed, not searched: a key can appear once, and text inside a string or
 * after the dict cannot pass for a field. */
typedef struct {
    const char *h, *p, *end;
    const char *descr;
    size_t descr_len;
    int fortran, have[3];
    uint64_t dims[3];
    int nd;
    const char *err_at; /* where a problem was found */
    const char *err;
} npy_hdr;

static void skip_ws(npy_hdr *x) {
    while (x->p < x->end && (*x->p == ' ' || *x->p == '\t' || *x->p == '\n' || *x->p == '\r')) x->p++;
}

static int bad(npy_hdr *x, const char *what) {
    x->err_at = x->p;
    x->err = what;
    return 0;
}

/* A quoted string without escapes; *s, *n its contents. */
static int quoted(npy_hdr *x, const char **s, size_t *n) {
    if (x->p >= x->end || (*x->p != '\'' && *x->p != '"')) return bad(x, "expected a quoted string");
    char q = *x->p++;
    const char *b = x->p;
    while (x->p < x->end && *x->p != q && *x->p != '\\') x->p++;
    if (x->p >= x->end || *x->p != q) return bad(x, "unterminated or escaped string");
    *s = b, *n = (size_t)(x->p - b);
    x->p++;
    return 1;
}

static int word(npy_hdr *x, const char *w) {
    size_t n = strlen(w);
    if ((size_t)(x->end - x->p) < n || memcmp(x->p, w, n)) return 0;
    x->p += n;
    return 1;
}

/* (N,) or (N, M) or (): decimal sizes, a trailing comma allowed. */
static int shape(npy_hdr *x) {
    if (!word(x, "(")) return bad(x, "shape is not a tuple");
    for (;;) {
        skip_ws(x);
        if (word(x, ")")) return 1;
        if (x->p >= x->end || *x->p < '0' || *x->p > '9') return bad(x, "bad shape");
        uint64_t v = 0;
        while (x->p < x->end && *x->p >= '0' && *x->p <= '9') {
            unsigned dgt = (unsigned)(*x->p++ - '0');
            if (v > (UINT64_MAX - dgt) / 10) return bad(x, "shape size overflows");
            v = v * 10 + dgt;
        }
        if (x->p < x->end && *x->p == 'L') x->p++; /* Python 2's long literals */
        if (x->nd == 3) return bad(x, "more than 3 dimensions");
        x->dims[x->nd++] = v;
        skip_ws(x);
        if (word(x, ",")) continue;
        if (!word(x, ")")) return bad(x, "bad shape");
        return x->nd == 1 ? bad(x, "a 1-element shape needs a trailing comma") : 1;
    }
}

static int parse_dict(npy_hdr *x) {
    static const char *const keys[3] = {"descr", "fortran_order", "shape"};
    skip_ws(x);
    if (!word(x, "{")) return bad(x, "header is not a dict");
    for (;;) {
        skip_ws(x);
        if (word(x, "}")) break;
        const char *k;
        size_t kn;
        const char *kat = x->p;
        if (!quoted(x, &k, &kn)) return 0;
        int which = -1;
        for (int i = 0; i < 3; i++)
            if (strlen(keys[i]) == kn && !memcmp(k, keys[i], kn)) which = i;
        if (which < 0) { x->p = kat; return bad(x, "unknown key in the header (only descr, fortran_order, shape)"); }
        if (x->have[which]) { x->p = kat; return bad(x, "repeated key in the header"); }
        x->have[which] = 1;
        skip_ws(x);
        if (!word(x, ":")) return bad(x, "expected ':'");
        skip_ws(x);
        if (which == 0 && x->p < x->end && *x->p != '\'' && *x->p != '"') return bad(x, "descr is not a quoted dtype");
        if (which == 0 && !quoted(x, &x->descr, &x->descr_len)) return 0;
        if (which == 1) {
            if (word(x, "False")) x->fortran = 0;
            else if (word(x, "True")) x->fortran = 1;
            else return bad(x, "fortran_order is not True or False");
        }
        if (which == 2 && !shape(x)) return 0;
        skip_ws(x);
        if (word(x, ",")) continue;
        skip_ws(x);
        if (!word(x, "}")) return bad(x, "expected ',' or '}'");
        break;
    }
    skip_ws(x);
    if (x->p != x->end) return bad(x, "bytes after the header dict");
    for (int i = 0; i < 3; i++) {
        if (!x->have[i]) return bad(x, "header lacks descr, fortran_order or shape");
    }
    return 1;
}

int cal_npy_parse(cal_npy *a, const void *img, size_t n, const char *name, char *err, size_t errlen) {
    const uint8_t *p = img;
    memset(a, 0, sizeof *a);
    if (n < 10 || memcmp(p, NPY_MAGIC, 6) != 0)
        return fail(name, err, errlen, 0, "not a .npy file (no \\x93NUMPY magic)");
    size_t hlen, h0;
    if (p[6] == 1) hlen = p[8] | (size_t)p[9] << 8, h0 = 10;
    else if ((p[6] == 2 || p[6] == 3) && n >= 12) hlen = cal_ld32(p + 8), h0 = 12;
    else return fail(name, err, errlen, 6, "unsupported .npy version %u.%u", p[6], p[7]);
    if (hlen > n - h0 || hlen > 65536)
        return fail(name, err, errlen, 8, "header length %zu runs past the end of the file", hlen);
    npy_hdr x = {0};
    x.h = x.p = (const char *)p + h0;
    x.end = x.h + hlen;
    if (!parse_dict(&x)) return fail(name, err, errlen, h0 + (size_t)(x.err_at - x.h), "%s", x.err);
    uint64_t doff = h0 + (size_t)(x.descr - x.h) - 1;
    if (x.descr_len == 3 && !memcmp(x.descr, "<i8", 3)) a->elem = 8;
    else if (x.descr_len == 3 && !memcmp(x.descr, "<i4", 3)) a->elem = 4;
    else
        return fail(name, err, errlen, doff, "dtype '%.*s' is not int64 or int32 ('<i8' or '<i4')",
                    (int)(x.descr_len > 40 ? 40 : x.descr_len), x.descr);
    if (x.fortran) return fail(name, err, errlen, h0, "Fortran-order arrays are not supported");
    if (x.nd != 1 && x.nd != 2) return fail(name, err, errlen, h0, "a %d-D array; want 1-D or 2-D", x.nd);
    a->ndim = x.nd;
    a->shape[0] = x.dims[0];
    a->shape[1] = x.nd == 2 ? x.dims[1] : 1;
    /* The data must be exactly what the shape says (more would be ignored);
     * the product is formed only when it cannot wrap. */
    uint64_t have = n - h0 - hlen, r = a->shape[0], c = a->shape[1], es = (uint64_t)a->elem;
    if (c && r > UINT64_MAX / c / es)
        return fail(name, err, errlen, h0 + hlen, "shape (%llu, %llu) is larger than any file",
                    (unsigned long long)r, (unsigned long long)c);
    if (r * c * es != have)
        return fail(name, err, errlen, h0 + hlen, "shape (%llu, %llu) needs %llu-byte data, the file has %llu",
                    (unsigned long long)r, (unsigned long long)c, (unsigned long long)(r * c * es),
                    (unsigned long long)have);
    a->data = p + h0 + hlen;
    a->data_offset = h0 + hlen;
    return 1;
}

int cal_npy_open(cal_npy *a, const char *path, char *err, size_t errlen) {
    memset(a, 0, sizeof *a);
    cal_mapfile m;
    if (!cal_mapfile_open(&m, path, err, errlen)) return 0;
    if (!cal_npy_parse(a, m.p, m.len, path, err, errlen)) {
        cal_mapfile_close(&m);
        return 0;
    }
    a->map = m;
    return 1;
}

void cal_npy_close(cal_npy *a) {
    cal_mapfile_close(&a->map);
    memset(a, 0, sizeof *a);
}
