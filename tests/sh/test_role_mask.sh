#!/bin/sh
# test_role_mask.sh - cal-read --chat --assistant-mask | cal-encode | cal-pack
# --mode doc | cal-cat -o rows.jsonl: the labels (-100 outside the assistant's
# output) and loss_mask of each conversation against the reference
# (tests/jinja/role_mask.py): the spans transformers' return_assistant_tokens_mask
# takes from {% generation %} blocks (SmolLM3's template) or, for templates
# without them, each assistant turn rendered up to and through it, rendered by
# python3-jinja2 as transformers does; tokens marked where they hold a
# character of a span, by the Rust HF tokenizers' offsets (tests/ref/hf_offsets.js).
# Then the padded rows of --pad right, .safetensors labels, and the options
# --assistant-mask refuses.
. tests/lib.sh
if ! $PY -c 'import jinja2' 2>/dev/null; then skip "role mask" "python3-jinja2 is not installed"; exit 0; fi
toks=build/tokenizers
$PY tests/jinja/as_user.py "$T/recs.jsonl"   # RECORDS.chats: conversations without tools
head -160 "$T/recs.jsonl.chats" >"$T/chats.jsonl"
mkdir -p "$T/smollm3"
cp "$toks/qwen3/tokenizer.json" "$toks/qwen3/tokenizer_config.json" "$T/smollm3/"
cp tests/jinja/templates/smollm3-3b.jinja "$T/smollm3/chat_template.jinja"
for m in qwen3 llama3.1-instruct gemma3 deepseek_v3 "$T/smollm3"; do
  name=$(basename "$m"); dir=$m; [ -d "$m" ] || dir=$toks/$m
  $PY tests/jinja/role_mask.py "$T/chats.jsonl" "$dir" "$T/ref.$name" || { not_ok "$name: reference"; continue; }
  node tests/ref/hf_offsets.js "$dir/tokenizer.json" "$T/ref.$name" "$T/off.$name" || { not_ok "$name: offsets"; continue; }
  $PY tests/jinja/role_mask.py labels "$T/ref.$name" "$T/off.$name" "$T/want.$name"
  if cal-read --chat "$m" --assistant-mask --skip-bad --date 2024-07-26 "$T/chats.jsonl" 2>"$T/err" |
     cal-encode -t "$dir" | cal-pack -l 100000 --mode doc --pad none 2>/dev/null | cal-cat -o "$T/got.$name.jsonl"; then
    if $PY - "$T/got.$name.jsonl" "$T/want.$name" >"$T/cmp" 2>&1 <<'PYEOF'
import json, sys
got = [json.loads(l) for l in open(sys.argv[1])]
want = [json.loads(l) for l in open(sys.argv[2])]
assert len(got) == len(want), "%d rows, want %d" % (len(got), len(want))
marked = 0
for i, (g, w) in enumerate(zip(got, want)):
    assert g["input_ids"] == w["input_ids"], "row %d: ids differ" % i
    bad = [j for j, (a, b) in enumerate(zip(g["loss_mask"], w["loss_mask"])) if a != b]
    assert not bad and g["labels"] == w["labels"], "row %d: loss_mask differs at %r" % (i, bad[:5])
    marked += sum(w["loss_mask"])
assert marked > 0, "no assistant token at all"
print(len(got), marked)
PYEOF
    then
      set -- $(cat "$T/cmp")
      ok "$name: labels and loss_mask of $1 conversations as the reference ($2 assistant tokens)"
    else
      not_ok "$name: labels and loss_mask" "$(tail -2 "$T/cmp")" "$(head -2 "$T/err")"
    fi
  else
    not_ok "$name: pipeline" "$(head -3 "$T/err")"
  fi
done
grep -q "endgeneration" "$T/smollm3/chat_template.jinja" && ok "SmolLM3's template has {% generation %} blocks (the transformers path is tested)" ||
  not_ok "SmolLM3's template has {% generation %} blocks"

# padded rows: the role mask follows the tokens, 0 in padding; labels in .safetensors
cal-read --chat qwen3 --assistant-mask --skip-bad --date 2024-07-26 "$T/chats.jsonl" 2>/dev/null | cal-encode -t qwen3 |
  cal-pack -l 256 --mode doc --pad left 2>/dev/null >"$T/pad.cal"
cal-cat -o "$T/pad.safetensors" "$T/pad.cal" && cal-cat -o "$T/pad.jsonl" "$T/pad.cal"
if $PY - "$T/pad.safetensors" "$T/pad.jsonl" <<'PYEOF'
import json, struct, sys
import numpy as np
b = open(sys.argv[1], "rb").read(); (n,) = struct.unpack("<Q", b[:8]); h = json.loads(b[8:8 + n]); h.pop("__metadata__")
t = {k: np.frombuffer(b[8 + n + v["data_offsets"][0]:8 + n + v["data_offsets"][1]], "<i8").reshape(v["shape"]) for k, v in h.items()}
rows = [json.loads(l) for l in open(sys.argv[2])]
assert sorted(t) == ["attention_mask", "input_ids", "labels", "loss_mask"], sorted(t)
for i, r in enumerate(rows):
    for k in ("input_ids", "attention_mask", "labels", "loss_mask"):
        assert t[k][i].tolist() == r[k], (i, k)
    m, l, ids = np.array(r["attention_mask"]), np.array(r["loss_mask"]), np.array(r["input_ids"])
    assert not (l & (1 - m)).any(), "loss_mask in padding"
    assert (np.where(l == 1, ids, -100) == np.array(r["labels"])).all()
PYEOF
then ok "--pad left: labels/loss_mask in .safetensors equal .jsonl's; never in padding; labels = ids where loss_mask"
else not_ok "--pad left: labels/loss_mask"; fi
cal-cat --import "$T/pad.safetensors" >"$T/back.cal"
same "rows with role masks -> .safetensors -> rows, byte for byte" "$T/back.cal" "$T/pad.cal"
expect_fail "role masks are refused by .npy" 1 "role mask: .npy holds ids only" cal-cat -o "$T/x.npy" "$T/pad.cal"
cal-read --chat qwen3 --assistant-mask --skip-bad "$T/chats.jsonl" 2>/dev/null | cal-encode -t qwen3 |
  cal-pack -l 256 2>"$T/err" >/dev/null
eq "--mode concat says it leaves the role masks out" "$(grep -c 'dropped from the role masks' "$T/err")" 1
expect_fail "--assistant-mask goes with --chat" 2 "--assistant-mask goes with --chat" cal-read --assistant-mask "$T/chats.jsonl"
expect_fail "--assistant-mask keeps the text as rendered" 2 "not with --nfc" cal-read --chat qwen3 --assistant-mask --nfc "$T/chats.jsonl"
