/* record.c - payload views, dtypes, content hashes, header (de)serialisation
 * shared by the reader and the writer. */
#include <string.h>

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "stream_internal.h"

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

uint64_t cal_hash(const void *p, size_t n) { return XXH3_64bits(p, n); }

uint64_t cal_hash_seed(const void *p, size_t n, uint64_t seed) {
    return XXH3_64bits_withSeed(p, n, seed);
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
        n = r->payload_len / 4;
    }
    out->n = 0;
    cal_ids_reserve(out, n);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(out->v, p, 4 * n);
#else
    for (size_t i = 0; i < n; i++) out->v[i] = cal_ld32(p + 4 * i);
#endif
    out->n = n;
}

cal_row_view cal_row(const cal_rec *r) {
    cal_row_view v;
    v.len = cal_ld32(r->payload);
    v.flags = cal_ld32(r->payload + 4);
    v.ids = r->payload + 8;
    v.mask = (v.flags & CAL_ROW_MASK) ? v.ids + 4 * (size_t)v.len : NULL;
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

size_t cal_dtype_size(int dtype) {
    switch (dtype) {
    case CAL_F32: return 4;
    case CAL_F16: case CAL_BF16: return 2;
    }
    return 0;
}

const char *cal_dtype_name(int dtype) {
    switch (dtype) {
    case CAL_F32: return "f32";
    case CAL_F16: return "f16";
    case CAL_BF16: return "bf16";
    }
    return "unknown";
}

float cal_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13);            /* inf / nan */
    } else if (exp) {
        bits = sign | ((exp + 112) << 23) | (man << 13);     /* normal: rebias 15 -> 127 */
    } else if (man) {                                        /* subnormal: normalise */
        int e = -1;
        do { man <<= 1; e++; } while (!(man & 0x400));
        bits = sign | ((uint32_t)(112 - e) << 23) | ((man & 0x3ff) << 13);
    } else {
        bits = sign;
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/* Metadata text: "key=value\n" lines; '\\' and newline in values escaped. */
void cal__meta_serialize(const cal_meta *m, cal_buf *out) {
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

int cal__meta_parse(const char *p, size_t n, cal_meta *m, char *err, size_t errlen) {
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
            unsigned char c = (unsigned char)key.p[j];
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '.' || c == '-')) {
                snprintf(err, errlen, "metadata key at header byte %zu has a bad character", ks + 16);
                ok = 0;
                break;
            }
        }
        if (!ok) break;
        i++;
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
        i++;
        cal_meta_add(m, key.p, val.p);
    }
    cal_buf_free(&key);
    cal_buf_free(&val);
    return ok;
}

/* The encoded stream header: magic, u16 version, u16 flags, u32 meta_len,
 * metadata, u64 XXH3 of everything before it. */
void cal__header_encode(const cal_meta *m, cal_buf *out) {
    cal_buf meta = {0};
    cal__meta_serialize(m, &meta);
    if (meta.n > CAL_MAX_META) cal_die("stream metadata too large (%zu bytes)", meta.n);
    uint8_t h[16];
    memcpy(h, CAL_MAGIC, 8);
    h[8] = CAL_FORMAT_VERSION;
    h[9] = 0;
    h[10] = h[11] = 0;
    cal_st32(h + 12, (uint32_t)meta.n);
    size_t start = out->n;
    cal_buf_add(out, h, 16);
    cal_buf_add(out, meta.p ? meta.p : "", meta.n);
    uint8_t sum[8];
    cal_st64(sum, XXH3_64bits(out->p + start, out->n - start));
    cal_buf_add(out, sum, 8);
    cal_buf_free(&meta);
}
