/* tok_hf_bpe.c - the BPE model: initial symbols (bytes, characters, byte
 * fallback, unk), the merge loop, and a per-thread pre-token cache.
 *
 * The merges replay the reference exactly: it keeps a min-heap of (rank,
 * position) entries and applies a popped entry when its pair still merges
 * into the id it remembered, so the pair applied next is always the
 * lowest-ranked pair present, the leftmost of equal ranks. Words of up to
 * SMALL symbols find that pair by a scan of the pair ranks (no heap, no
 * allocation); longer words use the heap, O(n log n), so megabyte words are
 * fine. The scan is the heap's order only when no two vocabulary strings
 * share an id (then a pair's merged id names the pair), which th_bpe_prepare
 * checks.
 *
 * Most pre-tokens repeat, so the tokenizer keeps a cache of the ids of
 * short pre-tokens, shared by the threads that encode with it (each word is
 * merged once, not once per thread): a slot is one cache line, a sequence
 * lock (its version, odd while written) and the key's bytes and its ids. A
 * key may sit in any slot of its bucket of WAYS adjacent slots; a new word
 * takes an empty one, else the last, so the first words of a bucket (the
 * common ones, met early) stay while rarer ones take turns in the last
 * slot. A hit writes nothing, so the slots it reads stay in every core's
 * cache. Merge ranks come from a compact 8-byte-per-pair table (and
 * for byte-level models a dense table of the byte pairs), built once at load. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/oshint.h"
#include "base/utf8.h"
#include "tok/hf_int.h"

#define CACHE_BITS 17      /* slots (64 bytes each: 8 MB per tokenizer) */
#define SMALL_CACHE_BITS 15 /* 2 MB (one huge page) for an input known to be small */
#define SMALL_INPUT (1u << 20) /* bytes of text */
#define WAYS 2             /* slots per bucket: on the text of bench/encode.sh
                            * read four times, one slot per key missed 5.0% of
                            * the words (each read after the first: 3.7%, two
                            * keys that took turns evicted each other on every
                            * use), two 3.5% (1.7%), four 2.7% (0.6%) */
#define CACHE_KEY 24       /* longest cached pre-token (bytes) */
#define CACHE_IDS 7        /* most ids a cached pre-token may yield */
#define SMALL 48           /* words of up to SMALL symbols merge without the heap */

#if defined(__GNUC__)
#define PREFETCH(p) __builtin_prefetch(p)
#define HOT static inline __attribute__((always_inline))
#else
#define PREFETCH(p) ((void)(p))
#define HOT static inline
#endif

/* w[0]: the version, 0 never written, odd while being written; w[1..3]:
 * the key's bytes, zero padded; w[4]: len | nids << 8 | ids[0] << 32;
 * w[5..7]: ids[1..6], two a word. Every access is atomic (relaxed but for
 * the version), so readers racing a writer read stale words, never UB, and
 * the version tells them to ignore what they read. */
typedef struct { _Atomic uint64_t w[8]; } cache_slot;
_Static_assert(sizeof(cache_slot) == 64, "a cache slot is one cache line");

/* Tables derived from the merges at load. A merge's priority is its rank,
 * or its merged id when the merged ids grow strictly with the rank (then
 * the two orders agree and the id needs no second table). */
struct th_fast {
    uint64_t *pair;        /* (a << 20 | b) << 24 | (priority + 1), 0 = empty; NULL: use t->merges */
    uint64_t pmask;
    unsigned pshift;
    uint32_t *rank_id;     /* rank -> merged id; NULL when the priority is the id */
    uint32_t nrank;        /* rank_id's length */
    uint32_t *byte_rank;   /* byte-level: priority of the pair of bytes (x, y) at x << 8 | y; NULL if not */
    struct vslot { uint64_t k[3]; uint32_t id, len; } *voc; /* ignore_merges: the vocabulary's short strings */
    unsigned vshift;
    cache_slot *cache;     /* the pre-token cache, shared by every thread */
    void *cache_mem;       /* its allocation (cache is aligned within it) */
    unsigned cache_bits;   /* 2^cache_bits slots */
    size_t cache_mask;     /* a key's first slot (key_slot) & cache_mask: its bucket in this table */
    int scan_ok;           /* vocabulary ids are unique: the rank scan is exact */
    uint64_t img_num[4];   /* the scalars above, as an image section */
};

typedef struct { uint32_t id, alive; int32_t prev, next; } sym;
typedef struct { uint64_t key; uint32_t id; } hent; /* key = rank << 32 | pos */

struct th_scratch {
    th_bufs bufs;
    uint32_t *ids; size_t icap;
    sym *s; size_t scap;
    hent *h; size_t hcap;
};

static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;

static void scratch_free(void *p)
{
    th_scratch *sc = p;
    if (!sc) return;
    free(sc->ids); free(sc->s); free(sc->h);
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
        (void)pthread_setspecific(scratch_key, sc);
    }
    return sc;
}

th_bufs *th_scratch_bufs(th_scratch *sc) { return &sc->bufs; }

/* ---- keys: short byte strings as three words ---------------------------- */

static inline uint64_t load64(const char *p) { uint64_t x; memcpy(&x, p, 8); return x; }
static inline uint64_t load32(const char *p) { uint32_t x; memcpy(&x, p, 4); return x; }

/* s[0..len) (1 <= len <= CACHE_KEY) as three zero-padded words */
static inline void make_key(const char *s, size_t len, uint64_t k[3])
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* loads inside s[0..len) only; the overlap of two loads is shifted out */
    if (len >= 16) {
        k[0] = load64(s); k[1] = load64(s + 8);
        k[2] = len == 16 ? 0 : load64(s + len - 8) >> (8 * (24 - len));
    } else if (len >= 8) {
        k[0] = load64(s);
        k[1] = len == 8 ? 0 : load64(s + len - 8) >> (8 * (16 - len));
        k[2] = 0;
    } else {
        const unsigned char *u = (const unsigned char *)s;
        if (len >= 4) k[0] = load32(s) | load32(s + len - 4) << (8 * (len - 4));
        else k[0] = (uint64_t)u[0] | (uint64_t)u[len / 2] << (8 * (len / 2)) | (uint64_t)u[len - 1] << (8 * (len - 1));
        k[1] = k[2] = 0;
    }
#else
    memset(k, 0, 3 * sizeof *k);
    memcpy(k, s, len);
#endif
}

/* make_key when 24 bytes can be read at s: three loads, masked */
static inline void make_key_fast(const char *s, size_t len, uint64_t k[3])
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    static const uint64_t low[9] = { 0, 0xFF, 0xFFFF, 0xFFFFFF, 0xFFFFFFFF, 0xFFFFFFFFFF, 0xFFFFFFFFFFFF,
                                     0xFFFFFFFFFFFFFF, UINT64_MAX };
    size_t l1 = len > 8 ? len - 8 : 0, l2 = len > 16 ? len - 16 : 0;
    k[0] = load64(s) & low[len < 8 ? len : 8];
    k[1] = load64(s + 8) & low[l1 < 8 ? l1 : 8];
    k[2] = load64(s + 16) & low[l2];
#else
    make_key(s, len, k);
#endif
}

static inline uint64_t key_hash(const uint64_t k[3], size_t len)
{
    uint64_t h = (k[0] * 0x9E3779B97F4A7C15ull) ^ (k[1] * 0xC2B2AE3D27D4EB4Full) ^ (k[2] * 0x165667B19E3779F9ull) ^ len;
    return h * 0xD6E8FEB86659FD93ull;
}

/* ---- tables built at load ------------------------------------------------ */

static uint64_t pair_hash(uint64_t k, unsigned shift) { return (k * 0x9E3779B97F4A7C15ull) >> shift; }
static void cache_alloc(th_fast *f, unsigned bits);

void th_bpe_prepare(tok_hf *t)
{
    th_fast *f = cal_xcalloc(1, sizeof *f);
    const th_mergemap *m = &t->merges;
    uint32_t nranks = 0;
    int compact = 1;
    for (size_t i = 0; m->slot && i <= m->mask; i++) {
        const struct th_merge *e = &m->slot[i];
        if (e->key == UINT64_MAX) continue;
        if (e->rank + 1 > nranks) nranks = e->rank + 1;
        if ((e->key >> 32) >> 20 || (e->key & 0xFFFFFFFFu) >> 20 || e->rank >= (1u << 24) - 1) compact = 0;
    }
    f->rank_id = cal_xmalloc(((size_t)nranks + 1) * sizeof *f->rank_id);
    f->nrank = nranks + 1;
    for (uint32_t r = 0; r <= nranks; r++) f->rank_id[r] = TH_NONE;
    for (size_t i = 0; m->slot && i <= m->mask; i++)
        if (m->slot[i].key != UINT64_MAX) f->rank_id[m->slot[i].rank] = m->slot[i].id;
    int by_id = 1;
    uint32_t last = 0, have = 0;
    for (uint32_t r = 0; r < nranks && by_id; r++) {
        if (f->rank_id[r] == TH_NONE) continue;
        if ((have && f->rank_id[r] <= last) || f->rank_id[r] >= (1u << 24) - 1) by_id = 0;
        last = f->rank_id[r], have = 1;
    }
    if (t->spm_ties) by_id = 0; /* a rank names no single id */
    if (compact && m->n) {
        size_t cap = 16;
        unsigned bits = 4;
        while (cap < m->n + m->n / 2) cap *= 2, bits++;
        f->pair = cal_xcalloc(cap, sizeof *f->pair);
        f->pmask = cap - 1;
        f->pshift = 64 - bits;
        for (size_t i = 0; i <= m->mask; i++) {
            const struct th_merge *e = &m->slot[i];
            if (e->key == UINT64_MAX) continue;
            uint64_t k = (e->key >> 32) << 20 | (e->key & 0xFFFFFFFFu);
            uint64_t j = pair_hash(k, f->pshift);
            while (f->pair[j]) j = (j + 1) & f->pmask;
            f->pair[j] = k << 24 | ((by_id ? e->id : e->rank) + 1);
        }
    } else by_id = 0;
    if (by_id) { free(f->rank_id); f->rank_id = NULL; }
    int bytes_ok = t->byte_level;
    for (int b = 0; b < 256; b++) if (t->byte_id[b] == TH_NONE) bytes_ok = 0;
    if (bytes_ok) {
        f->byte_rank = cal_xmalloc(65536 * sizeof *f->byte_rank);
        for (int x = 0; x < 65536; x++) {
            const struct th_merge *e = th_mergemap_get(m, t->byte_id[x >> 8], t->byte_id[x & 255]);
            f->byte_rank[x] = !e ? TH_NONE : f->rank_id ? e->rank : e->id;
        }
    }
    /* unique ids: no id is given to two vocabulary strings */
    uint32_t maxid = 0;
    for (uint32_t i = 0; i < t->vocab.n; i++) if (t->vocab.ent[i].id > maxid) maxid = t->vocab.ent[i].id;
    uint8_t *seen = cal_xcalloc((size_t)maxid / 8 + 1, 1);
    f->scan_ok = 1;
    for (uint32_t i = 0; i < t->vocab.n && f->scan_ok; i++) {
        uint32_t id = t->vocab.ent[i].id;
        if (seen[id / 8] & (1u << (id % 8))) f->scan_ok = 0;
        seen[id / 8] |= (uint8_t)(1u << (id % 8));
    }
    free(seen);
    if (t->ignore_merges) { /* the whole-word check reads one slot, not the map's three places */
        size_t cap = 16, n = 0;
        unsigned bits = 4;
        for (uint32_t i = 0; i < t->vocab.n; i++) n += t->vocab.ent[i].len - 1u < CACHE_KEY;
        while (cap < n + n / 2) cap *= 2, bits++;
        f->voc = cal_xcalloc(cap, sizeof *f->voc);
        f->vshift = 64 - bits;
        for (uint32_t i = 0; i < t->vocab.n; i++) {
            const struct th_ent *e = &t->vocab.ent[i];
            if (e->len - 1u >= CACHE_KEY) continue;
            uint64_t k[3];
            make_key(t->vocab.pool + e->off, e->len, k);
            size_t j = (size_t)(key_hash(k, e->len) >> f->vshift);
            while (f->voc[j].len) j = (j + 1) & (cap - 1);
            f->voc[j] = (struct vslot){ { k[0], k[1], k[2] }, e->id, e->len };
        }
    }
    cache_alloc(f, CACHE_BITS);
    t->fast = f;
}

/* The pre-token cache: zero bytes are version 0 (never written) in every
 * slot. calloc of 8 MB maps fresh zero pages: none is touched (nor faulted
 * in) until a word lands in it, where a memset cost every process 2,048 page
 * faults at load (a short shard never needs most of them). */
static void cache_alloc(th_fast *f, unsigned bits)
{
    /* mapped, not calloc'd: once a large block has been freed, glibc serves
     * the next from its heap and clears all 8 MB (a process that loads
     * several tokenizers; a test that restores thousands) */
    f->cache_mem = cal_huge_zalloc(sizeof(cache_slot) << bits);
    f->cache = f->cache_mem; /* page aligned: so are the buckets, for the adjacent-line prefetch */
    f->cache_bits = bits;
    f->cache_mask = (((size_t)1 << bits) - 1) & ~(size_t)(WAYS - 1);
}

/* The cache's pages are cleared by the kernel as words first land in them:
 * on huge pages, 2 MB at a time, so a short shard spread its few thousand
 * words over all four pages of the 8 MB table and paid for clearing them
 * (0.3 ms of a 25 KB shard's 2 ms). An input known to be small gets a 2 MB
 * table; the cache only spares work, the ids are the same. */
void th_bpe_expect(tok_hf *t, uint64_t bytes)
{
    th_fast *f = t->fast;
    unsigned bits = bytes && bytes <= SMALL_INPUT ? SMALL_CACHE_BITS : CACHE_BITS;
    if (!f || f->cache_bits == bits) return;
    cal_huge_free(f->cache_mem, sizeof(cache_slot) << f->cache_bits);
    cache_alloc(f, bits);
}

void th_bpe_release(tok_hf *t)
{
    th_fast *f = t->fast;
    if (!f) return;
    if (!t->image) { free(f->pair); free(f->rank_id); free(f->byte_rank); free(f->voc); }
    cal_huge_free(f->cache_mem, sizeof(cache_slot) << f->cache_bits);
    free(f);
    t->fast = NULL;
}

/* image sections of the fast tables (hf_image.c numbers the others) */
enum { SEC_PAIR = 100, SEC_RANKID, SEC_BYTERANK, SEC_VOC, SEC_FASTNUM };

void th_bpe_image_parts(const tok_hf *t, tok_image_parts *w)
{
    th_fast *f = t->fast;
    uint64_t *num = f->img_num;
    num[0] = f->pshift;
    num[1] = f->vshift;
    num[2] = (uint64_t)f->scan_ok;
    num[3] = f->voc != NULL;
    tok_image_add(w, SEC_FASTNUM, 8, num, 4);
    tok_image_add(w, SEC_PAIR, 8, f->pair, f->pair ? f->pmask + 1 : 0);
    tok_image_add(w, SEC_RANKID, 4, f->rank_id, f->rank_id ? f->nrank : 0);
    tok_image_add(w, SEC_BYTERANK, 4, f->byte_rank, f->byte_rank ? 65536 : 0);
    tok_image_add(w, SEC_VOC, sizeof *f->voc, f->voc, f->voc ? ((size_t)1 << (64 - f->vshift)) : 0);
}

int th_bpe_uses_merges(const tok_hf *t) { return !t->fast->pair || t->spm_ties; }

/* n a power of two (or 0), as a hash table's length must be */
static int pow2(uint64_t n) { return (n & (n - 1)) == 0; }

int th_bpe_image_restore(tok_hf *t, const tok_image *im)
{
    uint64_t nnum, npair, nrank, nbyte, nvoc;
    const uint64_t *num = tok_image_get(im, SEC_FASTNUM, 8, &nnum);
    const uint64_t *pair = tok_image_get(im, SEC_PAIR, 8, &npair);
    const uint32_t *rank = tok_image_get(im, SEC_RANKID, 4, &nrank);
    const uint32_t *byte = tok_image_get(im, SEC_BYTERANK, 4, &nbyte);
    const struct vslot *voc = tok_image_get(im, SEC_VOC, sizeof(struct vslot), &nvoc);
    if (!num || nnum != 4 || !pair || !rank || !byte || !voc || !pow2(npair) || !pow2(nvoc) ||
        (nbyte && nbyte != 65536) || nrank > UINT32_MAX || (num[3] && !nvoc) || num[0] > 64 || num[1] > 64 ||
        (npair && num[0] != (uint64_t)(64 - __builtin_ctzll(npair))) ||
        (nvoc && num[1] != (uint64_t)(64 - __builtin_ctzll(nvoc))))
        return -1;
    th_fast *f = cal_xcalloc(1, sizeof *f);
    /* the tables are read only through the bounded lookups below */
    f->pair = npair ? (uint64_t *)(uintptr_t)pair : NULL;
    f->pmask = npair ? npair - 1 : 0;
    f->pshift = (unsigned)num[0];
    f->rank_id = nrank ? (uint32_t *)(uintptr_t)rank : NULL;
    f->nrank = (uint32_t)nrank;
    f->byte_rank = nbyte ? (uint32_t *)(uintptr_t)byte : NULL;
    f->voc = num[3] ? (struct vslot *)(uintptr_t)voc : NULL;
    f->vshift = (unsigned)num[1];
    f->scan_ok = num[2] != 0;
    cache_alloc(f, CACHE_BITS);
    t->fast = f;
    return 0;
}

/* the id a merge of priority p makes (bounded: an image's table may be forged) */
static inline uint32_t prio_id(const th_fast *f, uint32_t p)
{
    return f->rank_id ? (p < f->nrank ? f->rank_id[p] : TH_NONE) : p;
}

/* the priority of merging (a, b), or TH_NONE */
static inline uint32_t pair_rank(const tok_hf *t, const th_fast *f, uint32_t a, uint32_t b)
{
    if (f->pair) {
        if ((a | b) >> 20) return TH_NONE;
        uint64_t k = (uint64_t)a << 20 | b;
        uint64_t i = pair_hash(k, f->pshift) & f->pmask;
        for (uint64_t n = 0; n <= f->pmask; n++, i = (i + 1) & f->pmask) {
            uint64_t s = f->pair[i];
            if (!s) return TH_NONE;
            if (s >> 24 == k) return (uint32_t)(s & 0xFFFFFF) - 1;
        }
        return TH_NONE; /* no empty slot: a forged image */
    }
    const struct th_merge *m = th_mergemap_get(&t->merges, a, b);
    return m ? m->rank : TH_NONE;
}

/* the id the pair (a, b) of priority p merges into */
static inline uint32_t pair_id(const tok_hf *t, const th_fast *f, uint32_t a, uint32_t b, uint32_t p)
{
    if (!t->spm_ties) return prio_id(f, p);
    const struct th_merge *m = th_mergemap_get(&t->merges, a, b);
    return m ? m->id : TH_NONE;
}

/* ---- the merge loops ----------------------------------------------------- */

/* Merges id[0..n) (n <= SMALL) with rk[i] the priority of (id[i], id[i + 1]);
 * returns the new n. Merged-away symbols stay in place with no pair
 * (rk = TH_NONE) and are skipped through nx/pv. */
static size_t merge_scan(const tok_hf *t, const th_fast *f, uint32_t *id, uint32_t *rk, size_t n)
{
    uint8_t nx[SMALL], pv[SMALL];
    for (size_t i = 0; i < n; i++) nx[i] = (uint8_t)(i + 1), pv[i] = (uint8_t)(i - 1);
    if (n) rk[n - 1] = TH_NONE;
    size_t live = n;
    while (live > 1) {
        uint32_t best = TH_NONE;
        size_t bi = 0;
        for (size_t i = 0; i + 1 < n; i++)
            if (rk[i] < best) best = rk[i], bi = i;
        if (best == TH_NONE) break;
        size_t j = nx[bi]; /* merged into bi */
        id[bi] = pair_id(t, f, id[bi], id[j], best);
        rk[j] = TH_NONE;
        nx[bi] = nx[j];
        if (nx[j] < n) pv[nx[j]] = (uint8_t)bi;
        live--;
        if (bi > 0) rk[pv[bi]] = pair_rank(t, f, id[pv[bi]], id[bi]);
        rk[bi] = nx[bi] < n ? pair_rank(t, f, id[bi], id[nx[bi]]) : TH_NONE;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i = nx[i]) id[k++] = id[i];
    return k;
}

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

/* The reference's heap loop over id[0..n); the result back in id[0..). */
static size_t merge_heap(const tok_hf *t, const th_fast *f, th_scratch *sc, uint32_t *id, size_t n)
{
    if (sc->scap < n) {
        sc->scap = n + n / 2 + 16;
        free(sc->s); free(sc->h);
        sc->s = cal_xmalloc(sc->scap * sizeof *sc->s);
        sc->h = cal_xmalloc(2 * sc->scap * sizeof *sc->h); /* pushes <= 2n: each merge pops 1, pushes <= 2 */
    }
    sym *y = sc->s;
    hent *hp = sc->h;
    size_t hn = 0;
    for (size_t i = 0; i < n; i++) y[i] = (sym){ id[i], 1, (int32_t)i - 1, i + 1 < n ? (int32_t)i + 1 : -1 };
    for (size_t i = 0; i + 1 < n; i++) {
        uint32_t r = pair_rank(t, f, y[i].id, y[i + 1].id);
        if (r != TH_NONE) heap_push(hp, &hn, (hent){ (uint64_t)r << 32 | i, pair_id(t, f, y[i].id, y[i + 1].id, r) });
    }
    while (hn) {
        hent top = heap_pop(hp, &hn);
        uint32_t pos = (uint32_t)top.key;
        if (!y[pos].alive || y[pos].next < 0) continue;
        int32_t nx = y[pos].next;
        uint32_t r = pair_rank(t, f, y[pos].id, y[nx].id);
        if (r == TH_NONE || pair_id(t, f, y[pos].id, y[nx].id, r) != top.id) continue;
        y[pos].id = top.id;
        y[pos].next = y[nx].next;
        y[nx].alive = 0;
        if (y[pos].next >= 0) y[y[pos].next].prev = (int32_t)pos;
        if (y[pos].prev >= 0) {
            int32_t pv = y[pos].prev;
            uint32_t r2 = pair_rank(t, f, y[pv].id, y[pos].id);
            if (r2 != TH_NONE) heap_push(hp, &hn, (hent){ (uint64_t)r2 << 32 | (uint32_t)pv, pair_id(t, f, y[pv].id, y[pos].id, r2) });
        }
        if (y[pos].next >= 0) {
            uint32_t r2 = pair_rank(t, f, y[pos].id, y[y[pos].next].id);
            if (r2 != TH_NONE) heap_push(hp, &hn, (hent){ (uint64_t)r2 << 32 | pos, pair_id(t, f, y[pos].id, y[y[pos].next].id, r2) });
        }
    }
    size_t k = 0;
    for (int32_t i = n ? 0 : -1; i >= 0; i = y[i].next) id[k++] = y[i].id;
    return k;
}

static size_t utf8_len(unsigned char c)
{
    return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
}

/* The initial symbols of s into id[] (room for len); returns their number. */
static size_t initial_symbols(const tok_hf *t, const char *s, size_t len, uint32_t *id)
{
    size_t n = 0;
    int unk = 0; /* an unk is pending */
    for (size_t i = 0; i < len;) {
        size_t cl = t->byte_level ? 1 : utf8_len((unsigned char)s[i]);
        if (cl > len - i) cl = len - i;
        uint32_t x;
        if (t->byte_level) x = t->byte_id[(unsigned char)s[i]];
        else if (cl <= 3) {
            int32_t cp;
            cal_utf8_next(s, len, i, &cp);
            x = t->cp_id[cp];
        } else x = th_strmap_get(&t->vocab, s + i, cl);
        if (x != TH_NONE) {
            if (unk) { id[n++] = t->unk_id; unk = 0; }
            id[n++] = x;
            i += cl;
            continue;
        }
        if (t->byte_fallback && !t->byte_level) {
            size_t k = 0;
            while (k < cl && t->byte_id[(unsigned char)s[i + k]] != TH_NONE) k++;
            if (k == cl) { /* as the reference: a pending unk is not flushed first */
                for (k = 0; k < cl; k++) id[n++] = t->byte_id[(unsigned char)s[i + k]];
                i += cl;
                continue;
            }
        }
        if (t->unk_id != TH_NONE) {
            if (unk && !t->fuse_unk) id[n++] = t->unk_id;
            unk = 1;
        } /* no unk token: the reference drops the character */
        i += cl;
    }
    if (unk) id[n++] = t->unk_id;
    return n;
}

/* the id of the vocabulary string s[0..len), or TH_NONE; k its key when len <= CACHE_KEY */
static uint32_t vocab_id(const tok_hf *t, const char *s, size_t len, const uint64_t *k)
{
    const th_fast *f = t->fast;
    if (!k || !f->voc) return th_strmap_get(&t->vocab, s, len);
    size_t mask = ((size_t)1 << (64 - f->vshift)) - 1;
    size_t j = (size_t)(key_hash(k, len) >> f->vshift) & mask;
    for (size_t n = 0; n <= mask; n++, j = (j + 1) & mask) {
        const struct vslot *v = &f->voc[j];
        if (!v->len) return TH_NONE;
        if (v->len == len && v->k[0] == k[0] && v->k[1] == k[1] && v->k[2] == k[2]) return v->id;
    }
    return TH_NONE;
}

/* BPE of one word, without the cache: its ids appended to out; k is the
 * word's key when len <= CACHE_KEY, else NULL. */
static void bpe_uncached(const tok_hf *t, th_scratch *sc, const char *s, size_t len, const uint64_t *k, cal_ids *out)
{
    const th_fast *f = t->fast;
    if (t->ignore_merges) {
        uint32_t whole = vocab_id(t, s, len, k);
        if (whole != TH_NONE) { cal_ids_push(out, whole); return; }
    }
    uint32_t small_id[SMALL], rk[SMALL];
    size_t n;
    uint32_t *id = small_id;
    if (f->byte_rank && f->scan_ok && len <= SMALL) { /* byte-level: symbols and first ranks by table */
        const unsigned char *u = (const unsigned char *)s;
        for (size_t i = 0; i < len; i++) id[i] = t->byte_id[u[i]];
        for (size_t i = 0; i + 1 < len; i++) rk[i] = f->byte_rank[u[i] << 8 | u[i + 1]];
        n = merge_scan(t, f, id, rk, len);
    } else {
        if (len > SMALL) {
            if (sc->icap < len) { sc->icap = len + len / 2; free(sc->ids); sc->ids = cal_xmalloc(sc->icap * sizeof *sc->ids); }
            id = sc->ids;
        }
        n = initial_symbols(t, s, len, id);
        if (n <= SMALL && f->scan_ok) {
            for (size_t i = 0; i + 1 < n; i++) rk[i] = pair_rank(t, f, id[i], id[i + 1]);
            n = merge_scan(t, f, id, rk, n);
        } else n = merge_heap(t, f, sc, id, n);
    }
    if (!n) return; /* an empty word: out->v may still be NULL */
    cal_ids_reserve(out, out->n + n);
    memcpy(out->v + out->n, id, n * sizeof *id);
    out->n += n;
}

/* ---- the pre-token cache ------------------------------------------------- */

/* the first slot of a key's bucket */
static inline size_t key_slot(const uint64_t k[3], size_t len)
{
    return (size_t)(key_hash(k, len) >> (64 - CACHE_BITS)) & ~(size_t)(WAYS - 1);
}

#define LOAD(i) atomic_load_explicit(&cs->w[i], memory_order_relaxed)

/* A word in no slot of its bucket (cs): merged, then put in the first empty
 * slot, else in the last, unless that slot is being written (vs: the
 * versions read before). */
static void bpe_fill(const tok_hf *t, th_scratch *sc, const char *s, size_t len, const uint64_t k[3],
                     cache_slot *cs, const uint64_t *vs, cal_ids *out)
{
    size_t out0 = out->n;
    bpe_uncached(t, sc, s, len, k, out);
    size_t m = out->n - out0;
    size_t w = 0;
    while (w < WAYS - 1 && vs[w]) w++;
    cs += w;
    uint64_t v = vs[w];
    if (m > CACHE_IDS || (v & 1) ||
        !atomic_compare_exchange_strong_explicit(&cs->w[0], &v, v + 1, memory_order_acquire, memory_order_relaxed))
        return; /* too many ids, or another thread is writing the slot */
    atomic_thread_fence(memory_order_release);
    uint32_t id[CACHE_IDS] = { 0 };
    if (m) memcpy(id, out->v + out0, m * sizeof *id); /* out->v may be NULL when m = 0 */
    uint64_t x[8] = { 0, k[0], k[1], k[2], len | m << 8 | (uint64_t)id[0] << 32, id[1] | (uint64_t)id[2] << 32,
                      id[3] | (uint64_t)id[4] << 32, id[5] | (uint64_t)id[6] << 32 };
    for (int i = 1; i < 8; i++) atomic_store_explicit(&cs->w[i], x[i], memory_order_relaxed);
    atomic_store_explicit(&cs->w[0], v + 2, memory_order_release);
}

/* 1 when the slot holds the word (len <= CACHE_KEY, key k), its ids then
 * appended to out; *vp: the slot's version. */
HOT int slot_get(cache_slot *cs, const uint64_t k[3], size_t len, uint64_t *vp, cal_ids *out)
{
    uint64_t v = *vp = atomic_load_explicit(&cs->w[0], memory_order_acquire);
    uint64_t m = LOAD(4);
    if (LOAD(1) != k[0] || LOAD(2) != k[1] || LOAD(3) != k[2] || (m & 0xFF) != len) return 0;
    uint64_t a = LOAD(5), b = LOAD(6), c = LOAD(7);
    atomic_thread_fence(memory_order_acquire);
    if (!v || (v & 1) || LOAD(0) != v) return 0; /* empty, or written meanwhile */
    if (out->n + CACHE_IDS > out->cap) cal_ids_reserve(out, out->n + CACHE_IDS);
    uint32_t *o = out->v + out->n;
    o[0] = (uint32_t)(m >> 32);
    o[1] = (uint32_t)a, o[2] = (uint32_t)(a >> 32);
    o[3] = (uint32_t)b, o[4] = (uint32_t)(b >> 32);
    o[5] = (uint32_t)c, o[6] = (uint32_t)(c >> 32);
    out->n += m >> 8 & 0xFF;
    return 1;
}

/* One word (len <= CACHE_KEY) through the cache, its key and bucket known. */
HOT void bpe_keyed(const tok_hf *t, th_scratch *sc, const char *s, size_t len, const uint64_t k[3],
                     size_t slot, cal_ids *out)
{
    cache_slot *cs = &t->fast->cache[slot];
    uint64_t vs[WAYS];
    for (size_t w = 0; w < WAYS; w++) if (slot_get(cs + w, k, len, &vs[w], out)) return;
    bpe_fill(t, sc, s, len, k, cs, vs, out);
}
#undef LOAD

size_t th_bpe_cache_bucket(const char *s, size_t len)
{
    uint64_t k[3];
    if (len - 1 >= CACHE_KEY) return SIZE_MAX;
    make_key(s, len, k);
    return key_slot(k, len) / WAYS;
}

int th_bpe_cache_has(const tok_hf *t, const char *s, size_t len)
{
    uint64_t k[3], v;
    if (len - 1 >= CACHE_KEY) return 0;
    make_key(s, len, k);
    cache_slot *cs = &t->fast->cache[key_slot(k, len) & t->fast->cache_mask];
    cal_ids ids = { 0 };
    int hit = 0;
    for (size_t w = 0; w < WAYS && !hit; w++) hit = slot_get(cs + w, k, len, &v, &ids);
    cal_ids_free(&ids);
    return hit;
}

/* One word through the cache. */
static inline void bpe_word(const tok_hf *t, th_scratch *sc, const char *s, size_t len, cal_ids *out)
{
    if (len > CACHE_KEY) { bpe_uncached(t, sc, s, len, NULL, out); return; }
    uint64_t k[3];
    make_key(s, len, k);
    bpe_keyed(t, sc, s, len, k, key_slot(k, len) & t->fast->cache_mask, out);
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

static inline void bpe_piece(const tok_hf *t, th_scratch *sc, const char *s, size_t len, cal_ids *out)
{
    if (!len) return;
    if (!t->seg_ok) { bpe_word(t, sc, s, len, out); return; }
    size_t a = 0;
    for (size_t p = 1; p + 3 <= len; p++) {
        if ((unsigned char)s[p] != 0xE2 || !seg_point(t, s, p)) continue;
        bpe_word(t, sc, s + a, p - a, out);
        a = p;
        p += 2;
    }
    bpe_word(t, sc, s + a, len - a, out);
}

int th_bpe(const tok_hf *t, th_scratch *sc, const char *s, size_t len, cal_ids *out, char *err, size_t errlen)
{
    (void)err; (void)errlen;
    bpe_piece(t, sc, s, len, out);
    return 0;
}

void th_bpe_scan(const tok_hf *t, th_scratch *sc, int scanner, int keep_gaps, const char *s, size_t len, cal_ids *out)
{
    enum { BATCH = 16 };
    size_t from = 0, prev = 0, ms[BATCH], me[BATCH], slot[BATCH], k;
    uint64_t key[BATCH][3];
    do {
        k = th_scan_many(scanner, s, len, &from, ms, me, BATCH);
        if (!t->seg_ok) /* the keys first, so that their cache lines are fetched together */
            for (size_t i = 0; i < k; i++) {
                size_t n = me[i] - ms[i];
                if (n - 1 >= CACHE_KEY) continue;
                if (len - ms[i] >= 24) make_key_fast(s + ms[i], n, key[i]);
                else make_key(s + ms[i], n, key[i]);
                slot[i] = key_slot(key[i], n) & t->fast->cache_mask;
                PREFETCH(&t->fast->cache[slot[i]]);
                for (size_t w = 1; w < WAYS; w++) PREFETCH(&t->fast->cache[slot[i] + w]);
            }
        for (size_t i = 0; i < k; i++) {
            if (keep_gaps && prev < ms[i]) bpe_piece(t, sc, s + prev, ms[i] - prev, out);
            size_t n = me[i] - ms[i];
            prev = me[i];
            if (t->seg_ok || n - 1 >= CACHE_KEY) bpe_piece(t, sc, s + ms[i], n, out);
            else bpe_keyed(t, sc, s + ms[i], n, key[i], slot[i], out);
        }
    } while (k == BATCH);
    if (keep_gaps && prev < len) bpe_piece(t, sc, s + prev, len - prev, out);
}
