/* charsmap.c - SentencePiece's precompiled character map (see charsmap.h). */
#include "tok/charsmap.h"

#include <stdlib.h>
#include <string.h>

#include "base/err.h"

int charsmap_init(charsmap *cm, const void *blob, size_t len, char *err, size_t errlen) {
    memset(cm, 0, sizeof *cm);
    const uint8_t *b = blob;
    if (len <= 4) return cal_errf(err, errlen, "precompiled character map: %zu bytes, too short", len);
    uint32_t t = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    if (t > len - 4)
        return cal_errf(err, errlen, "precompiled character map: its trie (%u bytes) exceeds the blob (%zu)", t, len);
    cm->nunit = t / 4;
    cm->own = cal_xmalloc((cm->nunit ? cm->nunit : 1) * sizeof *cm->own);
    for (size_t i = 0; i < cm->nunit; i++) {
        const uint8_t *u = b + 4 + 4 * i;
        cm->own[i] = (uint32_t)u[0] | (uint32_t)u[1] << 8 | (uint32_t)u[2] << 16 | (uint32_t)u[3] << 24;
    }
    cm->unit = cm->own;
    cm->norm = (const char *)b + 4 + t;
    cm->nnorm = len - 4 - t;
    for (int c = 0; c < 256; c++) { /* the root's children */
        uint32_t pos = cm->nunit ? ((cm->unit[0] >> 10) << ((cm->unit[0] & (1u << 9)) >> 6)) ^ (uint32_t)c : 0;
        /* a rule may start with c when the walk takes its first step */
        cm->first[c] = cm->nunit && pos < cm->nunit && (cm->unit[pos] & ((1u << 31) | 0xFFu)) == (uint32_t)c;
    }
    return 0;
}

void charsmap_free(charsmap *cm) {
    free(cm->own);
    memset(cm, 0, sizeof *cm);
}

static inline uint32_t u_offset(uint32_t u) { return (u >> 10) << ((u & (1u << 9)) >> 6); }
static inline uint32_t u_label(uint32_t u) { return u & ((1u << 31) | 0xFFu); }
static inline int u_has_leaf(uint32_t u) { return (u >> 8) & 1; }
static inline uint32_t u_value(uint32_t u) { return u & ((1u << 31) - 1); }

size_t charsmap_prefixes(const charsmap *cm, const char *s, size_t n, size_t *len, const char **out,
                         size_t *outlen, size_t max) {
    size_t found = 0;
    if (!cm->nunit) return 0;
    size_t pos = u_offset(cm->unit[0]);
    for (size_t i = 0; i < n; i++) {
        uint8_t c = (uint8_t)s[i];
        pos ^= c;
        if (pos >= cm->nunit) return found;
        uint32_t u = cm->unit[pos];
        if (u_label(u) != c) return found;
        pos ^= u_offset(u);
        if (u_has_leaf(u)) {
            if (found < max) {
                uint32_t v = pos < cm->nunit ? u_value(cm->unit[pos]) : UINT32_MAX;
                const char *r = "";
                size_t rl = 0;
                if (v < cm->nnorm) { /* NUL-terminated in the blob (bounded by its end) */
                    r = cm->norm + v;
                    const char *z = memchr(r, 0, cm->nnorm - v);
                    rl = z ? (size_t)(z - r) : cm->nnorm - v;
                }
                len[found] = i + 1;
                out[found] = r;
                outlen[found] = rl;
            }
            found++;
        }
    }
    return found;
}

size_t charsmap_longest(const charsmap *cm, const char *s, size_t n, const char **out, size_t *outlen) {
    enum { MAXR = 32 }; /* Normalizer::kMaxTrieResultsSize */
    size_t len[MAXR], ol[MAXR];
    const char *o[MAXR];
    size_t k = charsmap_prefixes(cm, s, n, len, o, ol, MAXR);
    if (k > MAXR) k = MAXR;
    size_t best = 0;
    for (size_t i = 0; i < k; i++)
        if (best == 0 || len[i] > len[best - 1]) best = i + 1;
    if (!best) return 0;
    *out = o[best - 1];
    *outlen = ol[best - 1];
    return len[best - 1];
}
