#!/bin/sh
# -t MODEL_FOLDER (issue 12, item 1): loaded as transformers 4.x's
# AutoTokenizer.from_pretrained(folder) loads it. transformers is not
# installed here, so the expected ids of tokenizer(text,
# add_special_tokens=True) are derived from its rules, as its source states
# them (tokenization_utils_base.py _from_pretrained, tokenization_utils_fast.py,
# models/{llama,gemma,qwen2,gpt2}/tokenization_*_fast.py):
#  - tokenizer_class names the class; a slow name means its Fast class;
#  - bos/eos/pad_token come from tokenizer_config.json (a string, an
#    AddedToken object, or null), else the class's default;
#    special_tokens_map.json overrides them only when the config has no
#    added_tokens_decoder (the legacy path);
#  - LlamaTokenizerFast and GemmaTokenizerFast rebuild the post-processor as
#    [bos] $A [eos] from add_bos_token (default true) and add_eos_token
#    (default false); PreTrainedTokenizerFast, Qwen2TokenizerFast and
#    GPT2TokenizerFast keep tokenizer.json's post_processor as it is.
. tests/lib.sh
if ! sh scripts/fetch-tokenizers.sh >"$T/fetch.log" 2>&1; then
  not_ok "fetch tokenizers" "$(tail -3 "$T/fetch.log")"; exit 0
fi
printf 'hi\n' | $PY examples/calstream.py text "$T/hi.cal"
printf 'Hello world\n' | $PY examples/calstream.py text "$T/hw.cal"
# run TOK IN [FLAG]...: "ids | bos eos pad | bos_from eos_from | add_special"
run() {
  tok=$1 in=$2; shift 2
  cal-encode -t "$tok" "$@" "$in" -o "$T/o.cal" 2>"$T/err" || { echo "error: $(cat "$T/err")"; return; }
  $PY -c "
import sys; sys.path.insert(0, 'examples'); import calstream
metas, recs = calstream.read_records(sys.argv[1])
m = dict(metas[0])
g = lambda k: m.get(k, '-')
print(' '.join(map(str, calstream.ids_of(recs[0][3]))), '|', g('bos'), g('eos'), g('pad'), '|', g('bos_from'), '/', g('eos_from'), '|', g('add_special'))" "$T/o.cal"
}

# --- synthetic folders: one tokenizer.json, several configurations -----------------
# vocabulary: <s> 0, </s> 1, <pad> 2, h 3, i 4, <x> 5; the file's own template is "<s> $A </s>"
mk() { # mk DIR CONFIG_JSON [SPECIAL_TOKENS_MAP_JSON]
  mkdir -p "$T/$1"
  cat >"$T/$1/tokenizer.json" <<'EOF'
{"version":"1.0","truncation":null,"padding":null,
 "added_tokens":[{"id":0,"content":"<s>","special":true},{"id":1,"content":"</s>","special":true},
                 {"id":2,"content":"<pad>","special":true},{"id":5,"content":"<x>","special":true}],
 "normalizer":null,"pre_tokenizer":null,"decoder":null,
 "post_processor":{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<s>","type_id":0}},{"Sequence":{"id":"A","type_id":0}},{"SpecialToken":{"id":"</s>","type_id":0}}],
   "pair":[],"special_tokens":{"<s>":{"id":"<s>","ids":[0],"tokens":["<s>"]},"</s>":{"id":"</s>","ids":[1],"tokens":["</s>"]}}},
 "model":{"type":"BPE","vocab":{"<s>":0,"</s>":1,"<pad>":2,"h":3,"i":4,"<x>":5},"merges":[]}}
EOF
  [ -n "$2" ] && printf '%s\n' "$2" >"$T/$1/tokenizer_config.json"
  [ -n "${3:-}" ] && printf '%s\n' "$3" >"$T/$1/special_tokens_map.json"
  return 0
}
mk plain ''
eq "a folder without configuration: the file's own template and names" "$(run "$T/plain" "$T/hi.cal" --add-special)" \
  "0 3 4 1 | 0 1 2 | post_processor / post_processor | <s> \$A </s>"
mk ptf '{"tokenizer_class": "PreTrainedTokenizerFast", "bos_token": "<s>", "eos_token": "<x>"}'
eq "PreTrainedTokenizerFast: tokenizer.json's post_processor as it is; eos from the config" "$(run "$T/ptf" "$T/hi.cal" --add-special)" \
  "0 3 4 1 | 0 5 - | tokenizer_config.json bos_token / tokenizer_config.json eos_token | <s> \$A </s>"
mk llama '{"tokenizer_class": "LlamaTokenizer", "add_bos_token": false, "add_eos_token": true}'
eq "LlamaTokenizer -> LlamaTokenizerFast: the template rebuilt from add_bos/eos_token; class default tokens" \
  "$(run "$T/llama" "$T/hi.cal" --add-special)" "3 4 1 | 0 1 - | LlamaTokenizerFast default / LlamaTokenizerFast default | \$A </s>"
mk llama2 '{"tokenizer_class": "LlamaTokenizerFast", "eos_token": {"__type": "AddedToken", "content": "<x>", "lstrip": false}}'
eq "LlamaTokenizerFast defaults (add_bos true, add_eos false); an AddedToken object" "$(run "$T/llama2" "$T/hi.cal" --add-special)" \
  "0 3 4 | 0 5 - | LlamaTokenizerFast default / tokenizer_config.json eos_token | <s> \$A"
mk legacy '{"tokenizer_class": "PreTrainedTokenizerFast", "eos_token": "</s>"}' '{"eos_token": {"content": "<x>"}, "pad_token": "<pad>"}'
eq "a legacy config (no added_tokens_decoder): special_tokens_map.json overrides it" "$(run "$T/legacy" "$T/hi.cal" | cut -d'|' -f2,3)" \
  " - 5 2 | - / special_tokens_map.json eos_token "
mk modern '{"tokenizer_class": "PreTrainedTokenizerFast", "eos_token": "</s>", "added_tokens_decoder": {}}' '{"eos_token": "<x>"}'
eq "with added_tokens_decoder, special_tokens_map.json is not read (as transformers)" "$(run "$T/modern" "$T/hi.cal" | cut -d'|' -f2,3)" \
  " - 1 - | - / tokenizer_config.json eos_token "
eq "... and the header says which files were read" "$(cal-encode -t "$T/modern" "$T/hi.cal" | $PY examples/calstream.py dump /dev/stdin | head -1 | grep -o 'tokenizer_files=[a-z_. ]*tokenizer_class')" \
  "tokenizer_files=tokenizer.json tokenizer_config.json tokenizer_class"
mk gemma '{"tokenizer_class": "GemmaTokenizer", "bos_token": "<s>", "eos_token": null}'
eq "GemmaTokenizerFast: eos null is none; pad is the class default <pad>" "$(run "$T/gemma" "$T/hi.cal" --add-special)" \
  "0 3 4 | 0 - 2 | tokenizer_config.json bos_token / - | <s> \$A"
mk gen '{"tokenizer_class": "PreTrainedTokenizerFast"}'
printf '{"bos_token_id": 0, "eos_token_id": [1, 5]}\n' >"$T/gen/generation_config.json"
eq "generation_config.json's eos ids are recorded, not used" \
  "$(cal-encode -t "$T/gen" "$T/hi.cal" | $PY examples/calstream.py dump /dev/stdin | head -1 | grep -o 'generation_eos=[0-9,]*') $(run "$T/gen" "$T/hi.cal" | cut -d'|' -f2)" \
  "generation_eos=1,5  - - - "
mk nobos '{"tokenizer_class": "LlamaTokenizerFast", "bos_token": null}'
expect_fail "add_bos_token without a bos_token: an error, as in transformers" 1 "add_bos_token is true but there is no bos_token" \
  cal-encode -t "$T/nobos" "$T/hi.cal"
mk unknown '{"tokenizer_class": "PreTrainedTokenizerFast", "eos_token": "<|nope|>"}'
eq "a special token the tokenizer.json lacks becomes a new token (test_encode_specials_made.sh)" "$(run "$T/unknown" "$T/hi.cal" | cut -d'|' -f2,3)" \
  " - 6 - | - / tokenizer_config.json eos_token "
mkdir -p "$T/spm" && cp build/tokenizers/llama2-spm.model "$T/spm/tokenizer.model"
printf '{"tokenizer_class": "LlamaTokenizer", "eos_token": "<|nope|>"}\n' >"$T/spm/tokenizer_config.json"
expect_fail "... but not to a SentencePiece model: an error naming it and its source" 1 \
  "eos_token '<\|nope\|>' \(tokenizer_config.json eos_token\) is not a piece of $T/spm/tokenizer.model \(calkit adds no tokens" cal-encode -t "$T/spm" "$T/hi.cal"
printf '{"tokenizer_class": 7, ' >"$T/ptf/tokenizer_config.json"
expect_fail "a broken tokenizer_config.json names the file" 1 "^cal-encode: $T/ptf: $T/ptf/tokenizer_config.json: byte" cal-encode -t "$T/ptf" "$T/hi.cal"

# --- the fetched folders: tokenizer(text, add_special_tokens=True) by their class ------------
for n in llama3 llama3.1-instruct qwen3 gemma3 mistral gpt4o deepseek_v3 gptoss llama2; do
  echo "$n $(run $n "$T/hw.cal" | cut -d'|' -f1) | $(run $n "$T/hw.cal" --add-special | cut -d'|' -f1)"
done >"$T/real"
eq "Hello world without and with --add-special, per class: PreTrainedTokenizerFast (llama3's post_processor adds nothing; llama3.1's adds <|begin_of_text|>), Qwen2 and GPT2 keep theirs (nothing), Llama and Gemma add BOS, Llama 2's .model too" \
  "$(cat "$T/real")" "llama3 9906 1917  | 9906 1917 
llama3.1-instruct 9906 1917  | 128000 9906 1917 
qwen3 9707 1879  | 9707 1879 
gemma3 9259 1902  | 2 9259 1902 
mistral 22557 1526  | 1 22557 1526 
gpt4o 13225 2375  | 13225 2375 
deepseek_v3 19923 2058  | 0 19923 2058 
gptoss 13225 2375  | 13225 2375 
llama2 15043 3186  | 1 15043 3186 "
eq "a file alone says only what it can: llama3.1-instruct/tokenizer.json guesses <|end_of_text|> by name" \
  "$(run build/tokenizers/llama3.1-instruct/tokenizer.json "$T/hw.cal" | cut -d'|' -f2,3)" " 128000 128001 - | post_processor / token name "

# --- cal-pack --eos doc uses the instruct model's eos ---------------------------------------
for n in llama3.1-instruct qwen3 gemma3; do
  cal-encode -t $n "$T/hw.cal" | cal-pack -l 4 -n 1 --mode concat --eos doc --allow-short 2>/dev/null |
    $PY examples/calstream.py dump /dev/stdin | grep -o -- '--eos-id [0-9]*' | tail -1
done >"$T/eos"
eq "cal-pack --eos doc ends documents with <|eot_id|> (Llama 3.1 Instruct), <|im_end|> (Qwen 3), <end_of_turn> (Gemma 3)" \
  "$(awk '{print $NF}' "$T/eos" | tr '\n' ' ')" "128009 151645 106 "
