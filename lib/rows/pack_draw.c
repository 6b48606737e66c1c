/* pack_draw.c - the recipes that draw rows from the whole input, held in a
 * docstore: random windows (GPTQ, optimum, lmdeploy) and length-stratified
 * document samples. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "rows/alloc.h"
#include "rows/pack_internal.h"

/* A document for a window of c tokens, long enough (len >= need). calkit's
 * generator draws among the long enough documents; a peer's draws among all
 * and redraws until one is (GPTQ's c4 loop), so its numbers follow the
 * peer's calls. Only called when some document is long enough. */
static size_t draw_doc(cal_packer *p, const size_t *elig, size_t nelig, uint64_t need) {
    const cal_docstore *s = &p->store;
    if (p->o.rng == CAL_RNG_CALKIT) return elig[cal_anyrng_below(&p->rng, nelig)];
    size_t d;
    do d = (size_t)cal_anyrng_below(&p->rng, s->n);
    while (s->docs[d].len < need);
    return d;
}

int cal_pack_window(cal_packer *p, char *err, size_t errlen) {
    const cal_docstore *s = &p->store;
    /* documents long enough for the current content length (at most two differ) */
    size_t *elig = cal_xmalloc((s->n ? s->n : 1) * sizeof *elig), nelig = 0;
    uint64_t elig_for = UINT64_MAX, end = p->o.to_end ? 0 : 1;
    int rc = 0;
    while (p->st.rows < p->o.n) {
        int b = cal_pack_row_has(p, p->o.bos, p->st.rows), e = cal_pack_row_has(p, p->o.eos, p->st.rows);
        uint64_t c = p->o.len - (uint64_t)b - (uint64_t)e, start;
        size_t d;
        if (p->o.per_doc) {
            if (elig_for != c) {
                nelig = 0;
                for (size_t i = 0; i < s->n; i++)
                    if (s->docs[i].len >= c + end) elig[nelig++] = i;
                elig_for = c;
            }
            if (!nelig) {
                if (!p->o.allow_short) {
                    snprintf(err, errlen,
                             "no document has %s %llu tokens; window --per-doc needs one (0 rows possible)",
                             end ? "more than" : "at least", (unsigned long long)c);
                    rc = -1;
                }
                break;
            }
            d = draw_doc(p, elig, nelig, c + end);
            /* GPTQ c4: i = randint(0, len - seqlen - 1) inside the document
             * (lmdeploy, --to-end: randint(0, len - seqlen)) */
            start = s->docs[d].start + cal_anyrng_below(&p->rng, s->docs[d].len - c + 1 - end);
        } else {
            if (s->all.n < c + end) {
                if (!p->o.allow_short) {
                    snprintf(err, errlen, "input has %zu tokens; window mode needs at least %llu (0 rows possible)",
                             s->all.n, (unsigned long long)(c + end));
                    rc = -1;
                }
                break;
            }
            /* GPTQ wikitext2: i = randint(0, L - seqlen - 1) (lmdeploy: L - seqlen) */
            start = cal_anyrng_below(&p->rng, s->all.n - c + 1 - end);
            d = cal_docstore_at(s, start);
        }
        size_t k = 0;
        if (b) p->ids[k++] = (uint32_t)p->o.bos_id;
        memcpy(p->ids + k, s->all.v + start, c * 4);
        k += c;
        if (e) p->ids[k] = (uint32_t)p->o.eos_id;
        cal_pack_emit(p, p->ids, NULL, cal_docstore_label(s, d),
                      cal_pack_row_id(p->o.len, s->docs[d].id, start - s->docs[d].start));
    }
    free(elig);
    return rc;
}

/* "B1-B2" or "B+" for bucket b of the bounds */
static void bucket_name(const cal_pack_opts *o, size_t b, char *out, size_t n) {
    unsigned long long lo = b ? o->strata[b - 1] + 1 : 1;
    if (b + 1 < o->nstrata) snprintf(out, n, "%llu-%llu", lo, (unsigned long long)o->strata[b]);
    else snprintf(out, n, "%llu+", lo);
}

int cal_pack_stratify(cal_packer *p, char *err, size_t errlen) {
    const cal_docstore *s = &p->store;
    size_t nb = p->o.nstrata, nd = s->n ? s->n : 1;
    size_t *bucket = cal_xmalloc(nd * sizeof *bucket), *members = cal_xmalloc(nd * sizeof *members);
    double *wt = cal_xmalloc(nb * sizeof *wt);
    uint64_t *quota = cal_xmalloc(nb * sizeof *quota);
    unsigned char *take = cal_xcalloc(nd, 1);
    for (size_t i = 0; i < s->n; i++) {
        size_t b = 0;
        while (b + 1 < nb && s->docs[i].len > p->o.strata[b]) b++;
        bucket[i] = b;
    }
    for (size_t b = 0; b < nb; b++) wt[b] = 1;
    cal_alloc_largest_remainder(p->o.n, wt, nb, quota);
    int rc = 0;
    for (size_t b = 0; b < nb && !rc; b++) {
        size_t m = 0;
        for (size_t i = 0; i < s->n; i++)
            if (bucket[i] == b) members[m++] = i;
        uint64_t q = quota[b];
        if (m < q && !p->o.allow_short) {
            char range[64];
            bucket_name(&p->o, b, range, sizeof range);
            snprintf(err, errlen, "length bucket %s has %zu documents, %llu needed for -n %llu (use --allow-short)",
                     range, m, (unsigned long long)q, (unsigned long long)p->o.n);
            rc = -1;
        }
        if (m < q) q = m;
        /* partial Fisher-Yates: the first q members are a uniform sample */
        for (size_t i = 0; i < q; i++) {
            size_t j = i + (size_t)cal_anyrng_below(&p->rng, m - i), t = members[i];
            members[i] = members[j];
            members[j] = t;
            take[members[i]] = 1;
        }
    }
    for (size_t i = 0; i < s->n && !rc; i++)
        if (take[i])
            cal_pack_doc_row(p, s->all.v + s->docs[i].start, s->docs[i].len, s->docs[i].id, cal_docstore_label(s, i));
    free(bucket), free(members), free(wt), free(quota), free(take);
    return rc;
}

/* The sort key of document i: the length of its row's real tokens (BOS and
 * EOS of every row counted, as the peers sort rows they tokenized with
 * them), as a row can hold it. */
static const cal_packer *sort_p;
static int by_len(const void *a, const void *b) {
    const size_t i = *(const size_t *)a, j = *(const size_t *)b;
    int bos = sort_p->o.bos == CAL_POL_ROW || sort_p->o.bos == CAL_POL_DOC;
    int eos = sort_p->o.eos == CAL_POL_ROW || sort_p->o.eos == CAL_POL_DOC;
    size_t li = sort_p->store.docs[i].len + bos + eos, lj = sort_p->store.docs[j].len + bos + eos, cap = sort_p->o.len;
    if (li > cap) li = cap;
    if (lj > cap) lj = cap;
    if (li != lj) return (li < lj) == (sort_p->o.sort == 1) ? -1 : 1;
    return i < j ? -1 : 1; /* stable, as Python's sorted() */
}

void cal_pack_sorted(cal_packer *p) {
    const cal_docstore *s = &p->store;
    size_t *order = cal_xmalloc((s->n ? s->n : 1) * sizeof *order);
    for (size_t i = 0; i < s->n; i++) order[i] = i;
    sort_p = p;
    qsort(order, s->n, sizeof *order, by_len);
    for (size_t k = 0; k < s->n && !(p->o.have_n && p->st.rows >= p->o.n); k++) {
        size_t i = order[k];
        cal_pack_doc_row(p, s->all.v + s->docs[i].start, s->docs[i].len, s->docs[i].id, cal_docstore_label(s, i));
    }
    free(order);
}
