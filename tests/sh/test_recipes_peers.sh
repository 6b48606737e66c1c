#!/bin/sh
# test_recipes_peers.sh - every recipe of examples/ against its peer's
# function written anew in Python (tests/py/peers.py: CPython random, numpy,
# torch, the Rust HF tokenizers), on the same text and tokenizer, row for row.
# The text is a small cut of the built-in corpora (CAL_CORPORA points the
# recipes at it) with a few documents made to hit the peers' edges: padded
# with blanks (AutoAWQ's strip), only blanks, too short (GPTQModel's drop),
# repetitive (auto-round's filter).
. tests/lib.sh
ROOT=$PWD
TOKF=$ROOT/build/tokenizers/llama3/tokenizer.json
if ! command -v node >/dev/null 2>&1 || [ ! -d build/npm/node_modules/@anush008/tokenizers ] || [ ! -f "$TOKF" ] ||
  [ ! -f build/corpora/web.jsonl.zst ] || ! command -v cal-cat >/dev/null 2>&1; then
  skip "recipes against their peers" "node, build/npm, build/tokenizers/llama3, build/corpora or cal-cat missing"
  exit 0
fi
mkdir -p "$T/corpora" "$T/out"
$PY - "$ROOT/build/corpora" "$T/corpora" "$T/out" <<'PYEOF'
import json, random, subprocess, sys
src, dst, out = sys.argv[1:4]
r = random.Random(14)
budget = {"web": 50000, "wiki": 100000, "code": 30000, "stories": 30000, "multilingual": 30000, "technical": 25000}
for name, limit in budget.items():
    raw = subprocess.run(["zstd", "-dc", "%s/%s.jsonl.zst" % (src, name)], check=True, stdout=subprocess.PIPE).stdout
    docs, size = [], 0
    for line in raw.decode().split("\n"):
        if not line or size > limit:
            continue
        d = json.loads(line)["text"]
        if name == "web":  # documents of every length, as C4 and pile-val have
            d = d[:r.choice([40, 300, 900, 2500, 6000])]
        if name == "stories":  # stories of a few hundred tokens, many to a row
            d = d[:r.choice([300, 700, 1500])]
        docs.append(d)
        size += len(d)
    if name == "web":
        docs[3:3] = ["  \u00a0padded with blanks, strip them.\n\n ", "   ", "Too short.", "ha " * 400]
        docs[9:9] = ["la " * 300]
        docs[15:15] = ["Well, " + "no " * 500]
    with open("%s/%s.jsonl" % (dst, name), "w") as f:
        for d in docs:
            f.write(json.dumps({"text": d}, ensure_ascii=False) + "\n")
    subprocess.run(["zstd", "-q", "--rm", "-f", "%s/%s.jsonl" % (dst, name)], check=True)
    if name == "wiki":  # wikitext-2-raw-v1 rows as the hub ships them: one per raw line, "" for blank ones
        rows = []
        for d in docs[:60]:
            title, _, body = d.partition("\n")
            rows += ["", " = %s = \n" % title, ""] + [" %s \n" % p for p in body.split("\n") if p.strip()]
        json.dump(rows, open(out + "/wikitext-rows.json", "w"))
        # and the raw file they come from: a blank row is a line of one space, as in wiki.train.raw
        open(out + "/wiki.train.raw", "w").write("".join(r or " \n" for r in rows))
        json.dump(docs, open(out + "/wiki-texts.json", "w"))
PYEOF
# hyparquet-writer and its script are put in place here: the suite's order is not fixed.
NM=$(sh tests/read/npm.sh hyparquet-writer@0.17.0) && cp tests/read/parquet_strings.mjs "$NM/../parquet_strings.mjs" &&
  node build/npm/parquet_strings.mjs "$T/out/wikitext-rows.json" "$T/out/wikitext.parquet" &&
  node build/npm/parquet_strings.mjs "$T/out/wiki-texts.json" "$T/out/custom.parquet" ||
  { not_ok "test fixtures (hyparquet-writer)" "node build/npm/parquet_strings.mjs failed"; exit 0; }
export CAL_CORPORA="$T/corpora" CAL_TOKENIZER=llama3
unset CAL_TOKENS_DIR
O=$T/out E=$ROOT/examples
cat >"$O/params.json" <<'EOF'
{"exl2_length": 256, "exl2_custom_rows": 20, "exl2_custom_length": 128, "exl3_rows": 60, "exl3_length": 128,
 "wt2_rows": 16, "wt2_length": 128, "c4_rows": 16, "c4_length": 128, "seed": 3, "awq_docs": 24, "awq_length": 64,
 "ar_rows": 16, "ar_length": 128, "gm_docs": 30, "gm_length": 256, "lc_rows": 12, "lc_length": 128}
EOF
check "exl2-standard.sh" sh "$E/exl2-standard.sh" -l 256 -o "$O/exl2"
check "exl2-standard.sh -i custom.parquet" sh "$E/exl2-standard.sh" -i "$O/custom.parquet" -n 20 -l 128 -o "$O/exl2custom"
check "exl3-standard.sh" sh "$E/exl3-standard.sh" -n 60 -l 128 -o "$O/exl3"
for p in gptq optimum lmdeploy; do
  check "gptq-wikitext2.sh -p $p (built-in wiki)" sh "$E/gptq-wikitext2.sh" -p $p -n 16 -l 128 -s 3 -o "$O/wt2-$p-wiki"
  check "gptq-c4.sh -p $p" sh "$E/gptq-c4.sh" -p $p -n 16 -l 128 -s 3 -o "$O/c4-$p"
done
for p in gptq optimum; do  # lmdeploy joins as gptq
  check "gptq-wikitext2.sh -p $p (HF rows, Parquet)" sh "$E/gptq-wikitext2.sh" -p $p -i "$O/wikitext.parquet" \
    -n 16 -l 128 -s 3 -o "$O/wt2-$p-hf"
  check "gptq-wikitext2.sh -p $p (the raw wiki.train.raw)" sh "$E/gptq-wikitext2.sh" -p $p -i "$O/wiki.train.raw" \
    -n 16 -l 128 -s 3 -o "$O/raw-$p"
  cal-cat -o "$T/raw-$p.npy" "$O/raw-$p/cal_data.cal" && cal-cat -o "$T/hf-$p.npy" "$O/wt2-$p-hf/cal_data.cal"
  same "gptq-wikitext2.sh -p $p: the raw file gives the Hugging Face rows' set" "$T/raw-$p.npy" "$T/hf-$p.npy"
done
check "awq-pileval.sh" sh "$E/awq-pileval.sh" -n 24 -l 64 -o "$O/awq"
check "autoround.sh" sh "$E/autoround.sh" -n 16 -l 128 -o "$O/autoround"
grep -q "documents dropped by --max-repeat 64" "$T/.out" && ok "autoround: the repetitive document is counted" ||
  not_ok "autoround: repetition drop reported" "$(cat "$T/.out")"
check "gptqmodel.sh" sh "$E/gptqmodel.sh" -n 30 -l 256 -o "$O/gptqmodel"
grep -q "documents dropped by --min-tokens 11" "$T/.out" && ok "gptqmodel: short rows counted" ||
  not_ok "gptqmodel: short-row drop reported" "$(cat "$T/.out")"
check "llmcompressor.sh" sh "$E/llmcompressor.sh" -n 12 -l 128 -o "$O/llmcompressor"
$PY tests/py/peers.py "$T/corpora" "$TOKF" llama3 "$O"

# AutoAWQ with a tokenizer without BOS (qwen3): runs, and no BOS anywhere
if [ -f build/tokenizers/qwen3/tokenizer.json ]; then
  check "awq-pileval.sh -t qwen3 (no BOS)" sh "$E/awq-pileval.sh" -t qwen3 -n 24 -l 64 -o "$O/awq-qwen"
fi
# a failing packing says why
expect_fail "gptq-c4.sh: too short a corpus says why" 1 "no document has more than 100000 tokens" \
  sh "$E/gptq-c4.sh" -n 2 -l 100000 -o "$O/none"
# CAL_TOKENS_DIR: a read with options needs its own pre-encoded file
mkdir -p "$T/tok"
cal-read web | cal-encode -t llama3 -o "$T/tok/web.cal"
expect_fail "CAL_TOKENS_DIR: options are never dropped" 1 "web,--strip,--,--add-special,--parse-special.cal: no such" \
  env CAL_TOKENS_DIR="$T/tok" sh "$E/awq-pileval.sh" -o "$O/x"
cal-read --strip web | cal-encode -t llama3 --add-special --parse-special -o "$T/tok/web,--strip,--,--add-special,--parse-special.cal"
check "CAL_TOKENS_DIR: the keyed file is used" env CAL_TOKENS_DIR="$T/tok" sh "$E/awq-pileval.sh" -n 24 -l 64 -o "$O/awq-tok"
same "CAL_TOKENS_DIR: same rows as encoding here" "$O/awq/cal_data.safetensors" "$O/awq-tok/cal_data.safetensors"
