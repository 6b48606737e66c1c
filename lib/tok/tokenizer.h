/* tokenizer.h - one interface over the tokenizers calkit supports:
 * Hugging Face tokenizer.json (native C: tok_hf_*.c) and SentencePiece
 * .model files (libsentencepiece behind the C++ shim spm_shim.cc). */
#ifndef CAL_TOKENIZER_H
#define CAL_TOKENIZER_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "stream/stream.h"

typedef struct cal_tok cal_tok;

/* Options of an encode call. */
#define CAL_TOK_ADD_SPECIAL 1u   /* apply the tokenizer's own BOS/EOS template */
#define CAL_TOK_PARSE_SPECIAL 2u /* special-token text in the input becomes the special id */

/* Loads a tokenizer file by content (JSON vs protobuf), whatever the
 * extension, or a Hugging Face model folder: its tokenizer.json (else
 * tokenizer.model) with the configuration beside it (tok/config.h:
 * tokenizer_config.json, special_tokens_map.json, generation_config.json),
 * as transformers' AutoTokenizer.from_pretrained loads it. A file alone
 * says what it can: BOS/EOS from its post-processor, else guessed from the
 * special tokens' names (a .model: its own ids). On failure returns NULL
 * with a one-line reason in err ("JSON path model.merges[12]: unknown token
 * 'xy'", "byte 1234: ..."). */
cal_tok *cal_tok_load(const char *path, char *err, size_t errlen);
/* cal_tok_load through the cache of prepared tokenizers (tok/cache.h:
 * $CAL_CACHE, $XDG_CACHE_HOME, ~/.cache/calkit), which cal_tok_load uses
 * too; use_cache 0 reads and writes no image. note (if not NULL) receives
 * what the cache did: "hit", "made PATH", "rebuilt: why, made PATH", "off
 * ...", "not written: why". The tokenizer is the same either way. */
cal_tok *cal_tok_load_cached(const char *path, int use_cache, char *note, size_t notelen, char *err, size_t errlen);
/* 1 when the cache holds an image for path's files as they are now (from
 * their memo: a hint that cal_tok_load will not build large tables). */
int cal_tok_cached(const char *path);
void cal_tok_free(cal_tok *t);
/* Before the first encode: about bytes of text will be encoded (0:
 * unknown). A small input gets a small pre-token cache (tok_hf_expect);
 * the ids are the same whatever the hint. Not thread-safe. */
void cal_tok_expect(cal_tok *t, uint64_t bytes);
/* cal_tok_expect with the total size of the files (0, unknown, when one
 * is "-" or not a regular file). */
void cal_tok_expect_files(cal_tok *t, char *const *files, size_t n);

/* Appends the ids of text[0..len) to out. Thread-safe for concurrent calls
 * on one cal_tok (each thread uses its own out). Returns 0, or -1 with err
 * filled for an input the tokenizer cannot encode. */
int cal_tok_encode(const cal_tok *t, const char *text, size_t len, unsigned flags,
                   cal_ids *out, char *err, size_t errlen);
/* Appends the text of ids to out (the reference's decode, special tokens kept). */
void cal_tok_decode(const cal_tok *t, const uint32_t *ids, size_t n, cal_buf *out);

const char *cal_tok_name(const cal_tok *t);      /* file base name, or the folder's */
/* For a SentencePiece .model, which engine encodes it ("calkit's BPE",
 * "calkit's unigram", "libsentencepiece (why)"); NULL for tokenizer.json. */
const char *cal_tok_engine(const cal_tok *t);
uint64_t cal_tok_fingerprint(const cal_tok *t);  /* XXH3-64 of the tokenizer file's bytes */
uint32_t cal_tok_vocab_size(const cal_tok *t);   /* ids are < this */
/* Special ids, or -1 when the tokenizer has none. */
int64_t cal_tok_bos(const cal_tok *t);
int64_t cal_tok_eos(const cal_tok *t);
int64_t cal_tok_pad(const cal_tok *t);

/* Sets the stream metadata of what was loaded and where each value came
 * from (man/cal-encode.1, OUTPUT METADATA): tokenizer, tokenizer_fp,
 * tokenizer_files, tokenizer_class, vocab, bos/eos/pad with bos_from/...,
 * add_special (the --add-special template) with add_special_from,
 * generation_eos; keys that do not apply are removed. */
void cal_tok_meta(const cal_tok *t, cal_meta *m);

#endif
