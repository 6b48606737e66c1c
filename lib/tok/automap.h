/* automap.h - the tokenizer class AutoTokenizer picks from a model type
 * (config.json "model_type") when neither tokenizer_config.json nor
 * config.json names a tokenizer_class. calkit follows transformers v5's
 * table (src/transformers/models/auto/tokenization_auto.py,
 * TOKENIZER_MAPPING_NAMES: one class per model type), which for these model
 * types names the same classes as the 4.x releases' fast column; only the
 * model types whose class has rules in calkit (config.c) are listed: the
 * Llama, CodeLlama, Gemma, Cohere, Qwen2 and GPT2 tokenizers, and
 * PreTrainedTokenizerFast. Mistral models map to LlamaTokenizerFast as
 * transformers does without the mistral-common package. */
#ifndef CAL_TOK_AUTOMAP_H
#define CAL_TOK_AUTOMAP_H

#include <stddef.h>

/* The Fast class name of a model type, or NULL for one not listed. */
const char *tok_class_of_model_type(const char *model_type);

/* Whether transformers v5 has a tokenizer class of this name, as its
 * tokenizer_class_from_name finds one for a tokenizer_config.json
 * "tokenizer_class" (commit 001f85b38fb432858ace93f18622f07cec46d874,
 * src/transformers/models/auto/tokenization_auto.py): a class named in
 * TOKENIZER_MAPPING_NAMES, a backend (TokenizersBackend, PythonBackend,
 * SentencePieceBackend, MistralCommonBackend, PreTrainedTokenizer) or
 * Bloom's, with or without the suffix "Fast" (v5 drops it first). An unknown
 * name is loaded by TokenizersBackend there (4.x raised "Tokenizer class X
 * does not exist or is not currently imported."). n is the name's length
 * (it may hold a NUL). */
int tok_class_known(const char *name, size_t n);

#endif
