/* tok_hf_load.c - builds a tok_hf from tokenizer.json. Every feature the
 * encoder does not implement is a load error naming it and its JSON path. */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/utf8.h"
#include "tok/charsmap.h"
#include "tok/hf_int.h"
#include "tok/unigram.h"
#include "tok/hf_json.h"

typedef struct {
    tok_hf *t;
    char *err;
    size_t errlen;
    int failed;
    th_strmap orig_own;
    int spm_ranks;   /* tok_hf_load_spm_bpe: model.calkit_spm_ranks gives each merge's rank (ties allowed) */
    th_strmap *orig; /* vocab as written (token text -> id): orig_own, or the model's own map when not byte-level */
} ld;

static int bad(ld *l, const char *path, const char *fmt, ...) CAL_PRINTF(3, 4);
static int bad(ld *l, const char *path, const char *fmt, ...)
{
    if (l->failed) return -1;
    l->failed = 1;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(l->err, l->errlen, "JSON path %s: %s", path, msg);
    return -1;
}

/* quoted token text for messages, shortened */
static const char *q(const char *s, size_t n, char *buf, size_t cap)
{
    size_t k = n < cap - 8 ? n : cap - 8;
    snprintf(buf, cap, "'%.*s%s'", (int)k, s, k < n ? "..." : "");
    return buf;
}

static char *dupn(const char *s, size_t n)
{
    char *r = cal_xmalloc(n + 1);
    if (n) memcpy(r, s, n);
    r[n] = 0;
    return r;
}

static int get_bool(ld *l, const tj *o, const char *key, int dflt, const char *path)
{
    const tj *v = tj_get(o, key);
    if (!v || v->type == TJ_NULL) return dflt;
    if (v->type == TJ_TRUE) return 1;
    if (v->type == TJ_FALSE) return 0;
    char p[256];
    snprintf(p, sizeof p, "%s.%s", path, key);
    return bad(l, p, "expected true or false"), dflt;
}

static const tj *get_str(ld *l, const tj *o, const char *key, const char *path, int required)
{
    const tj *v = tj_get(o, key);
    if ((!v || v->type == TJ_NULL) && !required) return NULL;
    if (!v || v->type != TJ_STR) {
        char p[256];
        snprintf(p, sizeof p, "%s.%s", path, key);
        bad(l, p, "expected a string");
        return NULL;
    }
    return v;
}

/* ---- byte-level alphabet (GPT-2): byte <-> code point ---- */
static uint16_t byte_cp[256];
static int16_t cp_byte[324];
static void byte_alphabet(void)
{
    int k = 0;
    for (int b = 0; b < 256; b++) {
        int printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
        byte_cp[b] = (uint16_t)(printable ? b : 256 + k++);
    }
    for (int c = 0; c < 324; c++) cp_byte[c] = -1;
    for (int b = 0; b < 256; b++) cp_byte[byte_cp[b]] = (int16_t)b;
}
const uint16_t *th_byte_cp(void) { return byte_cp; }
const int16_t *th_cp_byte(void) { return cp_byte; }

/* token text -> model key: raw bytes for byte-level models when every
 * character is in the alphabet (else the text unchanged). Returns length. */
static size_t model_key(const tok_hf *t, const char *s, size_t n, char *out)
{
    if (!t->byte_level) { memcpy(out, s, n); return n; }
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        int32_t cp;
        size_t k = cal_utf8_next(s, n, i, &cp);
        if (cp < 0 || cp >= 324 || cp_byte[cp] < 0) { memcpy(out, s, n); return n; }
        out[o++] = (char)cp_byte[cp];
        i += k;
    }
    return o;
}

static void pattern_free(th_pattern *p);

static int compile_pattern(ld *l, const tj *pat, const char *path, th_pattern *out)
{
    memset(out, 0, sizeof *out);
    const tj *s = tj_get(pat, "String"), *r = tj_get(pat, "Regex");
    if (s && s->type == TJ_STR) {
        if (!s->n) return bad(l, path, "empty String pattern is not supported");
        out->lit = dupn(s->u.s, s->n);
        out->lit_len = s->n;
        return 0;
    }
    if (!r || r->type != TJ_STR) return bad(l, path, "expected {\"String\": ...} or {\"Regex\": ...}");
    out->is_regex = 1;
    out->scanner = th_scanner_for(r->u.s, r->n);
    int wn = snprintf(NULL, 0, "%s '%.*s'", path, (int)r->n, r->u.s);
    out->where = cal_xmalloc((size_t)wn + 1);
    snprintf(out->where, (size_t)wn + 1, "%s '%.*s'", path, (int)r->n, r->u.s);
    /* a pattern with a hand-written scanner never reaches PCRE2, whose
     * compile (Unicode classes spelt out code point by code point) was
     * most of a prepared tokenizer's load */
    if (out->scanner != TH_RE_PCRE) return 0;
    char m[200];
    out->re = th_pcre_compile(r->u.s, r->n, m, sizeof m);
    if (!out->re) {
        free(out->where); /* the callers free nothing of a pattern that failed */
        out->where = NULL;
        return bad(l, path, "regex not supported: %s", m);
    }
    return 0;
}

/* The common head of the component loaders below: a null component is
   absent; a "Sequence" adds the items of its array KEY one by one with ADD.
   Returns the type of a single component, or NULL when there is nothing
   more to do (*rc then holds the result). */
typedef int (*add_fn)(ld *l, const tj *n, const char *path);
static const tj *component_type(ld *l, const tj *n, const char *path, const char *key, add_fn add, int *rc)
{
    *rc = 0;
    if (!n || n->type == TJ_NULL) return NULL;
    const tj *ty = get_str(l, n, "type", path, 1);
    if (!ty) { *rc = -1; return NULL; }
    if (!tj_streq(ty, "Sequence")) return ty;
    char p[256];
    const tj *a = tj_get(n, key);
    snprintf(p, sizeof p, "%s.%s", path, key);
    if (!a || a->type != TJ_ARR) { *rc = bad(l, p, "expected an array"); return NULL; }
    for (uint32_t i = 0; i < a->n; i++) {
        snprintf(p, sizeof p, "%s.%s[%u]", path, key, i);
        if (add(l, &a->u.kids[i], p)) { *rc = -1; return NULL; }
    }
    return NULL;
}

/* The error for a component type this engine does not implement. */
static int unsupported(ld *l, const char *path, const char *what, const tj *ty)
{
    char p[256];
    snprintf(p, sizeof p, "%s.type", path);
    return bad(l, p, "unsupported %s '%.*s'", what, (int)ty->n, ty->u.s);
}

/* Standard base64 (RFC 4648, with padding; serde's Precompiled field) of
 * s[0..n) into a malloc'd *out: 0, or -1 when s is not that. */
static int base64_decode(const char *s, size_t n, char **out, size_t *outlen)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    int8_t val[256];
    memset(val, -1, sizeof val);
    for (int i = 0; i < 64; i++) val[(unsigned char)abc[i]] = (int8_t)i;
    unsigned char *o = cal_xmalloc(n / 4 * 3 + 3);
    size_t k = 0;
    uint32_t acc = 0;
    int bits = 0;
    size_t pad = 0;
    for (size_t i = 0; i < n; i++) {
        int v = val[(unsigned char)s[i]];
        if (s[i] == '=' && i + 2 >= n && n % 4 == 0) { pad++; continue; }
        if (v < 0 || pad) { free(o); return -1; }
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) { bits -= 8; o[k++] = (unsigned char)(acc >> bits); }
    }
    if (n % 4) { free(o); return -1; }
    *out = (char *)o;
    *outlen = k;
    return 0;
}

/* ---- normalizers ---- */
static int add_norm(ld *l, const tj *n, const char *path)
{
    int rc;
    const tj *ty = component_type(l, n, path, "normalizers", add_norm, &rc);
    if (!ty) return rc;
    tok_hf *t = l->t;
    char p[256];
    th_norm nm;
    memset(&nm, 0, sizeof nm);
    if (tj_streq(ty, "NFC")) nm.kind = TH_N_NFC;
    else if (tj_streq(ty, "NFKC")) nm.kind = TH_N_NFKC;
    else if (tj_streq(ty, "NFD")) nm.kind = TH_N_NFD;
    else if (tj_streq(ty, "NFKD")) nm.kind = TH_N_NFKD;
    else if (tj_streq(ty, "Lowercase")) nm.kind = TH_N_LOWER;
    else if (tj_streq(ty, "Strip")) {
        nm.kind = TH_N_STRIP;
        nm.left = get_bool(l, n, "strip_left", 1, path);
        nm.right = get_bool(l, n, "strip_right", 1, path);
    } else if (tj_streq(ty, "Prepend")) {
        nm.kind = TH_N_PREPEND;
        const tj *s = get_str(l, n, "prepend", path, 1);
        if (!s) return -1;
        nm.str = dupn(s->u.s, s->n); nm.str_len = s->n;
    } else if (tj_streq(ty, "StripAccents")) {
        nm.kind = TH_N_STRIPACC;
    } else if (tj_streq(ty, "BertNormalizer")) {
        nm.kind = TH_N_BERT;
        nm.clean = (uint8_t)get_bool(l, n, "clean_text", 1, path);
        nm.chinese = (uint8_t)get_bool(l, n, "handle_chinese_chars", 1, path);
        nm.lower = (uint8_t)get_bool(l, n, "lowercase", 1, path);
        const tj *sa = tj_get(n, "strip_accents"); /* null: as lowercase */
        nm.strip_acc = sa && sa->type != TJ_NULL ? (uint8_t)get_bool(l, n, "strip_accents", 0, path) : nm.lower;
    } else if (tj_streq(ty, "Precompiled")) {
        nm.kind = TH_N_PRECOMPILED;
        const tj *s = get_str(l, n, "precompiled_charsmap", path, 1);
        if (!s) return -1;
        char why[200];
        if (base64_decode(s->u.s, s->n, &nm.str, &nm.str_len)) {
            snprintf(p, sizeof p, "%s.precompiled_charsmap", path);
            return bad(l, p, "not base64");
        }
        if (nm.str_len) {
            nm.cm = cal_xmalloc(sizeof *nm.cm);
            if (charsmap_init(nm.cm, nm.str, nm.str_len, why, sizeof why)) {
                free(nm.cm), free(nm.str);
                snprintf(p, sizeof p, "%s.precompiled_charsmap", path);
                return bad(l, p, "%s", why);
            }
        }
    } else if (tj_streq(ty, "Replace")) {
        nm.kind = TH_N_REPLACE;
        const tj *c = get_str(l, n, "content", path, 1);
        if (!c) return -1;
        snprintf(p, sizeof p, "%s.pattern", path);
        if (compile_pattern(l, tj_get(n, "pattern"), p, &nm.pat)) return -1;
        nm.str = dupn(c->u.s, c->n); nm.str_len = c->n;
    } else {
        return unsupported(l, path, "normalizer", ty);
    }
    if (l->failed) {
        pattern_free(&nm.pat);
        free(nm.str);
        return -1;
    }
    t->norm = cal_xrealloc(t->norm, (t->nnorm + 1) * sizeof *t->norm);
    t->norm[t->nnorm++] = nm;
    return 0;
}

/* ---- pre-tokenizers ---- */
static int add_pre(ld *l, const tj *n, const char *path)
{
    int rc;
    const tj *ty = component_type(l, n, path, "pretokenizers", add_pre, &rc);
    if (!ty) return rc;
    tok_hf *t = l->t;
    char p[256];
    th_pretok pt;
    memset(&pt, 0, sizeof pt);
    if (tj_streq(ty, "Split")) {
        pt.kind = TH_PT_SPLIT;
        snprintf(p, sizeof p, "%s.pattern", path);
        if (compile_pattern(l, tj_get(n, "pattern"), p, &pt.pat)) return -1;
        const tj *b = get_str(l, n, "behavior", path, 1);
        if (!b) goto fail;
        if (tj_streq(b, "Removed")) pt.behavior = TH_SPLIT_REMOVED;
        else if (tj_streq(b, "Isolated")) pt.behavior = TH_SPLIT_ISOLATED;
        else if (tj_streq(b, "MergedWithPrevious")) pt.behavior = TH_SPLIT_PREV;
        else if (tj_streq(b, "MergedWithNext")) pt.behavior = TH_SPLIT_NEXT;
        else if (tj_streq(b, "Contiguous")) pt.behavior = TH_SPLIT_CONTIG;
        else {
            snprintf(p, sizeof p, "%s.behavior", path);
            bad(l, p, "unknown split behavior '%.*s'", (int)b->n, b->u.s);
            goto fail;
        }
        pt.invert = get_bool(l, n, "invert", 0, path);
    } else if (tj_streq(ty, "ByteLevel")) {
        pt.kind = TH_PT_BYTELEVEL;
        pt.add_prefix_space = get_bool(l, n, "add_prefix_space", 1, path);
        pt.use_regex = get_bool(l, n, "use_regex", 1, path);
        if (pt.use_regex) {
            static const char gpt2[] = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";
            tj fake_s = { TJ_STR, (uint32_t)strlen(gpt2), { .s = gpt2 } };
            tj kids[2] = { { TJ_STR, 5, { .s = "Regex" } }, fake_s };
            tj obj = { TJ_OBJ, 1, { .kids = kids } };
            if (compile_pattern(l, &obj, path, &pt.pat)) return -1;
        }
        l->t->byte_level = 1;
    } else if (tj_streq(ty, "Metaspace")) {
        pt.kind = TH_PT_METASPACE;
        const tj *r = get_str(l, n, "replacement", path, 1);
        if (!r) return -1;
        if (r->n == 0 || r->n > 4) return bad(l, path, "replacement must be one character");
        memcpy(pt.repl, r->u.s, r->n); pt.repl_len = r->n;
        const tj *ps = tj_get(n, "prepend_scheme");
        if (ps && ps->type == TJ_STR) {
            if (tj_streq(ps, "always")) pt.prepend = 2;
            else if (tj_streq(ps, "first")) pt.prepend = 1;
            else if (tj_streq(ps, "never")) pt.prepend = 0;
            else { snprintf(p, sizeof p, "%s.prepend_scheme", path); return bad(l, p, "unknown prepend_scheme"); }
        } else pt.prepend = get_bool(l, n, "add_prefix_space", 1, path) ? 2 : 0;
        pt.split = get_bool(l, n, "split", 1, path);
    } else if (tj_streq(ty, "BertPreTokenizer")) {
        pt.kind = TH_PT_BERT;
    } else if (tj_streq(ty, "Digits")) {
        pt.kind = TH_PT_DIGITS;
        pt.individual = get_bool(l, n, "individual_digits", 0, path);
    } else {
        return unsupported(l, path, "pre-tokenizer", ty);
    }
    if (l->failed) goto fail;
    t->pre = cal_xrealloc(t->pre, (t->npre + 1) * sizeof *t->pre);
    t->pre[t->npre++] = pt;
    return 0;
fail: /* a pattern compiled before a later field failed belongs to nobody yet */
    pattern_free(&pt.pat);
    return -1;
}

/* ---- decoders ---- */
static int add_dec(ld *l, const tj *n, const char *path)
{
    int rc;
    const tj *ty = component_type(l, n, path, "decoders", add_dec, &rc);
    if (!ty) return rc;
    tok_hf *t = l->t;
    char p[256];
    th_dec d;
    memset(&d, 0, sizeof d);
    if (tj_streq(ty, "ByteLevel")) d.kind = TH_D_BYTELEVEL;
    else if (tj_streq(ty, "ByteFallback")) d.kind = TH_D_BYTEFALLBACK;
    else if (tj_streq(ty, "Fuse")) d.kind = TH_D_FUSE;
    else if (tj_streq(ty, "Strip")) {
        d.kind = TH_D_STRIP;
        const tj *c = get_str(l, n, "content", path, 1), *a = tj_get(n, "start"), *b = tj_get(n, "stop");
        if (!c) return -1;
        d.content = dupn(c->u.s, c->n); d.content_len = c->n;
        d.start = a && a->type == TJ_NUM ? (int)a->u.num : 0;
        d.stop = b && b->type == TJ_NUM ? (int)b->u.num : 0;
    } else if (tj_streq(ty, "Replace")) {
        d.kind = TH_D_REPLACE;
        const tj *pat = tj_get(n, "pattern"), *s = pat ? tj_get(pat, "String") : NULL;
        const tj *c = get_str(l, n, "content", path, 1);
        snprintf(p, sizeof p, "%s.pattern", path);
        if (!s || s->type != TJ_STR || !s->n) return bad(l, p, "only a non-empty String pattern is supported in decoders");
        if (!c) return -1;
        d.pat = dupn(s->u.s, s->n); d.pat_len = s->n;
        d.content = dupn(c->u.s, c->n); d.content_len = c->n;
    } else if (tj_streq(ty, "WordPiece")) {
        d.kind = TH_D_WORDPIECE;
        const tj *pf = tj_get(n, "prefix");
        if (pf && pf->type == TJ_STR) d.pat = dupn(pf->u.s, pf->n), d.pat_len = pf->n;
        else d.pat = dupn("##", 2), d.pat_len = 2;
        d.start = get_bool(l, n, "cleanup", 1, path);
    } else if (tj_streq(ty, "Metaspace")) {
        d.kind = TH_D_METASPACE;
        const tj *r = get_str(l, n, "replacement", path, 1);
        if (!r) return -1;
        if (r->n == 0 || r->n > 4) return bad(l, path, "replacement must be one character");
        memcpy(d.repl, r->u.s, r->n); d.repl_len = r->n;
        const tj *ps = tj_get(n, "prepend_scheme");
        d.prepend = ps && ps->type == TJ_STR ? !tj_streq(ps, "never") : get_bool(l, n, "add_prefix_space", 1, path);
    } else {
        return unsupported(l, path, "decoder", ty);
    }
    t->dec = cal_xrealloc(t->dec, (t->ndec + 1) * sizeof *t->dec);
    t->dec[t->ndec++] = d;
    return 0;
}

/* ---- post-processor ---- */
static int add_post(ld *l, const tj *n, const char *path)
{
    int rc;
    const tj *ty = component_type(l, n, path, "processors", add_post, &rc);
    if (!ty) return rc;
    tok_hf *t = l->t;
    char p[256];
    if (tj_streq(ty, "ByteLevel")) return 0; /* offsets only; ids unchanged */
    if (tj_streq(ty, "BertProcessing")) { /* [cls] $A [sep]: "cls": [token, id], "sep": [token, id] */
        const tj *cls = tj_get(n, "cls"), *sep = tj_get(n, "sep");
        if (!cls || cls->type != TJ_ARR || cls->n != 2 || cls->u.kids[1].type != TJ_NUM || !sep || sep->type != TJ_ARR ||
            sep->n != 2 || sep->u.kids[1].type != TJ_NUM || cls->u.kids[1].u.num < 0 || sep->u.kids[1].u.num < 0 ||
            cls->u.kids[1].u.num >= 4294967295.0 || sep->u.kids[1].u.num >= 4294967295.0)
            return bad(l, path, "cls and sep must be [token, id]");
        uint32_t c = (uint32_t)cls->u.kids[1].u.num, s = (uint32_t)sep->u.kids[1].u.num;
        tok_hf_set_template(t, &c, 1, &s, 1);
        return 0;
    }
    if (!tj_streq(ty, "TemplateProcessing")) {
        return unsupported(l, path, "post-processor", ty);
    }
    const tj *single = tj_get(n, "single"), *sp = tj_get(n, "special_tokens");
    snprintf(p, sizeof p, "%s.single", path);
    if (!single || single->type != TJ_ARR) return bad(l, p, "expected an array");
    int seen_a = 0;
    for (uint32_t i = 0; i < single->n; i++) {
        const tj *it = &single->u.kids[i], *st = tj_get(it, "SpecialToken"), *sq = tj_get(it, "Sequence");
        snprintf(p, sizeof p, "%s.single[%u]", path, i);
        if (sq) {
            const tj *id = tj_get(sq, "id");
            if (!tj_streq(id, "A") || seen_a) return bad(l, p, "only one Sequence A is supported in a single template");
            seen_a = 1;
            continue;
        }
        const tj *name = st ? tj_get(st, "id") : NULL;
        if (!name || name->type != TJ_STR) return bad(l, p, "expected SpecialToken or Sequence");
        const tj *def = NULL;
        if (sp && sp->type == TJ_OBJ)
            for (uint32_t k = 0; k < sp->n; k++)
                if (sp->u.kids[2 * k].n == name->n && !memcmp(sp->u.kids[2 * k].u.s, name->u.s, name->n))
                    def = &sp->u.kids[2 * k + 1];
        const tj *ids = def ? tj_get(def, "ids") : NULL;
        if (!ids || ids->type != TJ_ARR) return bad(l, p, "special token '%.*s' not in special_tokens", (int)name->n, name->u.s);
        for (uint32_t k = 0; k < ids->n; k++) {
            if (ids->u.kids[k].type != TJ_NUM) return bad(l, p, "bad ids");
            uint32_t id = (uint32_t)ids->u.kids[k].u.num;
            uint32_t **a = seen_a ? &t->tmpl_post : &t->tmpl_pre;
            size_t *an = seen_a ? &t->ntmpl_post : &t->ntmpl_pre;
            *a = cal_xrealloc(*a, (*an + 1) * sizeof **a);
            (*a)[(*an)++] = id;
        }
    }
    return 0;
}

/* ---- added tokens trie ---- */
static void trie_init(th_trie *tr)
{
    memset(tr, 0, sizeof *tr);
    tr->ncap = 64;
    tr->node = cal_xmalloc(tr->ncap * sizeof *tr->node);
    tr->node[0].tok = TH_NONE;
    tr->nn = 1;
    th_mergemap_init(&tr->edges, 64);
}

static void trie_add(th_trie *tr, const char *s, size_t n, uint32_t tok)
{
    uint32_t cur = 0;
    if (!n) return;
    tr->first[(unsigned char)s[0]] = 1;
    for (size_t i = 0; i < n; i++) {
        const struct th_merge *e = th_mergemap_get(&tr->edges, cur, (unsigned char)s[i]);
        if (e) { cur = e->rank; continue; }
        if (tr->nn == tr->ncap) { tr->ncap *= 2; tr->node = cal_xrealloc(tr->node, tr->ncap * sizeof *tr->node); }
        tr->node[tr->nn].tok = TH_NONE;
        th_mergemap_put(&tr->edges, cur, (unsigned char)s[i], tr->nn, 0);
        cur = tr->nn++;
    }
    tr->node[cur].tok = tok; /* a later duplicate wins */
}

static void trie_free(th_trie *tr)
{
    free(tr->node);
    if (tr->edges.slot) th_mergemap_free(&tr->edges);
}

static int load_added(ld *l, const tj *a)
{
    tok_hf *t = l->t;
    th_strmap_init(&t->added_map, a && a->type == TJ_ARR ? a->n : 0);
    t->max_added = TH_NONE;
    if (!a || a->type == TJ_NULL) return 0;
    if (a->type != TJ_ARR) return bad(l, "added_tokens", "expected an array");
    t->added = cal_xcalloc(a->n ? a->n : 1, sizeof *t->added);
    char p[64];
    for (uint32_t i = 0; i < a->n; i++) {
        const tj *o = &a->u.kids[i], *id = tj_get(o, "id");
        snprintf(p, sizeof p, "added_tokens[%u]", i);
        const tj *c = get_str(l, o, "content", p, 1);
        if (!c) return -1;
        if (!id || id->type != TJ_NUM || id->u.num < 0 || id->u.num >= 4294967295.0) return bad(l, p, "bad id");
        th_added *ad = &t->added[t->nadded++];
        if (t->added_pool.n + c->n >= UINT32_MAX) return bad(l, p, "the added tokens' texts exceed 4 GB");
        ad->off = (uint32_t)t->added_pool.n;
        ad->len = c->n;
        cal_buf_add(&t->added_pool, c->u.s, c->n);
        /* ids as the reference assigns them (the file's "id" is only a hint):
         * an earlier added token or a vocabulary entry with this text keeps
         * its id, else the next id after the vocabulary and the added ones.
         * Looked up in maps: a scan of the earlier tokens made 10^5 added
         * tokens a minute's work (issue 29). */
        uint32_t vid = th_strmap_get(&t->added_map, c->u.s, c->n);
        if (vid == TH_NONE) {
            vid = th_strmap_get(l->orig, c->u.s, c->n);
            if (vid == TH_NONE) vid = t->max_added != TH_NONE && t->max_added >= l->orig->n ? t->max_added + 1 : l->orig->n;
            th_strmap_put(&t->added_map, c->u.s, c->n, vid);
        }
        ad->id = vid;
        if (t->max_added == TH_NONE || vid > t->max_added) t->max_added = vid;
        ad->special = get_bool(l, o, "special", 0, p);
        ad->lstrip = get_bool(l, o, "lstrip", 0, p);
        ad->rstrip = get_bool(l, o, "rstrip", 0, p);
        ad->normalized = get_bool(l, o, "normalized", !ad->special, p);
        ad->single_word = get_bool(l, o, "single_word", 0, p);
        if (l->failed) return -1;
    }
    return 0;
}

/* ---- model ---- */

/* A "Unigram" model (tokenizers' models/unigram): vocab [[piece, score],
 * ...] whose index is the id, unk_id, byte_fallback; matched and scored by
 * tok/unigram.h in the Rust tokenizers' arithmetic. */
static int load_unigram(ld *l, const tj *m)
{
    tok_hf *t = l->t;
    const tj *v = tj_get(m, "vocab"), *unk = tj_get(m, "unk_id");
    if (!v || v->type != TJ_ARR) return bad(l, "model.vocab", "expected an array of [piece, score]");
    if (v->n >= TH_NONE) return bad(l, "model.vocab", "too many pieces");
    uint32_t n = (uint32_t)v->n, unk_id = TH_NONE;
    if (unk && unk->type != TJ_NULL) {
        if (unk->type != TJ_NUM || unk->u.num < 0 || unk->u.num >= n || unk->u.num != (double)(uint32_t)unk->u.num)
            return bad(l, "model.unk_id", "not the index of a piece");
        unk_id = (uint32_t)unk->u.num;
    }
    t->byte_fallback = get_bool(l, m, "byte_fallback", 0, "model");
    l->orig = &t->vocab;
    th_strmap_init(&t->vocab, n);
    const char **text = cal_xmalloc((n ? n : 1) * sizeof *text);
    uint32_t *len = cal_xmalloc((n ? n : 1) * sizeof *len);
    double *score = cal_xmalloc((n ? n : 1) * sizeof *score), min = 1.0 / 0.0;
    uint8_t *kind = cal_xcalloc(n ? n : 1, 1); /* every entry matched (UG_K_NORMAL) */
    for (uint32_t i = 0; i < n; i++) {
        const tj *e = &v->u.kids[i];
        if (e->type != TJ_ARR || e->n != 2 || e->u.kids[0].type != TJ_STR || e->u.kids[1].type != TJ_NUM) {
            char p[64];
            snprintf(p, sizeof p, "model.vocab[%u]", i);
            free(text), free(len), free(score), free(kind);
            return bad(l, p, "expected [piece, score]");
        }
        text[i] = e->u.kids[0].u.s;
        len[i] = (uint32_t)e->u.kids[0].n;
        score[i] = e->u.kids[1].u.num;
        if (score[i] < min) min = score[i];
        th_strmap_put(&t->vocab, text[i], len[i], i); /* a repeated piece: its last id */
    }
    uint32_t byte_id[256];
    for (int b = 0; b < 256; b++) {
        char f[8];
        snprintf(f, sizeof f, "<0x%02X>", b);
        byte_id[b] = th_strmap_get(&t->vocab, f, 6);
        t->byte_id[b] = byte_id[b];
    }
    t->ug = cal_xmalloc(sizeof *t->ug);
    ug_build(t->ug, UG_HF, n, text, len, score, kind, unk_id, t->byte_fallback, byte_id, min - 10.0, 0.0f);
    free(text), free(len), free(score), free(kind);
    t->nids = n;
    t->unk_id = unk_id;
    return 0;
}

/* The vocabulary object {token: id} v into map (the last of a repeated
 * token wins); *maxid is one past the largest id. 0, or -1 (bad). */
static int vocab_object(ld *l, const tj *v, th_strmap *map, uint32_t *maxid)
{
    char qb[80];
    th_strmap_init(map, v->n);
    *maxid = 0;
    for (uint32_t i = 0; i < v->n; i++) {
        const tj *k = &v->u.kids[2 * i], *id = &v->u.kids[2 * i + 1];
        if (id->type != TJ_NUM || id->u.num < 0 || id->u.num >= 4294967295.0 || id->u.num != (double)(uint32_t)id->u.num) {
            char p[200];
            snprintf(p, sizeof p, "model.vocab[%s]", q(k->u.s, k->n, qb, sizeof qb));
            return bad(l, p, "id is not an unsigned integer");
        }
        uint32_t x = (uint32_t)id->u.num;
        th_strmap_put(map, k->u.s, k->n, x);
        if (x + 1 > *maxid) *maxid = x + 1;
    }
    return 0;
}

/* A "WordPiece" model: vocab {token: id}, unk_token, continuing_subword_prefix,
 * max_input_chars_per_word (hf_wordpiece.c encodes). */
static int load_wordpiece(ld *l, const tj *m)
{
    tok_hf *t = l->t;
    const tj *v = tj_get(m, "vocab"), *unk = tj_get(m, "unk_token"), *pf = tj_get(m, "continuing_subword_prefix"),
             *mx = tj_get(m, "max_input_chars_per_word");
    if (!v || v->type != TJ_OBJ) return bad(l, "model.vocab", "expected an object");
    l->orig = &t->vocab;
    uint32_t maxid;
    if (vocab_object(l, v, &t->vocab, &maxid)) return -1;
    t->nids = maxid;
    t->unk_id = TH_NONE;
    if (unk && unk->type == TJ_STR) t->unk_id = th_strmap_get(&t->vocab, unk->u.s, unk->n); /* absent: an error when needed */
    const char *prefix = pf && pf->type == TJ_STR ? pf->u.s : "##";
    size_t plen = pf && pf->type == TJ_STR ? pf->n : 2;
    if (plen >= sizeof t->wp_prefix) return bad(l, "model.continuing_subword_prefix", "longer than %zu bytes", sizeof t->wp_prefix - 1);
    memcpy(t->wp_prefix, prefix, plen);
    t->wp_prefix_len = plen;
    t->wp_max = 100;
    if (mx && mx->type == TJ_NUM) t->wp_max = mx->u.num < 0 ? 0 : mx->u.num > 4294967295.0 ? UINT32_MAX : (uint32_t)mx->u.num;
    t->wordpiece = 1;
    return 0;
}

static int load_model(ld *l, const tj *m)
{
    tok_hf *t = l->t;
    char kb[80], qb[80];
    if (!m || m->type != TJ_OBJ) return bad(l, "model", "missing or not an object");
    const tj *ty = tj_get(m, "type");
    if (ty && ty->type == TJ_STR && tj_streq(ty, "Unigram") && !l->spm_ranks) return load_unigram(l, m);
    if (ty && ty->type == TJ_STR && tj_streq(ty, "WordPiece") && !l->spm_ranks) return load_wordpiece(l, m);
    if (ty && !tj_streq(ty, "BPE")) {
        if (ty->type == TJ_STR)
            return bad(l, "model.type", "unsupported model '%.*s' (only BPE, Unigram and WordPiece)", (int)ty->n, ty->u.s);
        return bad(l, "model.type", "expected a string");
    }
    const tj *dr = tj_get(m, "dropout");
    if (dr && dr->type == TJ_NUM && dr->u.num != 0) return bad(l, "model.dropout", "BPE dropout is not supported");
    const tj *pre = tj_get(m, "continuing_subword_prefix"), *suf = tj_get(m, "end_of_word_suffix");
    if (pre && pre->type == TJ_STR && pre->n) return bad(l, "model.continuing_subword_prefix", "a non-empty prefix is not supported");
    if (suf && suf->type == TJ_STR && suf->n) return bad(l, "model.end_of_word_suffix", "a non-empty suffix is not supported");
    t->fuse_unk = get_bool(l, m, "fuse_unk", 0, "model");
    t->byte_fallback = get_bool(l, m, "byte_fallback", 0, "model");
    t->ignore_merges = get_bool(l, m, "ignore_merges", 0, "model");
    const tj *v = tj_get(m, "vocab"), *mg = tj_get(m, "merges");
    if (!v || v->type != TJ_OBJ) return bad(l, "model.vocab", "expected an object");
    l->orig = t->byte_level ? &l->orig_own : &t->vocab;
    uint32_t maxid;
    if (vocab_object(l, v, l->orig, &maxid)) return -1;
    /* model-space keys (bytes for byte-level) */
    char *kbuf = cal_xmalloc(1024);
    size_t kcap = 1024;
    if (t->byte_level) th_strmap_init(&t->vocab, v->n);
    for (uint32_t i = 0; i < v->n && t->byte_level; i++) {
        const tj *k = &v->u.kids[2 * i];
        if (k->n > kcap) { kcap = k->n * 2; kbuf = cal_xrealloc(kbuf, kcap); }
        size_t kl = model_key(t, k->u.s, k->n, kbuf);
        th_strmap_put(&t->vocab, kbuf, kl, (uint32_t)v->u.kids[2 * i + 1].u.num);
    }
    t->nids = maxid;
    const tj *unk = tj_get(m, "unk_token");
    t->unk_id = TH_NONE;
    if (unk && unk->type == TJ_STR) {
        t->unk_id = th_strmap_get(l->orig, unk->u.s, unk->n);
        if (t->unk_id == TH_NONE) { free(kbuf); return bad(l, "model.unk_token", "%s is not in the vocabulary", q(unk->u.s, unk->n, qb, sizeof qb)); }
    }
    for (int b = 0; b < 256; b++) {
        if (t->byte_level) {
            char c = (char)b;
            t->byte_id[b] = th_strmap_get(&t->vocab, &c, 1);
        } else {
            char f[8];
            snprintf(f, sizeof f, "<0x%02X>", b);
            t->byte_id[b] = th_strmap_get(l->orig, f, 6);
        }
    }
    /* merges */
    if (!mg || mg->type != TJ_ARR) { free(kbuf); return bad(l, "model.merges", "expected an array"); }
    const tj *rk = l->spm_ranks ? tj_get(m, "calkit_spm_ranks") : NULL;
    if (l->spm_ranks && (!rk || rk->type != TJ_ARR || rk->n != mg->n)) { free(kbuf); return bad(l, "model.calkit_spm_ranks", "expected one rank per merge"); }
    th_mergemap_init(&t->merges, mg->n);
    for (uint32_t i = 0; i < mg->n; i++) {
        const tj *e = &mg->u.kids[i];
        const char *a, *b;
        size_t an, bn;
        char p[64];
        p[0] = 0;
        if (i && e->type != mg->u.kids[0].type) snprintf(p, sizeof p, "model.merges[%u]", i);
        else if (e->type == TJ_STR ? !memchr(e->u.s, ' ', e->n) : e->type != TJ_ARR) snprintf(p, sizeof p, "model.merges[%u]", i);
        if (i && e->type != mg->u.kids[0].type) { free(kbuf); return bad(l, p, "mixes \"a b\" strings and [\"a\", \"b\"] arrays"); }
        if (e->type == TJ_STR) {
            const char *sp = memchr(e->u.s, ' ', e->n);
            if (!sp) { free(kbuf); return bad(l, p, "expected \"a b\""); }
            a = e->u.s; an = (size_t)(sp - e->u.s);
            b = sp + 1; bn = e->n - an - 1;
        } else if (e->type == TJ_ARR && e->n == 2 && e->u.kids[0].type == TJ_STR && e->u.kids[1].type == TJ_STR) {
            a = e->u.kids[0].u.s; an = e->u.kids[0].n;
            b = e->u.kids[1].u.s; bn = e->u.kids[1].n;
        } else { snprintf(p, sizeof p, "model.merges[%u]", i); free(kbuf); return bad(l, p, "expected \"a b\" or [\"a\", \"b\"]"); }
        uint32_t ia = th_strmap_get(l->orig, a, an), ib = th_strmap_get(l->orig, b, bn);
        if (ia == TH_NONE || ib == TH_NONE) snprintf(p, sizeof p, "model.merges[%u]", i);
        if (ia == TH_NONE) { free(kbuf); return bad(l, p, "unknown token %s", q(a, an, qb, sizeof qb)); }
        if (ib == TH_NONE) { free(kbuf); return bad(l, p, "unknown token %s", q(b, bn, qb, sizeof qb)); }
        if (an + bn > kcap) { kcap = (an + bn) * 2; kbuf = cal_xrealloc(kbuf, kcap); }
        memcpy(kbuf, a, an); memcpy(kbuf + an, b, bn);
        uint32_t ic = th_strmap_get(l->orig, kbuf, an + bn);
        if (ic == TH_NONE) snprintf(p, sizeof p, "model.merges[%u]", i);
        if (ic == TH_NONE) { bad(l, p, "merged token %s is not in the vocabulary", q(kbuf, an + bn, kb, sizeof kb)); free(kbuf); return -1; }
        uint32_t rank = i;
        if (rk) {
            if (rk->u.kids[i].type != TJ_NUM || rk->u.kids[i].u.num < 0 || rk->u.kids[i].u.num >= (1u << 24) - 1) {
                free(kbuf);
                return bad(l, "model.calkit_spm_ranks", "a rank is not a small unsigned integer");
            }
            rank = (uint32_t)rk->u.kids[i].u.num;
        }
        th_mergemap_put(&t->merges, ia, ib, rank, ic);
        /* a merge joining some character to a following U+2581 */
        if (!t->byte_level && bn >= 3 && !memcmp(b, "\xe2\x96\x81", 3) && an) {
            size_t k = an - 1;
            while (k > 0 && ((unsigned char)a[k] & 0xC0) == 0x80) k--;
            int32_t cp;
            cal_utf8_next(a, an, k, &cp);
            if (cp != 0x2581) {
                size_t z = 0;
                while (z < t->nseg_bad && t->seg_bad[z] != cp) z++;
                if (z == t->nseg_bad) {
                    t->seg_bad = cal_xrealloc(t->seg_bad, (t->nseg_bad + 1) * sizeof *t->seg_bad);
                    t->seg_bad[t->nseg_bad++] = cp;
                }
            }
        }
    }
    if (!t->byte_level) {
        t->seg_ok = !t->ignore_merges && th_strmap_get(&t->vocab, "\xe2\x96\x81", 3) != TH_NONE;
        t->cp_id = cal_xmalloc(0x10000 * sizeof *t->cp_id);
        for (int32_t c = 0; c < 0x10000; c++) {
            char u[4];
            size_t k = c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
            if (k == 1) u[0] = (char)c;
            else if (k == 2) { u[0] = (char)(0xC0 | c >> 6); u[1] = (char)(0x80 | (c & 63)); }
            else { u[0] = (char)(0xE0 | c >> 12); u[1] = (char)(0x80 | (c >> 6 & 63)); u[2] = (char)(0x80 | (c & 63)); }
            t->cp_id[c] = (c >= 0xD800 && c < 0xE000) ? TH_NONE : th_strmap_get(&t->vocab, u, k);
        }
    }
    free(kbuf);
    return 0;
}

/* Sets an id's text (a later one wins). */
static void set_id_text(tok_hf *t, uint32_t id, const char *s, size_t n)
{
    t->id_off[id] = (uint32_t)t->id_pool.n;
    t->id_len[id] = (uint32_t)n;
    cal_buf_add(&t->id_pool, s, n);
}

static int fill_id_text(ld *l, const tj *v)
{
    tok_hf *t = l->t;
    for (size_t i = 0; i < t->nadded; i++)
        if (t->added[i].id + 1 > t->nids) t->nids = t->added[i].id + 1;
    t->id_off = cal_xmalloc((t->nids ? t->nids : 1) * sizeof *t->id_off);
    memset(t->id_off, 0xFF, t->nids * sizeof *t->id_off);
    t->id_len = cal_xcalloc(t->nids ? t->nids : 1, sizeof *t->id_len);
    t->id_special = cal_xcalloc(t->nids ? t->nids : 1, 1);
    t->ids_cap = t->nids ? t->nids : 1;
    uint64_t total = t->added_pool.n;
    for (uint32_t i = 0; i < v->n; i++) total += t->ug ? v->u.kids[i].u.kids[0].n : v->u.kids[2 * i].n;
    if (total >= UINT32_MAX) return bad(l, "model.vocab", "the token texts exceed 4 GB");
    cal_buf_reserve(&t->id_pool, (size_t)total + 1);
    for (uint32_t i = 0; i < v->n && t->ug; i++) { /* Unigram: [[piece, score], ...] */
        const tj *k = &v->u.kids[i].u.kids[0];
        set_id_text(t, i, k->u.s, k->n);
    }
    for (uint32_t i = 0; i < v->n && !t->ug; i++) {
        const tj *k = &v->u.kids[2 * i];
        set_id_text(t, (uint32_t)v->u.kids[2 * i + 1].u.num, k->u.s, k->n);
    }
    for (size_t i = 0; i < t->nadded; i++) {
        th_added *a = &t->added[i];
        set_id_text(t, a->id, t->added_pool.p + a->off, a->len);
        t->id_special[a->id] = (uint8_t)a->special;
    }
    /* text -> the smallest id with it, as tok_hf_token_id's answer */
    th_strmap_init(&t->textmap, t->nids);
    for (uint32_t id = t->nids; id-- > 0;)
        if (t->id_off[id] != TH_NONE) th_strmap_put(&t->textmap, t->id_pool.p + t->id_off[id], t->id_len[id], id);
    return 0;
}

static int64_t find_special(const tok_hf *t, const char *const *names)
{
    for (; *names; names++) {
        uint32_t id = th_strmap_get(&t->added_map, *names, strlen(*names));
        if (id != TH_NONE) return id;
    }
    return -1;
}

static atomic_uint_fast64_t serial_counter = 1;

static tok_hf *hf_load(const char *json, size_t len, const char *path, int spm_ranks, char *err, size_t errlen);

tok_hf *tok_hf_load(const char *json, size_t len, const char *path, char *err, size_t errlen)
{
    return hf_load(json, len, path, 0, err, errlen);
}

tok_hf *tok_hf_load_spm_bpe(const char *json, size_t len, const char *path, char *err, size_t errlen)
{
    return hf_load(json, len, path, 1, err, errlen);
}

static tok_hf *hf_load(const char *json, size_t len, const char *path, int spm_ranks, char *err, size_t errlen)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    (void)pthread_once(&once, byte_alphabet);
    tj *root;
    tj_doc *doc = tj_parse(json, len, &root, err, errlen);
    if (!doc) return NULL;
    tok_hf *t = cal_xcalloc(1, sizeof *t);
    t->serial = atomic_fetch_add(&serial_counter, 1);
    t->path = cal_xstrdup(path);
    ld l;
    memset(&l, 0, sizeof l);
    l.t = t; l.err = err; l.errlen = errlen;
    l.orig = &l.orig_own;
    l.spm_ranks = spm_ranks;
    t->spm_ties = spm_ranks;
    if (root->type != TJ_OBJ) { bad(&l, "(root)", "expected an object"); goto fail; }
    const tj *tr = tj_get(root, "truncation"), *pd = tj_get(root, "padding");
    if (tr && tr->type != TJ_NULL) { bad(&l, "truncation", "truncation is not supported (must be null)"); goto fail; }
    if (pd && pd->type != TJ_NULL) { bad(&l, "padding", "padding is not supported (must be null)"); goto fail; }
    /* pre-tokenizers first: they decide whether the model is byte-level */
    if (add_pre(&l, tj_get(root, "pre_tokenizer"), "pre_tokenizer")) goto fail;
    if (add_norm(&l, tj_get(root, "normalizer"), "normalizer")) goto fail;
    if (load_model(&l, tj_get(root, "model"))) goto fail;
    t->model_n = l.orig->n;
    if (load_added(&l, tj_get(root, "added_tokens"))) goto fail;
    if (add_post(&l, tj_get(root, "post_processor"), "post_processor")) goto fail;
    if (add_dec(&l, tj_get(root, "decoder"), "decoder")) goto fail;
    /* the small parts as JSON, for a prepared image (hf_image.c) */
    cal_buf_add(&t->small, "{\"normalizer\":", 14);
    tj_emit(tj_get(root, "normalizer"), &t->small);
    cal_buf_add(&t->small, ",\"pre_tokenizer\":", 17);
    tj_emit(tj_get(root, "pre_tokenizer"), &t->small);
    cal_buf_add(&t->small, ",\"decoder\":", 11);
    tj_emit(tj_get(root, "decoder"), &t->small);
    cal_buf_addc(&t->small, '}');
    if (fill_id_text(&l, tj_get(tj_get(root, "model"), "vocab"))) goto fail;
    if (!t->ug && !t->wordpiece) th_bpe_prepare(t);
    th_norm_quick_prepare(t);
    trie_init(&t->trie_raw);
    trie_init(&t->trie_norm);
    for (size_t i = 0; i < t->nadded; i++) {
        th_added *a = &t->added[i];
        const char *content = t->added_pool.p + a->off;
        if (!a->normalized) { trie_add(&t->trie_raw, content, a->len, (uint32_t)i); t->has_raw = 1; continue; }
        char *nz; size_t nn;
        char why[512];
        if (th_normalize(t, content, a->len, &nz, &nn, why, sizeof why)) { bad(&l, "added_tokens", "%s", why); goto fail; }
        trie_add(&t->trie_norm, nz, nn, (uint32_t)i);
        t->has_norm = 1;
        free(nz);
    }
    static const char *const bos[] = { "<|begin_of_text|>", "<bos>", "<s>", "<\xef\xbd\x9c" "begin\xe2\x96\x81of\xe2\x96\x81sentence\xef\xbd\x9c>", "<|startoftext|>", NULL };
    static const char *const eos[] = { "<|end_of_text|>", "<eos>", "</s>", "<\xef\xbd\x9c" "end\xe2\x96\x81of\xe2\x96\x81sentence\xef\xbd\x9c>", "<|endoftext|>", NULL };
    static const char *const pad[] = { "<pad>", "<|pad|>", "[PAD]", "<|finetune_right_pad_id|>", NULL };
    t->bos = t->ntmpl_pre ? (int64_t)t->tmpl_pre[0] : find_special(t, bos);
    t->eos = t->ntmpl_post ? (int64_t)t->tmpl_post[t->ntmpl_post - 1] : find_special(t, eos);
    t->pad = find_special(t, pad);
    t->bos_from = t->ntmpl_pre ? "post_processor" : "token name";
    t->eos_from = t->ntmpl_post ? "post_processor" : "token name";
    if (l.orig_own.slot) th_strmap_free(&l.orig_own);
    tj_free(doc);
    return t;
fail:
    if (l.orig_own.slot) th_strmap_free(&l.orig_own);
    tj_free(doc);
    tok_hf_free(t);
    return NULL;
}

int th_load_components(tok_hf *t, const char *small, size_t len, char *err, size_t errlen)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    (void)pthread_once(&once, byte_alphabet);
    tj *root;
    tj_doc *doc = tj_parse(small, len, &root, err, errlen);
    if (!doc) return -1;
    ld l;
    memset(&l, 0, sizeof l);
    l.t = t; l.err = err; l.errlen = errlen;
    int rc = root->type != TJ_OBJ ? bad(&l, "(image)", "expected an object")
           : add_pre(&l, tj_get(root, "pre_tokenizer"), "pre_tokenizer") ||
             add_norm(&l, tj_get(root, "normalizer"), "normalizer") || add_dec(&l, tj_get(root, "decoder"), "decoder")
               ? -1 : 0;
    tj_free(doc);
    return rc;
}

static void pattern_free(th_pattern *p)
{
    free(p->lit);
    free(p->where);
    if (p->re) pcre2_code_free(p->re);
}

void tok_hf_free(tok_hf *t)
{
    if (!t) return;
    if (t->image) { /* the large tables are the image's: forget them */
        memset(&t->vocab, 0, sizeof t->vocab);
        memset(&t->merges, 0, sizeof t->merges);
        t->id_off = t->id_len = NULL;
        t->id_special = NULL;
        memset(&t->id_pool, 0, sizeof t->id_pool);
        t->cp_id = NULL;
        t->seg_bad = NULL;
        t->added = NULL;
        memset(&t->added_pool, 0, sizeof t->added_pool);
        memset(&t->trie_raw, 0, sizeof t->trie_raw);
        memset(&t->trie_norm, 0, sizeof t->trie_norm);
    }
    if (t->vocab.slot) th_strmap_free(&t->vocab);
    if (t->added_map.slot) th_strmap_free(&t->added_map);
    if (t->textmap.slot) th_strmap_free(&t->textmap);
    if (t->merges.slot) th_mergemap_free(&t->merges);
    th_bpe_release(t);
    if (t->ug) ug_free(t->ug), free(t->ug);
    free(t->id_off); free(t->id_len); free(t->id_special);
    cal_buf_free(&t->id_pool);
    free(t->cp_id); free(t->seg_bad);
    for (size_t i = 0; i < t->nnorm; i++) {
        pattern_free(&t->norm[i].pat);
        free(t->norm[i].str);
        if (t->norm[i].cm) charsmap_free(t->norm[i].cm), free(t->norm[i].cm);
    }
    free(t->norm);
    for (size_t i = 0; i < t->npre; i++) pattern_free(&t->pre[i].pat);
    free(t->pre);
    free(t->added);
    cal_buf_free(&t->added_pool);
    if (t->trie_raw.node) trie_free(&t->trie_raw);
    if (t->trie_norm.node) trie_free(&t->trie_norm);
    for (size_t i = 0; i < t->ndec; i++) { free(t->dec[i].pat); free(t->dec[i].content); }
    free(t->dec);
    free(t->tmpl_pre); free(t->tmpl_post);
    free(t->path);
    cal_buf_free(&t->small);
    if (t->image) {
        tok_image_close(t->image);
        free(t->image);
    }
    free(t);
}

uint32_t tok_hf_vocab_size(const tok_hf *t) { return t->nids; }
int64_t tok_hf_bos(const tok_hf *t, const char **from) { *from = t->bos_from; return t->bos; }
int64_t tok_hf_eos(const tok_hf *t, const char **from) { *from = t->eos_from; return t->eos; }
int64_t tok_hf_pad(const tok_hf *t, const char **from) { *from = "token name"; return t->pad; }

int64_t tok_hf_token_id(const tok_hf *t, const char *s, size_t n)
{
    uint32_t id = th_strmap_get(&t->added_map, s, n);
    if (id == TH_NONE) id = th_strmap_get(&t->textmap, s, n);
    if (id == TH_NONE && t->image) /* an image keeps no text maps: scan the ids */
        for (uint32_t k = 0; k < t->nids && id == TH_NONE; k++) {
            size_t len;
            const char *p = tok_hf_id_text(t, k, &len);
            if (p && len == n && !memcmp(p, s, n)) id = k;
        }
    return id == TH_NONE ? -1 : (int64_t)id;
}

int64_t tok_hf_add_special(tok_hf *t, const char *s, size_t n, int lstrip, int rstrip, int single_word, int normalized,
                           int *is_new, char *err, size_t errlen)
{
    *is_new = 0;
    if (t->image) {
        snprintf(err, errlen, "a tokenizer restored from an image takes no new tokens");
        return -1;
    }
    uint32_t have = th_strmap_get(&t->added_map, s, n);
    if (have != TH_NONE) return have;
    if (!n) {
        snprintf(err, errlen, "an empty special token");
        return -1;
    }
    /* the id: the vocabulary's for this text, else the next after the
     * vocabulary and the added tokens (tokenizers' AddedVocabulary) */
    int64_t id = tok_hf_token_id(t, s, n);
    if (id < 0) {
        uint32_t max = t->max_added == TH_NONE ? 0 : t->max_added;
        id = t->nadded && (max >= t->model_n || !t->model_n) ? (int64_t)max + 1 : t->model_n;
        *is_new = 1;
    }
    char *nz = NULL;
    size_t nn = 0;
    if (normalized && th_normalize(t, s, n, &nz, &nn, err, errlen)) return -1;
    t->added = cal_xrealloc(t->added, (t->nadded + 1) * sizeof *t->added);
    th_added *a = &t->added[t->nadded];
    if (t->added_pool.n + n >= UINT32_MAX || t->id_pool.n + n >= UINT32_MAX) {
        free(nz);
        snprintf(err, errlen, "the token texts exceed 4 GB");
        return -1;
    }
    *a = (th_added){.off = (uint32_t)t->added_pool.n, .len = (uint32_t)n, .id = (uint32_t)id, .special = 1,
                    .lstrip = (uint8_t)lstrip, .rstrip = (uint8_t)rstrip, .normalized = (uint8_t)normalized,
                    .single_word = (uint8_t)single_word};
    cal_buf_add(&t->added_pool, s, n);
    if (normalized) {
        trie_add(&t->trie_norm, nz, nn, (uint32_t)t->nadded);
        t->has_norm = 1;
        free(nz);
    } else {
        trie_add(&t->trie_raw, s, n, (uint32_t)t->nadded);
        t->has_raw = 1;
    }
    t->nadded++;
    th_strmap_put(&t->added_map, s, n, (uint32_t)id);
    if (t->max_added == TH_NONE || (uint32_t)id > t->max_added) t->max_added = (uint32_t)id;
    uint32_t was = th_strmap_get(&t->textmap, s, n);
    if (was == TH_NONE || was > (uint32_t)id) th_strmap_put(&t->textmap, s, n, (uint32_t)id);
    if ((uint32_t)id >= t->nids) {
        uint32_t old = t->nids;
        t->nids = (uint32_t)id + 1;
        if (t->nids > t->ids_cap) { /* doubling: one id at a time was a copy of every array per token */
            t->ids_cap = t->nids > UINT32_MAX / 2 ? t->nids : t->nids * 2;
            t->id_off = cal_xrealloc(t->id_off, (size_t)t->ids_cap * sizeof *t->id_off);
            t->id_len = cal_xrealloc(t->id_len, (size_t)t->ids_cap * sizeof *t->id_len);
            t->id_special = cal_xrealloc(t->id_special, t->ids_cap);
        }
        memset(t->id_off + old, 0xFF, (t->nids - old) * sizeof *t->id_off);
        memset(t->id_len + old, 0, (t->nids - old) * sizeof *t->id_len);
        memset(t->id_special + old, 0, t->nids - old);
    }
    set_id_text(t, (uint32_t)id, s, n);
    t->id_special[id] = 1;
    return id;
}

const char *tok_hf_id_text(const tok_hf *t, uint32_t id, size_t *len)
{
    if (id >= t->nids || t->id_off[id] == TH_NONE) return NULL;
    uint64_t off = t->id_off[id], n = t->id_len[id];
    if (off > t->id_pool.n || n > t->id_pool.n - off) return NULL; /* a forged image (hf_image.c) */
    *len = (size_t)n;
    return t->id_pool.p + off;
}

size_t tok_hf_template(const tok_hf *t, int post, const uint32_t **ids)
{
    *ids = post ? t->tmpl_post : t->tmpl_pre;
    return post ? t->ntmpl_post : t->ntmpl_pre;
}

void tok_hf_expect(tok_hf *t, uint64_t bytes) { th_bpe_expect(t, bytes); }

void tok_hf_set_template(tok_hf *t, const uint32_t *pre, size_t npre, const uint32_t *post, size_t npost)
{
    free(t->tmpl_pre);
    free(t->tmpl_post);
    t->tmpl_pre = cal_xmalloc((npre ? npre : 1) * sizeof *pre);
    t->tmpl_post = cal_xmalloc((npost ? npost : 1) * sizeof *post);
    if (npre) memcpy(t->tmpl_pre, pre, npre * sizeof *pre);
    if (npost) memcpy(t->tmpl_post, post, npost * sizeof *post);
    t->ntmpl_pre = npre;
    t->ntmpl_post = npost;
}
