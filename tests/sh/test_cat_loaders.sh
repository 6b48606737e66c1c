# test_cat_loaders.sh - every export of cal-cat -o loads in the quantizers'
# own loading logic (tests/py/loaders.py: AutoGPTQ, GPTQModel,
# llm-compressor, exllamav2), giving the stream's rows and masks.
. tests/lib.sh
W="$PY examples/calstream.py json"
LD="$PY tests/py/loaders.py"
if ! $PY -c 'import torch' 2>/dev/null; then skip "loaders" "python3-torch is missing"; exit 0; fi

cat >"$T/src.jsonl" <<'EOF2'
{"header": [["tokenizer","tok.json"],["tokenizer_fp","00000000000000aa"],["stage","cal-pack -l 5"]]}
{"kind":"ROW","label":"wiki","id":1,"ids":[1,2,3,4,5]}
{"kind":"ROW","label":"code","id":2,"ids":[9,8,7,0,0],"mask":[1,1,1,0,0]}
{"kind":"ROW","label":"wiki","id":3,"ids":[0,0,6,6,6],"mask":[0,0,1,1,1]}
{"kind":"ROW","label":"web","id":4,"ids":[31999,1,2,3,4]}
EOF2
$W <"$T/src.jsonl" >"$T/pad.cal"
grep -v mask "$T/src.jsonl" | $W >"$T/nopad.cal"
# What every loader must see: the stream's ids, its mask or all ones.
want() {
  $PY -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if "ids" in r:
        print(json.dumps({"input_ids": r["ids"], "attention_mask": r.get("mask", [1] * len(r["ids"]))}, separators=(",", ":")))' "$1"
}
want "$T/src.jsonl" >"$T/want.pad"
grep -v mask "$T/src.jsonl" >"$T/src.nopad"
want "$T/src.nopad" >"$T/want.nopad"

for p in pad nopad; do
  cal-cat -o "$T/$p.jsonl" "$T/$p.cal"
  cal-cat -o "$T/$p.npz" "$T/$p.cal"
  cal-cat -o "$T/$p.npy" "$T/$p.cal"
  cal-cat -o "$T/$p.safetensors" "$T/$p.cal"
  $LD autogptq "$T/$p.jsonl" >"$T/got" 2>&1
  same "AutoGPTQ quantize(examples) takes the .jsonl ($p)" "$T/got" "$T/want.$p"
  $LD llmcompressor "$T/$p.jsonl" >"$T/got" 2>&1
  same "llm-compressor's JSON dataset + default_data_collator takes the .jsonl ($p)" "$T/got" "$T/want.$p"
  $LD gptqmodel "$T/$p.npz" >"$T/got" 2>&1
  same "GPTQModel takes tensors from the .npz ($p)" "$T/got" "$T/want.$p"
  $LD exllamav2 "$T/$p.safetensors" | cut -d'"' -f1-3 >"$T/got" 2>&1
  cut -d'"' -f1-3 "$T/want.$p" >"$T/want.ids"
  same "exllamav2 takes input_ids from the .safetensors ($p)" "$T/got" "$T/want.ids"
done
$LD gptqmodel "$T/pad.npy" >"$T/got" 2>&1
same "GPTQModel takes NAME.npy with NAME.mask.npy (padded)" "$T/got" "$T/want.pad"

# The defect this guards against: rows without attention_mask.
sed 's/,"attention_mask":\[[01,]*\]//' "$T/nopad.jsonl" >"$T/old.jsonl"
$LD autogptq "$T/old.jsonl" >/dev/null 2>"$T/err"
eq "AutoGPTQ's loading logic fails with KeyError on rows without attention_mask" \
  "$(tail -1 "$T/err")" "KeyError: 'attention_mask'"
