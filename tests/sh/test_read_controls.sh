#!/bin/sh
# Text is never altered on its way to the tokenizer: documents holding NUL,
# every C0 control, DEL and every C1 control inside real text (plus invalid
# UTF-8 where the format can carry it) go through cal-read from plain text,
# JSON Lines with \u escapes, JSON Lines with raw control bytes and Parquet.
# cal-read's texts must be Python's exactly (invalid bytes repaired as
# Python's errors="replace"), and cal-read | cal-encode -t llama3 must give
# the Rust HF tokenizers' ids for the original bytes (tests/ref/hf_encode.js,
# which decodes them with the WHATWG decoder).
. tests/lib.sh
export PYTHONPATH="$PWD/examples"
TOK=build/tokenizers/llama3/tokenizer.json
[ -f "$TOK" ] || { skip "controls" "llama3 missing (make tokenizers)"; exit 0; }
[ -f build/corpora/wiki.jsonl.zst ] || { skip "controls" "corpora missing (make corpora)"; exit 0; }
[ -d build/npm/node_modules/@anush008/tokenizers ] && command -v node >/dev/null ||
  { skip "controls" "the reference (node, build/npm) is missing (make tokenizers)"; exit 0; }

# The issue's example, exactly: ' \0 x' is [220, 188, 865] for the reference.
printf ' \0 x' | cal-read - | cal-encode -t llama3 | cal-cat --json | grep '"TOKENS"' >"$T/nul.json"
eq "' NUL x' gives [220, 188, 865]" "$(sed 's/.*"ids":\(\[[^]]*\]\).*/\1/' "$T/nul.json")" "[220,188,865]"

zstd -dc build/corpora/wiki.jsonl.zst | head -40 >"$T/wiki.jsonl"
$PY - "$T" <<'PYEOF' || not_ok "make inputs"
import json, os, sys
import calstream
t = sys.argv[1]
texts = [json.loads(l)["text"] for l in open(t + "/wiki.jsonl")]
ctl = [chr(c) for c in range(0x20)] + ["\x7f"] + [chr(c) for c in range(0x80, 0xa0)]
docs = []
for k, c in enumerate(ctl):  # each control after a letter, a space, a digit, itself; at both ends
    w = texts[k % len(texts)][:300]
    docs.append("%s%s word%sword 12%s3 %s%s. %s %s" % (c, w[:100], c, c, c, c, w[100:], c))
docs.append("".join(ctl) + " all of them " + "".join(reversed(ctl)))
bad = [b"caf\xc3 \xff\xfe \xc0\xaf \xe0\x80\xaf \xed\xa0\x80 \xf4\x90\x80\x80 \xf0\x9f\x98 end\x00\x01",
       b"\xe2\x82 split \xe2\x82\xac ok \xf0\x9f\x98\x80 \x80\x80"]
raw = [d.encode() for d in docs] + bad  # the original bytes, for the reference
calstream.write_text(t + "/ref.cal", ((b"ref", b) for b in raw))
os.mkdir(t + "/text")
for i, b in enumerate(raw):
    open("%s/text/d%03d" % (t, i), "wb").write(b)
with open(t + "/esc.jsonl", "w") as f:  # \u escapes for every control (json.dumps)
    for d in docs:
        f.write(json.dumps({"text": d}) + "\n")
with open(t + "/raw.jsonl", "wb") as f:  # raw bytes inside the strings (but "\n")
    for b in raw:
        f.write(b'{"text": "' + b.replace(b"\\", b"\\\\").replace(b'"', b'\\"').replace(b"\n", b"\\n") + b'"}\n')
json.dump(docs, open(t + "/docs.json", "w"))
# what cal-read must write: the text, invalid bytes as Python replaces them
want = [b.decode("utf-8", "replace").encode() for b in raw]
dump = lambda ts: "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in ts)  # as tests/read/texts.py
open(t + "/want.txt", "w").write(dump(w.decode() for w in want))
open(t + "/want_valid.txt", "w").write(dump(docs))
open(t + "/want_fixed", "w").write(str(sum(w.count("\ufffd".encode()) for w in want)))
PYEOF
# the reference ids of the original bytes
if ! node tests/ref/hf_encode.js "$TOK" plain "$T/ref.cal" "$T/ref.ids" 2>"$T/node.err"; then
  not_ok "reference (node)" "$(tail -3 "$T/node.err")"; exit 0
fi
$PY - "$T/ref.ids" "$T/ref.json" <<'PYEOF'
import json, struct, sys
b = open(sys.argv[1], "rb").read()
out, i = [], 0
while i < len(b):
    (n,) = struct.unpack_from("<I", b, i)
    out.append(list(struct.unpack_from("<%dI" % n, b, i + 4)))
    i += 4 + 4 * n
json.dump(out, open(sys.argv[2], "w"))
PYEOF

# texts.py-style comparison of cal-read's texts, and the ids of cal-encode
texts() { cal-cat --json "$1" | $PY tests/read/texts.py; }
compare_ids() {  # NAME STREAM FIRST: cal-encode's ids of STREAM == reference ids [FIRST..]
  cal-encode -t llama3 <"$2" >"$T/$1.tok" || { not_ok "$1: cal-encode"; return; }
  if $PY - "$T/$1.tok" "$T/ref.json" "$3" <<'PYEOF'
import json, sys
import calstream
_, recs = calstream.read(sys.argv[1])
got = [r["ids"] for r in recs]
want = json.load(open(sys.argv[2]))[int(sys.argv[3]):][:len(got)]
bad = [i for i, (g, w) in enumerate(zip(got, want)) if g != w]
assert len(got) == len(want) and not bad, "documents %s differ, e.g. %s vs %s" % (bad[:5], got[bad[0]][:20] if bad else "", want[bad[0]][:20] if bad else "")
PYEOF
  then ok "$1: cal-read | cal-encode -t llama3 gives the reference's ids"; else not_ok "$1: ids"; fi
}
ndocs=$(wc -l <"$T/want_valid.txt")

cal-read -v -f text "$T/text" >"$T/text.cal" 2>"$T/text.err"
texts "$T/text.cal" >"$T/text.got"
same "plain text: texts as Python's (controls kept, invalid bytes as errors=replace)" "$T/text.got" "$T/want.txt"
grep -qx "cal-read: $(cat "$T/want_fixed") sequences of invalid UTF-8 replaced by U+FFFD (--strict refuses them)" \
  "$T/text.err" && ok "plain text: the repairs are counted" || not_ok "plain text: the repairs are counted" "$(cat "$T/text.err")"
compare_ids text "$T/text.cal" 0

cal-read "$T/esc.jsonl" >"$T/esc.cal"
texts "$T/esc.cal" >"$T/esc.got"
same "JSON Lines with \\u escapes: texts unchanged" "$T/esc.got" "$T/want_valid.txt"
compare_ids esc "$T/esc.cal" 0

cal-read -v "$T/raw.jsonl" >"$T/raw.cal" 2>"$T/raw.err"
texts "$T/raw.cal" >"$T/raw.got"
same "JSON Lines with raw control bytes: texts as Python's" "$T/raw.got" "$T/want.txt"
compare_ids raw "$T/raw.cal" 0

cal-read -f text --strict "$T/text/d000" >/dev/null 2>"$T/strict.err" && ok "--strict accepts NUL and controls" ||
  not_ok "--strict accepts NUL and controls" "$(cat "$T/strict.err")"
expect_fail "--strict refuses invalid UTF-8, naming file and byte" 1 "d066: byte 3: invalid UTF-8" cal-read --strict -f text "$T/text/d066"

if NM=$(sh tests/read/npm.sh 2>"$T/npm.err"); then
  cp tests/read/parquet_strings.mjs "$NM/../parquet_strings.mjs"
  if node "$NM/../parquet_strings.mjs" "$T/docs.json" "$T/ctl.parquet" 2>"$T/pq.err"; then
    cal-read "$T/ctl.parquet" >"$T/pq.cal"
    texts "$T/pq.cal" >"$T/pq.got"
    same "Parquet strings: texts unchanged" "$T/pq.got" "$T/want_valid.txt"
    compare_ids parquet "$T/pq.cal" 0
  else
    not_ok "Parquet writer" "$(tail -3 "$T/pq.err")"
  fi
else
  skip "Parquet" "npm packages unavailable: $(cat "$T/npm.err")"
fi
[ "$ndocs" -gt 50 ] && ok "$ndocs documents with controls" || not_ok "documents" "$ndocs"
