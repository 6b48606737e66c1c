#!/bin/sh
# test_pack_sep_positions.sh - cal-pack --sep-text TEXT -t TOKENIZER (the
# separator's tokens as GPTQModel encodes its calibration_concat_separator:
# tokenizer(separator) with special tokens added, against the Rust HF
# tokenizers) between concatenated documents; the model's position limit
# from config.json (max_position_embeddings, else GPTQModel's fallbacks)
# recorded by cal-encode and enforced by cal-pack, --max-positions.
. tests/lib.sh
toks=build/tokenizers
printf '{"text":"alpha beta"}\n{"text":"gamma"}\n{"text":"delta epsilon zeta"}\n' >"$T/d.jsonl"
cal-read "$T/d.jsonl" | cal-encode -t llama3 >"$T/tok.cal"
# the separator as the reference encodes it, with special tokens added
printf '%s' '\n\n' | PYTHONPATH=examples $PY -c 'import sys, calstream; calstream.write_text(sys.argv[1], [("s", b"\n\n")])' "$T/sep.cal"
node tests/ref/hf_encode.js "$toks/llama3/tokenizer.json" add "$T/sep.cal" "$T/sep.ids" 2>"$T/err" || not_ok "reference" "$(cat "$T/err")"
sep=$($PY -c 'import struct, sys; b = open(sys.argv[1], "rb").read(); n = struct.unpack_from("<I", b)[0]; print(",".join(map(str, struct.unpack_from("<%dI" % n, b, 4))))' "$T/sep.ids")
cal-pack -l 4 --sep-text '

' -t llama3 --tail pad "$T/tok.cal" 2>/dev/null | cal-cat --json >"$T/rows.json"
want=$(PYTHONPATH=examples $PY -c 'import sys, calstream
_, recs = calstream.read(sys.argv[1]); sep = [int(x) for x in sys.argv[2].split(",")]
out = []
for i, r in enumerate(recs):
    out += (sep if i else []) + r["ids"]
print(",".join(map(str, out)))' "$T/tok.cal" "$sep")
got=$($PY -c 'import json, sys
ids = []
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get("kind") == "ROW": ids += [i for i, m in zip(r["ids"], r.get("mask") or [1] * len(r["ids"])) if m]
print(",".join(map(str, ids)))' "$T/rows.json")
eq "--sep-text: the documents joined by the separator's tokens, tokenizer(separator) as GPTQModel calls it ($sep)" "$got" "$want"
expect_fail "--sep-text needs -t" 2 "--sep-text and -t go together" cal-pack -l 4 --sep-text x "$T/tok.cal"
expect_fail "--sep-text with another tokenizer than the stream's" 2 "is not the stream's tokenizer" cal-pack -l 4 --sep-text x -t qwen3 "$T/tok.cal"
expect_fail "--sep-text is for concat and window" 2 "--sep-text goes with --mode concat or window" cal-pack -l 4 --mode doc --sep-text x -t llama3 "$T/tok.cal"

# the model's positions: config.json beside the tokenizer
mkdir -p "$T/m"
cp "$toks/llama3/tokenizer.json" "$toks/llama3/tokenizer_config.json" "$T/m/"
echo '{"model_type": "llama", "max_position_embeddings": 8}' >"$T/m/config.json"
cal-read "$T/d.jsonl" | cal-encode -t "$T/m" >"$T/m.cal"
eq "cal-encode records the model's positions and where they came from" \
  "$(cal-cat "$T/m.cal" | grep -E '^#   max_positions' | tr '\n' ' ')" "#   max_positions=8 #   max_positions_from=config.json max_position_embeddings "
expect_fail "-l above max_position_embeddings is refused, saying what the peers do" 2 \
  "-l 16 exceeds the model's 8 positions \(config.json max_position_embeddings\).*GPTQModel would trim" cal-pack -l 16 "$T/m.cal"
check "-l at the limit is fine" cal-pack -l 8 --allow-short "$T/m.cal"
check "--max-positions: the model takes more (RoPE scaling)" cal-pack -l 16 --max-positions 16 --allow-short "$T/m.cal"
expect_fail "--max-positions also refuses -l above it" 2 "exceeds the model's 4 positions \(--max-positions\)" cal-pack -l 8 --max-positions 4 "$T/tok.cal"
echo '{"n_positions": 6}' >"$T/m/config.json"
eq "GPTQModel's fallback keys (n_positions)" "$(cal-read "$T/d.jsonl" | cal-encode -t "$T/m" | cal-cat | sed -n 's/^#   max_positions_from=//p')" "config.json n_positions"
