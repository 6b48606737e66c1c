/* grapheme.h - extended grapheme clusters (UAX #29) as the Rust
 * unicode-segmentation crate 1.12 (Unicode 16.0) finds them.
 *
 * Why: the Precompiled normalizer of a tokenizer.json (Hugging Face's
 * spm_precompiled, used by T5, ALBERT, XLM-R conversions) replaces a whole
 * grapheme of fewer than 6 bytes by the first rule of the character map
 * that is a prefix of it, so its output depends on where clusters end, in
 * the crate's Unicode version (build/gen/unidata.c, scripts/gen-unicode.mjs).
 *
 * The rules, in the crate's order for a pair (before, after): CR x LF;
 * break after Control/CR/LF and before them; the Hangul syllable rules
 * (GB6-8); no break before Extend or ZWJ (GB9), before SpacingMark or after
 * Prepend (GB9a-b); before an InCB=Consonant when the text before it is
 * Consonant [Extend Linker]* with at least one Linker (GB9c); ZWJ x
 * Extended_Pictographic after Extended_Pictographic Extend* (GB11); between
 * regional indicators after an odd number of them (GB12-13); else a break. */
#ifndef CAL_TOK_GRAPHEME_H
#define CAL_TOK_GRAPHEME_H

#include <stddef.h>
#include <stdint.h>

#include "tok/unicode.h"

/* A code point's category: the low 4 bits (TG_*), and the InCB bits. */
enum { TG_ANY, TG_CR, TG_LF, TG_CONTROL, TG_EXTEND, TG_ZWJ, TG_RI, TG_PREPEND, TG_SPACINGMARK, TG_L, TG_V, TG_T,
       TG_LV, TG_LVT, TG_EXTPICT, TG_CONSONANT };
#define TG_INCB_EXTEND 0x10u
#define TG_INCB_LINKER 0x20u

static inline unsigned tg_props(int32_t c) {
    if (c < 0 || c > 0x10FFFF) return TG_ANY;
    return tu_gcb_stage2[tu_gcb_stage1[c >> 7]][c & 127];
}

/* The end of the extended grapheme cluster that starts at s[i] (i < n; s
 * valid UTF-8; the text before i is looked at as the crate looks at it). */
size_t tg_next(const char *s, size_t n, size_t i);

#endif
