/* rolemask.h - which tokens of an encoded text hold the assistant's output,
 * given the byte spans of that output in the text (cal-read
 * --assistant-mask): the token role mask of cal-encode.
 *
 * Why: llm-compressor's labels and loss_mask, and transformers'
 * return_assistant_tokens_mask, mark every token that holds a character of
 * an assistant span (char_to_token over each span). The tokenizers here
 * give no character offsets, so a span's edges are found by encoding the
 * text up to each edge: the tokens of text[0..edge) that agree with the
 * whole text's tokens lie before the edge, and the first token that does
 * not is the one that holds the edge. Edges at special tokens or between
 * pre-tokens (turn boundaries almost always are) are exact; a merge that
 * reaches more than one token back across an edge could misplace it by a
 * token (tests/sh/test_role_mask.sh checks real templates against the Rust
 * HF tokenizers' offsets). */
#ifndef CAL_TOK_ROLEMASK_H
#define CAL_TOK_ROLEMASK_H

#include <stddef.h>
#include <stdint.h>

#include "tok/tokenizer.h"

/* Sets role[i] (n bytes, cleared first) to 1 for every token of ids (the
 * encoding of text[0..len) with flags) that holds a byte of one of the
 * nspans spans (start, end) of spans (u32 pairs, increasing). scratch is
 * the caller's buffer. 0, or -1 with err when a prefix cannot be encoded. */
int cal_tok_role_mask(const cal_tok *t, const char *text, size_t len, unsigned flags, const uint32_t *ids, size_t n,
                      const uint32_t *spans, size_t nspans, uint8_t *role, cal_ids *scratch, char *err, size_t errlen);

#endif
