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

/* The Fast class name of a model type, or NULL for one not listed. */
const char *tok_class_of_model_type(const char *model_type);

#endif
