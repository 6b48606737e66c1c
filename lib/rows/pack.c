/* pack.c - the packer and its streaming modes (concat, article, doc); see
 * pack.h. The modes that draw from the whole input are in pack_draw.c, what
 * every mode shares to make a row in pack_row.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/num.h"
#include "rows/pack_internal.h"

const char *const cal_pack_mode_names[] = {"concat", "window", "doc", "article", "llama", NULL};
const char *const cal_pack_policy_names[] = {"none", "row", "doc", "half", "alt", NULL};
const char *const cal_pack_sep_names[] = {"none", "eos", "bos", NULL};
const char *const cal_pack_sort_names[] = {"input", "asc", "desc", NULL};

void cal_pack_opts_init(cal_pack_opts *o) {
    memset(o, 0, sizeof *o);
    o->truncate = o->pad_side = -1;
    o->bos_id = o->eos_id = o->pad_id = -1;
}

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

int cal_pack_check(const cal_pack_opts *o, char *err, size_t errlen) {
    int concat = o->mode == CAL_PACK_CONCAT, article = o->mode == CAL_PACK_ARTICLE, llama = o->mode == CAL_PACK_LLAMA;
    if (!o->len) FAIL("-l LENGTH is required");
    if (o->skip && !llama) FAIL("--skip-chunks needs --mode llama");
    if (llama && (o->bos != CAL_POL_NONE || o->eos != CAL_POL_NONE || o->sep != CAL_SEP_NONE || o->tail_pad ||
                  o->min_tokens || o->max_tokens || o->docs))
        FAIL("--mode llama cuts the text as llama-imatrix does: no --bos, --eos, --sep, --tail or document filters "
             "(it puts BOS first in every row by itself)");
    if (o->mode == CAL_PACK_WINDOW && !o->have_n) FAIL("--mode window needs -n ROWS");
    if ((o->bos == CAL_POL_HALF || o->eos == CAL_POL_HALF) && !o->have_n)
        FAIL("--bos/--eos half needs -n ROWS (the half is of the rows)");
    if (o->nstrata && (o->mode != CAL_PACK_DOC || !o->have_n)) FAIL("--stratify needs --mode doc and -n ROWS");
    if (o->per_doc && o->mode != CAL_PACK_WINDOW) FAIL("--per-doc needs --mode window");
    if (article && (o->eos == CAL_POL_ROW || o->eos == CAL_POL_HALF || o->bos == CAL_POL_ROW))
        FAIL("--mode article takes --bos none|doc|half|alt and --eos none|doc|alt");
    if (o->sep != CAL_SEP_NONE && !concat && o->mode != CAL_PACK_WINDOW) FAIL("--sep needs --mode concat or window");
    if (o->sep != CAL_SEP_NONE && o->per_doc) FAIL("--sep has no use with --per-doc (windows stay inside documents)");
    if (o->nsep && (o->sep != CAL_SEP_NONE || (!concat && o->mode != CAL_PACK_WINDOW) || o->per_doc))
        FAIL("--sep-text goes with --mode concat or window, without --sep and --per-doc");
    if ((o->truncate >= 0 || o->pad_side >= 0) && o->mode != CAL_PACK_DOC) FAIL("--truncate and --pad need --mode doc");
    if (o->tail_pad && !concat && !article) FAIL("--tail needs --mode concat or article");
    if (o->to_end && o->mode != CAL_PACK_WINDOW) FAIL("--to-end needs --mode window");
    if ((o->sort || o->max_repeat) && o->mode != CAL_PACK_DOC) FAIL("--sort and --max-repeat need --mode doc");
    if (o->sort && o->nstrata) FAIL("--sort and --stratify exclude each other");
    return 0;
}

int cal_pack_pads(const cal_pack_opts *o) { return (o->mode == CAL_PACK_DOC && o->pad_side != 2) || o->tail_pad; }

/* Whether policy pol puts a BOS/EOS inside some rows (not around documents). */
static int row_level(const cal_pack_opts *o, int pol) {
    if (o->mode == CAL_PACK_ARTICLE) return 0;
    return pol == CAL_POL_ROW || pol == CAL_POL_HALF || pol == CAL_POL_ALT ||
           (o->mode == CAL_PACK_DOC && pol != CAL_POL_NONE);
}

int cal_pack_check_ids(const cal_pack_opts *o, char *err, size_t errlen) {
    if ((o->bos != CAL_POL_NONE || o->sep == CAL_SEP_BOS) && o->bos_id < 0)
        FAIL("the BOS policy needs a BOS id: the stream header has no 'bos'; give --bos-id");
    if ((o->eos != CAL_POL_NONE || o->sep == CAL_SEP_EOS) && o->eos_id < 0)
        FAIL("the EOS policy needs an EOS id: the stream header has no 'eos'; give --eos-id");
    if (cal_pack_pads(o) && o->pad_id < 0)
        FAIL("padding needs an id: the stream header has no 'pad' or 'eos'; give --pad-id");
    if (o->len <= (uint32_t)(row_level(o, o->bos) + row_level(o, o->eos)))
        FAIL("-l %u leaves no room for tokens besides BOS/EOS", o->len);
    return 0;
}

uint64_t *cal_pack_parse_strata(const char *s, size_t *n) {
    char *copy = cal_xstrdup(s), *save = NULL;
    uint64_t *v = NULL;
    *n = 0;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        v = cal_xrealloc(v, (*n + 1) * sizeof *v);
        v[*n] = cal_parse_u64("--stratify", t, 1, UINT32_MAX);
        if (*n && v[*n] <= v[*n - 1]) cal_usage_error("--stratify: bounds must increase");
        ++*n;
    }
    free(copy);
    if (!*n) cal_usage_error("--stratify: no bounds");
    return v;
}

static int done(const cal_packer *p) { return p->o.have_n && p->st.rows >= p->o.n; }

cal_packer *cal_packer_new(const cal_pack_opts *o, cal_row_sink sink, void *ctx) {
    cal_packer *p = cal_xcalloc(1, sizeof *p);
    p->o = *o;
    p->sink = sink;
    p->ctx = ctx;
    cal_anyrng_init(&p->rng, o->rng, o->seed, o->nstrata ? "stratify" : "window");
    p->ids = cal_xmalloc((size_t)o->len * 4 + 8);
    p->mask = cal_xmalloc((size_t)o->len + 1);
    char why[64];
    snprintf(why, sizeof why, "by --min-tokens %llu", (unsigned long long)o->min_tokens);
    cal_drops_reason(&p->st.drops, why);
    snprintf(why, sizeof why, "by --max-tokens %llu", (unsigned long long)o->max_tokens);
    cal_drops_reason(&p->st.drops, why);
    cal_drops_reason(&p->st.drops, o->truncate == 1 ? "by --truncate head" : "by --truncate tail");
    cal_drops_reason(&p->st.drops, "as the rest of each row's last document (--mode article)");
    cal_drops_reason(&p->st.drops, "as the last partial row (--tail drop)");
    snprintf(why, sizeof why, "by --max-repeat %llu", (unsigned long long)o->max_repeat);
    cal_drops_reason(&p->st.drops, why);
    snprintf(why, sizeof why, "by --skip-chunks %llu", (unsigned long long)o->skip);
    cal_drops_reason(&p->st.drops, why);
    cal_drops_reason(&p->st.drops, "as each row's first token, replaced by BOS (--mode llama)");
    p->skip_left = o->skip * o->len;
    cal_drops_reason(&p->st.drops, "as empty rows (--pad none)");
    cal_drops_reason(&p->st.drops, "from the role masks (kept by --mode doc without --sort/--stratify)");
    snprintf(p->padded, sizeof p->padded, "padded to -l %u", o->len);
    return p;
}

void cal_packer_reread(cal_packer *p, void (*rewind)(void *ctx), int (*next)(void *ctx, cal_pack_doc *d), void *ctx) {
    p->rewind = rewind;
    p->next = next;
    p->rctx = ctx;
}

/* llama: the tokens that llama-imatrix's checks need to have seen */
static uint64_t llama_needs(const cal_pack_opts *o) { return (o->skip + 2) * o->len + (o->skip > 0); }

int cal_packer_wants(const cal_packer *p) {
    if (p->o.docs && p->kept >= p->o.docs) return 0;
    if (p->o.mode == CAL_PACK_LLAMA && p->st.tokens < llama_needs(&p->o)) return 1;
    return !done(p) || p->o.mode == CAL_PACK_WINDOW || p->o.nstrata || p->o.sort;
}

const cal_pack_stats *cal_packer_stats(const cal_packer *p) { return &p->st; }

void cal_packer_free(cal_packer *p) {
    if (!p) return;
    free(p->ids);
    free(p->mask);
    free(p->rrole);
    cal_ids_free(&p->doc);
    cal_ids_free(&p->art);
    cal_pack_hold_free(p);
    free(p);
}

/* ---- concat: streaming, memory O(LENGTH) --------------------------------- */
static void concat_row_done(cal_packer *p) {
    if (p->row_eos) p->ids[p->fill++] = (uint32_t)p->o.eos_id;
    if (p->o.mode == CAL_PACK_LLAMA && p->o.bos_id >= 0) {
        if (p->ids[0] != (uint32_t)p->o.bos_id) cal_drops_count(&p->st.drops, CAL_DROP_BOS, 0, 1);
        p->ids[0] = (uint32_t)p->o.bos_id;
    }
    cal_pack_emit(p, p->ids, NULL, p->label, cal_pack_row_id(p->o.len, p->src, p->off));
    p->fill = 0;
}

/* Feeds one document's tokens (already with its BOS/EOS/separator). */
static void concat_feed(cal_packer *p, const uint32_t *t, size_t n, uint64_t src, const char *label) {
    size_t i = 0;
    if (p->skip_left) { /* llama --skip-chunks: whole rows' worth of tokens */
        i = n < p->skip_left ? n : (size_t)p->skip_left;
        p->skip_left -= i;
        cal_drops_count(&p->st.drops, CAL_DROP_SKIP, 0, i);
    }
    while (i < n && !done(p)) {
        if (p->fill == 0) {
            int b = cal_pack_row_has(p, p->o.bos, p->st.rows);
            p->row_eos = cal_pack_row_has(p, p->o.eos, p->st.rows);
            p->cap = p->o.len - (uint32_t)p->row_eos;
            p->src = src;
            p->off = i;
            strcpy(p->label, label);
            if (b) p->ids[p->fill++] = (uint32_t)p->o.bos_id;
        }
        size_t k = p->cap - p->fill;
        if (k > n - i) k = n - i;
        memcpy(p->ids + p->fill, t + i, k * 4);
        p->fill += (uint32_t)k;
        i += k;
        if (p->fill == p->cap) concat_row_done(p);
    }
}

static void concat_end(cal_packer *p) {
    if (p->fill == 0 || done(p)) return;
    if (!p->o.tail_pad) {
        cal_drops_count(&p->st.drops, CAL_DROP_TAIL, 0, p->fill);
        p->fill = 0;
        return;
    }
    uint32_t real = p->fill;
    if (p->row_eos) p->ids[real++] = (uint32_t)p->o.eos_id;
    for (uint32_t i = 0; i < p->o.len; i++) {
        p->mask[i] = i < real;
        if (i >= real) p->ids[i] = (uint32_t)p->o.pad_id;
    }
    cal_pack_emit(p, p->ids, p->mask, p->label, cal_pack_row_id(p->o.len, p->src, p->off));
    p->fill = 0;
}

/* ---- article: EXL2 wiki/tiny, EXL3 split_art ----------------------------- */
static void article_emit(cal_packer *p, int at_end) {
    /* EXL2: rows r < ROWS/2 are art[1 : LENGTH+1] (leading BOS dropped). */
    size_t shift = p->o.bos == CAL_POL_HALF && p->st.rows < p->o.n / 2 ? 1 : 0, len = p->o.len;
    cal_ids *a = &p->art;
    uint8_t *mask = NULL;
    if (at_end) {
        cal_ids_reserve(a, shift + len);
        for (size_t i = a->n; i < shift + len; i++) a->v[i] = (uint32_t)p->o.pad_id;
        for (size_t i = 0; i < len; i++) p->mask[i] = shift + i < a->n;
        mask = p->mask;
    } else if (a->n > shift + len) {
        cal_drops_count(&p->st.drops, CAL_DROP_REST, 0, a->n - shift - len);
    }
    cal_pack_emit(p, a->v + shift, mask, p->label, cal_pack_row_id(p->o.len, p->src, 0));
    a->n = 0;
}

static void article_feed(cal_packer *p, const uint32_t *ids, size_t n, uint64_t src, const char *label) {
    cal_ids *a = &p->art;
    if (a->n == 0) {
        p->src = src;
        strcpy(p->label, label);
    }
    /* alt (EXL3): documents of even rows are wrapped, of odd rows not */
    int even = p->st.rows % 2 == 0, bos = p->o.bos, eos = p->o.eos;
    if (bos == CAL_POL_DOC || bos == CAL_POL_HALF || (bos == CAL_POL_ALT && even))
        cal_ids_push(a, (uint32_t)p->o.bos_id);
    cal_ids_reserve(a, a->n + n + 2);
    if (n) memcpy(a->v + a->n, ids, n * 4);
    a->n += n;
    if (eos == CAL_POL_DOC || (eos == CAL_POL_ALT && even)) cal_ids_push(a, (uint32_t)p->o.eos_id);
    /* with half, one token more so that the first half can drop the BOS */
    if (a->n >= (size_t)p->o.len + (bos == CAL_POL_HALF)) article_emit(p, 0);
}

/* ---- input and end -------------------------------------------------------- */
void cal_packer_add(cal_packer *p, const uint32_t *ids, size_t n, uint64_t id, const char *label,
                    size_t label_len) {
    cal_packer_add_role(p, ids, NULL, n, id, label, label_len);
}

void cal_packer_add_role(cal_packer *p, const uint32_t *ids, const uint8_t *role, size_t n, uint64_t id,
                         const char *label, size_t label_len) {
    int keep_role = p->o.mode == CAL_PACK_DOC && !p->o.nstrata && !p->o.sort;
    if (role && !keep_role) /* the modes that cut or store documents keep ids only */
        cal_drops_count(&p->st.drops, CAL_DROP_ROLE, 1, 0);
    p->role = keep_role ? role : NULL;
    p->st.docs++;
    p->st.tokens += n;
    int drop = n < p->o.min_tokens ? CAL_DROP_MIN : p->o.max_tokens && n > p->o.max_tokens ? CAL_DROP_MAX : -1;
    if (drop >= 0) {
        cal_drops_count(&p->st.drops, (size_t)drop, 1, n);
        return;
    }
    p->kept++;
    char lab[CAL_MAX_LABEL + 1];
    if (label_len > CAL_MAX_LABEL) label_len = CAL_MAX_LABEL;
    memcpy(lab, label, label_len);
    lab[label_len] = 0;
    switch (p->o.mode) {
    case CAL_PACK_LLAMA: /* llama-imatrix tokenizes the whole text with BOS first */
        if (!p->started && n && p->o.bos_id >= 0 && ids[0] != (uint32_t)p->o.bos_id) {
            uint32_t bos = (uint32_t)p->o.bos_id;
            p->st.tokens++;
            concat_feed(p, &bos, 1, id, lab);
        }
        p->started |= n > 0;
        concat_feed(p, ids, n, id, lab);
        break;
    case CAL_PACK_CONCAT:
        if (p->o.sep == CAL_SEP_NONE && !p->o.nsep && p->o.bos != CAL_POL_DOC && p->o.eos != CAL_POL_DOC) {
            concat_feed(p, ids, n, id, lab); /* nothing to wrap: no copy */
            break;
        }
        cal_pack_wrap(p, ids, n, p->kept == 1);
        concat_feed(p, p->doc.v, p->doc.n, id, lab);
        break;
    case CAL_PACK_ARTICLE: article_feed(p, ids, n, id, lab); break;
    case CAL_PACK_WINDOW:
        cal_pack_wrap(p, ids, n, p->o.per_doc || p->kept == 1);
        cal_pack_hold(p, p->doc.v, p->doc.n, id, lab, label_len);
        break;
    case CAL_PACK_DOC:
        if (p->o.nstrata || p->o.sort) cal_pack_hold(p, ids, n, id, lab, label_len);
        else cal_pack_doc_row(p, ids, n, id, lab);
        break;
    }
}

/* "input has T tokens in D documents (K documents dropped by ...)" */
static void describe_input(const cal_packer *p, cal_buf *b) {
    cal_buf_addf(b, "input has %llu tokens in %llu documents", (unsigned long long)p->st.tokens,
                 (unsigned long long)p->st.docs);
    cal_drops whole = {0};
    for (size_t i = 0; i < p->st.drops.n; i++)
        if (p->st.drops.v[i].whole) whole.v[whole.n++] = p->st.drops.v[i];
    size_t at = b->n;
    cal_buf_add(b, " (", 2);
    cal_drops_format(&whole, b);
    if (b->n == at + 2) b->n = at;
    else cal_buf_addc(b, ')');
}

int cal_packer_finish(cal_packer *p, char *err, size_t errlen) {
    const cal_pack_opts *o = &p->o;
    if (o->mode == CAL_PACK_LLAMA && p->st.tokens < llama_needs(o)) { /* llama-imatrix's two checks */
        if (!o->skip)
            FAIL("the input has %llu tokens; llama-imatrix needs at least 2 rows' worth, %llu, for rows of %u",
                 (unsigned long long)p->st.tokens, (unsigned long long)llama_needs(o), o->len);
        FAIL("the input has %llu tokens; llama-imatrix needs more than (%llu + 2) x %u = %llu to skip %llu chunks",
             (unsigned long long)p->st.tokens, (unsigned long long)o->skip, o->len,
             (unsigned long long)(llama_needs(o) - 1), (unsigned long long)o->skip);
    }
    if (o->mode == CAL_PACK_CONCAT || o->mode == CAL_PACK_LLAMA) concat_end(p);
    if (o->mode == CAL_PACK_ARTICLE && p->art.n && !done(p)) {
        if (o->tail_pad) article_emit(p, 1);
        else cal_drops_count(&p->st.drops, CAL_DROP_TAIL, 0, p->art.n);
        p->art.n = 0;
    }
    if (o->mode == CAL_PACK_WINDOW && cal_pack_window(p, err, errlen)) return -1;
    if (o->nstrata && cal_pack_stratify(p, err, errlen)) return -1;
    if (o->sort) cal_pack_sorted(p);
    if (o->allow_short) {
        /* what --allow-short let go is said (stratify names its buckets) */
        if (o->have_n && p->st.rows < o->n && !o->nstrata) {
            char why[64];
            snprintf(why, sizeof why, "short of -n %llu (--allow-short)", (unsigned long long)o->n);
            cal_drops_note(&p->st.drops, "rows", why, o->n - p->st.rows, 0, NULL);
        }
        return 0;
    }
    if (o->have_n && p->st.rows < o->n)
        FAIL("the input gives only %llu rows of %u tokens, -n %llu asked (use --allow-short)",
             (unsigned long long)p->st.rows, o->len, (unsigned long long)o->n);
    if (!o->have_n && p->st.rows == 0) {
        cal_buf b = {0};
        describe_input(p, &b);
        cal_buf_addc(&b, 0);
        snprintf(err, errlen, "%s; no row of %u tokens is possible (use --allow-short)", b.p, o->len);
        cal_buf_free(&b);
        return -1;
    }
    return 0;
}

/* ---- synthetic rows -------------------------------------------------------- */
void cal_pack_synthetic(uint32_t len, cal_rng_kind kind, uint64_t seed, uint64_t random, uint64_t vocab,
                        uint64_t noise, cal_row_sink sink, void *ctx) {
    uint32_t *ids = cal_xmalloc((size_t)len * 4);
    cal_anyrng rr;
    cal_anyrng_init(&rr, kind, seed, "random-rows");
    for (uint64_t r = 0; r < random; r++) {
        for (uint32_t i = 0; i < len; i++) ids[i] = (uint32_t)cal_anyrng_below(&rr, vocab);
        cal_row_out row = {ids, NULL, len, 0, "random", cal_pack_row_id(len, 0x72616e646f6dULL, r), NULL};
        sink(ctx, &row);
    }
    memset(ids, 0, (size_t)len * 4);
    for (uint64_t r = 0; r < noise; r++) {
        cal_row_out row = {ids, NULL, len, CAL_ROW_NOISE, "noise", cal_pack_row_id(len, 0x6e6f697365ULL, r), NULL};
        sink(ctx, &row);
    }
    free(ids);
}
