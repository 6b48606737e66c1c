/* hygiene.c - see hygiene.h. */
#include "text/hygiene.h"

#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "base/err.h"
#include "base/utf8.h"

/* CRLF -> LF from p into out. */
static void crlf_to_lf(const char *p, size_t n, cal_buf *out) {
    out->n = 0;
    cal_buf_reserve(out, n + 1);
    for (size_t i = 0; i < n; i++)
        if (p[i] != '\r' || i + 1 >= n || p[i + 1] != '\n') out->p[out->n++] = p[i];
    out->p[out->n] = 0;
}

const char *cal_hygiene_apply(cal_hygiene *h, const cal_doc *d, size_t *n) {
    const char *t = d->text;
    *n = d->n;
    size_t bad = cal_utf8_valid_prefix(t, *n);
    if (bad < *n) {
        if (h->strict) cal_die_at(d->file, d->mapped ? d->off + bad : d->off, "invalid UTF-8");
        h->a.n = 0;
        h->replaced += cal_utf8_repair(t, *n, &h->a);
        t = h->a.p, *n = h->a.n;
    }
    if (h->crlf && memchr(t, '\r', *n)) {
        cal_buf *out = t == h->a.p ? &h->b : &h->a;
        crlf_to_lf(t, *n, out);
        t = out->p, *n = out->n;
    }
    if (h->nfc) {
        utf8proc_uint8_t *o = NULL;
        utf8proc_ssize_t r = utf8proc_map((const utf8proc_uint8_t *)t, (utf8proc_ssize_t)*n, &o,
                                          UTF8PROC_STABLE | UTF8PROC_COMPOSE);
        if (r < 0) cal_die_at(d->file, d->off, "NFC normalization failed: %s", utf8proc_errmsg(r));
        cal_buf *out = t == h->a.p ? &h->b : &h->a;
        out->n = 0;
        cal_buf_add(out, o, (size_t)r);
        free(o);
        t = out->p, *n = out->n;
    }
    return t;
}

void cal_hygiene_free(cal_hygiene *h) {
    cal_buf_free(&h->a);
    cal_buf_free(&h->b);
}
