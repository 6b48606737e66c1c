/* pack_draw.c - the recipes that draw rows from the whole input: random
 * windows (GPTQ, optimum, lmdeploy), length-stratified document samples and
 * rows sorted by length.
 *
 * Their memory does not grow with the input. While the input is read
 * (pass 1), each kept document is logged in a spill (memory up to o.mem,
 * then a temporary file), and only what the draws need is counted: the
 * concatenation's length, each document's length (--per-doc, in a spill
 * too), the documents per length bucket. At the end the draws are made
 * exactly as they would be over the documents in memory; then one read of
 * the log (pass 2) gathers the drawn windows or picks the drawn documents.
 * Windows are drawn in batches whose rows fit in o.mem, one read of the log
 * per batch. --sort hands each document's row material to the external
 * sort (extsort.h), which spills the same way. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "rows/alloc.h"
#include "rows/pack_internal.h"

/* ---- the log of kept documents --------------------------------------------
 * A document: u64 id, u32 n, u8 label length, 3 zero bytes, the label padded
 * with zeros to a multiple of 4 bytes, n u32 ids (host order): every part at
 * a multiple of 4, so the ids are read in place, aligned. */
#define LOG_HEAD 16

typedef struct {
    uint64_t id;
    size_t n;
    const uint32_t *ids;
    char label[CAL_MAX_LABEL + 1];
} logged;

static size_t mem_of(const cal_packer *p) { return p->o.mem ? p->o.mem : CAL_PACK_MEM; }

static void log_doc(cal_packer *p, const uint32_t *ids, size_t n, uint64_t id, const char *label, size_t llen) {
    if (!p->log) p->log = cal_spill_new(mem_of(p));
    uint8_t head[LOG_HEAD + CAL_MAX_LABEL + 4] = {0};
    cal_st64(head, id);
    cal_st32(head + 8, (uint32_t)n);
    head[12] = (uint8_t)llen;
    memcpy(head + LOG_HEAD, label, llen);
    cal_spill_add(p->log, head, LOG_HEAD + ((llen + 3) & ~(size_t)3));
    cal_spill_add(p->log, ids, n * 4);
}

/* Pass 2: the kept documents again, from the first: the input read again
 * (filtered and wrapped as in pass 1), else the log. */
static void docs_start(cal_packer *p) {
    if (p->next) {
        p->rewind(p->rctx);
        p->reread = p->rekept = 0;
    } else if (p->log) {
        cal_spill_rewind(p->log);
    }
}

/* The next kept document, or 0 after the last. */
static int docs_next(cal_packer *p, logged *d) {
    if (p->next) {
        cal_pack_doc x;
        do
            if (p->reread == p->st.docs || !p->next(p->rctx, &x)) return 0;
        while (p->reread++, !cal_pack_passes(p, x.n));
        d->ids = x.ids, d->n = x.n;
        if (p->o.mode == CAL_PACK_WINDOW) {
            cal_pack_wrap(p, x.ids, x.n, p->o.per_doc || p->rekept == 0);
            d->ids = p->doc.v, d->n = p->doc.n;
        }
        p->rekept++;
        d->id = x.id;
        size_t llen = x.label_len > CAL_MAX_LABEL ? CAL_MAX_LABEL : x.label_len;
        memcpy(d->label, x.label, llen);
        d->label[llen] = 0;
        return 1;
    }
    const uint8_t *h = p->log ? cal_spill_next(p->log, LOG_HEAD) : NULL;
    if (!h) return 0;
    d->id = cal_ld64(h);
    d->n = cal_ld32(h + 8);
    size_t llen = h[12];
    if (llen) memcpy(d->label, cal_spill_next(p->log, (llen + 3) & ~(size_t)3), llen);
    d->label[llen] = 0;
    d->ids = d->n ? cal_spill_next(p->log, d->n * 4) : NULL;
    return 1;
}

/* The length bucket of a document of n tokens: the first bound >= n, else the last. */
static size_t bucket_of(const cal_packer *p, size_t n) {
    size_t b = 0;
    while (b + 1 < p->o.nstrata && n > p->o.strata[b]) b++;
    return b;
}

/* --sort's record: u64 id, u64 n0, u64 first, u8 label length, label, then
 * the ids [first, first + have) that any row of the document can take:
 * the first LENGTH (--truncate tail), or the last (head). */
#define SORT_HEAD 25

static void sort_hold(cal_packer *p, const uint32_t *ids, size_t n, uint64_t id, const char *label, size_t llen) {
    if (!p->sorted) p->sorted = cal_extsort_new(mem_of(p));
    size_t have = n < p->o.len ? n : p->o.len, first = p->o.truncate == 1 ? n - have : 0;
    cal_buf b = {0};
    cal_buf_reserve(&b, SORT_HEAD + llen + have * 4);
    cal_st64((uint8_t *)b.p, id);
    cal_st64((uint8_t *)b.p + 8, n);
    cal_st64((uint8_t *)b.p + 16, first);
    b.p[24] = (char)llen;
    memcpy(b.p + SORT_HEAD, label, llen);
    if (have) memcpy(b.p + SORT_HEAD + llen, ids + first, have * 4);
    /* ascending or descending length of the row's real tokens, BOS and EOS
     * of every row counted (as the peers sort rows they tokenized with
     * them), as a row holds it; ties keep input order */
    size_t real = n + (p->o.bos == CAL_POL_ROW || p->o.bos == CAL_POL_DOC) +
                  (p->o.eos == CAL_POL_ROW || p->o.eos == CAL_POL_DOC);
    if (real > p->o.len) real = p->o.len;
    uint64_t key = p->o.sort == 1 ? real : p->o.len - real;
    cal_extsort_add(p->sorted, key, b.p, SORT_HEAD + llen + have * 4);
    cal_buf_free(&b);
}

void cal_pack_hold(cal_packer *p, const uint32_t *ids, size_t n, uint64_t id, const char *label, size_t label_len) {
    if (p->o.sort) {
        sort_hold(p, ids, n, id, label, label_len);
        return;
    }
    if (!p->next) log_doc(p, ids, n, id, label, label_len);
    if (p->o.mode == CAL_PACK_WINDOW) {
        p->total += n;
        if (p->o.per_doc) {
            uint8_t l[4];
            if (!p->lens) p->lens = cal_spill_new(mem_of(p));
            cal_st32(l, (uint32_t)n);
            cal_spill_add(p->lens, l, 4);
        }
    } else {
        if (!p->counts) p->counts = cal_xcalloc(p->o.nstrata, sizeof *p->counts);
        p->counts[bucket_of(p, n)]++;
    }
}

void cal_pack_hold_free(cal_packer *p) {
    cal_spill_free(p->log);
    cal_spill_free(p->lens);
    free(p->counts);
    cal_extsort_free(p->sorted);
    p->log = p->lens = NULL;
    p->counts = NULL;
    p->sorted = NULL;
}

/* ---- windows ------------------------------------------------------------- */

/* Documents long enough for a window (length >= need): counted once per
 * need (rows differ in BOS/EOS, so at most three needs), with their
 * ordinals in a spill for calkit's draw among them. */
typedef struct {
    uint64_t need, n;
    cal_spill *ords; /* u64 ordinals */
} eligible;

typedef struct {
    eligible el[3];
    size_t nel;
} windows;

static uint32_t doc_len(cal_packer *p, uint64_t d) {
    uint8_t b[4];
    cal_spill_get_at(p->lens, 4 * d, b, 4);
    return cal_ld32(b);
}

static eligible *eligible_for(cal_packer *p, windows *w, uint64_t need) {
    for (size_t i = 0; i < w->nel; i++)
        if (w->el[i].need == need) return &w->el[i];
    eligible *e = &w->el[w->nel++];
    e->need = need;
    e->ords = cal_spill_new(mem_of(p));
    cal_spill_rewind(p->lens);
    const uint8_t *l;
    for (uint64_t d = 0; (l = cal_spill_next(p->lens, 4)); d++)
        if (cal_ld32(l) >= need) {
            uint8_t o[8];
            cal_st64(o, d);
            cal_spill_add(e->ords, o, 8);
            e->n++;
        }
    return e;
}

/* A document for a window (length >= need; some is). calkit's generator
 * draws among the long enough documents; a peer's draws among all and
 * redraws until one is (GPTQ's c4 loop), so its numbers follow the peer's
 * calls. */
static uint64_t draw_doc(cal_packer *p, eligible *e) {
    if (p->o.rng == CAL_RNG_CALKIT) {
        uint8_t o[8];
        cal_spill_get_at(e->ords, 8 * cal_anyrng_below(&p->rng, e->n), o, 8);
        return cal_ld64(o);
    }
    uint64_t d;
    do d = cal_anyrng_below(&p->rng, p->kept);
    while (doc_len(p, d) < e->need);
    return d;
}

typedef struct {
    uint64_t at;      /* the first token: in the concatenation, or in document `doc` (--per-doc) */
    uint64_t doc;     /* --per-doc: the document's ordinal */
    uint32_t c;       /* ids taken: the row less its BOS and EOS */
    int b, e;
    uint64_t id;      /* the row id, once its document is known */
    size_t label;     /* offset of its label in the batch's labels */
} window;

static const window *sort_w;
static int by_place(const void *x, const void *y) {
    const window *a = &sort_w[*(const size_t *)x], *b = &sort_w[*(const size_t *)y];
    if (a->doc != b->doc) return a->doc < b->doc ? -1 : 1;
    if (a->at != b->at) return a->at < b->at ? -1 : 1;
    return *(const size_t *)x < *(const size_t *)y ? -1 : 1;
}

/* Draws the next window (row r); 0, 1 when none can be drawn (with err set
 * unless --allow-short). */
static int draw_window(cal_packer *p, windows *ws, uint64_t r, window *w, char *err, size_t errlen) {
    uint64_t end = p->o.to_end ? 0 : 1;
    w->b = cal_pack_row_has(p, p->o.bos, r);
    w->e = cal_pack_row_has(p, p->o.eos, r);
    w->c = p->o.len - (uint32_t)w->b - (uint32_t)w->e;
    uint64_t c = w->c;
    if (p->o.per_doc) {
        eligible *e = p->kept ? eligible_for(p, ws, c + end) : NULL;
        if (!e || !e->n) {
            if (!p->o.allow_short)
                snprintf(err, errlen, "no document has %s %llu tokens; window --per-doc needs one (0 rows possible)",
                         end ? "more than" : "at least", (unsigned long long)c);
            return 1;
        }
        w->doc = draw_doc(p, e);
        /* GPTQ c4: i = randint(0, len - seqlen - 1) inside the document
         * (lmdeploy, --to-end: randint(0, len - seqlen)) */
        w->at = cal_anyrng_below(&p->rng, doc_len(p, w->doc) - c + 1 - end);
        return 0;
    }
    if (p->total < c + end) {
        if (!p->o.allow_short)
            snprintf(err, errlen, "input has %llu tokens; window mode needs at least %llu (0 rows possible)",
                     (unsigned long long)p->total, (unsigned long long)(c + end));
        return 1;
    }
    /* GPTQ wikitext2: i = randint(0, L - seqlen - 1) (lmdeploy: L - seqlen) */
    w->doc = 0;
    w->at = cal_anyrng_below(&p->rng, p->total - c + 1 - end);
    return 0;
}

/* Pass 2 for a batch: reads the log until every window of the batch has its
 * ids (in slot i: w[i].c ids), its row id and its label. */
static void gather(cal_packer *p, window *w, size_t nw, uint32_t *slots, cal_buf *labels) {
    size_t *order = cal_xmalloc(nw * sizeof *order), lo = 0;
    uint64_t last = 0; /* the concatenation: where the last window ends */
    for (size_t i = 0; i < nw; i++) {
        order[i] = i;
        if (w[i].at + w[i].c > last) last = w[i].at + w[i].c;
    }
    sort_w = w;
    qsort(order, nw, sizeof *order, by_place);
    logged d;
    docs_start(p);
    labels->n = 0;
    for (uint64_t k = 0, a = 0; lo < nw && (p->o.per_doc || a < last) && docs_next(p, &d); k++) {
        if (p->o.per_doc) { /* windows inside document k */
            for (; lo < nw && w[order[lo]].doc == k; lo++) {
                window *x = &w[order[lo]];
                memcpy(slots + order[lo] * (size_t)p->o.len, d.ids + x->at, (size_t)x->c * 4);
                x->id = cal_pack_row_id(p->o.len, d.id, x->at);
                x->label = labels->n;
                cal_buf_add(labels, d.label, strlen(d.label) + 1);
            }
            continue;
        }
        /* the concatenation: document k holds [a, a + n); a window is the
         * row of the document its first token is in, and takes its ids
         * from every document it overlaps */
        uint64_t z = a + d.n;
        while (lo < nw && w[order[lo]].at + p->o.len <= a) lo++; /* ended before a (c <= len) */
        for (size_t j = lo; j < nw && w[order[j]].at < z; j++) {
            window *x = &w[order[j]];
            uint64_t x0 = x->at > a ? x->at : a, x1 = x->at + x->c < z ? x->at + x->c : z;
            if (x->at >= a) {
                x->id = cal_pack_row_id(p->o.len, d.id, x->at - a);
                x->label = labels->n;
                cal_buf_add(labels, d.label, strlen(d.label) + 1);
            }
            if (x0 < x1)
                memcpy(slots + order[j] * (size_t)p->o.len + (x0 - x->at), d.ids + (x0 - a), (size_t)(x1 - x0) * 4);
        }
        a = z;
    }
    free(order);
}

int cal_pack_window(cal_packer *p, char *err, size_t errlen) {
    windows ws = {0};
    size_t row = (size_t)p->o.len * 4 + sizeof(window) + 32, batch = mem_of(p) / row;
    if (batch < 1) batch = 1;
    if (batch > p->o.n - p->st.rows) batch = (size_t)(p->o.n - p->st.rows);
    window *w = cal_xmalloc((batch ? batch : 1) * sizeof *w);
    uint32_t *slots = cal_xmalloc((batch ? batch : 1) * (size_t)p->o.len * 4);
    cal_buf labels = {0};
    int stop = 0;
    err[0] = 0;
    while (!stop && p->st.rows < p->o.n) {
        size_t nw = 0;
        while (nw < batch && p->st.rows + nw < p->o.n && !(stop = draw_window(p, &ws, p->st.rows + nw, &w[nw], err, errlen)))
            nw++;
        if (!nw) break;
        gather(p, w, nw, slots, &labels);
        for (size_t i = 0; i < nw; i++) {
            size_t k = 0;
            if (w[i].b) p->ids[k++] = (uint32_t)p->o.bos_id;
            memcpy(p->ids + k, slots + i * (size_t)p->o.len, (size_t)w[i].c * 4);
            k += w[i].c;
            if (w[i].e) p->ids[k] = (uint32_t)p->o.eos_id;
            cal_pack_emit(p, p->ids, NULL, labels.p + w[i].label, w[i].id);
        }
    }
    for (size_t i = 0; i < ws.nel; i++) cal_spill_free(ws.el[i].ords);
    free(w);
    free(slots);
    cal_buf_free(&labels);
    return err[0] ? -1 : 0;
}

/* ---- stratified samples --------------------------------------------------- */

/* A partial Fisher-Yates shuffle of 0..m-1 that stores only the positions
 * it moved: open addressing, position -> value. */
typedef struct {
    uint64_t *key, *val;
    size_t cap;
} moved;

static uint64_t *slot_of(moved *t, uint64_t pos) {
    size_t i = (size_t)(pos * 0x9E3779B97F4A7C15ULL >> 20) & (t->cap - 1);
    while (t->key[i] != UINT64_MAX && t->key[i] != pos) i = (i + 1) & (t->cap - 1);
    return &t->key[i];
}

static uint64_t moved_get(moved *t, uint64_t pos) {
    uint64_t *k = slot_of(t, pos);
    return *k == pos ? t->val[k - t->key] : pos;
}

static void moved_set(moved *t, uint64_t pos, uint64_t v) {
    uint64_t *k = slot_of(t, pos);
    *k = pos;
    t->val[k - t->key] = v;
}

static int by_value(const void *x, const void *y) {
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* "B1-B2" or "B+" for bucket b of the bounds */
static void bucket_name(const cal_pack_opts *o, size_t b, char *out, size_t n) {
    unsigned long long lo = b ? o->strata[b - 1] + 1 : 1;
    if (b + 1 < o->nstrata) snprintf(out, n, "%llu-%llu", lo, (unsigned long long)o->strata[b]);
    else snprintf(out, n, "%llu+", lo);
}

int cal_pack_stratify(cal_packer *p, char *err, size_t errlen) {
    size_t nb = p->o.nstrata;
    double *wt = cal_xmalloc(nb * sizeof *wt);
    uint64_t *quota = cal_xmalloc(nb * sizeof *quota), **take = cal_xcalloc(nb, sizeof *take);
    uint64_t *seen = cal_xcalloc(nb, sizeof *seen), *next = cal_xcalloc(nb, sizeof *next);
    if (!p->counts) p->counts = cal_xcalloc(nb, sizeof *p->counts);
    for (size_t b = 0; b < nb; b++) wt[b] = 1;
    cal_alloc_largest_remainder(p->o.n, wt, nb, quota);
    int rc = 0;
    for (size_t b = 0; b < nb && !rc; b++) {
        uint64_t m = p->counts[b], q = quota[b];
        if (m < q && !p->o.allow_short) {
            char range[64];
            bucket_name(&p->o, b, range, sizeof range);
            snprintf(err, errlen, "length bucket %s has %llu documents, %llu needed for -n %llu (use --allow-short)",
                     range, (unsigned long long)m, (unsigned long long)q, (unsigned long long)p->o.n);
            rc = -1;
        }
        if (m < q) {
            char range[64], why[160];
            bucket_name(&p->o, b, range, sizeof range);
            snprintf(why, sizeof why, "short in length bucket %s (%llu documents there; --allow-short)", range,
                     (unsigned long long)m);
            cal_drops_note(&p->st.drops, "rows", why, q - m, 0, NULL);
            q = m;
        }
        quota[b] = q;
        /* partial Fisher-Yates over the bucket's members (in input order):
         * the first q are a uniform sample */
        moved t = {0};
        for (t.cap = 16; t.cap < 4 * q; t.cap *= 2) continue;
        t.key = cal_xmalloc(t.cap * sizeof *t.key);
        t.val = cal_xmalloc(t.cap * sizeof *t.val);
        memset(t.key, 0xff, t.cap * sizeof *t.key);
        take[b] = cal_xmalloc((q ? q : 1) * sizeof **take);
        for (uint64_t i = 0; i < q; i++) {
            uint64_t j = i + cal_anyrng_below(&p->rng, m - i), vi = moved_get(&t, i), vj = moved_get(&t, j);
            moved_set(&t, j, vi);
            take[b][i] = vj;
        }
        qsort(take[b], q, sizeof **take, by_value);
        free(t.key);
        free(t.val);
    }
    /* pass 2: the drawn documents' rows, in input order */
    logged d;
    if (!rc) docs_start(p);
    while (!rc && docs_next(p, &d)) {
        size_t b = bucket_of(p, d.n);
        if (next[b] < quota[b] && take[b][next[b]] == seen[b]) {
            next[b]++;
            cal_pack_doc_row(p, d.ids, d.n, d.id, d.label);
        }
        seen[b]++;
    }
    for (size_t b = 0; b < nb; b++) free(take[b]);
    free(wt), free(quota), free(take), free(seen), free(next);
    return rc;
}

/* ---- rows by length -------------------------------------------------------- */
void cal_pack_sorted(cal_packer *p) {
    const void *v;
    size_t n;
    char label[CAL_MAX_LABEL + 1];
    cal_ids t = {0};
    while (p->sorted && !(p->o.have_n && p->st.rows >= p->o.n) && cal_extsort_next(p->sorted, &v, &n)) {
        const uint8_t *r = v;
        size_t llen = r[24], have = (n - SORT_HEAD - llen) / 4;
        memcpy(label, r + SORT_HEAD, llen);
        label[llen] = 0;
        cal_ids_reserve(&t, have);
        if (have) memcpy(t.v, r + SORT_HEAD + llen, have * 4); /* aligned for the row's copy */
        cal_pack_doc_row_part(p, t.v, have, (size_t)cal_ld64(r + 8), (size_t)cal_ld64(r + 16), cal_ld64(r), label);
    }
    cal_ids_free(&t);
}
