/* spm_bpe.h - SentencePiece BPE models (.model, model_type BPE) encoded by
 * calkit's own BPE engine (tok_hf) instead of libsentencepiece, which runs
 * at about 2 MB/s where the engine runs tokenizer.json BPE at 25-100.
 *
 * libsentencepiece's BPE (bpe_model.cc, 0.1.97) starts from the normalized
 * text's characters and merges, again and again, the adjacent pair whose
 * concatenation is a piece with the highest score, the leftmost of equal
 * scores. That is the engine's merge loop once every pair (a, b) of pieces
 * whose concatenation is a piece is a merge ranked by the dense rank of
 * that piece's score (tok_hf_load_spm_bpe: equal scores share a rank, and
 * the merged id comes from the pair). The normalizer of such a model is
 * the engine's Prepend U+2581 and Replace ' ' -> U+2581; a character
 * without a piece becomes its bytes' pieces (byte_fallback), as the
 * library's unknown pieces do.
 *
 * Exact only for models that keep to that: BPE, byte_fallback, no
 * precompiled character map, add_dummy_prefix and escape_whitespaces but
 * not remove_extra_whitespaces nor treat_whitespace_as_suffix, no
 * user-defined or unused pieces, no control piece of one character, every
 * character of a piece a piece itself (so that no unknown character can
 * merge). Meta's Llama 2 model is one. Others stay with libsentencepiece,
 * and spm_bpe_build says why. */
#ifndef CAL_TOK_SPM_BPE_H
#define CAL_TOK_SPM_BPE_H

#include <stddef.h>

#include "tok/hf.h"
#include "tok/spm_shim.h"

/* The engine for the model s, loaded from data[0..len) (its .model bytes),
 * or NULL with the reason in why when the model is not one it encodes
 * exactly. */
tok_hf *spm_bpe_build(const spm_shim *s, const void *data, size_t len, const char *path, char *why, size_t whylen);

#endif
