/* rolemask.h - which tokens of an encoded text hold the assistant's output,
 * given the byte spans of that output in the text (cal-read
 * --assistant-mask): the token role mask of cal-encode.
 *
 * Why: llm-compressor's labels and loss_mask, and transformers'
 * return_assistant_tokens_mask, mark every token that holds a character of
 * an assistant span (char_to_token over each span). The tokenizers here
 * give no character offsets, so the token that holds a byte is found by
 * token boundaries: x is one when text[0..x) encodes to the first tokens of
 * the whole text's encoding (those tokens then cover exactly text[0..x));
 * the token after the last boundary at or before a byte holds it. Turn
 * boundaries are boundaries (special tokens, line ends), so one encoding of
 * a prefix per edge is the usual cost; inside a token, a few more. A
 * boundary that the truncated text's pre-tokenization misses (a run of
 * spaces cut in two) moves the edge one token outward.
 * tests/unit/test_tok_rolemask.c checks every span of texts against the
 * tokens' own bytes, tests/sh/test_role_mask.sh real templates against the
 * Rust HF tokenizers' offsets. */
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
