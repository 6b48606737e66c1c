/* tok_hf.h - native Hugging Face tokenizer.json encoder/decoder.
 *
 * Semantics of flags (see tokenizer.h):
 *   0                      = HF encode(text, add_special_tokens=False) with
 *                            encode_special_tokens=True: only NON-special
 *                            added tokens are cut out of the text; special
 *                            added tokens are encoded as ordinary text.
 *   CAL_TOK_PARSE_SPECIAL  = HF default added-vocabulary split: all added
 *                            tokens (special or not) are cut out of the text.
 *   CAL_TOK_ADD_SPECIAL    = apply the post-processor (TemplateProcessing
 *                            "single" template) as add_special_tokens=True.
 * Reference harness note: the npm @anush008/tokenizers binding has no
 * encode_special_tokens switch, so compare CAL_TOK_PARSE_SPECIAL against its
 * plain encode(s, null, {addSpecialTokens:false}); for flags 0 the reference
 * equals that same call on a tokenizer.json whose added_tokens entries with
 * "special": true are removed (identical except when a special token overlaps
 * a non-special added token). Invalid UTF-8 is replaced by U+FFFD per maximal
 * subpart first (as Buffer.toString() does before the reference sees it). */
#ifndef CAL_TOK_HF_H
#define CAL_TOK_HF_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "tok/image.h"
#include "tok/tokenizer.h"

typedef struct tok_hf tok_hf;

/* Parses json[0..len) (path is used in messages only). NULL on failure with
 * a one-line reason in err, e.g. "JSON path model.merges[12]: unknown token 'xy'"
 * or "JSON path normalizer.type: unsupported normalizer 'Nmt'". */
tok_hf *tok_hf_load(const char *json, size_t len, const char *path, char *err, size_t errlen);
void tok_hf_free(tok_hf *t);
/* tok_hf_load for a BPE model made from a SentencePiece .model (spm_bpe.h):
 * its model object also holds "calkit_spm_ranks", one rank per merge (the
 * score rank of the merged piece: ties allowed), and merges replay
 * SentencePiece's order (highest score first, the leftmost of equal ones). */
tok_hf *tok_hf_load_spm_bpe(const char *json, size_t len, const char *path, char *err, size_t errlen);

/* Appends ids to out. Thread-safe: concurrent calls on one tok_hf are fine.
 * Returns 0, or -1 with err filled. */
int tok_hf_encode(const tok_hf *t, const char *text, size_t len, unsigned flags,
                  cal_ids *out, char *err, size_t errlen);
/* Appends the decoded text (special tokens kept) to out. */
void tok_hf_decode(const tok_hf *t, const uint32_t *ids, size_t n, cal_buf *out);

uint32_t tok_hf_vocab_size(const tok_hf *t);
/* What the file alone says (no tokenizer_config.json): BOS and EOS from the
 * post-processor template, else guessed from the added tokens' names; -1 if
 * none. *from says which: "post_processor" or "token name". */
int64_t tok_hf_bos(const tok_hf *t, const char **from);
int64_t tok_hf_eos(const tok_hf *t, const char **from);
int64_t tok_hf_pad(const tok_hf *t, const char **from);
/* The id of a token's text (an added token's, else the vocabulary's, as
 * written in the file), or -1. */
int64_t tok_hf_token_id(const tok_hf *t, const char *s, size_t n);
/* Makes s[0..n) a special added token, as transformers does with a special
 * token its configuration names (tokenizers' add_tokens): an added token of
 * that text keeps its id; else it becomes one, with the vocabulary's id for
 * the text or, with *is_new set, the next id after the vocabulary and the
 * added tokens. Call before encoding. Returns the id, or -1 with err. */
int64_t tok_hf_add_special(tok_hf *t, const char *s, size_t n, int lstrip, int rstrip, int single_word, int normalized,
                           int *is_new, char *err, size_t errlen);
/* The text of an id as written in the file (NULL outside the vocabulary). */
const char *tok_hf_id_text(const tok_hf *t, uint32_t id, size_t *len);
/* The ids --add-special puts before (post = 0) and after (post = 1) the
 * text; replacing them is what transformers' update_post_processor does. */
size_t tok_hf_template(const tok_hf *t, int post, const uint32_t **ids);
void tok_hf_set_template(tok_hf *t, const uint32_t *pre, size_t npre, const uint32_t *post, size_t npost);
/* Before encoding: about bytes of text will be encoded (0: unknown). Sizes
 * the pre-token cache, smaller for a small input, whose few words would
 * otherwise make the kernel clear the pages of a large table; the ids are
 * the same whatever the hint. */
void tok_hf_expect(tok_hf *t, uint64_t bytes);

/* A prepared image of the loaded tokenizer (tok/image.h): its sections are
 * added to w (they point into t: write them before t changes). */
void tok_hf_image_parts(const tok_hf *t, tok_image_parts *w);
/* The tokenizer of a verified image, which it takes over (closes when
 * freed, or at once on failure: NULL with err). path names it in messages. */
tok_hf *tok_hf_from_image(tok_image *im, const char *path, char *err, size_t errlen);

#endif
