/* unigram.c - the Viterbi segmentation of a unigram model (see unigram.h). */
#include "tok/unigram.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "tok/hf_int.h"

/* ---- the trie ----
 * Built as a map (node, byte) -> child first, then laid out as a double
 * array breadth first: each node's children go at the first base whose
 * slots base + c are all free (a list of the free slots keeps the search
 * short). */

#define FREE UINT32_MAX

typedef struct {
    th_mergemap edges;   /* (node, byte) -> child (rank), piece id */
    uint32_t nnodes;
} tmp_trie;

static void tmp_insert(tmp_trie *t, const char *s, uint32_t len, uint32_t id) {
    uint32_t node = 0;
    for (uint32_t i = 0; i < len; i++) {
        uint8_t c = (uint8_t)s[i];
        const struct th_merge *e = th_mergemap_get(&t->edges, node, c);
        uint32_t next = e ? e->rank : t->nnodes++, pid = e ? e->id : UG_NONE;
        if (i + 1 == len) pid = id; /* a repeated text: the last id wins */
        th_mergemap_put(&t->edges, node, c, next, pid);
        node = next;
    }
}

typedef struct {
    struct ug_slot *slot;
    size_t cap;
    uint32_t *next, *prev; /* the free slots, a doubly linked list from head (FREE ends it) */
    uint32_t head;
} da_build;

static void da_grow(da_build *d, size_t need) {
    if (need <= d->cap) return;
    size_t cap = d->cap ? d->cap : 1024;
    while (cap < need) cap *= 2;
    d->slot = cal_xrealloc(d->slot, cap * sizeof *d->slot);
    d->next = cal_xrealloc(d->next, cap * sizeof *d->next);
    d->prev = cal_xrealloc(d->prev, cap * sizeof *d->prev);
    /* the new slots are free, appended to the list in order */
    uint32_t tail = d->head;
    if (tail != FREE)
        while (d->next[tail] != FREE) tail = d->next[tail];
    for (size_t i = d->cap; i < cap; i++) {
        d->slot[i] = (struct ug_slot){0, FREE, UG_NONE};
        d->prev[i] = tail;
        d->next[i] = FREE;
        if (tail == FREE) d->head = (uint32_t)i;
        else d->next[tail] = (uint32_t)i;
        tail = (uint32_t)i;
    }
    d->cap = cap;
}

static void da_take(da_build *d, uint32_t i, uint32_t parent, uint32_t id) {
    d->slot[i].check = parent;
    d->slot[i].id = id;
    if (d->prev[i] == FREE) d->head = d->next[i];
    else d->next[d->prev[i]] = d->next[i];
    if (d->next[i] != FREE) d->prev[d->next[i]] = d->prev[i];
}

static int by_label(const void *a, const void *b) {
    const struct th_merge *x = a, *y = b;
    uint32_t p = (uint32_t)x->key, q = (uint32_t)y->key;
    return p < q ? -1 : p > q;
}

static void da_layout(ug_model *m, const tmp_trie *t) {
    /* the children of every node, grouped by parent (counting sort) */
    size_t nn = t->nnodes, ne = t->edges.mask + 1, nedge = 0;
    uint32_t *first = cal_xcalloc(nn + 1, sizeof *first);
    for (size_t i = 0; i < ne; i++)
        if (t->edges.slot[i].key != UINT64_MAX) first[(t->edges.slot[i].key >> 32) + 1]++, nedge++;
    for (size_t i = 0; i < nn; i++) first[i + 1] += first[i];
    struct th_merge *kids = cal_xmalloc((nedge ? nedge : 1) * sizeof *kids);
    uint32_t *fill = cal_xmalloc((nn ? nn : 1) * sizeof *fill);
    memcpy(fill, first, nn * sizeof *fill);
    for (size_t i = 0; i < ne; i++)
        if (t->edges.slot[i].key != UINT64_MAX) kids[fill[t->edges.slot[i].key >> 32]++] = t->edges.slot[i];
    for (size_t i = 0; i < nn; i++) qsort(kids + first[i], first[i + 1] - first[i], sizeof *kids, by_label);
    /* breadth first: (node, its slot) */
    uint32_t *qn = cal_xmalloc((nn ? nn : 1) * sizeof *qn), *qs = cal_xmalloc((nn ? nn : 1) * sizeof *qs);
    size_t qh = 0, qt = 0;
    da_build d = {0};
    d.head = FREE;
    da_grow(&d, 256 + 1);
    da_take(&d, 0, FREE - 1, UG_NONE); /* the root: no parent matches it */
    qn[qt] = 0, qs[qt++] = 0;
    size_t used = 1;
    while (qh < qt) {
        uint32_t node = qn[qh], at = qs[qh++];
        const struct th_merge *k = kids + first[node];
        size_t nk = first[node + 1] - first[node];
        if (!nk) continue;
        uint32_t c0 = (uint32_t)k[0].key & 0xff, base;
        for (uint32_t f = d.head;; f = d.next[f]) {
            if (f == FREE) { /* no free slot fits: grow, and search the new ones */
                size_t old = d.cap;
                da_grow(&d, d.cap * 2);
                f = (uint32_t)old;
            }
            if (f < c0 + 1) continue;
            base = f - c0;
            size_t need = (size_t)base + ((uint32_t)k[nk - 1].key & 0xff) + 1;
            da_grow(&d, need);
            size_t j = 1;
            while (j < nk && d.slot[base + ((uint32_t)k[j].key & 0xff)].check == FREE) j++;
            if (j == nk) break;
        }
        d.slot[at].base = base;
        for (size_t j = 0; j < nk; j++) {
            uint32_t s = base + ((uint32_t)k[j].key & 0xff);
            da_take(&d, s, at, k[j].id);
            if (s + 1 > used) used = s + 1;
            qn[qt] = k[j].rank, qs[qt++] = s;
        }
    }
    m->own_slot = cal_xrealloc(d.slot, used * sizeof *d.slot);
    m->slot = m->own_slot;
    m->nslot = used;
    free(d.next), free(d.prev), free(first), free(kids), free(fill), free(qn), free(qs);
}

void ug_build(ug_model *m, int mode, uint32_t n, const char *const *text, const uint32_t *len, const double *score,
              const uint8_t *kind, uint32_t unk, int byte_fallback, const uint32_t *byte_id, double unk_score,
              float max_score) {
    memset(m, 0, sizeof *m);
    m->mode = mode;
    m->n = n;
    m->unk = unk;
    m->byte_fallback = byte_fallback;
    memcpy(m->byte_id, byte_id, sizeof m->byte_id);
    m->unk_score = unk_score;
    m->max_score = max_score;
    m->own_score = cal_xmalloc((n ? n : 1) * sizeof *m->own_score);
    m->own_kind = cal_xmalloc(n ? n : 1);
    memcpy(m->own_score, score, n * sizeof *score);
    memcpy(m->own_kind, kind, n);
    m->score = m->own_score;
    m->kind = m->own_kind;
    tmp_trie t = {{0}, 1};
    th_mergemap_init(&t.edges, (size_t)n * 4);
    for (uint32_t id = 0; id < n; id++)
        if (kind[id] != UG_K_OUT && len[id]) tmp_insert(&t, text[id], len[id], id);
    da_layout(m, &t);
    th_mergemap_free(&t.edges);
}

void ug_free(ug_model *m) {
    free(m->own_score);
    free(m->own_kind);
    free(m->own_slot);
    memset(m, 0, sizeof *m);
}

uint32_t ug_lookup(const ug_model *m, const char *s, size_t n) {
    uint32_t node = 0, id = UG_NONE;
    for (size_t i = 0; i < n; i++) {
        node = ug_child(m, node, (uint8_t)s[i], &id);
        if (!node) return UG_NONE;
    }
    return n ? id : UG_NONE;
}

void ug_scratch_free(ug_scratch *sc) {
    free(sc->node);
    free(sc->path);
    memset(sc, 0, sizeof *sc);
}

/* SentencePiece's string_util::OneCharLen: a character's length from its
 * lead byte (a stray continuation byte counts as one). */
static inline size_t one_char_len(uint8_t b) { return (size_t)"\1\1\1\1\1\1\1\1\1\1\1\1\2\2\3\4"[b >> 4]; }

typedef struct { float best; int32_t start; uint32_t id; } spm_node;
typedef struct { double best; int32_t start; uint32_t id; } hf_node;

static void *room(ug_scratch *sc, size_t bytes) {
    if (bytes > sc->cap) {
        free(sc->node);
        sc->cap = bytes + bytes / 4;
        sc->node = cal_xmalloc(sc->cap);
    }
    return sc->node;
}

/* The Viterbi pass of SentencePiece (float best scores, see unigram.h). */
static void viterbi_spm(const ug_model *m, const char *s, size_t n, spm_node *nd) {
    for (size_t i = 0; i <= n; i++) nd[i] = (spm_node){0.0f, -1, UG_NONE};
    const float unk_score = (float)m->unk_score;
    for (size_t p = 0; p < n;) {
        const float till = nd[p].best;
        size_t mblen = one_char_len((uint8_t)s[p]);
        if (mblen > n - p) mblen = n - p;
        int single = 0;
        uint32_t node = 0;
        for (size_t k = p; k < n;) {
            uint32_t id;
            node = ug_child(m, node, (uint8_t)s[k], &id);
            if (!node) break;
            k++;
            if (id == UG_NONE || m->kind[id] == UG_K_UNUSED) continue;
            size_t length = k - p;
            double score = m->kind[id] == UG_K_USER ? (double)((float)length * m->max_score) - 0.1 : m->score[id];
            double cand = score + (double)till;
            spm_node *t = &nd[k];
            if (t->start == -1 || cand > (double)t->best) *t = (spm_node){(float)cand, (int32_t)p, id};
            if (length == mblen) single = 1;
        }
        if (!single) {
            spm_node *t = &nd[p + mblen];
            float cand = unk_score + till;
            if (t->start == -1 || cand > t->best) *t = (spm_node){cand, (int32_t)p, m->unk};
        }
        p += mblen;
    }
}

/* The Viterbi pass of the Rust tokenizers (double throughout). A copy of
 * viterbi_spm's loop on purpose: the two differ in every line that does
 * arithmetic, and one loop with a mode test inside it costs both. */
static void viterbi_hf(const ug_model *m, const char *s, size_t n, hf_node *nd) {
    for (size_t i = 0; i <= n; i++) nd[i] = (hf_node){0.0, -1, UG_NONE};
    for (size_t p = 0; p < n;) {
        const double till = nd[p].best;
        size_t mblen = one_char_len((uint8_t)s[p]);
        if (mblen > n - p) mblen = n - p;
        int single = 0;
        uint32_t node = 0;
        for (size_t k = p; k < n;) {
            uint32_t id;
            node = ug_child(m, node, (uint8_t)s[k], &id);
            if (!node) break;
            k++;
            if (id == UG_NONE) continue;
            double cand = m->score[id] + till;
            hf_node *t = &nd[k];
            if (t->start == -1 || cand > t->best) *t = (hf_node){cand, (int32_t)p, id};
            if (k - p == mblen) single = 1;
        }
        if (!single) {
            hf_node *t = &nd[p + mblen];
            double cand = m->unk_score + till;
            if (t->start == -1 || cand > t->best) *t = (hf_node){cand, (int32_t)p, m->unk};
        }
        p += mblen;
    }
}

/* The path's node ends, first to last, into sc->path; returns how many. */
static size_t backtrack(ug_scratch *sc, size_t n, const void *nodes, size_t stride, size_t start_at) {
    size_t k = 0;
    for (size_t e = n; e > 0;) {
        int32_t start;
        memcpy(&start, (const char *)nodes + e * stride + start_at, sizeof start);
        if (k == sc->pcap) {
            sc->pcap = sc->pcap ? 2 * sc->pcap : 256;
            sc->path = cal_xrealloc(sc->path, sc->pcap * sizeof *sc->path);
        }
        sc->path[k++] = (uint32_t)e;
        e = (size_t)start;
    }
    for (size_t i = 0; i < k / 2; i++) {
        uint32_t x = sc->path[i];
        sc->path[i] = sc->path[k - 1 - i];
        sc->path[k - 1 - i] = x;
    }
    return k;
}

int ug_encode(const ug_model *m, const char *s, size_t n, ug_scratch *sc, cal_ids *out, char *err, size_t errlen) {
    if (!n) return 0;
    if (n >= INT32_MAX) return cal_errf(err, errlen, "a text of %zu bytes: the unigram search takes at most 2 GiB", n);
    if (m->mode == UG_SPM) {
        spm_node *nd = room(sc, (n + 1) * sizeof *nd);
        viterbi_spm(m, s, n, nd);
        size_t k = backtrack(sc, n, nd, sizeof *nd, offsetof(spm_node, start));
        int prev_unk = 0;
        for (size_t i = 0; i < k; i++) {
            const spm_node *x = &nd[sc->path[i]];
            int is_unk = x->id == m->unk;
            if (is_unk && m->byte_fallback) {
                for (size_t b = (size_t)x->start; b < sc->path[i]; b++) cal_ids_push(out, m->byte_id[(uint8_t)s[b]]);
            } else if (!(is_unk && prev_unk)) cal_ids_push(out, x->id);
            prev_unk = is_unk;
        }
        return 0;
    }
    hf_node *nd = room(sc, (n + 1) * sizeof *nd);
    viterbi_hf(m, s, n, nd);
    size_t k = backtrack(sc, n, nd, sizeof *nd, offsetof(hf_node, start));
    if (m->unk == UG_NONE) /* a character no piece covers, and no unknown token */
        for (size_t i = 0; i < k; i++)
            if (nd[sc->path[i]].id == UG_NONE)
                return cal_errf(err, errlen, "the unigram model has no unknown token for a character it lacks");
    for (size_t i = 0; i < k;) {
        const hf_node *x = &nd[sc->path[i]];
        if (m->unk == UG_NONE || x->id != m->unk) {
            cal_ids_push(out, x->id);
            i++;
            continue;
        }
        /* a run of unknown nodes: one string */
        size_t a = (size_t)x->start, j = i;
        while (j < k && nd[sc->path[j]].id == m->unk) j++;
        size_t b = sc->path[j - 1];
        i = j;
        uint32_t id = ug_lookup(m, s + a, b - a);
        if (id != UG_NONE) {
            cal_ids_push(out, id);
            continue;
        }
        int bytes = m->byte_fallback;
        for (size_t q = a; q < b && bytes; q++) bytes = m->byte_id[(uint8_t)s[q]] != UG_NONE;
        if (bytes) {
            for (size_t q = a; q < b; q++) cal_ids_push(out, m->byte_id[(uint8_t)s[q]]);
        } else cal_ids_push(out, m->unk);
    }
    return 0;
}

/* ---- image ---- */

enum { U_MODE, U_N, U_UNK, U_BF, U_UNKSCORE, U_MAXSCORE, U_COUNT };
_Static_assert(U_COUNT + 256 == UG_IMAGE_NUMS, "UG_IMAGE_NUMS");

void ug_image_parts(const ug_model *m, tok_image_parts *w, uint32_t tag0, uint64_t *num) {
    uint64_t us, ms;
    memcpy(&us, &m->unk_score, 8);
    double mx = m->max_score;
    memcpy(&ms, &mx, 8);
    uint64_t v[U_COUNT] = {[U_MODE] = (uint64_t)m->mode, [U_N] = m->n, [U_UNK] = m->unk,
                           [U_BF] = (uint64_t)m->byte_fallback, [U_UNKSCORE] = us, [U_MAXSCORE] = ms};
    memcpy(num, v, sizeof v);
    for (int c = 0; c < 256; c++) num[U_COUNT + c] = m->byte_id[c];
    tok_image_add(w, tag0, 8, num, UG_IMAGE_NUMS);
    tok_image_add(w, tag0 + 1, 8, m->score, m->n);
    tok_image_add(w, tag0 + 2, 1, m->kind, m->n);
    tok_image_add(w, tag0 + 3, sizeof *m->slot, m->slot, m->nslot);
}

int ug_image_restore(ug_model *m, const tok_image *im, uint32_t tag0, char *err, size_t errlen) {
    memset(m, 0, sizeof *m);
    uint64_t nn, ns, nk, nslot;
    const uint64_t *num = tok_image_get(im, tag0, 8, &nn);
    const double *score = tok_image_get(im, tag0 + 1, 8, &ns);
    const uint8_t *kind = tok_image_get(im, tag0 + 2, 1, &nk);
    const struct ug_slot *slot = tok_image_get(im, tag0 + 3, sizeof *slot, &nslot);
    if (!num || nn != UG_IMAGE_NUMS || !slot || !nslot || nslot >= UG_NONE)
        return cal_errf(err, errlen, "its unigram sections do not fit together");
    uint64_t n = num[U_N];
    int bad = num[U_MODE] > UG_HF || n >= UG_NONE || ns != n || nk != n || (n && (!score || !kind)) ||
              (num[U_UNK] != UG_NONE && num[U_UNK] >= n);
    for (uint64_t i = 0; i < nk && !bad; i++) bad = kind[i] > UG_K_OUT;
    for (int c = 0; c < 256 && !bad; c++) {
        uint64_t b = num[U_COUNT + c];
        bad = (b != UG_NONE && b >= n) || (num[U_BF] && num[U_MODE] == UG_SPM && b >= n);
    }
    /* lookups bound t by nslot; what they return must be a piece */
    for (uint64_t i = 0; i < nslot && !bad; i++) bad = slot[i].id != UG_NONE && slot[i].id >= n;
    if (bad) return cal_errf(err, errlen, "its unigram sections are out of bounds");
    m->mode = (int)num[U_MODE];
    m->n = (uint32_t)n;
    m->unk = (uint32_t)num[U_UNK];
    m->byte_fallback = num[U_BF] != 0;
    memcpy(&m->unk_score, &num[U_UNKSCORE], 8);
    double mx;
    memcpy(&mx, &num[U_MAXSCORE], 8);
    m->max_score = (float)mx;
    for (int c = 0; c < 256; c++) m->byte_id[c] = (uint32_t)num[U_COUNT + c];
    m->score = score;
    m->kind = kind;
    m->slot = slot;
    m->nslot = (size_t)nslot;
    return 0;
}
