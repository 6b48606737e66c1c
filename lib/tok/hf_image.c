/* hf_image.c - a loaded tokenizer.json engine (tok_hf) as the sections of
 * a prepared image (tok/image.h), and back.
 *
 * The large tables (the vocabulary map, the merge tables, the id texts, the
 * added tokens and their tries, the per-code-point ids, the NFC table) are
 * written as they are in memory and, when restored, used in place from the
 * read-only mapping; the small parts (normalizers, pre-tokenizers,
 * decoders: regexes to compile) are kept as the JSON they came from and
 * loaded again by hf_load.c. Restoring checks that the sections fit
 * together (sizes, hash-table shapes); the lookups that read them are
 * bounded (hf_map.c, hf_bpe.c, hf.c), so a forged image that passes the
 * checksums gives wrong ids at worst. */
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "tok/hf_int.h"

enum {
    SEC_NUM = 1, SEC_SMALL, SEC_BYTEID, SEC_CPID, SEC_SEGBAD, SEC_VSLOT, SEC_VENT, SEC_VPOOL, SEC_MERGES,
    SEC_IDOFF, SEC_IDLEN, SEC_IDPOOL, SEC_IDSPEC, SEC_ADDED, SEC_APOOL, SEC_TRAW_NODE, SEC_TRAW_EDGE,
    SEC_TRAW_FIRST, SEC_TNORM_NODE, SEC_TNORM_EDGE, SEC_TNORM_FIRST, SEC_TPRE, SEC_TPOST, SEC_NQ
};
enum {
    N_BYTE_LEVEL, N_IGNORE_MERGES, N_BYTE_FALLBACK, N_FUSE_UNK, N_UNK, N_SEG_OK, N_NIDS, N_MODEL_N, N_HAS_RAW,
    N_HAS_NORM, N_BOS, N_EOS, N_PAD, N_BOS_POST, N_EOS_POST, N_MAX_ADDED, N_MERGES_SHIFT, N_TRAW_SHIFT,
    N_TRAW_N, N_TNORM_SHIFT, N_TNORM_N, N_MERGES_N, N_SPM_TIES, N_COUNT
};

/* scalars kept between th_image_parts and the write */
static _Thread_local uint64_t num[N_COUNT];

static void add_trie(tok_image_parts *w, const th_trie *tr, uint32_t node, uint32_t edge, uint32_t first)
{
    tok_image_add(w, node, sizeof *tr->node, tr->node, tr->nn);
    tok_image_add(w, edge, sizeof *tr->edges.slot, tr->edges.slot, tr->edges.slot ? tr->edges.mask + 1 : 0);
    tok_image_add(w, first, 1, tr->first, 256);
}

void th_image_parts(const tok_hf *t, tok_image_parts *w)
{
    uint64_t v[N_COUNT] = {
        [N_BYTE_LEVEL] = (uint64_t)t->byte_level, [N_IGNORE_MERGES] = (uint64_t)t->ignore_merges,
        [N_BYTE_FALLBACK] = (uint64_t)t->byte_fallback, [N_FUSE_UNK] = (uint64_t)t->fuse_unk, [N_UNK] = t->unk_id,
        [N_SEG_OK] = (uint64_t)t->seg_ok, [N_NIDS] = t->nids, [N_MODEL_N] = t->model_n,
        [N_HAS_RAW] = (uint64_t)t->has_raw, [N_HAS_NORM] = (uint64_t)t->has_norm, [N_BOS] = (uint64_t)t->bos,
        [N_EOS] = (uint64_t)t->eos, [N_PAD] = (uint64_t)t->pad,
        [N_BOS_POST] = !strcmp(t->bos_from, "post_processor"), [N_EOS_POST] = !strcmp(t->eos_from, "post_processor"),
        [N_MAX_ADDED] = t->max_added, [N_MERGES_SHIFT] = t->merges.shift, [N_TRAW_SHIFT] = t->trie_raw.edges.shift,
        [N_TRAW_N] = t->trie_raw.nn, [N_TNORM_SHIFT] = t->trie_norm.edges.shift, [N_TNORM_N] = t->trie_norm.nn,
        [N_MERGES_N] = t->merges.slot && th_bpe_uses_merges(t) ? t->merges.n : 0, [N_SPM_TIES] = (uint64_t)t->spm_ties,
    };
    memcpy(num, v, sizeof num);
    tok_image_add(w, SEC_NUM, 8, num, N_COUNT);
    tok_image_add(w, SEC_SMALL, 1, t->small.p, t->small.n);
    tok_image_add(w, SEC_BYTEID, 4, t->byte_id, 256);
    tok_image_add(w, SEC_CPID, 4, t->cp_id, t->cp_id ? 0x10000 : 0);
    tok_image_add(w, SEC_SEGBAD, 4, t->seg_bad, t->nseg_bad);
    tok_image_add(w, SEC_VSLOT, 8, t->vocab.slot, t->vocab.mask + 1u);
    tok_image_add(w, SEC_VENT, sizeof *t->vocab.ent, t->vocab.ent, t->vocab.n);
    tok_image_add(w, SEC_VPOOL, 1, t->vocab.pool, t->vocab.pool_n);
    th_bpe_image_parts(t, w);
    /* the merge map only when the compact pair table could not hold them */
    int merges = t->merges.slot && th_bpe_uses_merges(t);
    tok_image_add(w, SEC_MERGES, sizeof *t->merges.slot, t->merges.slot, merges ? t->merges.mask + 1 : 0);
    tok_image_add(w, SEC_IDOFF, 4, t->id_off, t->nids);
    tok_image_add(w, SEC_IDLEN, 4, t->id_len, t->nids);
    tok_image_add(w, SEC_IDPOOL, 1, t->id_pool.p, t->id_pool.n);
    tok_image_add(w, SEC_IDSPEC, 1, t->id_special, t->nids);
    tok_image_add(w, SEC_ADDED, sizeof *t->added, t->added, t->nadded);
    tok_image_add(w, SEC_APOOL, 1, t->added_pool.p, t->added_pool.n);
    add_trie(w, &t->trie_raw, SEC_TRAW_NODE, SEC_TRAW_EDGE, SEC_TRAW_FIRST);
    add_trie(w, &t->trie_norm, SEC_TNORM_NODE, SEC_TNORM_EDGE, SEC_TNORM_FIRST);
    tok_image_add(w, SEC_TPRE, 4, t->tmpl_pre, t->ntmpl_pre);
    tok_image_add(w, SEC_TPOST, 4, t->tmpl_post, t->ntmpl_post);
    size_t nq = 0;
    const uint8_t *bits = th_norm_quick_bits(t, &nq);
    tok_image_add(w, SEC_NQ, 1, bits, bits ? nq : 0);
}

/* A hash table of count slots (a power of two) whose lookups take the top
 * `shift` bits: shift must agree, or an index would leave the table. */
static int shape_ok(uint64_t count, uint64_t shift)
{
    if (!count) return 1;
    if (count & (count - 1)) return 0;
    return shift == (uint64_t)(64 - __builtin_ctzll(count));
}

static int get_trie(const tok_image *im, th_trie *tr, uint32_t node, uint32_t edge, uint32_t first, uint64_t nn,
                    uint64_t shift, uint64_t nedges)
{
    uint64_t cn, ce, cf;
    const uint32_t *nodes = tok_image_get(im, node, sizeof *tr->node, &cn);
    const struct th_merge *edges = tok_image_get(im, edge, sizeof *tr->edges.slot, &ce);
    const uint8_t *firsts = tok_image_get(im, first, 1, &cf);
    if (!nodes || !edges || !firsts || cn != nn || !cn || cf != 256 || !ce || !shape_ok(ce, shift) || nedges > ce)
        return -1;
    tr->node = (struct th_tnode *)(uintptr_t)nodes;
    tr->nn = tr->ncap = (uint32_t)cn;
    tr->edges.slot = (struct th_merge *)(uintptr_t)edges;
    tr->edges.mask = ce - 1;
    tr->edges.n = (size_t)nedges;
    tr->edges.shift = (unsigned)shift;
    memcpy(tr->first, firsts, 256);
    return 0;
}

#define SEC(var, tag, elem, cnt) const void *var = tok_image_get(im, tag, elem, &cnt)

int th_image_restore(tok_hf *t, tok_image *im, char *err, size_t errlen)
{
    uint64_t n_num, n_small, n_byte, n_cp, n_seg, n_vslot, n_vent, n_vpool, n_merges, n_idoff, n_idlen, n_idpool,
        n_idspec, n_added, n_apool, n_tpre, n_tpost, n_nq;
    SEC(nump, SEC_NUM, 8, n_num);
    SEC(small, SEC_SMALL, 1, n_small);
    SEC(byte, SEC_BYTEID, 4, n_byte);
    SEC(cp, SEC_CPID, 4, n_cp);
    SEC(seg, SEC_SEGBAD, 4, n_seg);
    SEC(vslot, SEC_VSLOT, 8, n_vslot);
    SEC(vent, SEC_VENT, sizeof *t->vocab.ent, n_vent);
    SEC(vpool, SEC_VPOOL, 1, n_vpool);
    SEC(merges, SEC_MERGES, sizeof *t->merges.slot, n_merges);
    SEC(idoff, SEC_IDOFF, 4, n_idoff);
    SEC(idlen, SEC_IDLEN, 4, n_idlen);
    SEC(idpool, SEC_IDPOOL, 1, n_idpool);
    SEC(idspec, SEC_IDSPEC, 1, n_idspec);
    SEC(added, SEC_ADDED, sizeof *t->added, n_added);
    SEC(apool, SEC_APOOL, 1, n_apool);
    SEC(tpre, SEC_TPRE, 4, n_tpre);
    SEC(tpost, SEC_TPOST, 4, n_tpost);
    SEC(nq, SEC_NQ, 1, n_nq);
    const uint64_t *v = nump;
#define NEED(cond, what) do { if (!(cond)) { snprintf(err, errlen, "its tokenizer.json %s do not fit", what); return -1; } } while (0)
    NEED(v && n_num == N_COUNT && small && byte && n_byte == 256 && cp && seg && n_seg <= UINT32_MAX, "scalars");
    NEED(!n_cp || n_cp == 0x10000, "code point ids");
    NEED(v[N_BYTE_LEVEL] || n_cp, "code point ids");
    NEED(vslot && n_vslot && !(n_vslot & (n_vslot - 1)) && n_vslot <= (uint64_t)UINT32_MAX + 1 && vent &&
         n_vent <= UINT32_MAX && vpool, "vocabulary sections");
    NEED(merges && shape_ok(n_merges, v[N_MERGES_SHIFT]) && v[N_MERGES_N] <= n_merges, "merge sections");
    NEED(idoff && idlen && idpool && idspec && v[N_NIDS] <= UINT32_MAX && n_idoff == v[N_NIDS] &&
         n_idlen == v[N_NIDS] && n_idspec == v[N_NIDS], "id text sections");
    NEED(added && apool && tpre && tpost && nq && (!n_nq || n_nq == 0x110000 / 8), "added token sections");
#undef NEED
    t->byte_level = v[N_BYTE_LEVEL] != 0;
    t->ignore_merges = v[N_IGNORE_MERGES] != 0;
    t->byte_fallback = v[N_BYTE_FALLBACK] != 0;
    t->fuse_unk = v[N_FUSE_UNK] != 0;
    t->unk_id = (uint32_t)v[N_UNK];
    t->seg_ok = v[N_SEG_OK] != 0;
    t->nids = (uint32_t)v[N_NIDS];
    t->model_n = (uint32_t)v[N_MODEL_N];
    t->has_raw = v[N_HAS_RAW] != 0;
    t->has_norm = v[N_HAS_NORM] != 0;
    t->bos = (int64_t)v[N_BOS];
    t->eos = (int64_t)v[N_EOS];
    t->pad = (int64_t)v[N_PAD];
    t->bos_from = v[N_BOS_POST] ? "post_processor" : "token name";
    t->eos_from = v[N_EOS_POST] ? "post_processor" : "token name";
    t->max_added = (uint32_t)v[N_MAX_ADDED];
    t->spm_ties = v[N_SPM_TIES] != 0;
    memcpy(t->byte_id, byte, sizeof t->byte_id);
    t->cp_id = n_cp ? (uint32_t *)(uintptr_t)cp : NULL;
    t->seg_bad = (int32_t *)(uintptr_t)seg;
    t->nseg_bad = (size_t)n_seg;
    t->vocab.slot = (uint64_t *)(uintptr_t)vslot;
    t->vocab.mask = (uint32_t)(n_vslot - 1);
    t->vocab.ent = (struct th_ent *)(uintptr_t)vent;
    t->vocab.n = t->vocab.cap = (uint32_t)n_vent;
    t->vocab.pool = (char *)(uintptr_t)vpool;
    t->vocab.pool_n = t->vocab.pool_cap = (size_t)n_vpool;
    t->merges.slot = n_merges ? (struct th_merge *)(uintptr_t)merges : NULL;
    t->merges.mask = n_merges ? n_merges - 1 : 0;
    t->merges.n = (size_t)v[N_MERGES_N];
    t->merges.shift = (unsigned)v[N_MERGES_SHIFT];
    t->id_off = (uint32_t *)(uintptr_t)idoff;
    t->id_len = (uint32_t *)(uintptr_t)idlen;
    t->id_pool = (cal_buf){ (char *)(uintptr_t)idpool, (size_t)n_idpool, 0 };
    t->id_special = (uint8_t *)(uintptr_t)idspec;
    t->added = (th_added *)(uintptr_t)added;
    t->nadded = (size_t)n_added;
    t->added_pool = (cal_buf){ (char *)(uintptr_t)apool, (size_t)n_apool, 0 };
    if (get_trie(im, &t->trie_raw, SEC_TRAW_NODE, SEC_TRAW_EDGE, SEC_TRAW_FIRST, v[N_TRAW_N], v[N_TRAW_SHIFT], 0) ||
        get_trie(im, &t->trie_norm, SEC_TNORM_NODE, SEC_TNORM_EDGE, SEC_TNORM_FIRST, v[N_TNORM_N], v[N_TNORM_SHIFT], 0) ||
        th_bpe_image_restore(t, im)) {
        snprintf(err, errlen, "its tokenizer.json tables do not fit together");
        return -1;
    }
    /* the templates are small and replaced by set_template: copies */
    t->ntmpl_pre = (size_t)n_tpre;
    t->ntmpl_post = (size_t)n_tpost;
    t->tmpl_pre = cal_xmalloc((n_tpre ? n_tpre : 1) * 4);
    t->tmpl_post = cal_xmalloc((n_tpost ? n_tpost : 1) * 4);
    if (n_tpre) memcpy(t->tmpl_pre, tpre, n_tpre * 4);
    if (n_tpost) memcpy(t->tmpl_post, tpost, n_tpost * 4);
    th_strmap_init(&t->added_map, 0);
    th_strmap_init(&t->textmap, 0);
    if (th_load_components(t, small, (size_t)n_small, err, errlen)) return -1;
    if (n_nq && th_norm_quick_kind(t)) t->nq_bits = nq;
    return 0;
}

void tok_hf_image_parts(const tok_hf *t, tok_image_parts *w) { th_image_parts(t, w); }

tok_hf *tok_hf_from_image(tok_image *im, const char *path, char *err, size_t errlen)
{
    tok_hf *t = cal_xcalloc(1, sizeof *t);
    t->path = cal_xstrdup(path);
    t->image = cal_xmalloc(sizeof *t->image);
    *t->image = *im;
    memset(im, 0, sizeof *im);
    if (th_image_restore(t, t->image, err, errlen)) {
        tok_hf_free(t);
        return NULL;
    }
    return t;
}
