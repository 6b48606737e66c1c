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

void cal_npy_header_i64(cal_buf *out, int ndim, const uint64_t *shape) {
    char dict[256];
    if (ndim == 1)
        snprintf(dict, sizeof dict, "{'descr': '<i8', 'fortran_order': False, 'shape': (%llu,), }",
                 (unsigned long long)shape[0]);
    else
        snprintf(dict, sizeof dict, "{'descr': '<i8', 'fortran_order': False, 'shape': (%llu, %llu), }",
                 (unsigned long long)shape[0], (unsigned long long)shape[1]);
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

/* Finds 'KEY': in the header dict; returns a pointer to the value or NULL. */
static const char *field(const char *h, const char *key) {
    char pat[32];
    snprintf(pat, sizeof pat, "'%s':", key);
    const char *p = strstr(h, pat);
    if (!p) {
        snprintf(pat, sizeof pat, "\"%s\":", key);
        p = strstr(h, pat);
    }
    if (!p) return NULL;
    p += strlen(pat);
    while (*p == ' ') p++;
    return p;
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
    char *h = cal_xmalloc(hlen + 1);
    memcpy(h, p + h0, hlen);
    h[hlen] = 0;
    int ok = 0;
    const char *d = field(h, "descr"), *fo = field(h, "fortran_order"), *sh = field(h, "shape");
    if (!d || !fo || !sh) {
        fail(name, err, errlen, h0, "header lacks descr, fortran_order or shape");
        goto out;
    }
    if (*d != '\'' && *d != '"') {
        fail(name, err, errlen, h0 + (size_t)(d - h), "descr is not a quoted dtype");
        goto out;
    }
    if (strncmp(d + 1, "<i8", 3) == 0 && d[4] == d[0]) a->elem = 8;
    else if (strncmp(d + 1, "<i4", 3) == 0 && d[4] == d[0]) a->elem = 4;
    else {
        const char *e = d + 1 + strcspn(d + 1, "'\"");
        fail(name, err, errlen, h0 + (size_t)(d - h), "dtype %.*s is not int64 or int32 ('<i8' or '<i4')",
             (int)(e - d + 1), d);
        goto out;
    }
    if (strncmp(fo, "False", 5) != 0) {
        fail(name, err, errlen, h0 + (size_t)(fo - h), "Fortran-order arrays are not supported");
        goto out;
    }
    if (*sh != '(') {
        fail(name, err, errlen, h0 + (size_t)(sh - h), "bad shape");
        goto out;
    }
    const char *s = sh + 1;
    uint64_t dims[3];
    int nd = 0;
    for (;;) {
        while (*s == ' ') s++;
        if (*s == ')') break;
        if (*s < '0' || *s > '9' || nd == 3) {
            fail(name, err, errlen, h0 + (size_t)(sh - h), "bad shape");
            goto out;
        }
        char *end;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 10);
        if (errno) {
            fail(name, err, errlen, h0 + (size_t)(sh - h), "bad shape");
            goto out;
        }
        dims[nd++] = v;
        s = end;
        while (*s == ' ') s++;
        if (*s == ',') s++;
    }
    if (nd != 1 && nd != 2) {
        fail(name, err, errlen, h0 + (size_t)(sh - h), "a %d-D array; want 1-D or 2-D", nd);
        goto out;
    }
    a->ndim = nd;
    a->shape[0] = dims[0];
    a->shape[1] = nd == 2 ? dims[1] : 1;
    uint64_t avail = (n - h0 - hlen) / (uint64_t)a->elem;
    if (a->shape[1] && a->shape[0] > avail / a->shape[1]) {
        fail(name, err, errlen, h0 + hlen, "shape (%llu, %llu) needs %llu-byte data, the file has %llu",
             (unsigned long long)a->shape[0], (unsigned long long)a->shape[1],
             (unsigned long long)(a->shape[0] * a->shape[1] * a->elem),
             (unsigned long long)(n - h0 - hlen));
        goto out;
    }
    a->data = p + h0 + hlen;
    a->data_offset = h0 + hlen;
    ok = 1;
out:
    free(h);
    return ok;
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
