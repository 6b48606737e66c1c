/* unigram.c - the Viterbi segmentation of a unigram model (see unigram.h). */
#include "tok/unigram.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"

/* ---- the trie ---- */

static uint32_t child(const ug_model *m, uint32_t node, uint8_t c, uint32_t *id) {
    if (node == 0) {
        *id = m->root_id[c];
        return m->root_child[c];
    }
    const struct th_merge *e = th_mergemap_get(&m->edges, node, c);
    if (!e) return 0;
    *id = e->id;
    return e->rank;
}

static void insert(ug_model *m, const char *s, uint32_t len, uint32_t id) {
    uint32_t node = 0;
    for (uint32_t i = 0; i < len; i++) {
        uint8_t c = (uint8_t)s[i];
        uint32_t pid, next = child(m, node, c, &pid);
        int last = i + 1 == len;
        if (!next) {
            next = m->nnodes++;
            pid = UG_NONE;
            if (node == 0) m->root_child[c] = next, m->root_id[c] = UG_NONE;
        }
        if (last) pid = id; /* a repeated text: the last id wins */
        if (node == 0) m->root_id[c] = pid;
        else th_mergemap_put(&m->edges, node, c, next, pid);
        node = next;
    }
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
    m->nnodes = 1;
    m->own_edges = 1;
    th_mergemap_init(&m->edges, (size_t)n * 4);
    for (uint32_t id = 0; id < n; id++)
        if (kind[id] != UG_K_OUT && len[id]) insert(m, text[id], len[id], id);
}

void ug_free(ug_model *m) {
    free(m->own_score);
    free(m->own_kind);
    if (m->own_edges) th_mergemap_free(&m->edges);
    memset(m, 0, sizeof *m);
}

uint32_t ug_lookup(const ug_model *m, const char *s, size_t n) {
    uint32_t node = 0, id = UG_NONE;
    for (size_t i = 0; i < n; i++) {
        node = child(m, node, (uint8_t)s[i], &id);
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
            node = child(m, node, (uint8_t)s[k], &id);
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

/* The Viterbi pass of the Rust tokenizers (double throughout). */
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
            node = child(m, node, (uint8_t)s[k], &id);
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
static size_t backtrack(ug_scratch *sc, size_t n, const void *nodes, size_t stride) {
    size_t k = 0;
    for (size_t e = n; e > 0;) {
        const int32_t *start = (const int32_t *)((const char *)nodes + e * stride + (stride == sizeof(spm_node) ? 4 : 8));
        if (k == sc->pcap) {
            sc->pcap = sc->pcap ? 2 * sc->pcap : 256;
            sc->path = cal_xrealloc(sc->path, sc->pcap * sizeof *sc->path);
        }
        sc->path[k++] = (uint32_t)e;
        e = (size_t)*start;
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
        size_t k = backtrack(sc, n, nd, sizeof *nd);
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
    size_t k = backtrack(sc, n, nd, sizeof *nd);
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

enum { U_MODE, U_N, U_UNK, U_BF, U_UNKSCORE, U_MAXSCORE, U_NNODES, U_SHIFT, U_EDGES_N, U_COUNT };

_Static_assert(U_COUNT + 256 * 3 == UG_IMAGE_NUMS, "UG_IMAGE_NUMS");

void ug_image_parts(const ug_model *m, tok_image_parts *w, uint32_t tag0, uint64_t *num) {
    uint64_t us, ms;
    memcpy(&us, &m->unk_score, 8);
    double mx = m->max_score;
    memcpy(&ms, &mx, 8);
    uint64_t v[U_COUNT] = {[U_MODE] = (uint64_t)m->mode, [U_N] = m->n, [U_UNK] = m->unk,
                           [U_BF] = (uint64_t)m->byte_fallback, [U_UNKSCORE] = us, [U_MAXSCORE] = ms,
                           [U_NNODES] = m->nnodes, [U_SHIFT] = m->edges.shift, [U_EDGES_N] = m->edges.n};
    memcpy(num, v, sizeof v);
    for (int c = 0; c < 256; c++) {
        num[U_COUNT + c] = m->byte_id[c];
        num[U_COUNT + 256 + c] = m->root_child[c];
        num[U_COUNT + 512 + c] = m->root_id[c];
    }
    tok_image_add(w, tag0, 8, num, U_COUNT + 256 * 3);
    tok_image_add(w, tag0 + 1, 8, m->score, m->n);
    tok_image_add(w, tag0 + 2, 1, m->kind, m->n);
    tok_image_add(w, tag0 + 3, sizeof *m->edges.slot, m->edges.slot, m->edges.mask + 1);
}

int ug_image_restore(ug_model *m, const tok_image *im, uint32_t tag0, char *err, size_t errlen) {
    memset(m, 0, sizeof *m);
    uint64_t nn, ns, nk, ne;
    const uint64_t *num = tok_image_get(im, tag0, 8, &nn);
    const double *score = tok_image_get(im, tag0 + 1, 8, &ns);
    const uint8_t *kind = tok_image_get(im, tag0 + 2, 1, &nk);
    const struct th_merge *slot = tok_image_get(im, tag0 + 3, sizeof *slot, &ne);
    if (!num || nn != U_COUNT + 256 * 3 || !slot || !ne || (ne & (ne - 1)))
        return cal_errf(err, errlen, "its unigram sections do not fit together");
    uint64_t n = num[U_N], nodes = num[U_NNODES];
    int bad = num[U_MODE] > UG_HF || n >= UG_NONE || ns != n || nk != n || (n && (!score || !kind)) ||
              (num[U_UNK] != UG_NONE && num[U_UNK] >= n) || nodes == 0 || nodes >= UG_NONE ||
              num[U_EDGES_N] > ne || 64 - num[U_SHIFT] >= 64 || (1ull << (64 - num[U_SHIFT])) != ne;
    for (uint64_t i = 0; i < nk && !bad; i++) bad = kind[i] > UG_K_OUT;
    for (int c = 0; c < 256 && !bad; c++) {
        uint64_t b = num[U_COUNT + c], ch = num[U_COUNT + 256 + c], id = num[U_COUNT + 512 + c];
        bad = (b != UG_NONE && b >= n) || (num[U_BF] && num[U_MODE] == UG_SPM && b >= n) || ch >= nodes ||
              (id != UG_NONE && id >= n);
    }
    for (uint64_t i = 0; i < ne && !bad; i++) {
        if (slot[i].key == UINT64_MAX) continue;
        uint64_t node = slot[i].key >> 32, c = slot[i].key & 0xffffffffu;
        bad = node == 0 || node >= nodes || c > 255 || slot[i].rank == 0 || slot[i].rank >= nodes ||
              (slot[i].id != UG_NONE && slot[i].id >= n);
    }
    if (bad) return cal_errf(err, errlen, "its unigram sections are out of bounds");
    m->mode = (int)num[U_MODE];
    m->n = (uint32_t)n;
    m->unk = (uint32_t)num[U_UNK];
    m->byte_fallback = num[U_BF] != 0;
    memcpy(&m->unk_score, &num[U_UNKSCORE], 8);
    double mx;
    memcpy(&mx, &num[U_MAXSCORE], 8);
    m->max_score = (float)mx;
    for (int c = 0; c < 256; c++) {
        m->byte_id[c] = (uint32_t)num[U_COUNT + c];
        m->root_child[c] = (uint32_t)num[U_COUNT + 256 + c];
        m->root_id[c] = (uint32_t)num[U_COUNT + 512 + c];
    }
    m->score = score;
    m->kind = kind;
    m->nnodes = (uint32_t)nodes;
    m->edges.slot = (struct th_merge *)(uintptr_t)slot;
    m->edges.mask = ne - 1;
    m->edges.n = (size_t)num[U_EDGES_N];
    m->edges.shift = (unsigned)num[U_SHIFT];
    return 0;
}
