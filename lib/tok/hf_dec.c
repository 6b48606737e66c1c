/* tok_hf_dec.c - decode: ids to token texts, then the decoder chain over
 * the list of token strings, as the reference's decode_chain. */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/utf8.h"
#include "tok/hf_int.h"

typedef struct { char *p; size_t n; } str;

static void set(str *s, const char *p, size_t n)
{
    char *q = cal_xmalloc(n + 1);
    if (n) memcpy(q, p, n);
    free(s->p);
    s->p = q; s->n = n;
}

static int hexv(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* "<0xAB>" -> 0xAB, else -1 */
static int byte_token(const str *s)
{
    if (s->n != 6 || memcmp(s->p, "<0x", 3) || s->p[5] != '>') return -1;
    int a = hexv(s->p[3]), b = hexv(s->p[4]);
    return a < 0 || b < 0 ? -1 : a * 16 + b;
}

static void lossy(cal_buf *o, const char *p, size_t n)
{
    size_t fl;
    char *f = cal_utf8_repaired(p, n, &fl);
    if (f) { cal_buf_add(o, f, fl); free(f); }
    else cal_buf_add(o, p, n);
}

void tok_hf_decode(const tok_hf *t, const uint32_t *ids, size_t n, cal_buf *out)
{
    str *v = cal_xcalloc(n ? n : 1, sizeof *v);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
    {
        size_t len;
        const char *p = tok_hf_id_text(t, ids[i], &len);
        if (p) set(&v[m++], p, len);
    }
    const int16_t *cpb = th_cp_byte();
    for (size_t d = 0; d < t->ndec; d++) {
        const th_dec *dc = &t->dec[d];
        cal_buf b = { 0 };
        switch (dc->kind) {
        case TH_D_BYTELEVEL: /* all tokens become one string */
            for (size_t i = 0; i < m; i++) {
                size_t start = b.n;
                int ok = 1;
                for (size_t j = 0; j < v[i].n && ok;) {
                    int32_t cp;
                    j += cal_utf8_next(v[i].p, v[i].n, j, &cp);
                    if (cp >= 0 && cp < 324 && cpb[cp] >= 0) cal_buf_addc(&b, (char)cpb[cp]);
                    else ok = 0;
                }
                if (!ok) { b.n = start; cal_buf_add(&b, v[i].p, v[i].n); }
            }
            for (size_t i = 0; i < m; i++) free(v[i].p);
            m = 0;
            { cal_buf l = { 0 }; lossy(&l, b.p ? b.p : "", b.n); v[m].p = NULL; set(&v[m], l.p ? l.p : "", l.n); m = 1; cal_buf_free(&l); }
            break;
        case TH_D_REPLACE:
            for (size_t i = 0; i < m; i++) {
                b.n = 0;
                for (size_t j = 0; j < v[i].n;) {
                    if (v[i].n - j >= dc->pat_len && !memcmp(v[i].p + j, dc->pat, dc->pat_len)) {
                        cal_buf_add(&b, dc->content, dc->content_len);
                        j += dc->pat_len;
                    } else cal_buf_addc(&b, v[i].p[j++]);
                }
                set(&v[i], b.p ? b.p : "", b.n);
            }
            break;
        case TH_D_BYTEFALLBACK: {
            size_t w = 0;
            for (size_t i = 0; i < m;) {
                if (byte_token(&v[i]) < 0) { if (w != i) { free(v[w].p); v[w] = v[i]; v[i].p = NULL; } w++; i++; continue; }
                b.n = 0;
                size_t j = i;
                while (j < m && byte_token(&v[j]) >= 0) cal_buf_addc(&b, (char)byte_token(&v[j++]));
                size_t fl;
                char *f = cal_utf8_repaired(b.p, b.n, &fl);
                str s = { NULL, 0 };
                if (!f) set(&s, b.p, b.n);
                else { /* invalid: one U+FFFD per byte, as the reference */
                    free(f);
                    cal_buf r = { 0 };
                    for (size_t k = 0; k < b.n; k++) cal_buf_add(&r, "\xEF\xBF\xBD", 3);
                    set(&s, r.p, r.n);
                    cal_buf_free(&r);
                }
                for (size_t k = i; k < j; k++) { free(v[k].p); v[k].p = NULL; }
                if (w < i) { free(v[w].p); }
                v[w++] = s;
                i = j;
            }
            for (size_t i = w; i < m; i++) { free(v[i].p); v[i].p = NULL; }
            m = w;
            break;
        }
        case TH_D_FUSE:
            for (size_t i = 0; i < m; i++) { cal_buf_add(&b, v[i].p, v[i].n); free(v[i].p); v[i].p = NULL; }
            m = 0;
            set(&v[0], b.p ? b.p : "", b.n);
            m = 1;
            break;
        case TH_D_STRIP:
            for (size_t i = 0; i < m; i++) {
                size_t a = 0, e = v[i].n;
                for (int k = 0; k < dc->start && e - a >= dc->content_len && !memcmp(v[i].p + a, dc->content, dc->content_len); k++) a += dc->content_len;
                for (int k = 0; k < dc->stop && e - a >= dc->content_len && !memcmp(v[i].p + e - dc->content_len, dc->content, dc->content_len); k++) e -= dc->content_len;
                set(&v[i], v[i].p + a, e - a);
            }
            break;
        case TH_D_METASPACE:
            for (size_t i = 0; i < m; i++) {
                /* as the reference: in the first token every replacement
                 * character is dropped (unless prepend_scheme is never) */
                b.n = 0;
                for (size_t j = 0; j < v[i].n;) {
                    if (v[i].n - j >= dc->repl_len && !memcmp(v[i].p + j, dc->repl, dc->repl_len)) {
                        if (!(i == 0 && dc->prepend)) cal_buf_addc(&b, ' ');
                        j += dc->repl_len;
                    } else cal_buf_addc(&b, v[i].p[j++]);
                }
                set(&v[i], b.p ? b.p : "", b.n);
            }
            break;
        }
        cal_buf_free(&b);
    }
    for (size_t i = 0; i < m; i++) { cal_buf_add(out, v[i].p, v[i].n); free(v[i].p); }
    free(v);
}
