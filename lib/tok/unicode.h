/* unicode.h - the character data of the reference tokenizers, by the Unicode
 * version each of their parts uses (measured on every code point against the
 * Rust HF tokenizers 0.22 that tests/ref/hf_encode.js runs):
 *   16.0  the regex engines: Oniguruma (Split/Replace patterns, so \p{..}
 *         with general categories and scripts, \s, \w, \d here and in the
 *         hand-written scanners) and the regex
 *         crate (added tokens' single_word);
 *   17.0  Rust's char methods: is_numeric (Digits), to_lowercase (Lowercase),
 *         is_whitespace (Strip);
 *    9.0  the NFC/NFD/NFKC/NFKD normalizers (unicode-normalization-alignments);
 *    8.0  the unicode_categories crate (BertNormalizer, BertPreTokenizer);
 *   16.0  grapheme clusters (unicode-segmentation 1.12: the Precompiled
 *         normalizer of tokenizer.json).
 * Debian 12's utf8proc (15.0) and PCRE2 (14.0) differ from each of these, so
 * the tables are generated at build time (scripts/gen-unicode.mjs) from the
 * pinned npm packages @unicode/unicode-{9.0.0,16.0.0,17.0.0}. */
#ifndef CAL_TOK_UNICODE_H
#define CAL_TOK_UNICODE_H

#include <stddef.h>
#include <stdint.h>

/* General categories, in utf8proc's order. */
enum { TU_CN, TU_LU, TU_LL, TU_LT, TU_LM, TU_LO, TU_MN, TU_MC, TU_ME, TU_ND, TU_NL, TU_NO, TU_PC, TU_PD,
       TU_PS, TU_PE, TU_PI, TU_PF, TU_PO, TU_SM, TU_SC, TU_SK, TU_SO, TU_ZS, TU_ZL, TU_ZP, TU_CC, TU_CF,
       TU_CS, TU_CO, TU_NGC };

/* The property bits of a code point (tu_props). */
#define TU_GC 0x1Fu          /* General_Category in 16.0 (TU_*) */
#define TU_ALPHA 0x20u       /* Alphabetic in 16.0 */
#define TU_NUMERIC17 0x40u   /* General_Category N* in 17.0: Rust's char::is_numeric */
#define TU_NEW9 0x80u        /* not assigned in 9.0: the normalizers leave it alone */
#define TU_SPACE 0x100u      /* White_Space (16.0; the same set in 17.0) */
#define TU_JOINC 0x200u      /* Join_Control in 16.0 */
#define TU_MARK9 0x400u      /* General_Category Mark in 9.0: StripAccents' is_combining_mark */
/* BertNormalizer and BertPreTokenizer (the unicode_categories crate 0.1.1: 8.0) */
#define TU_OTHER8 0x800u     /* Cc, Cf or Co: is_other */
#define TU_MN8 0x1000u       /* Mn: is_mark_nonspacing */
#define TU_PUNCT8 0x2000u    /* P*: is_punctuation */

/* Generated tables (build/gen/unidata.c). */
extern const char tu_versions[];
extern const uint16_t tu_stage1[0x110000 >> 7];
extern const uint16_t tu_stage2[][128];
extern const uint32_t tu_lower17[][2]; /* (code point, simple lowercase), sorted; 17.0 */
extern const size_t tu_nlower17;
extern const uint32_t tu_lower17_special[][4]; /* (code point, full lowercase of 2-3 code points, 0-padded) */
extern const size_t tu_nlower17_special;
extern const uint16_t tu_sc_stage1[0x110000 >> 7];
extern const uint8_t tu_sc_stage2[][128];
extern const char *const tu_script_names[]; /* the Script values of 16.0, sorted ("Adlam" ... "Zanabazar_Square") */
extern const uint16_t tu_gcb_stage1[0x110000 >> 7]; /* grapheme categories (16.0): tok/grapheme.h */
extern const uint8_t tu_gcb_stage2[][128];
extern const size_t tu_nscripts;

/* The property bits of c (0 outside U+0000..U+10FFFF). */
static inline unsigned tu_props(int32_t c)
{
    if (c < 0 || c > 0x10FFFF) return 0;
    return tu_stage2[tu_stage1[c >> 7]][c & 127];
}
static inline int tu_gc(int32_t c) { return (int)(tu_props(c) & TU_GC); }
/* The Script of c in 16.0: an index into tu_script_names ("Unknown" for an
 * unassigned code point; -1 outside U+0000..U+10FFFF). */
static inline int tu_script(int32_t c)
{
    if (c < 0 || c > 0x10FFFF) return -1;
    return tu_sc_stage2[tu_sc_stage1[c >> 7]][c & 127];
}
/* Oniguruma's loose form of a property name: s[0..n) in lower case without
 * '_', '-' and ' ', into k (NUL-terminated); 0 when it does not fit in cap. */
int tu_loose_name(const char *s, size_t n, char *k, size_t cap);
/* The script whose name is s[0..n) in the loose form ("han", "Old Italic"),
 * or -1. */
int tu_script_find(const char *s, size_t n);

/* Oniguruma's \w (16.0): Alphabetic, marks, decimal digits, connector
 * punctuation, and the Latin-1 digits and fractions its Latin-1 word table
 * adds (U+00B2 U+00B3 U+00B9 U+00BC-U+00BE; measured against the reference). */
int tu_onig_word(int32_t c);
/* The regex crate's \w (16.0, UTS #18): Alphabetic, marks, decimal digits,
 * connector punctuation, Join_Control. */
int tu_regex_word(int32_t c);
/* Rust's char::to_lowercase (17.0) of c into out[0..3); returns the count. */
int tu_lower(int32_t c, int32_t out[3]);

/* The ranges [lo, hi] (inclusive, ascending) of the code points for which
 * in(c, arg) holds, into a malloc'd *r; returns their count. */
size_t tu_ranges(int (*in)(int32_t c, const void *arg), const void *arg, uint32_t (**r)[2]);

#endif
