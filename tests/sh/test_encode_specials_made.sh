#!/bin/sh
# test_encode_specials_made.sh - special tokens a model folder's
# configuration names (bos/eos/unk/sep/pad/cls/mask_token,
# additional_special_tokens; strings or AddedToken objects) that the
# tokenizer.json lacks among its added tokens become special added tokens,
# as transformers 4.x's PreTrainedTokenizerFast.__init__ adds them
# (tokens_to_add: all_special_tokens_extended not in added_tokens_encoder,
# through tokenizers' add_tokens): one the vocabulary has keeps its id, a new
# one gets the next id. The reference is the Rust HF tokenizers (node) with
# the same tokens added through its AddedToken API, in transformers' order
# (bos, eos, unk, sep, pad, cls, mask, then the additional ones, each text
# once). The fixture folders are made here from the fetched Mistral
# tokenizer.json (32000 tokens; <unk> <s> </s> are its added tokens).
. tests/lib.sh
if ! sh scripts/fetch-tokenizers.sh >"$T/fetch.log" 2>&1; then
  not_ok "fetch tokenizers and the reference" "$(tail -3 "$T/fetch.log")"; exit 0
fi
src=build/tokenizers/mistral/tokenizer.json
mkdir -p "$T/m"
cp "$src" "$T/m/tokenizer.json"
cat >"$T/m/tokenizer_config.json" <<'EOF'
{"tokenizer_class": "PreTrainedTokenizerFast",
 "eos_token": {"__type": "AddedToken", "content": "<|eot|>", "single_word": true, "lstrip": false, "rstrip": false, "normalized": false},
 "unk_token": "<unk>",
 "pad_token": "<pad>",
 "additional_special_tokens": ["<|im_start|>",
   {"content": "<|im_end|>", "lstrip": true, "rstrip": true},
   "\u2581Hello",
   {"content": "<norm me>", "normalized": true},
   "<s>", "<pad>"]}
EOF
# transformers' order; <unk> and <s> are added tokens already, the second <pad> a repeat
cat >"$T/tokens.json" <<'EOF'
[{"content": "<|eot|>", "single_word": true}, {"content": "<pad>"}, {"content": "<|im_start|>"},
 {"content": "<|im_end|>", "lstrip": true, "rstrip": true}, {"content": "\u2581Hello"},
 {"content": "<norm me>", "normalized": true}]
EOF
$PY - "$T/docs.cal" <<'EOF'
import sys; sys.path.insert(0, "examples"); import calstream
docs = ["<|im_start|>user\nHello<|im_end|>\n", "x <|im_end|> y", "a<|im_end|>b", "<pad><pad> Hello",
        "\u2581Hello world \u2581Hello\u2581Hello", "Hello world", "<norm me> and x <norm me>y", "a<|eot|>b",
        " <|eot|> ", "<|eot|>", "<s>text</s><unk>", "<|im_start|><|im_start|>", "<norm me"]
calstream.write_text(sys.argv[1], [("d", d.encode()) for d in docs])
EOF
if ! node tests/ref/hf_encode.js "$T/m/tokenizer.json" --add-tokens "$T/tokens.json" parse "$T/docs.cal" "$T/ref-parse.ids" \
     add-parse "$T/docs.cal" "$T/ref-add.ids" 2>"$T/node.err"; then
  not_ok "the reference" "$(cat "$T/node.err")"; exit 0
fi
# cal-encode's ids and header against the reference's
for m in parse add; do
  flags=--parse-special; [ $m = add ] && flags="--parse-special --add-special"
  cal-encode -t "$T/m" $flags "$T/docs.cal" -o "$T/ours-$m.cal" 2>"$T/err-$m" || cat "$T/err-$m"
done
$PY - "$T" <<'EOF' >"$T/cmp"
import json, struct, sys
sys.path.insert(0, "examples"); import calstream
t = sys.argv[1]
metas, recs = [], []
def ref(path):
    data, out, i = open(path, "rb").read(), [], 0
    while i < len(data):
        n = struct.unpack_from("<I", data, i)[0]
        out.append(list(struct.unpack_from("<%dI" % n, data, i + 4)))
        i += 4 + 4 * n
    return out
for m in ("parse", "add"):
    try:
        metas, recs = calstream.read_records("%s/ours-%s.cal" % (t, m))
    except OSError:
        print("%s: no output" % m); continue
    ours, want = [calstream.ids_of(r[3]) for r in recs], ref("%s/ref-%s.ids" % (t, m))
    bad = [k for k in range(max(len(ours), len(want))) if k >= len(ours) or k >= len(want) or ours[k] != want[k]]
    print("%s: %d of %d documents differ%s" % (m, len(bad), len(want), "; first %d: ours %s, reference %s" % (
        bad[0], ours[bad[0]] if bad[0] < len(ours) else None, want[bad[0]] if bad[0] < len(want) else None) if bad else ""))
ids = json.load(open(t + "/tokens.json.ids"))
toks = [x["content"] for x in json.load(open(t + "/tokens.json"))]
print("reference ids:", " ".join("%s=%d" % kv for kv in zip(toks, ids)))
m = dict(metas[0]) if recs else {}
print("header:", m.get("specials_added"), "| eos", m.get("eos"), m.get("eos_from"), "| pad", m.get("pad"), m.get("pad_from"), "| vocab", m.get("vocab"))
EOF
eq "--parse-special: the ids of the reference with the configuration's special tokens added" "$(sed -n 1p "$T/cmp")" "parse: 0 of 13 documents differ"
eq "--parse-special --add-special: the same, with the post-processor" "$(sed -n 2p "$T/cmp")" "add: 0 of 13 documents differ"
eq "new tokens get the next ids, a vocabulary entry keeps its id (the reference's ids)" "$(sed -n 3p "$T/cmp")" \
  "reference ids: <|eot|>=32000 <pad>=32001 <|im_start|>=32002 <|im_end|>=32003 ▁Hello=22557 <norm me>=32004"
eq "the header records the tokens made, with their sources; eos and pad are the new ids; vocab counts them" "$(sed -n 4p "$T/cmp")" \
  "header: <|eot|>=32000 (tokenizer_config.json eos_token); <pad>=32001 (tokenizer_config.json pad_token); <|im_start|>=32002 (tokenizer_config.json additional_special_tokens); <|im_end|>=32003 (tokenizer_config.json additional_special_tokens); <norm me>=32004 (tokenizer_config.json additional_special_tokens) | eos 32000 tokenizer_config.json eos_token | pad 32001 tokenizer_config.json pad_token | vocab 32005"

# a Llama class's default <unk> missing from the vocabulary, and a new bos in
# the template LlamaTokenizerFast rebuilds ([bos] $A): the new ids, in order
mkdir -p "$T/l"
$PY - "$src" "$T/l/tokenizer.json" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1], encoding="utf-8"))
j["added_tokens"] = [t for t in j["added_tokens"] if t["content"] != "<unk>"]
j["model"]["vocab"]["<unk>"] = j["model"]["vocab"].pop("<unk>")  # still id 0, no longer an added token
j["model"]["unk_token"] = "<unk>"
json.dump(j, open(sys.argv[2], "w", encoding="utf-8"), ensure_ascii=False)
EOF
printf '{"tokenizer_class": "LlamaTokenizer", "bos_token": "<|newbos|>"}\n' >"$T/l/tokenizer_config.json"
printf 'Hello<|newbos|><unk>\n' | $PY examples/calstream.py text "$T/l.cal"
eq "LlamaTokenizerFast: <|newbos|> (new, 32000) starts --add-special; <unk> (the class default, in the vocabulary) becomes a special token with its id 0" \
  "$(cal-encode -t "$T/l" --add-special --parse-special "$T/l.cal" | $PY examples/calstream.py dump /dev/stdin | tail -1 | cut -d' ' -f4-)" \
  "32000 22557 32000 0"
printf '{"tokenizer_class": "LlamaTokenizer", "bos_token": "<|newbos|>", "additional_special_tokens": [""]}\n' >"$T/l/tokenizer_config.json"
eq "an empty special token is ignored, as tokenizers' add_tokens ignores it" \
  "$(cal-encode -t "$T/l" "$T/l.cal" | $PY examples/calstream.py dump /dev/stdin | head -1 | grep -o 'specials_added=[^ ]*')" "specials_added=<|newbos|>=32000"
