/* record.c - payload views, header (de)serialisation
 * shared by the reader and the writer. */
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/num.h"
#include "base/utf8.h"
#include "stream/internal.h"

const char *cal_kind_name(int kind) {
    static _Thread_local char buf[4][16];
    static _Thread_local int k;
    switch (kind) {
    case CAL_TEXT: return "TEXT";
    case CAL_TOKENS: return "TOKENS";
    case CAL_ROW: return "ROW";
    case CAL_VECTORS: return "VECTORS";
    case CAL_END: return "END";
    }
    k = (k + 1) & 3;
    snprintf(buf[k], sizeof buf[k], "kind %d", kind);
    return buf[k];
}

void cal_rec_ids(const cal_rec *r, cal_ids *out) {
    const uint8_t *p;
    size_t n;
    if (r->kind == CAL_ROW) {
        cal_row_view v = cal_row(r);
        p = v.ids;
        n = v.len;
    } else {
        p = r->payload;
        n = cal_tokens_len(r);
    }
    out->n = 0;
    cal_ids_reserve(out, n);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n) memcpy(out->v, p, 4 * n); /* an empty record: out->v may be NULL */
#else
    for (size_t i = 0; i < n; i++) out->v[i] = cal_ld32(p + 4 * i);
#endif
    out->n = n;
}

cal_text_view cal_text(const cal_rec *r) {
    cal_text_view v = {(const char *)r->payload, r->payload_len, 0, NULL};
    if (r->flags & CAL_TEXT_SPANS) {
        v.nspans = cal_ld32(r->payload + r->payload_len - 4);
        v.n = r->payload_len - 8 * (size_t)v.nspans - 4;
        v.spans = r->payload + v.n;
    }
    return v;
}

cal_row_view cal_row(const cal_rec *r) {
    cal_row_view v;
    v.len = cal_ld32(r->payload);
    v.flags = cal_ld32(r->payload + 4);
    v.ids = r->payload + 8;
    v.mask = (v.flags & CAL_ROW_MASK) ? v.ids + 4 * (size_t)v.len : NULL;
    v.role = (v.flags & CAL_ROW_ROLE) ? v.ids + 4 * (size_t)v.len + (v.mask ? v.len : 0) : NULL;
    return v;
}

cal_vec_view cal_vectors(const cal_rec *r) {
    cal_vec_view v;
    v.n = cal_ld32(r->payload);
    v.d = cal_ld32(r->payload + 4);
    v.dtype = r->payload[8];
    v.data = r->payload + CAL_VEC_HEAD;
    return v;
}

#define CAL_LABEL_RULE " (a label is UTF-8 text without control characters, at most 255 bytes)"

/* Offset of the first control byte in s[0..n), or n. */
static size_t first_control(const char *s, size_t n) {
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) return i;
    return n;
}

int cal_label_check(const char *label, size_t n, char *err, size_t errlen) {
    size_t bad = cal_utf8_valid_prefix(label, n), ctl = first_control(label, n);
    if (n <= CAL_MAX_LABEL && bad == n && ctl == n) return 0;
    cal_buf b = {0};
    cal_utf8_escape(label, n, 60, &b);
    if (ctl < n && ctl <= bad)
        snprintf(err, errlen, "label '%s' has a control character at byte %zu%s", b.p, ctl, CAL_LABEL_RULE);
    else if (bad < n)
        snprintf(err, errlen, "label '%s' is not UTF-8 (byte %zu)%s", b.p, bad, CAL_LABEL_RULE);
    else
        snprintf(err, errlen, "label '%s' is %zu bytes long%s", b.p, n, CAL_LABEL_RULE);
    cal_buf_free(&b);
    return -1;
}

size_t cal_label_from_name(const char *name, size_t n, char *out) {
    size_t i = 0, k = 0;
    while (i < n) {
        size_t v = cal_utf8_valid_prefix(name + i, n - i);
        size_t step = 1;
        if (v) { /* one character of valid UTF-8 */
            int32_t cp;
            step = cal_utf8_next(name, n, i, &cp);
        }
        if (k + step > CAL_MAX_LABEL) break;
        if (!v || first_control(name + i, step) < step) out[k++] = '_';
        else memcpy(out + k, name + i, step), k += step;
        i += step;
    }
    out[k] = 0;
    return k;
}

/* Metadata text: "key=value\n" lines; '\\' and newline in values escaped. */
void cal_meta_serialize(const cal_meta *m, cal_buf *out) {
    for (size_t i = 0; i < m->n; i++) {
        cal_buf_add(out, m->key[i], strlen(m->key[i]));
        cal_buf_addc(out, '=');
        for (const char *p = m->val[i]; *p; p++) {
            if (*p == '\\') cal_buf_add(out, "\\\\", 2);
            else if (*p == '\n') cal_buf_add(out, "\\n", 2);
            else cal_buf_addc(out, *p);
        }
        cal_buf_addc(out, '\n');
    }
}

static int key_char(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
}

/* vocab, bos, eos and pad are decimal numbers below 2^32 (token ids and
 * their count); checked when read and written, so a program using them
 * (cal_meta_get_int) never meets a bad one. */
static int numeric_key(const char *k) {
    return !strcmp(k, "vocab") || !strcmp(k, "bos") || !strcmp(k, "eos") || !strcmp(k, "pad");
}

static int decimal_u32(const char *v) {
    uint64_t x = 0;
    size_t n = strlen(v);
    if (!n || n > 10 || strspn(v, "0123456789") != n) return 0;
    for (size_t i = 0; i < n; i++) x = x * 10 + (uint64_t)(v[i] - '0');
    return x <= UINT32_MAX;
}

int cal__meta_check(const cal_meta *m, char *err, size_t errlen) {
    for (size_t i = 0; i < m->n; i++) {
        const char *k = m->key[i], *v = m->val[i];
        size_t kn = strlen(k), vn = strlen(v), good = cal_utf8_valid_prefix(v, vn);
        int key_ok = kn > 0;
        for (size_t j = 0; j < kn; j++) key_ok &= key_char((unsigned char)k[j]);
        if (key_ok && good == vn && numeric_key(k) && !decimal_u32(v)) {
            snprintf(err, errlen, "stream metadata %s=%.40s is not a decimal number below 2^32", k, v);
            return -1;
        }
        if (key_ok && good == vn) continue;
        cal_buf b = {0};
        cal_utf8_escape(key_ok ? v : k, key_ok ? vn : kn, 80, &b);
        if (!key_ok)
            snprintf(err, errlen, "stream metadata key '%s' is not one or more of A-Z a-z 0-9 _ . -", b.p);
        else
            snprintf(err, errlen, "stream metadata value of %s is not UTF-8 (byte %zu of '%s')", k, good, b.p);
        cal_buf_free(&b);
        return -1;
    }
    return 0;
}

int cal_meta_parse(const char *p, size_t n, cal_meta *m, char *err, size_t errlen) {
    cal_buf key = {0}, val = {0};
    size_t i = 0;
    int ok = 1;
    while (i < n && ok) {
        size_t ks = i;
        while (i < n && p[i] != '=' && p[i] != '\n') i++;
        if (i >= n || p[i] != '=' || i == ks) {
            snprintf(err, errlen, "metadata line at header byte %zu is not key=value", ks + 16);
            ok = 0;
            break;
        }
        key.n = 0;
        cal_buf_add(&key, p + ks, i - ks);
        for (size_t j = 0; j < key.n; j++) {
            if (!key_char((unsigned char)key.p[j])) {
                snprintf(err, errlen, "metadata key at header byte %zu has a bad character", ks + 16);
                ok = 0;
                break;
            }
        }
        if (!ok) break;
        i++;
        const char *nl = memchr(p + i, '\n', n - i);
        size_t vn = (nl ? (size_t)(nl - p) : n) - i, good = cal_utf8_valid_prefix(p + i, vn);
        if (good < vn) {
            snprintf(err, errlen, "metadata value at header byte %zu is not UTF-8", i + good + 16);
            ok = 0;
            break;
        }
        val.n = 0;
        cal_buf_add(&val, "", 0);
        while (i < n && p[i] != '\n') {
            char c = p[i++];
            if (c == '\\') {
                if (i >= n || (p[i] != '\\' && p[i] != 'n')) {
                    snprintf(err, errlen, "metadata value at header byte %zu has a bad escape", i + 16);
                    ok = 0;
                    break;
                }
                c = p[i++] == 'n' ? '\n' : '\\';
            } else if (c == 0) {
                snprintf(err, errlen, "metadata value at header byte %zu has a NUL byte", i + 15);
                ok = 0;
                break;
            }
            cal_buf_addc(&val, c);
        }
        if (!ok) break;
        if (i >= n) {
            snprintf(err, errlen, "metadata does not end with a newline");
            ok = 0;
            break;
        }
        if (numeric_key(key.p) && !decimal_u32(val.p)) {
            snprintf(err, errlen, "metadata value of %s at header byte %zu is not a decimal number below 2^32",
                     key.p, ks + 16);
            ok = 0;
            break;
        }
        i++;
        cal_meta_add(m, key.p, val.p);
    }
    cal_buf_free(&key);
    cal_buf_free(&val);
    return ok;
}

/* The encoded stream header: magic, u16 version, u16 flags, u32 meta_len,
 * metadata, u64 XXH3 of everything before it. */
int cal__header_encode(const cal_meta *m, unsigned flags, cal_buf *out) {
    cal_buf meta = {0};
    cal_meta_serialize(m, &meta);
    if (meta.n > CAL_MAX_META) {
        cal_buf_free(&meta);
        return -1;
    }
    uint8_t h[16];
    memcpy(h, CAL_MAGIC, 8);
    h[8] = CAL_FORMAT_VERSION;
    h[9] = 0;
    h[10] = (uint8_t)flags;
    h[11] = 0;
    cal_st32(h + 12, (uint32_t)meta.n);
    size_t start = out->n;
    cal_buf_add(out, h, 16);
    cal_buf_add(out, meta.p ? meta.p : "", meta.n);
    uint8_t sum[8];
    cal_st64(sum, cal_hash(out->p + start, out->n - start));
    cal_buf_add(out, sum, 8);
    cal_buf_free(&meta);
    return 0;
}
