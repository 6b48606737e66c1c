#!/bin/sh
# test_recipes_defaults.sh - the recipes of examples/ at their headers'
# defaults (128 x 2048 and the like) on the built-in corpora, as a new user
# runs them, each checked row for row against its peer's function written
# anew in Python from the peer's source at the commit the header names
# (tests/py/peers.py; the Rust HF tokenizers encode). test_recipes_peers.sh
# runs the same checks on a small cut with edge cases.
. tests/lib.sh
ROOT=$PWD
TOKF=$ROOT/build/tokenizers/llama3/tokenizer.json
if ! command -v node >/dev/null 2>&1 || [ ! -d build/npm/node_modules/@anush008/tokenizers ] || [ ! -f "$TOKF" ] ||
  [ ! -f build/corpora/web.jsonl.zst ] || ! command -v cal-cat >/dev/null 2>&1; then
  skip "recipes at their defaults" "node, build/npm, build/tokenizers/llama3, build/corpora or cal-cat missing"
  exit 0
fi
if [ "${CAL_SANITIZE:-}" = 1 ]; then  # 128 x 2048 thrice over under ASan: the small cut runs the same code
  skip "recipes at their defaults" "SANITIZE=1 runs them on a small cut only (test_recipes_peers.sh)"
  exit 0
fi
export CAL_CORPORA="$ROOT/build/corpora" CAL_TOKENIZER=llama3
unset CAL_TOKENS_DIR
O=$T/out E=$ROOT/examples
mkdir -p "$O"
cat >"$O/params.json" <<'JSON'
{"wt2_rows": 128, "wt2_length": 2048, "c4_rows": 128, "c4_length": 2048, "seed": 0, "awq_docs": 128,
 "awq_length": 512, "ar_rows": 128, "ar_length": 2048, "gm_docs": 1024, "gm_length": 2048, "lc_rows": 512,
 "lc_length": 2048, "exl2_length": 2048, "exl3_rows": 250, "exl3_length": 2048, "prefix": "defaults: "}
JSON
check "defaults: exl2-standard.sh" sh "$E/exl2-standard.sh" -o "$O/exl2"
check "defaults: exl3-standard.sh" sh "$E/exl3-standard.sh" -o "$O/exl3"
for p in gptq optimum lmdeploy; do
  check "defaults: gptq-wikitext2.sh -p $p" sh "$E/gptq-wikitext2.sh" -p $p -o "$O/wt2-$p-wiki"
  check "defaults: gptq-c4.sh -p $p" sh "$E/gptq-c4.sh" -p $p -o "$O/c4-$p"
done
check "defaults: awq-pileval.sh" sh "$E/awq-pileval.sh" -o "$O/awq"
grep -q "documents dropped by --max-tokens 512" "$T/.out" && ok "defaults: AutoAWQ's skip of documents over 512 tokens is reported" ||
  not_ok "defaults: awq skip reported" "$(cat "$T/.out")"
check "defaults: autoround.sh" sh "$E/autoround.sh" -o "$O/autoround"
check "defaults: gptqmodel.sh" sh "$E/gptqmodel.sh" -o "$O/gptqmodel"
check "defaults: llmcompressor.sh" sh "$E/llmcompressor.sh" -o "$O/llmcompressor"
$PY tests/py/peers.py "$ROOT/build/corpora" "$TOKF" llama3 "$O"
