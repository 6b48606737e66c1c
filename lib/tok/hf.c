/* tok_hf.c - the encode pipeline (added tokens, normalizers,
 * pre-tokenizers, BPE, template) and decode, as the reference runs them.
 *
 * Added tokens: leftmost-longest matches over all added tokens; without
 * CAL_TOK_PARSE_SPECIAL a special token's match is skipped (its text stays
 * ordinary text, and it still hides overlapping shorter matches), which is
 * the reference with encode_special_tokens=true. Non-normalized tokens are
 * cut from the raw text, then each gap is normalized and normalized tokens
 * are cut from it. */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/utf8.h"
#include "tok/hf_int.h"
#include "tok/unicode.h"

typedef struct { size_t off, len; } rng;

typedef struct {
    const tok_hf *t;
    unsigned flags;
    th_scratch *sc;
    pcre2_match_data *md;
    cal_ids *out;
    char *err;
    size_t errlen;
    size_t gap_off;  /* offset of the current gap in the input (Metaspace "first") */
    rng *r[2]; size_t rcap[2];
} enc;

static void rpush(enc *e, int w, size_t *n, size_t off, size_t len)
{
    if (!len) return;
    if (*n == e->rcap[w]) { e->rcap[w] = e->rcap[w] ? e->rcap[w] * 2 : 256; e->r[w] = cal_xrealloc(e->r[w], e->rcap[w] * sizeof(rng)); }
    e->r[w][(*n)++] = (rng){ off, len };
}

/* added tokens' lstrip/rstrip: the regex crate's \s (White_Space) */
static int ws_char(int32_t c) { return (tu_props(c) & TU_SPACE) != 0; }

/* the Digits pre-tokenizer: Rust's char::is_numeric (17.0) */
static int is_numeric(int32_t c) { return (tu_props(c) & TU_NUMERIC17) != 0; }

/* Splits s[a..a+n) by the pieces the behaviour makes of its matches. */
typedef struct { size_t s, e; int m; } piece;

static int split_one(enc *e, const th_pretok *pt, const char *s, size_t a, size_t n, size_t *on, piece **pv, size_t *pcap)
{
    size_t np = 0, prev = 0, ms, me, from = 0;
    const char *sub = s + a;
#define PUSHP(S, E, M) do { if (np == *pcap) { *pcap = *pcap ? *pcap * 2 : 64; *pv = cal_xrealloc(*pv, *pcap * sizeof **pv); } \
                            (*pv)[np++] = (piece){ (S), (E), (M) }; } while (0)
    if (pt->kind == TH_PT_DIGITS) {
        for (size_t i = 0; i < n;) {
            int32_t c;
            size_t k = cal_utf8_next(sub, n, i, &c);
            if (is_numeric(c)) { if (prev != i) PUSHP(prev, i, 0); PUSHP(i, i + k, 1); prev = i + k; }
            i += k;
        }
    } else {
        int rc;
        while (from <= n && (rc = th_pattern_next(&pt->pat, e->md, sub, n, from, &ms, &me)) != 0) {
            if (rc < 0) {
                th_pattern_error(e->t, &pt->pat, rc, e->err, e->errlen);
                return -1;
            }
            if (prev != ms) PUSHP(prev, ms, 0);
            PUSHP(ms, me, 1);
            prev = me;
            if (me == ms) { /* empty match: advance one character */
                if (ms >= n) break;
                int32_t c;
                from = ms + cal_utf8_next(sub, n, ms, &c);
            } else from = me;
        }
    }
    if (prev < n) PUSHP(prev, n, 0);
#undef PUSHP
    int beh = pt->kind == TH_PT_DIGITS ? (pt->individual ? TH_SPLIT_ISOLATED : TH_SPLIT_CONTIG)
            : pt->kind == TH_PT_BYTELEVEL ? TH_SPLIT_ISOLATED : pt->behavior;
    piece *p = *pv;
    if (pt->kind == TH_PT_SPLIT && pt->invert)
        for (size_t i = 0; i < np; i++) p[i].m = !p[i].m;
    /* fold as the reference does, into p[0..k) */
    size_t k = 0;
    int prevm = 0;
    switch (beh) {
    case TH_SPLIT_REMOVED:
        for (size_t i = 0; i < np; i++) if (!p[i].m) p[k++] = p[i];
        break;
    case TH_SPLIT_ISOLATED:
        k = np;
        break;
    case TH_SPLIT_PREV:
        for (size_t i = 0; i < np; i++) {
            if (p[i].m && !prevm && k) p[k - 1].e = p[i].e;
            else p[k++] = p[i];
            prevm = p[i].m;
        }
        break;
    case TH_SPLIT_CONTIG:
        for (size_t i = 0; i < np; i++) {
            int m = p[i].m;
            if (m == prevm && k) p[k - 1].e = p[i].e;
            else p[k++] = p[i];
            prevm = m;
        }
        break;
    case TH_SPLIT_NEXT: {
        /* from the right: a match joins the piece after it */
        size_t w = np;
        for (size_t i = np; i-- > 0;) {
            if (p[i].m && !prevm && w < np) p[w].s = p[i].s;
            else p[--w] = p[i];
            prevm = p[i].m;
        }
        memmove(p, p + w, (np - w) * sizeof *p);
        k = np - w;
        break;
    }
    }
    for (size_t i = 0; i < k; i++) rpush(e, 1, on, a + p[i].s, p[i].e - p[i].s);
    return 0;
}

/* The scanner of a pipeline that is one Split by a hand-written scanner
 * keeping its matches (*keep_gaps: and the text between them), which can
 * feed the model directly; TH_RE_PCRE when the pipeline is not that. */
static int fused_scanner(const tok_hf *t, int *keep_gaps)
{
    const th_pretok *sp = NULL;
    for (size_t k = 0; k < t->npre; k++) {
        const th_pretok *pt = &t->pre[k];
        if (pt->kind == TH_PT_BYTELEVEL && !pt->add_prefix_space && !pt->use_regex) continue; /* no-op */
        if (sp) return TH_RE_PCRE;
        sp = pt;
    }
    if (!sp || !sp->pat.is_regex) return TH_RE_PCRE;
    if (sp->kind == TH_PT_SPLIT && sp->behavior == TH_SPLIT_ISOLATED) *keep_gaps = 1;
    else if (sp->kind == TH_PT_SPLIT && sp->behavior == TH_SPLIT_REMOVED && sp->invert) *keep_gaps = 0;
    else if (sp->kind == TH_PT_BYTELEVEL && !sp->add_prefix_space) *keep_gaps = 1;
    else return TH_RE_PCRE;
    return sp->pat.scanner;
}

/* Runs the pre-tokenizers and the model over one normalized piece. */
static int pretok_model(enc *e, const char *s, size_t len, int first_piece)
{
    const tok_hf *t = e->t;
    int keep_gaps, scanner = fused_scanner(t, &keep_gaps);
    if (scanner != TH_RE_PCRE) {
        th_bpe_scan(t, e->sc, scanner, keep_gaps, s, len, e->out);
        return 0;
    }
    size_t n = 0, on;
    cal_buf own = { 0 }; /* text rebuilt by a modifying pre-tokenizer */
    th_bufs *bf = th_scratch_bufs(e->sc);
    piece *pv = bf->pv;
    size_t pcap = bf->pcap;
    rpush(e, 0, &n, 0, len);
    for (size_t k = 0; k < t->npre; k++) {
        const th_pretok *pt = &t->pre[k];
        on = 0;
        if (pt->kind == TH_PT_BYTELEVEL && !pt->add_prefix_space && !pt->use_regex) continue;
        if (pt->kind == TH_PT_BYTELEVEL || pt->kind == TH_PT_METASPACE) {
            /* rebuild the text: each split may be changed */
            cal_buf nb = { 0 };
            for (size_t i = 0; i < n; i++) {
                const char *q = s + e->r[0][i].off;
                size_t ql = e->r[0][i].len, start = nb.n;
                if (pt->kind == TH_PT_BYTELEVEL) {
                    if (pt->add_prefix_space && q[0] != ' ') cal_buf_addc(&nb, ' ');
                    cal_buf_add(&nb, q, ql);
                } else {
                    int pre = pt->prepend == 2 || (pt->prepend == 1 && first_piece && e->r[0][i].off == 0);
                    /* spaces are replaced first, then the prefix goes where the result does not start with it */
                    if (pre && ql && q[0] != ' ' && !(ql >= pt->repl_len && !memcmp(q, pt->repl, pt->repl_len)))
                        cal_buf_add(&nb, pt->repl, pt->repl_len);
                    for (size_t j = 0; j < ql; j++) {
                        if (q[j] == ' ') cal_buf_add(&nb, pt->repl, pt->repl_len);
                        else cal_buf_addc(&nb, q[j]);
                    }
                }
                e->r[0][i].off = start;
                e->r[0][i].len = nb.n - start;
            }
            cal_buf_free(&own);
            own = nb;
            s = own.p;
            if (pt->kind == TH_PT_METASPACE && !pt->split) continue;
            if (pt->kind == TH_PT_BYTELEVEL && !pt->use_regex) continue;
            if (pt->kind == TH_PT_METASPACE) {
                th_pretok sp;
                memset(&sp, 0, sizeof sp);
                sp.kind = TH_PT_SPLIT;
                sp.pat.lit = (char *)pt->repl; sp.pat.lit_len = pt->repl_len;
                sp.behavior = TH_SPLIT_NEXT;
                for (size_t i = 0; i < n; i++) (void)split_one(e, &sp, s, e->r[0][i].off, e->r[0][i].len, &on, &pv, &pcap);
                goto swap;
            }
        }
        for (size_t i = 0; i < n; i++)
            if (split_one(e, pt, s, e->r[0][i].off, e->r[0][i].len, &on, &pv, &pcap)) {
                bf->pv = pv;
                bf->pcap = pcap;
                cal_buf_free(&own);
                return -1;
            }
    swap: {
            rng *tr = e->r[0]; e->r[0] = e->r[1]; e->r[1] = tr;
            size_t tc = e->rcap[0]; e->rcap[0] = e->rcap[1]; e->rcap[1] = tc;
            n = on;
        }
    }
    bf->pv = pv;
    bf->pcap = pcap;
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++)
        rc = th_bpe(t, e->sc, s + e->r[0][i].off, e->r[0][i].len, e->out, e->err, e->errlen);
    cal_buf_free(&own);
    return rc;
}

/* the reference's ends_with_word/starts_with_word: the regex crate's \w */
static int is_word_char(int32_t c) { return tu_regex_word(c); }

typedef int (*gap_fn)(enc *e, const char *s, size_t len, size_t off);

/* Cuts added tokens out of s (leftmost-longest), calling gap() for the text
 * between them. */
static int cut_added(enc *e, const th_trie *tr, const char *s, size_t len, gap_fn gap, size_t base)
{
    const tok_hf *t = e->t;
    int parse_special = (e->flags & CAL_TOK_PARSE_SPECIAL) != 0;
    size_t start_off = 0, i = 0;
    int only = -1; /* the one byte every added token starts with (memchr finds it), or -2 */
    for (int b = 0; b < 256 && only != -2; b++)
        if (tr->first[b]) only = only == -1 ? b : -2;
    while (i < len) {
        if (!tr->first[(unsigned char)s[i]]) {
            if (only < 0) { i++; continue; }
            const char *q = memchr(s + i, only, len - i);
            if (!q) break;
            i = (size_t)(q - s);
        }
        uint32_t cur = 0, best = TH_NONE;
        size_t best_end = 0;
        for (size_t j = i; j < len; j++) {
            const struct th_merge *ed = th_mergemap_get(&tr->edges, cur, (unsigned char)s[j]);
            if (!ed || ed->rank >= tr->nn) break; /* bounded: a prepared image may be forged */
            cur = ed->rank;
            if (tr->node[cur].tok < t->nadded) { best = tr->node[cur].tok; best_end = j + 1; }
        }
        if (best == TH_NONE) { i++; continue; }
        const th_added *a = &t->added[best];
        size_t ms = i, me = best_end;
        i = best_end; /* the match is consumed even when it is skipped below */
        if (a->special && !parse_special) continue;
        if (a->single_word) {
            int32_t c = 0;
            int sw = ms == 0, ew = me == len;
            if (!sw) { size_t j = ms - 1; while (j > 0 && ((unsigned char)s[j] & 0xC0) == 0x80) j--; cal_utf8_next(s, len, j, &c); sw = !is_word_char(c); }
            if (!ew) { cal_utf8_next(s, len, me, &c); ew = !is_word_char(c); }
            if (!sw || !ew) continue;
        }
        if (a->lstrip) {
            size_t j = ms;
            while (j > start_off) {
                size_t k = j - 1;
                while (k > start_off && ((unsigned char)s[k] & 0xC0) == 0x80) k--;
                int32_t c; cal_utf8_next(s, len, k, &c);
                if (!ws_char(c)) break;
                j = k;
            }
            ms = j;
        }
        if (a->rstrip) {
            while (me < len) { int32_t c; size_t k = cal_utf8_next(s, len, me, &c); if (!ws_char(c)) break; me += k; }
            i = me;
        }
        if (start_off < ms && gap(e, s + start_off, ms - start_off, base + start_off)) return -1;
        cal_ids_push(e->out, a->id);
        start_off = me;
    }
    if (start_off < len && gap(e, s + start_off, len - start_off, base + start_off)) return -1;
    return 0;
}

static int norm_gap(enc *e, const char *s, size_t len, size_t off)
{
    return pretok_model(e, s, len, off == 0 && e->gap_off == 0);
}

static int raw_gap(enc *e, const char *s, size_t len, size_t off)
{
    const tok_hf *t = e->t;
    e->gap_off = off;
    if (!t->nnorm) {
        if (t->has_norm) return cut_added(e, &t->trie_norm, s, len, norm_gap, 0);
        return pretok_model(e, s, len, off == 0);
    }
    char *nz;
    size_t nn;
    if (th_norm_quick_kind(t) ? th_norm_quick(t, s, len, &nz, &nn, e->err, e->errlen)
                              : th_normalize(t, s, len, &nz, &nn, e->err, e->errlen))
        return -1;
    if (!nz) nn = len; /* th_norm_quick: already normal */
    const char *z = nz ? nz : s;
    int rc = t->has_norm ? cut_added(e, &t->trie_norm, z, nn, norm_gap, 0) : pretok_model(e, z, nn, off == 0);
    free(nz);
    return rc;
}

int tok_hf_encode(const tok_hf *t, const char *text, size_t len, unsigned flags, cal_ids *caller_out, char *err, size_t errlen)
{
    /* Ids go to a copy of the caller's array header, stored back once at the
     * end: the header may share a cache line with another thread's (the
     * batches of cal-encode's pool), and it changes with every token. */
    cal_ids local = *caller_out, *out = &local;
    size_t fixed_len;
    char *fixed = cal_utf8_repaired(text, len, &fixed_len);
    if (fixed) { text = fixed; len = fixed_len; }
    enc e;
    memset(&e, 0, sizeof e);
    e.t = t; e.flags = flags; e.out = out; e.err = err; e.errlen = errlen;
    e.sc = th_scratch_get(t);
    th_bufs *bf = th_scratch_bufs(e.sc);
    if (!bf->md) bf->md = pcre2_match_data_create(32, NULL); /* serves every PCRE2 pattern */
    e.md = bf->md;
    e.r[0] = bf->r[0]; e.r[1] = bf->r[1];
    e.rcap[0] = bf->rcap[0]; e.rcap[1] = bf->rcap[1];
    if (flags & CAL_TOK_ADD_SPECIAL) for (size_t i = 0; i < t->ntmpl_pre; i++) cal_ids_push(out, t->tmpl_pre[i]);
    int rc = t->has_raw ? cut_added(&e, &t->trie_raw, text, len, raw_gap, 0) : (len ? raw_gap(&e, text, len, 0) : 0);
    if (flags & CAL_TOK_ADD_SPECIAL) for (size_t i = 0; i < t->ntmpl_post; i++) cal_ids_push(out, t->tmpl_post[i]);
    bf->r[0] = e.r[0]; bf->r[1] = e.r[1];
    bf->rcap[0] = e.rcap[0]; bf->rcap[1] = e.rcap[1];
    free(fixed);
    *caller_out = local;
    return rc;
}
