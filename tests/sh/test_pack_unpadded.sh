#!/bin/sh
# test_pack_unpadded.sh - cal-pack --pad none (each row its document's own
# length) and the exports that keep lengths, against the peers' loaders
# written anew at a named commit (tests/py/unpadded.py): llm-compressor's
# tokenization without padding (each sample truncated to -l), GPTQModel's
# prepare_calibration_dataset + collate_data (rows of <= 10 ids dropped,
# sorted by descending length, batches padded on the right to their
# longest) against cal-cat --batch in .npz, .safetensors and .jsonl; the one
# matrix with lengths; the byte-for-byte round trip; the drops said.
. tests/lib.sh
if ! $PY -c 'import numpy' 2>/dev/null; then skip "unpadded rows" "python3-numpy is not installed"; exit 0; fi
cal-read wiki -n 120 --max-chars 1500 --min-chars 1 | cal-encode -t llama3 >"$T/tok.cal" || { not_ok "pipeline"; exit 0; }
cal-pack -l 96 --mode doc --pad none --bos doc "$T/tok.cal" >"$T/rows.cal" 2>"$T/err"
cal-cat -o "$T/rows.jsonl" "$T/rows.cal"
check "--pad none: each row is ([BOS] + document)[:L], unpadded, as llm-compressor's tokenizer(truncation=True, max_length=L)" \
  $PY tests/py/unpadded.py "$T/tok.cal" "$T/rows.jsonl" 96
eq "--pad none: rows of many lengths, none longer than -l" \
  "$($PY -c 'import json,sys; L=[len(json.loads(l)["input_ids"]) for l in open(sys.argv[1])]; print(max(L) == 96, len(set(L)) > 20, min(L) > 0)' "$T/rows.jsonl")" "True True True"
eq "--pad none: truncated documents are said without -v" "$(grep -c 'documents truncated by --truncate tail (.* tokens dropped)' "$T/err")" 1

# GPTQModel: drop <= 10 ids, sort descending, batches of 4 padded on the right
cal-pack -l 96 --mode doc --pad none --bos doc --min-tokens 10 --sort desc "$T/tok.cal" 2>/dev/null >"$T/g.cal"
eos=$(cal-cat "$T/g.cal" | sed -n 's/^#   eos=//p')
$PY tests/py/unpadded.py gptqmodel "$T/rows.jsonl" 4 "$eos" "$T/g.want"
for ext in npz safetensors; do
  cal-cat --batch 4 -o "$T/g.$ext" "$T/g.cal" && $PY tests/py/unpadded.py $ext "$T/g.$ext" "$T/g.$ext.json"
  same "--batch 4 .$ext: GPTQModel's collate_data batches (input_ids.K, attention_mask.K)" "$T/g.$ext.json" "$T/g.want"
done
cal-cat --batch 4 -o "$T/g.jsonl" "$T/g.cal"
$PY -c 'import json, sys
res = {}
for k, l in enumerate(open(sys.argv[1])):
    b = json.loads(l)
    res["input_ids.%d" % k], res["attention_mask.%d" % k] = b["input_ids"], b["attention_mask"]
json.dump(res, open(sys.argv[2], "w"), sort_keys=True)' "$T/g.jsonl" "$T/g.jsonl.json"
same "--batch 4 .jsonl: one line per batch, its rows padded as collate_data pads them" "$T/g.jsonl.json" "$T/g.want"
$PY tests/py/unpadded.py gptqmodel "$T/rows.jsonl" 1 "$eos" "$T/g1.want"
cal-cat --batch 1 -o "$T/g1.npz" "$T/g.cal" && $PY tests/py/unpadded.py npz "$T/g1.npz" "$T/g1.json"
same "--batch 1: every row its own length (GPTQModel's default batch size)" "$T/g1.json" "$T/g1.want"

# one matrix: padded on the right to the longest, with attention_mask and lengths
cal-cat -o "$T/m.safetensors" "$T/rows.cal" && $PY tests/py/unpadded.py safetensors "$T/m.safetensors" "$T/m.json"
if $PY - "$T/m.json" "$T/rows.jsonl" "$eos" <<'PYEOF'
import json, sys
m = json.load(open(sys.argv[1])); rows = [json.loads(l)["input_ids"] for l in open(sys.argv[2])]; pad = int(sys.argv[3])
W = max(map(len, rows))
assert sorted(m) == ["attention_mask", "input_ids", "lengths"], sorted(m)
assert m["lengths"] == [len(r) for r in rows]
assert m["input_ids"] == [r + [pad] * (W - len(r)) for r in rows]
assert m["attention_mask"] == [[1] * len(r) + [0] * (W - len(r)) for r in rows]
PYEOF
then ok "one matrix: rows padded on the right with the stream's eos, attention_mask and lengths"
else not_ok "one matrix: rows padded on the right with the stream's eos, attention_mask and lengths"; fi
cal-cat --import "$T/m.safetensors" >"$T/back.cal"
same "--pad none rows -> .safetensors -> rows, byte for byte" "$T/back.cal" "$T/rows.cal"
expect_fail "--batch is refused for .npy" 2 "--batch goes with -o OUT.safetensors, OUT.npz or OUT.jsonl" \
  cal-cat --batch 2 -o "$T/x.npy" "$T/rows.cal"
cal-cat --batch 2 -o "$T/b.safetensors" "$T/rows.cal"
expect_fail "batched files are not read back" 1 "in batches \(cal-cat --batch\) are not read back" cal-cat --import "$T/b.safetensors"
expect_fail "--pad none only in doc mode" 2 "--truncate and --pad need --mode doc" cal-pack -l 8 --pad none "$T/tok.cal"
eq "--pad none needs no pad id (none is added to the stage line)" \
  "$(cal-cat "$T/rows.cal" | grep -c 'stage=cal-pack.*--pad-id')" 0
