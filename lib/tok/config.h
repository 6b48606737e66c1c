/* config.h - a Hugging Face model folder's tokenizer configuration, read as
 * transformers 4.x's AutoTokenizer.from_pretrained(folder) (use_fast=True)
 * reads it:
 *  - tokenizer_config.json: tokenizer_class (a slow name means its Fast
 *    class), bos/eos/unk/sep/pad/cls/mask_token (a string, an AddedToken
 *    object, or null for none), additional_special_tokens (a list of those),
 *    add_bos_token, add_eos_token;
 *    A class transformers v5 does not have (automap.h tok_class_known)
 *    is loaded as v5 loads it: TokenizersBackend (no class defaults); in
 *    config.json it is refused (v5 fails on it);
 *  - config.json, only when tokenizer_config.json names no tokenizer_class:
 *    its tokenizer_class, else its model_type through AutoTokenizer's table
 *    (automap.h);
 *  - special_tokens_map.json: overrides those tokens, but only for a legacy
 *    config without "added_tokens_decoder" (transformers reads it only then);
 *  - the class's defaults for what neither file says (LlamaTokenizerFast's
 *    bos "<s>", ...);
 *  - whether --add-special uses tokenizer.json's post_processor as it is, or
 *    the template [bos] $A [eos] that LlamaTokenizerFast, CodeLlamaTokenizerFast,
 *    GemmaTokenizerFast and CohereTokenizerFast rebuild from add_bos_token
 *    and add_eos_token (update_post_processor);
 *  - generation_config.json: its eos_token_id is recorded, never used (the
 *    tokenizer's eos is tokenizer_config.json's, as in transformers). */
#ifndef CAL_TOK_CONFIG_H
#define CAL_TOK_CONFIG_H

#include <stddef.h>
#include <stdint.h>

/* bos, eos, pad: what calkit uses; the others are only made tokens */
enum { TC_BOS, TC_EOS, TC_PAD, TC_NSPECIAL, TC_UNK = TC_NSPECIAL, TC_SEP, TC_CLS, TC_MASK, TC_NNAMED };

typedef struct {
    char *text;                    /* NULL for none */
    char *from;                    /* where it came from, e.g. "tokenizer_config.json bos_token" */
    int lstrip, rstrip, single_word, normalized; /* an AddedToken object's (else false) */
} tc_token;

typedef struct {
    char *cls;                     /* the tokenizer class used, or NULL (no configuration) */
    char cls_from[96];             /* "tokenizer_config.json", "config.json tokenizer_class",
                                      "config.json model_type llama" or "default" */
    tc_token tok[TC_NNAMED];       /* the named special tokens */
    tc_token *extra;               /* additional_special_tokens, in order */
    size_t nextra;
    int add_bos, add_eos;          /* the rebuilt template's parts (rebuild only) */
    int rebuild;                   /* the class rebuilds the post-processor template */
    char *gen_eos;                 /* generation_config.json eos_token_id as written ("128001,128009"), or NULL */
    char files[160];               /* the configuration files read, space-separated */
    uint64_t max_positions;        /* config.json's limit of positions, or 0 */
    char max_positions_from[64];   /* "config.json max_position_embeddings", ... */
} tok_config;

/* The special tokens in transformers' order (all_special_tokens_extended:
 * bos, eos, unk, sep, pad, cls, mask, then the additional ones), each text
 * once; the tokenizer must have them all (missing ones become tokens).
 * Returns their count; out holds up to max of them. */
size_t tok_config_specials(const tok_config *c, const tc_token **out, size_t max);

/* Reads the configuration files of the folder dir (any may be missing; with
 * none, c->cls is NULL). Returns 0, or -1 with "FILE: what" in err for a
 * file that is not what it should be. */
int tok_config_load(const char *dir, tok_config *c, char *err, size_t errlen);
void tok_config_free(tok_config *c);

/* The whole file (NUL-terminated, malloc'd); NULL with strerror's text,
 * "is a directory" or what else the path is (a FIFO, a device, a symbolic
 * link loop: never waited on or read without end) in err. */
char *tok_read_file(const char *path, size_t *len, char *err, size_t errlen);

#endif
