#!/bin/sh
# test_encode_automap.sh - the tokenizer class of a model folder whose
# tokenizer_config.json names none: AutoTokenizer then reads config.json, its
# tokenizer_class, else its model_type through TOKENIZER_MAPPING_NAMES
# (transformers v5, models/auto/tokenization_auto.py; lib/tok/automap.h).
# The expectations are transformers' rules for the class found (as in
# test_encode_model.sh): LlamaTokenizerFast rebuilds [bos] $A [eos] from
# add_bos_token (default true) and add_eos_token; PreTrainedTokenizerFast
# keeps tokenizer.json's post-processor (Mistral's: <s> $A).
. tests/lib.sh
if ! sh scripts/fetch-tokenizers.sh >"$T/fetch.log" 2>&1; then
  not_ok "fetch tokenizers" "$(tail -3 "$T/fetch.log")"; exit 0
fi
printf 'Hello world\n' | $PY examples/calstream.py text "$T/hw.cal"
# mk DIR CONFIG_JSON [TOKENIZER_CONFIG_JSON]: a folder of Mistral's tokenizer.json
mk() {
  mkdir -p "$T/$1" && cp "$PWD/build/tokenizers/mistral/tokenizer.json" "$T/$1/tokenizer.json"
  printf '%s\n' "$2" >"$T/$1/config.json"
  [ -n "${3:-}" ] && printf '%s\n' "$3" >"$T/$1/tokenizer_config.json"
  return 0
}
# run DIR: "ids | tokenizer_class | tokenizer_files | eos (eos_from)"
run() {
  cal-encode -t "$T/$1" --add-special "$T/hw.cal" -o "$T/o.cal" 2>"$T/err" || { echo "error: $(cat "$T/err")"; return; }
  $PY -c "
import sys; sys.path.insert(0, 'examples'); import calstream
metas, recs = calstream.read_records(sys.argv[1])
m = dict(metas[0]); g = lambda k: m.get(k, '-')
print(' '.join(map(str, calstream.ids_of(recs[0][3]))), '|', g('tokenizer_class'), '|', g('tokenizer_files'), '|', g('eos'), '(%s)' % g('eos_from'))" "$T/o.cal"
}
mk mistral '{"model_type": "mistral"}' '{"add_bos_token": false, "add_eos_token": true}'
eq "model_type mistral: LlamaTokenizerFast, whose template comes from add_bos/eos_token" "$(run mistral)" \
  "22557 1526 2 | LlamaTokenizerFast (config.json model_type mistral) | tokenizer.json tokenizer_config.json config.json | 2 (LlamaTokenizerFast default)"
mk llama '{"model_type": "llama"}'
eq "config.json alone is a configuration: model_type llama" "$(run llama)" \
  "1 22557 1526 | LlamaTokenizerFast (config.json model_type llama) | tokenizer.json config.json | 2 (LlamaTokenizerFast default)"
mk named '{"model_type": "gpt2", "tokenizer_class": "LlamaTokenizer"}' '{"add_eos_token": true}'
eq "config.json's tokenizer_class comes before its model_type (a slow name means its Fast class)" "$(run named)" \
  "1 22557 1526 2 | LlamaTokenizerFast (config.json tokenizer_class) | tokenizer.json tokenizer_config.json config.json | 2 (LlamaTokenizerFast default)"
mk own '{"model_type": "llama"}' '{"tokenizer_class": "PreTrainedTokenizerFast", "add_eos_token": true}'
eq "tokenizer_config.json's tokenizer_class wins and config.json is not read" "$(run own)" \
  "1 22557 1526 | PreTrainedTokenizerFast (tokenizer_config.json) | tokenizer.json tokenizer_config.json | - (-)"
mk unknown '{"model_type": "t5"}' '{"add_eos_token": true}'
eq "a model type whose class calkit has no rules for: PreTrainedTokenizerFast" "$(run unknown)" \
  "1 22557 1526 | PreTrainedTokenizerFast (default) | tokenizer.json tokenizer_config.json config.json | - (-)"
mk qwen '{"model_type": "qwen3"}'
eq "model_type qwen3: Qwen2TokenizerFast, its default eos (missing from this vocabulary: a new token)" "$(run qwen)" \
  "1 22557 1526 | Qwen2TokenizerFast (config.json model_type qwen3) | tokenizer.json config.json | 32000 (Qwen2TokenizerFast default)"
mk gemma '{"model_type": "gemma3_text"}'
eq "model_type gemma3_text: GemmaTokenizerFast" "$(run gemma | cut -d'|' -f2)" " GemmaTokenizerFast (config.json model_type gemma3_text) "
# a tokenizer_class transformers does not have (issue 29): v5 (commit
# 001f85b38fb432858ace93f18622f07cec46d874, AutoTokenizer.from_pretrained)
# loads tokenizer_config.json's with TokenizersBackend, tokenizer.json as it
# is and no class defaults; config.json's it fails on (4.x raised "Tokenizer
# class X does not exist or is not currently imported." for both)
mk claude '{"model_type": "t5"}' '{"tokenizer_class": "ClaudeTokenizer", "add_eos_token": true}'
eq "an unknown tokenizer_config.json class: TokenizersBackend, the file's own template" "$(run claude)" \
  "1 22557 1526 | TokenizersBackend (tokenizer_config.json ClaudeTokenizer, not a transformers class) | tokenizer.json tokenizer_config.json | - (-)"
mk claudef '{}' '{"tokenizer_class": "ClaudeTokenizerFast", "add_bos_token": false}'
eq "... with Fast too" "$(run claudef | cut -d'|' -f1,2)" "1 22557 1526 | TokenizersBackend (tokenizer_config.json ClaudeTokenizerFast, not a transformers class) "
mk odd '{}' '{"tokenizer_class": "Llama\nTokenizer"}'
eq "... a name that is no identifier is not echoed" "$(run odd | cut -d'|' -f2)" " TokenizersBackend (tokenizer_config.json, not a transformers class) "
mk known '{}' '{"tokenizer_class": "XLMRobertaTokenizer"}'
eq "a class transformers has but calkit has no rules for keeps its name" "$(run known | cut -d'|' -f2)" " XLMRobertaTokenizerFast (tokenizer_config.json) "
mk cfgclaude '{"tokenizer_class": "ClaudeTokenizer"}'
expect_fail "an unknown config.json class is refused, as v5 fails on it" 1 \
  "^cal-encode: $T/cfgclaude: config.json: tokenizer_class ClaudeTokenizer is not a transformers tokenizer class\$" cal-encode -t "$T/cfgclaude" "$T/hw.cal"
mk broken '{"model_type": '
expect_fail "a broken config.json names the file" 1 "^cal-encode: $T/broken: $T/broken/config.json: byte" cal-encode -t "$T/broken" "$T/hw.cal"
# config.json is read for its positions limit even when tokenizer_config.json
# names the class: a link out of the folder is refused there too.
mk linked '{}' '{"tokenizer_class": "LlamaTokenizer"}'
mkdir -p "$T/elsewhere" && printf '{"max_position_embeddings": 7}\n' >"$T/elsewhere/config.json"
rm "$T/linked/config.json" && ln -s "$T/elsewhere/config.json" "$T/linked/config.json"
expect_fail "a config.json linked out of the folder is refused, also when only its positions are read" 1 \
  "linked/config.json: a symbolic link to .*outside the model folder" cal-encode -t "$T/linked" "$T/hw.cal"
