/* tok_hf_map.c - the hash maps behind the BPE model (tok_hf_int.h). */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "base/err.h"
#include "tok/hf_int.h"

void th_strmap_init(th_strmap *m, uint32_t expect)
{
    memset(m, 0, sizeof *m);
    uint32_t cap = 16;
    while (cap < expect * 2u) cap *= 2;
    m->slot = cal_xcalloc(cap, sizeof *m->slot);
    m->mask = cap - 1;
    m->cap = expect ? expect : 8;
    m->ent = cal_xmalloc(m->cap * sizeof *m->ent);
}

void th_strmap_free(th_strmap *m)
{
    free(m->slot); free(m->ent); free(m->pool);
    memset(m, 0, sizeof *m);
}

static void grow(th_strmap *m)
{
    uint32_t cap = (m->mask + 1) * 2;
    free(m->slot);
    m->slot = cal_xcalloc(cap, sizeof *m->slot);
    m->mask = cap - 1;
    for (uint32_t e = 0; e < m->n; e++) {
        uint32_t i = (uint32_t)m->ent[e].h & m->mask;
        while (m->slot[i]) i = (i + 1) & m->mask;
        m->slot[i] = (m->ent[e].h & 0xFFFFFFFF00000000ull) | (e + 1);
    }
}

void th_strmap_put(th_strmap *m, const char *s, size_t len, uint32_t id)
{
    uint64_t h = XXH3_64bits(s, len);
    uint32_t i = (uint32_t)h & m->mask;
    uint64_t tag = h & 0xFFFFFFFF00000000ull;
    while (m->slot[i]) {
        if ((m->slot[i] & 0xFFFFFFFF00000000ull) == tag) {
            struct th_ent *e = &m->ent[(uint32_t)m->slot[i] - 1];
            if (e->h == h && e->len == len && !memcmp(m->pool + e->off, s, len)) { e->id = id; return; }
        }
        i = (i + 1) & m->mask;
    }
    if (m->n == m->cap) { m->cap *= 2; m->ent = cal_xrealloc(m->ent, m->cap * sizeof *m->ent); }
    if (m->pool_n + len > m->pool_cap) {
        m->pool_cap = (m->pool_n + len) * 2 + 1024;
        m->pool = cal_xrealloc(m->pool, m->pool_cap);
    }
    if (len) memcpy(m->pool + m->pool_n, s, len);
    m->ent[m->n] = (struct th_ent){ h, (uint32_t)m->pool_n, (uint32_t)len, id };
    m->pool_n += len;
    m->slot[i] = tag | ++m->n;
    if ((uint64_t)m->n * 2 > m->mask + 1u) grow(m);
}

uint32_t th_strmap_get(const th_strmap *m, const char *s, size_t len)
{
    if (!m->slot) return TH_NONE;
    uint64_t h = XXH3_64bits(s, len);
    uint32_t i = (uint32_t)h & m->mask;
    uint64_t tag = h & 0xFFFFFFFF00000000ull;
    /* bounded: the probes, the entry and its bytes (a table mapped from a
     * forged image may point anywhere) */
    for (uint64_t probes = 0; m->slot[i] && probes <= m->mask; probes++) {
        uint32_t k = (uint32_t)m->slot[i] - 1;
        if ((m->slot[i] & 0xFFFFFFFF00000000ull) == tag && k < m->n) {
            const struct th_ent *e = &m->ent[k];
            if (e->len == len && e->off <= m->pool_n && len <= m->pool_n - e->off && !memcmp(m->pool + e->off, s, len))
                return e->id;
        }
        i = (i + 1) & m->mask;
    }
    return TH_NONE;
}

void th_mergemap_init(th_mergemap *m, size_t expect)
{
    size_t cap = 16;
    while (cap < expect * 2) cap *= 2;
    m->slot = cal_xmalloc(cap * sizeof *m->slot);
    for (size_t i = 0; i < cap; i++) m->slot[i].key = UINT64_MAX;
    m->mask = cap - 1;
    m->n = 0;
    m->shift = 64;
    while (cap > 1) { cap >>= 1; m->shift--; }
}

void th_mergemap_free(th_mergemap *m)
{
    free(m->slot);
    memset(m, 0, sizeof *m);
}

void th_mergemap_put(th_mergemap *m, uint32_t a, uint32_t b, uint32_t rank, uint32_t id)
{
    if ((m->n + 1) * 2 > m->mask + 1) {
        th_mergemap old = *m;
        th_mergemap_init(m, (old.mask + 1));
        for (size_t i = 0; i <= old.mask; i++)
            if (old.slot[i].key != UINT64_MAX)
                th_mergemap_put(m, (uint32_t)(old.slot[i].key >> 32), (uint32_t)old.slot[i].key,
                                old.slot[i].rank, old.slot[i].id);
        free(old.slot);
    }
    uint64_t k = (uint64_t)a << 32 | b;
    uint64_t i = (k * 0x9E3779B97F4A7C15ull) >> m->shift;
    while (m->slot[i].key != UINT64_MAX && m->slot[i].key != k) i = (i + 1) & m->mask;
    if (m->slot[i].key == UINT64_MAX) m->n++;
    m->slot[i] = (struct th_merge){ k, rank, id };
}
