/* tok_hf_int.h - internals shared by the tok_hf_*.c files. */
#ifndef CAL_TOK_HF_INT_H
#define CAL_TOK_HF_INT_H

#include <stddef.h>
#include <stdint.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "base/buf.h"
#include "tok/hf.h"
#include "tok/image.h"

#define TH_NONE UINT32_MAX

/* Open-addressing map from byte strings to ids. */
typedef struct {
    uint64_t *slot;   /* entry index + 1 (low half, 0 = empty) | hash tag (high half) */
    uint32_t mask;
    struct th_ent { uint64_t h; uint32_t off, len, id; } *ent;
    uint32_t n, cap;
    char *pool;
    size_t pool_n, pool_cap;
} th_strmap;
void th_strmap_init(th_strmap *m, uint32_t expect);
void th_strmap_free(th_strmap *m);
/* Inserts or overwrites (the last one wins, as a JSON object read by serde). */
void th_strmap_put(th_strmap *m, const char *s, size_t len, uint32_t id);
uint32_t th_strmap_get(const th_strmap *m, const char *s, size_t len); /* TH_NONE if absent */

/* Open-addressing map (left id, right id) -> (rank, new id). */
typedef struct {
    struct th_merge { uint64_t key; uint32_t rank, id; } *slot;
    uint64_t mask;
    size_t n;
    unsigned shift;   /* 64 - log2(slots): multiplicative hashing takes the top bits */
} th_mergemap;
void th_mergemap_init(th_mergemap *m, size_t expect);
void th_mergemap_free(th_mergemap *m);
void th_mergemap_put(th_mergemap *m, uint32_t a, uint32_t b, uint32_t rank, uint32_t id);
static inline const struct th_merge *th_mergemap_get(const th_mergemap *m, uint32_t a, uint32_t b)
{
    if (!m->slot) return NULL;
    uint64_t k = (uint64_t)a << 32 | b;
    uint64_t i = (k * 0x9E3779B97F4A7C15ull) >> m->shift;
    /* at most every slot once: a table from a forged image may have no empty slot */
    for (uint64_t n = 0; n <= m->mask; n++) {
        const struct th_merge *s = &m->slot[i];
        if (s->key == k) return s;
        if (s->key == UINT64_MAX) return NULL;
        i = (i + 1) & m->mask;
    }
    return NULL;
}

/* Regex patterns with a hand-written scanner (exact pattern string match). */
enum { TH_RE_PCRE = 0, TH_RE_LLAMA3, TH_RE_QWEN, TH_RE_O200K, TH_RE_GPT2,
       TH_RE_DS_DIGITS, TH_RE_DS_CJK, TH_RE_DS_MAIN };

/* A pattern: a literal string, or a regex (scanner or PCRE2). */
typedef struct {
    int is_regex, scanner;
    char *lit;
    size_t lit_len;
    pcre2_code *re;
    char *where;      /* its JSON path and regex, for messages: "pre_tokenizer.pattern '...'" */
} th_pattern;
/* Finds the next match in s[from..len): returns 1 with [*ms, *me), 0 when
 * there is none, or a negative PCRE2 error code when the engine gave up (a
 * limit): never a silent "no match". JIT stack overflows are retried with
 * the interpreter first. */
int th_pattern_next(const th_pattern *p, pcre2_match_data *md, const char *s, size_t len, size_t from,
                    size_t *ms, size_t *me);
/* The one-line message for a th_pattern_next error rc. */
void th_pattern_error(const tok_hf *t, const th_pattern *p, int rc, char *err, size_t errlen);
int th_scanner_for(const char *pattern, size_t len); /* TH_RE_* or TH_RE_PCRE */
const char *th_scanner_pattern(int scanner);         /* the regex a scanner implements */
/* The Oniguruma pattern p[0..n) (the reference's syntax) compiled by PCRE2
 * (UTF, UCP, multi-line, JIT) as hf_onig.c rewrites it; NULL with a message
 * in err ("at offset N: ..." or "PCRE2: ...") when it cannot be. */
pcre2_code *th_pcre_compile(const char *p, size_t n, char *err, size_t errlen);
/* Hand-written scanners: the next leftmost-first match at or after from. */
int th_scan_next(int scanner, const char *s, size_t len, size_t from, size_t *ms, size_t *me);
/* Up to max successive matches from *from (th_scan_next's, an empty match
 * moving the search one character on); *from is left where the next search
 * starts. Returns how many; fewer than max when the text has no more. */
size_t th_scan_many(int scanner, const char *s, size_t len, size_t *from, size_t *ms, size_t *me, size_t max);

enum { TH_SPLIT_REMOVED, TH_SPLIT_ISOLATED, TH_SPLIT_PREV, TH_SPLIT_NEXT, TH_SPLIT_CONTIG };
enum { TH_PT_SPLIT, TH_PT_BYTELEVEL, TH_PT_METASPACE, TH_PT_DIGITS, TH_PT_BERT };
typedef struct {
    int kind;
    th_pattern pat;        /* SPLIT, BYTELEVEL with use_regex */
    int behavior, invert;  /* SPLIT */
    int add_prefix_space, use_regex; /* BYTELEVEL */
    char repl[8]; size_t repl_len; int prepend; /* METASPACE: prepend 0 never 1 first 2 always */
    int split;             /* METASPACE */
    int individual;        /* DIGITS */
} th_pretok;

enum { TH_N_NFC, TH_N_NFKC, TH_N_NFD, TH_N_NFKD, TH_N_REPLACE, TH_N_PREPEND, TH_N_LOWER, TH_N_STRIP,
       TH_N_PRECOMPILED, TH_N_STRIPACC, TH_N_BERT };
struct charsmap;
struct ug_model;
typedef struct {
    int kind;
    th_pattern pat;   /* REPLACE */
    struct charsmap *cm; /* PRECOMPILED: the map (tok/charsmap.h) over str, NULL when empty */
    char *str;        /* REPLACE content, PREPEND prepend, PRECOMPILED the map's bytes */
    size_t str_len;
    int left, right;  /* STRIP */
    uint8_t clean, chinese, strip_acc, lower; /* BERT (strip_acc resolved: null is lower) */
} th_norm;

/* Byte trie of added tokens, matched leftmost-longest. */
typedef struct {
    struct th_tnode { uint32_t tok; } *node;   /* tok: index into added[] or TH_NONE */
    uint32_t nn, ncap;
    th_mergemap edges;                          /* (node, byte) -> child (rank field) */
    uint8_t first[256];
} th_trie;

/* An added token; its content is added_pool.p[off..off+len). Fixed-size
 * and pointer-free, so that a prepared image (hf_image.c) holds the array. */
typedef struct {
    uint32_t off, len, id;
    uint8_t special, lstrip, rstrip, normalized, single_word, pad[3];
} th_added;

enum { TH_D_BYTELEVEL, TH_D_REPLACE, TH_D_BYTEFALLBACK, TH_D_FUSE, TH_D_STRIP, TH_D_METASPACE, TH_D_WORDPIECE };
typedef struct {
    int kind;
    char *pat, *content;
    size_t pat_len, content_len;
    int start, stop;          /* STRIP; WORDPIECE: start = cleanup, pat = the prefix */
    char repl[8]; size_t repl_len; int prepend; /* METASPACE */
} th_dec;

typedef struct th_fast th_fast;

struct tok_hf {
    uint64_t serial;          /* identifies this load for the per-thread caches */
    char *path;               /* the file, for messages */
    /* Restored from a prepared image (hf_image.c): the large tables point
     * into its read-only mapping, which the tok_hf owns; NULL when built
     * from JSON (then every table is malloc'd). */
    tok_image *image;
    cal_buf small;            /* built from JSON: the normalizer, pre-tokenizer
                               * and decoder as JSON, for the image */
    const uint8_t *nq_bits;   /* th_norm_quick's table from an image, else NULL */
    th_fast *fast;            /* the merge tables the encoder reads (tok_hf_bpe.c) */
    struct ug_model *ug;      /* a "Unigram" model (tok/unigram.h, UG_HF), instead of BPE */
    /* a "WordPiece" model (greedy longest match over vocab, hf_wordpiece.c) */
    int wordpiece;
    char wp_prefix[64]; size_t wp_prefix_len;
    uint32_t wp_max;          /* max_input_chars_per_word */
    /* model */
    th_strmap vocab;          /* model-space keys: raw bytes when byte_level */
    th_mergemap merges;
    int byte_level, ignore_merges, byte_fallback, fuse_unk;
    /* SentencePiece's BPE (tok_hf_load_spm_bpe): a pair's rank is its merged
     * piece's score rank, equal for equal scores (the leftmost pair wins),
     * so the merged id comes from the pair, not from the rank */
    int spm_ties;
    uint32_t unk_id;          /* TH_NONE if none */
    uint32_t byte_id[256];    /* byte_level: id of each byte; byte_fallback: <0xXX> */
    uint32_t *cp_id;          /* not byte_level: id of each code point < 0x10000 (TH_NONE if none) */
    /* Not byte-level: a word may be cut before each U+2581 that follows a
     * character no merge joins to a following U+2581 (found at load): BPE
     * never merges across such a point, so the parts are independent words. */
    int seg_ok;
    int32_t *seg_bad; size_t nseg_bad; /* characters that some merge joins to a following U+2581 */
    /* id -> token text (as written in the file), for decode: id_pool.p
     * [id_off[id]..+id_len[id]), id_off TH_NONE for an id without text */
    uint32_t *id_off;
    uint32_t *id_len;
    cal_buf id_pool;
    uint8_t *id_special;
    uint32_t nids;
    uint32_t ids_cap;         /* id_off/id_len/id_special's room (tok_hf_add_special grows them) */
    uint32_t model_n;         /* the model's vocabulary size (without the added tokens) */
    /* pipeline */
    th_norm *norm; size_t nnorm;
    th_pretok *pre; size_t npre;
    th_added *added; size_t nadded;
    cal_buf added_pool;       /* the added tokens' contents */
    th_strmap added_map;      /* an added token's content -> its id (duplicates share one id) */
    uint32_t max_added;       /* the largest added id, TH_NONE when there is none */
    th_strmap textmap;        /* an id's text (id_str) -> the smallest id with that text */
    th_trie trie_raw, trie_norm;
    int has_raw, has_norm;
    th_dec *dec; size_t ndec;
    uint32_t *tmpl_pre, *tmpl_post; size_t ntmpl_pre, ntmpl_post; /* single template */
    int64_t bos, eos, pad;
    const char *bos_from, *eos_from; /* "post_processor" or "token name" */
};

/* tok_hf_bpe.c: appends the ids of one pre-token (model-space input: raw
 * bytes when byte_level, else UTF-8 text). Returns 0 or -1 (err filled). */
typedef struct th_scratch th_scratch;
int th_bpe(const tok_hf *t, th_scratch *sc, const char *s, size_t len, cal_ids *out, char *err, size_t errlen);
th_scratch *th_scratch_get(const tok_hf *t); /* per-thread */
/* Builds t->fast from the loaded merges and vocabulary; frees it. */
void th_bpe_prepare(tok_hf *t);
void th_bpe_release(tok_hf *t);
/* before the first encode: about bytes of text will be encoded (0:
 * unknown); sizes the pre-token cache (tok_hf_expect) */
void th_bpe_expect(tok_hf *t, uint64_t bytes);
/* The pre-tokenizer Split(scanner) fused with the model: the ids of every
 * match of s[0..len), and of the text between them when keep_gaps. */
void th_bpe_scan(const tok_hf *t, th_scratch *sc, int scanner, int keep_gaps, const char *s, size_t len, cal_ids *out);
/* per-thread buffers the encoder reuses between calls */
typedef struct {
    void *r[2]; size_t rcap[2];  /* split ranges */
    void *pv; size_t pcap;       /* pieces of one split */
    pcre2_match_data *md;
} th_bufs;
th_bufs *th_scratch_bufs(th_scratch *sc);

/* The fast tables as image sections (hf_image.c), and back: 0, or -1 when
 * the image's sections do not fit together. */
void th_bpe_image_parts(const tok_hf *t, tok_image_parts *w);
int th_bpe_image_restore(tok_hf *t, const tok_image *im);
int th_bpe_uses_merges(const tok_hf *t); /* the merge map, not the compact pair table */
/* hf_image.c: t's sections; and t (zeroed, t->image and t->path set) from
 * a verified image: 0, or -1 with err (the caller frees t). */
void th_image_parts(const tok_hf *t, tok_image_parts *w);
int th_image_restore(tok_hf *t, tok_image *im, char *err, size_t errlen);
/* hf_load.c: adds the normalizer, pre-tokenizer and decoder of the JSON
 * object small ({"normalizer": ..., "pre_tokenizer": ..., "decoder": ...},
 * what tok_hf_load keeps in t->small) to t. 0, or -1 with err. */
int th_load_components(tok_hf *t, const char *small, size_t len, char *err, size_t errlen);
/* hf_nfc.c: th_norm_quick's table of characters it must normalize (built
 * once per process), NCP / 8 bytes, for the image. */
const uint8_t *th_norm_quick_bits(const tok_hf *t, size_t *len);

/* hf_wordpiece.c: appends the ids of one pre-token by a WordPiece model.
 * 0, or -1 (err: an unknown word and no unk_token). */
int th_wordpiece(const tok_hf *t, const char *s, size_t len, cal_ids *out, char *err, size_t errlen);

/* tok_hf_bpe.c, for tests: the pre-token cache's bucket of the word s
 * (SIZE_MAX when too long to be cached), and 1 when the cache holds it */
size_t th_bpe_cache_bucket(const char *s, size_t len);
int th_bpe_cache_has(const tok_hf *t, const char *s, size_t len);

/* tok_hf_text.c */
const uint16_t *th_byte_cp(void);  /* byte -> code point of the byte-level alphabet */
const int16_t *th_cp_byte(void);   /* code point (< 324) -> byte or -1 */
/* Runs the normalizers: 0 with a malloc'd *out, or -1 with err filled. */
int th_normalize(const tok_hf *t, const char *s, size_t len, char **out, size_t *out_len, char *err, size_t errlen);
/* tok_hf_nfc.c: 1 when the normalizer is NFC alone, 2 NFKC alone, else 0;
 * for those, th_norm_quick normalizes only what the normal form may change:
 * *out is NULL when s is already normal, else a malloc'd text. */
int th_norm_quick_kind(const tok_hf *t);
/* Builds th_norm_quick's tables (once per process) when t normalizes with it. */
void th_norm_quick_prepare(const tok_hf *t);
int th_norm_quick(const tok_hf *t, const char *s, size_t len, char **out, size_t *out_len, char *err, size_t errlen);

#endif
