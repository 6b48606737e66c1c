/* spm_unigram.h - SentencePiece unigram models (.model, model_type UNIGRAM:
 * ALBERT, T5, XLM-R and most multilingual models) encoded by calkit's own
 * normalizer and Viterbi search instead of libsentencepiece.
 *
 * What libsentencepiece (0.1.97) does, and this module again:
 *  - Normalizer::Normalize (normalizer.cc): the text is consumed prefix by
 *    prefix. At each position the longest user-defined piece that starts
 *    there passes through as it is; else the longest rule of the
 *    precompiled character map (charsmap.h) gives its replacement; else one
 *    character passes (a malformed byte becomes U+FFFD). With
 *    remove_extra_whitespaces, leading prefixes that normalize to " " are
 *    dropped, a replacement's leading spaces are dropped after one that
 *    ended with a space (an empty replacement changes nothing), and trailing
 *    spaces are removed at the end; add_dummy_prefix puts one space first
 *    (last with treat_whitespace_as_suffix); escape_whitespaces writes each
 *    space as U+2581.
 *  - Model::EncodeOptimized (unigram_model.cc): the Viterbi search of
 *    unigram.h in its SPM arithmetic.
 *  - PopulateSentencePieceText: one unknown id per run of unknown
 *    characters, or each one's bytes as <0xXX> pieces with byte_fallback.
 *
 * Every unigram model the library loads is replayed; the library stays the
 * encoder of other model types (cal-encode -v says which). Memory:
 * about 13 bytes per byte of normalized text for one call (the library
 * needs about 100); texts whose normalized form exceeds SPM_UG_MAX bytes are
 * refused with a message. */
#ifndef CAL_TOK_SPM_UNIGRAM_H
#define CAL_TOK_SPM_UNIGRAM_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "tok/image.h"

#define SPM_UG_MAX ((size_t)64 << 20)

typedef struct spm_unigram spm_unigram;

/* The engine of the .model data[0..len), or NULL with the reason in why
 * (not a unigram model, a malformed protobuf or character map). */
spm_unigram *spm_unigram_build(const void *data, size_t len, char *why, size_t whylen);
void spm_unigram_free(spm_unigram *u);

/* Appends the ids of text[0..n) (valid UTF-8), as SentencePieceProcessor::
 * Encode gives them. Thread-safe. 0, or -1 with err (a text over the limit). */
int spm_unigram_encode(const spm_unigram *u, const char *text, size_t n, cal_ids *out, char *err, size_t errlen);

/* For tests: the normalized form of text[0..n) (Normalizer::Normalize). */
void spm_unigram_normalize(const spm_unigram *u, const char *text, size_t n, cal_buf *out);

/* The engine's image sections (tags tag0 .. tag0+5; they point into u),
 * and the engine from a verified image (pointing into it): NULL with err. */
void spm_unigram_image_parts(spm_unigram *u, tok_image_parts *w, uint32_t tag0);
spm_unigram *spm_unigram_from_image(const tok_image *im, uint32_t tag0, char *err, size_t errlen);

#endif
