/* tok_hf_bpe.c - the BPE model: initial symbols (bytes, characters, byte
 * fallback, unk), the merge loop, and a per-thread pre-token cache.
 *
 * The merge loop replays the reference exactly: a min-heap of (rank, symbol
 * position) entries, each remembering the id its merge produces; a popped
 * entry is applied when its symbol is alive, has a right neighbour, and that
 * pair still merges into the remembered id (not necessarily the same pair).
 * O(n log n), so megabyte words are fine. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/utf8.h"
#include "tok/hf_int.h"

#define CACHE_SLOTS 32768  /* per thread (2.5 MB) */
#define CACHE_KEY 30       /* longest cached pre-token (bytes) */
#define CACHE_IDS 8        /* most ids a cached pre-token may yield */

typedef struct {
    uint64_t h;
    uint64_t serial;
    uint8_t len, nids;
    char key[CACHE_KEY];
    uint32_t ids[CACHE_IDS];
} cache_slot;

typedef struct { uint32_t id, len; int32_t prev, next; } sym;
typedef struct { uint64_t key; uint32_t id; } hent; /* key = rank << 32 | pos */

struct th_scratch {
    th_bufs bufs;
    cache_slot *cache;
    sym *s; size_t scap;
    hent *h; size_t hcap;
};

static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;

static void scratch_free(void *p)
{
    th_scratch *sc = p;
    if (!sc) return;
    free(sc->cache); free(sc->s); free(sc->h);
    free(sc->bufs.r[0]); free(sc->bufs.r[1]); free(sc->bufs.pv);
    if (sc->bufs.md) pcre2_match_data_free(sc->bufs.md);
    free(sc);
}

static void scratch_key_make(void) { (void)pthread_key_create(&scratch_key, scratch_free); }

th_scratch *th_scratch_get(const tok_hf *t)
{
    (void)t;
    (void)pthread_once(&scratch_once, scratch_key_make);
    th_scratch *sc = pthread_getspecific(scratch_key);
    if (!sc) {
        sc = cal_xcalloc(1, sizeof *sc);
        sc->cache = cal_xcalloc(CACHE_SLOTS, sizeof *sc->cache);
        (void)pthread_setspecific(scratch_key, sc);
    }
    return sc;
}

th_bufs *th_scratch_bufs(th_scratch *sc) { return &sc->bufs; }

static void heap_push(hent *h, size_t *n, hent e)
{
    size_t i = (*n)++;
    while (i) {
        size_t p = (i - 1) / 2;
        if (h[p].key <= e.key) break;
        h[i] = h[p];
        i = p;
    }
    h[i] = e;
}

static hent heap_pop(hent *h, size_t *n)
{
    hent top = h[0], last = h[--*n];
    size_t i = 0, m = *n;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= m) break;
        if (c + 1 < m && h[c + 1].key < h[c].key) c++;
        if (last.key <= h[c].key) break;
        h[i] = h[c];
        i = c;
    }
    if (m) h[i] = last;
    return top;
}

static size_t utf8_len(unsigned char c)
{
    return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
}

static void bpe_word(const tok_hf *t, th_scratch *sc, const char *s, size_t len, cal_ids *out)
{
    cache_slot *cs = NULL;
    uint64_t h = 0;
    if (len <= CACHE_KEY) {
        h = XXH3_64bits(s, len);
        cs = &sc->cache[h & (CACHE_SLOTS - 1)];
        if (cs->serial == t->serial && cs->h == h && cs->len == len && !memcmp(cs->key, s, len)) {
            for (unsigned k = 0; k < cs->nids; k++) cal_ids_push(out, cs->ids[k]);
            return;
        }
    }
    size_t out0 = out->n;
    uint32_t whole = t->ignore_merges ? th_strmap_get(&t->vocab, s, len) : TH_NONE;
    if (whole != TH_NONE) {
        cal_ids_push(out, whole);
        goto cache_it;
    }

    /* initial symbols */
    if (sc->scap < len) {
        sc->scap = len + len / 2 + 16;
        free(sc->s); free(sc->h);
        sc->s = cal_xmalloc(sc->scap * sizeof *sc->s);
        sc->h = cal_xmalloc(2 * sc->scap * sizeof *sc->h); /* pushes <= 2n: each merge pops 1, pushes <= 2 */
    }
    sym *y = sc->s;
    size_t n = 0;
    uint32_t unk_len = 0; /* pending unk (bytes), 0 = none */
    for (size_t i = 0; i < len;) {
        size_t cl = t->byte_level ? 1 : utf8_len((unsigned char)s[i]);
        if (cl > len - i) cl = len - i;
        uint32_t id;
        if (t->byte_level) id = t->byte_id[(unsigned char)s[i]];
        else if (cl <= 3) {
            int32_t cp;
            cal_utf8_next(s, len, i, &cp);
            id = t->cp_id[cp];
        } else id = th_strmap_get(&t->vocab, s + i, cl);
        if (id != TH_NONE) {
            if (unk_len) { y[n++] = (sym){ t->unk_id, unk_len, 0, 0 }; unk_len = 0; }
            y[n++] = (sym){ id, (uint32_t)cl, 0, 0 };
            i += cl;
            continue;
        }
        if (t->byte_fallback && !t->byte_level) {
            size_t k = 0;
            while (k < cl && t->byte_id[(unsigned char)s[i + k]] != TH_NONE) k++;
            if (k == cl) { /* as the reference: a pending unk is not flushed first */
                for (k = 0; k < cl; k++) y[n++] = (sym){ t->byte_id[(unsigned char)s[i + k]], 1, 0, 0 };
                i += cl;
                continue;
            }
        }
        if (t->unk_id != TH_NONE) {
            if (unk_len && !t->fuse_unk) { y[n++] = (sym){ t->unk_id, unk_len, 0, 0 }; unk_len = 0; }
            unk_len += (uint32_t)cl;
        } /* no unk token: the reference drops the character */
        i += cl;
    }
    if (unk_len) y[n++] = (sym){ t->unk_id, unk_len, 0, 0 };
    for (size_t i = 0; i < n; i++) { y[i].prev = (int32_t)i - 1; y[i].next = i + 1 < n ? (int32_t)i + 1 : -1; }

    /* merge loop */
    hent *hp = sc->h;
    size_t hn = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        const struct th_merge *m = th_mergemap_get(&t->merges, y[i].id, y[i + 1].id);
        if (m) heap_push(hp, &hn, (hent){ (uint64_t)m->rank << 32 | i, m->id });
    }
    while (hn) {
        hent top = heap_pop(hp, &hn);
        uint32_t pos = (uint32_t)top.key;
        if (!y[pos].len || y[pos].next < 0) continue;
        int32_t nx = y[pos].next;
        const struct th_merge *m = th_mergemap_get(&t->merges, y[pos].id, y[nx].id);
        if (!m || m->id != top.id) continue;
        y[pos].id = top.id;
        y[pos].len += y[nx].len;
        y[pos].next = y[nx].next;
        y[nx].len = 0;
        if (y[pos].next >= 0) y[y[pos].next].prev = (int32_t)pos;
        if (y[pos].prev >= 0) {
            int32_t pv = y[pos].prev;
            const struct th_merge *m2 = th_mergemap_get(&t->merges, y[pv].id, y[pos].id);
            if (m2) heap_push(hp, &hn, (hent){ (uint64_t)m2->rank << 32 | (uint32_t)pv, m2->id });
        }
        if (y[pos].next >= 0) {
            const struct th_merge *m2 = th_mergemap_get(&t->merges, y[pos].id, y[y[pos].next].id);
            if (m2) heap_push(hp, &hn, (hent){ (uint64_t)m2->rank << 32 | pos, m2->id });
        }
    }
    for (int32_t i = n ? 0 : -1; i >= 0; i = y[i].next) cal_ids_push(out, y[i].id);

cache_it:
    if (cs && out->n - out0 <= CACHE_IDS) {
        cs->serial = t->serial; cs->h = h; cs->len = (uint8_t)len;
        memcpy(cs->key, s, len);
        cs->nids = (uint8_t)(out->n - out0);
        if (cs->nids) memcpy(cs->ids, out->v + out0, cs->nids * sizeof(uint32_t));
    }
}

/* U+2581 at s[p] that follows a character no merge joins to it */
static int seg_point(const tok_hf *t, const char *s, size_t p)
{
    if (p < 1 || memcmp(s + p, "\xe2\x96\x81", 3)) return 0;
    size_t k = p - 1;
    while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80) k--;
    int32_t cp;
    cal_utf8_next(s, p, k, &cp);
    if (cp == 0x2581) return 0;
    for (size_t z = 0; z < t->nseg_bad; z++) if (t->seg_bad[z] == cp) return 0;
    return 1;
}

int th_bpe(const tok_hf *t, th_scratch *sc, const char *s, size_t len, cal_ids *out, char *err, size_t errlen)
{
    (void)err; (void)errlen;
    if (!len) return 0;
    if (!t->seg_ok) { bpe_word(t, sc, s, len, out); return 0; }
    size_t a = 0;
    for (size_t p = 1; p + 3 <= len; p++) {
        if ((unsigned char)s[p] != 0xE2 || !seg_point(t, s, p)) continue;
        bpe_word(t, sc, s + a, p - a, out);
        a = p;
        p += 2;
    }
    bpe_word(t, sc, s + a, len - a, out);
    return 0;
}
