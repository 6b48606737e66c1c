# test_cat.sh - cal-cat: summary, --json, --text, --check, --pass, the
# conversions (checked with numpy and an independent safetensors reader),
# byte-identical round trips, --import of files written by Python, errors.
. tests/lib.sh
W="$PY examples/calstream.py json"    # independent stream writer (cal-stream(5) + libxxhash)
STR="$PY tests/py/safetensors_read.py"

cp tests/data/sample.jsonl "$T/s1.jsonl"   # one record of each kind and form
$W <"$T/s1.jsonl" >"$T/s1.cal"

# ---- summary, json, text, check ----------------------------------------
cat >"$T/want" <<'EOF'
# s1.cal: header 1
#   tokenizer=tok.json
#   tokenizer_fp=00000000000000aa
#   vocab=32000
#   stage=test --seed 0
TEXT wiki 0000000000000001 len=90 "Hello, wörld!\nA \"quoted\" line\tand a tab, then a long tail th" ...
TOKENS code 00000000000000ff len=10 1 2 3 4 5 6 7 8 ...
ROW wiki ffffffffffffffff len=4 mask(1 padded) 5 6 7 0
ROW noise 0000000000000004 len=4 noise
VECTORS layer.0 0000000000000005 2x3 f16 1 -2 0.5 0.25 ...
TEXT web 0000000000000006 len=16 "ends in newline\n"
EOF
(cd "$T" && cal-cat s1.cal >got)
eq "summary of every record kind" "$(cat "$T/got")" "$(cat "$T/want")"

cat >"$T/want" <<'EOF'
{"file":"stdin","header":1,"meta":[["tokenizer","tok.json"],["tokenizer_fp","00000000000000aa"],["vocab","32000"],["stage","test --seed 0"]]}
{"offset":105,"kind":"TEXT","label":"wiki","id":"0000000000000001","len":90,"text":"Hello, wörld!\nA \"quoted\" line\tand a tab, then a long tail that goes past sixty characters"}
{"offset":223,"kind":"TOKENS","label":"code","id":"00000000000000ff","len":10,"ids":[1,2,3,4,5,6,7,8,9,10]}
{"offset":291,"kind":"ROW","label":"wiki","id":"ffffffffffffffff","len":4,"noise":false,"ids":[5,6,7,0],"mask":[1,1,1,0]}
{"offset":347,"kind":"ROW","label":"noise","id":"0000000000000004","len":4,"noise":true,"ids":[0,0,0,0]}
{"offset":400,"kind":"VECTORS","label":"layer.0","id":"0000000000000005","n":2,"d":3,"dtype":"f16","values":[1,-2,0.5,0.25,3,4]}
{"offset":459,"kind":"TEXT","label":"web","id":"0000000000000006","len":16,"text":"ends in newline\n"}
EOF
cal-cat --json <"$T/s1.cal" >"$T/got"
eq "--json on stdin, one object per record" "$(cat "$T/got")" "$(cat "$T/want")"
check "--json lines parse as JSON and the text matches the input" $PY -c '
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
src = [json.loads(l) for l in open(sys.argv[2])]
assert recs[1]["text"] == src[1]["text"] and recs[6]["text"] == src[6]["text"]
assert [r.get("kind") for r in recs[1:]] == [s["kind"] for s in src[1:]]' "$T/got" "$T/s1.jsonl"

printf 'Hello, w\303\266rld!\nA "quoted" line\tand a tab, then a long tail that goes past sixty characters\nends in newline\n' >"$T/want"
cal-cat --text "$T/s1.cal" >"$T/got"
same "--text prints TEXT records, newline-terminated" "$T/got" "$T/want"

(cd "$T" && cal-cat --check s1.cal >got)
eq "--check counts" "$(cat "$T/got")" "s1.cal: ok: 1 header, 6 records (TEXT 2, TOKENS 1, ROW 2, VECTORS 1), 534 bytes"

cal-cat --pass <"$T/s1.cal" >"$T/pass.cal"
same "--pass re-emits the independent writer's bytes unchanged" "$T/pass.cal" "$T/s1.cal"
cal-cat -o "$T/copy.cal" "$T/s1.cal"
same "-o OUT.cal copies the stream unchanged" "$T/copy.cal" "$T/s1.cal"

# Invalid UTF-8: one U+FFFD per maximal invalid subpart, as Python decodes it.
$PY - "$T/inv.cal" <<'PYEOF'
import sys, random
sys.path.insert(0, "examples")
import calstream
rnd = random.Random(7)
pieces = [b"a", b"\xc3\xa9", b"\xe4\xb8\xad", b"\xf0\x9f\x98\x80", b"\x80", b"\xbf", b"\xc3", b"\xe4\xb8", b"\xf0\x9f",
          b"\xed\xa0\x80", b"\xc0\xaf", b"\xf4\x90\x80\x80", b"\xff", b"\n", b"\"", b"\\", b"\x00", b"\x7f"]
docs = [("bad", b"".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 90)))) for _ in range(400)]
calstream.write_text(sys.argv[1], docs, [("k", "v")])
PYEOF
cal-cat --json "$T/inv.cal" >"$T/inv.json"
cal-cat "$T/inv.cal" >"$T/inv.txt"
check "--json text and the record lines' previews = Python's decode(errors=\"replace\")" $PY - "$T/inv.cal" "$T/inv.json" "$T/inv.txt" <<'PYEOF'
import json, sys
sys.path.insert(0, "examples")
import calstream
want = [p.decode("utf-8", "replace") for _, _, _, p, _ in calstream.read_records(sys.argv[1])[1]]
got = [json.loads(l)["text"] for l in list(open(sys.argv[2], encoding="utf-8"))[1:]]
assert got == want, [(g, w) for g, w in zip(got, want) if g != w][:2]
lines = [l for l in open(sys.argv[3], encoding="utf-8").read().split("\n") if l.startswith("TEXT ")]
for l, w in zip(lines, want, strict=True):
    prev = l.split(" ", 4)[4]
    cut = prev.endswith(" ...")
    assert json.loads(prev[:-4] if cut else prev) == w[:60] and cut == (len(w) > 60), (l, w)
PYEOF

# ---- concatenation -------------------------------------------------------
cat "$T/s1.cal" "$T/s1.cal" >"$T/two.cal"
(cd "$T" && cal-cat --check two.cal s1.cal >got)
eq "--check of concatenated streams and several files" "$(cat "$T/got")" "two.cal: ok: 2 headers, 12 records (TEXT 4, TOKENS 2, ROW 4, VECTORS 2), 1068 bytes
s1.cal: ok: 1 header, 6 records (TEXT 2, TOKENS 1, ROW 2, VECTORS 1), 534 bytes
total: ok: 3 headers, 18 records (TEXT 6, TOKENS 3, ROW 6, VECTORS 3), 1602 bytes"
n=$(cal-cat "$T/two.cal" - <"$T/s1.cal" | grep -c '^ROW ')
eq "files and stdin (-) concatenate" "$n" 6
sed 's/00000000000000aa/00000000000000bb/' "$T/s1.jsonl" | $W >"$T/fp2.cal"
expect_fail "a second file with another tokenizer_fp names both values" 1 \
  "^cal-cat: .*fp2.cal: byte [0-9]+: tokenizer_fp mismatch.*00000000000000aa vs 00000000000000bb$" \
  cal-cat --check "$T/s1.cal" "$T/fp2.cal"

# ---- conversions -----------------------------------------------------------
cat >"$T/rows.jsonl" <<'EOF'
{"header": [["tokenizer","tok.json"],["tokenizer_fp","00000000000000aa"],["bos","1"],["stage","cal-pack -l 4 --seed 0"],["note","a\nb"]]}
{"kind":"ROW","label":"wiki","id":10,"ids":[1,2,3,4]}
{"kind":"ROW","label":"wiki","id":11,"ids":[1,20,30,4000000000],"mask":[1,1,1,1]}
{"kind":"ROW","label":"code","id":12,"ids":[9,8,0,0],"mask":[1,1,0,0]}
{"kind":"ROW","label":"noise","id":13,"ids":[0,0,0,0],"noise":true}
{"kind":"ROW","label":"wiki","id":14,"ids":[5,5,5,5]}
EOF
$W <"$T/rows.jsonl" >"$T/rows.cal"
cal-cat -o "$T/rows.safetensors" "$T/rows.cal"
$STR "$T/rows.safetensors" >"$T/st.txt" 2>&1
cat >"$T/want" <<'EOF'
{"metadata": {"calkit.ids": "000000000000000a000000000000000b000000000000000c000000000000000d000000000000000e", "calkit.rows": "[[\"wiki\",0,1],[\"wiki\",2,1],[\"code\",2,1],[\"noise\",1,1],[\"wiki\",0,1]]", "calkit.stream": "tokenizer=tok.json\ntokenizer_fp=00000000000000aa\nbos=1\nstage=cal-pack -l 4 --seed 0\nnote=a\\nb\n", "format": "pt"}}
{"name": "input_ids", "dtype": "I64", "shape": [5, 4], "values": [[1, 2, 3, 4], [1, 20, 30, 4000000000], [9, 8, 0, 0], [-1, -1, -1, -1], [5, 5, 5, 5]]}
{"name": "attention_mask", "dtype": "I64", "shape": [5, 4], "values": [[1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 0, 0], [1, 1, 1, 1], [1, 1, 1, 1]]}
EOF
eq ".safetensors read by an independent reader: ids, -1 noise, mask, metadata" "$(tail -n +2 "$T/st.txt")" "$(cat "$T/want")"
eq ".safetensors header padded with spaces so data is 8-byte aligned" "$(head -1 "$T/st.txt" | sed 's/"header_len": [0-9]*, //')" '{"aligned": true, "pad_ok": true}'
cal-cat --import "$T/rows.safetensors" >"$T/back.cal"
same "stream -> .safetensors -> stream is byte-identical" "$T/back.cal" "$T/rows.cal"

cal-cat -o "$T/rows.npy" <"$T/rows.cal"
check ".npy loads with numpy as int64 [5, 4] with -1 noise row" $PY -c '
import numpy as np, sys
a = np.load(sys.argv[1])
assert a.dtype == np.dtype("<i8") and a.shape == (5, 4), (a.dtype, a.shape)
assert a.tolist() == [[1,2,3,4],[1,20,30,4000000000],[9,8,0,0],[-1,-1,-1,-1],[5,5,5,5]], a.tolist()' "$T/rows.npy"
check ".npy bytes equal np.save of the same array" $PY -c '
import numpy as np, sys, io
b = io.BytesIO(); np.save(b, np.load(sys.argv[1])); assert b.getvalue() == open(sys.argv[1], "rb").read()' "$T/rows.npy"

cal-cat -o "$T/rows.jsonl.out.jsonl" "$T/rows.cal"
cat >"$T/want" <<'EOF'
{"input_ids":[1,2,3,4],"attention_mask":[1,1,1,1]}
{"input_ids":[1,20,30,4000000000],"attention_mask":[1,1,1,1]}
{"input_ids":[9,8,0,0],"attention_mask":[1,1,0,0]}
{"input_ids":[-1,-1,-1,-1],"attention_mask":[1,1,1,1]}
{"input_ids":[5,5,5,5],"attention_mask":[1,1,1,1]}
EOF
same ".jsonl with attention_mask when a row has padding" "$T/rows.jsonl.out.jsonl" "$T/want"
check ".npy with padded rows writes the mask to NAME.mask.npy" $PY -c '
import numpy as np, sys
m = np.load(sys.argv[1])
assert m.dtype == np.dtype("<i8") and m.tolist() == [[1,1,1,1],[1,1,1,1],[1,1,0,0],[1,1,1,1],[1,1,1,1]], m.tolist()' "$T/rows.mask.npy"
cal-cat --import "$T/rows.npy" | cal-cat | grep -c 'mask(2 padded) 9 8 0 0' >"$T/n"
eq "--import NAME.npy reads the mask back from NAME.mask.npy" "$(cat "$T/n")" 1
cal-cat -o "$T/rows.npz" "$T/rows.cal"
check ".npz: np.load gives input_ids and attention_mask; the ZIP's CRCs hold" $PY -c '
import numpy as np, sys, zipfile
z = np.load(sys.argv[1])
assert sorted(z.files) == ["attention_mask", "input_ids"], z.files
assert z["input_ids"].dtype == np.dtype("<i8") and z["attention_mask"].dtype == np.dtype("<i8")
assert z["input_ids"].tolist() == [[1,2,3,4],[1,20,30,4000000000],[9,8,0,0],[-1,-1,-1,-1],[5,5,5,5]]
assert z["attention_mask"].tolist() == [[1,1,1,1],[1,1,1,1],[1,1,0,0],[1,1,1,1],[1,1,1,1]]
zf = zipfile.ZipFile(sys.argv[1])
assert zf.testzip() is None and all(i.compress_type == zipfile.ZIP_STORED for i in zf.infolist())' "$T/rows.npz"

# Without padding: the mask is all ones in .jsonl (AutoGPTQ reads it always).
grep -v '"code"' "$T/rows.jsonl" | $W >"$T/nopad.cal"
cal-cat -o "$T/nopad.jsonl" "$T/nopad.cal"
eq ".jsonl without padding has attention_mask of all ones" "$(cat "$T/nopad.jsonl")" '{"input_ids":[1,2,3,4],"attention_mask":[1,1,1,1]}
{"input_ids":[1,20,30,4000000000],"attention_mask":[1,1,1,1]}
{"input_ids":[-1,-1,-1,-1],"attention_mask":[1,1,1,1]}
{"input_ids":[5,5,5,5],"attention_mask":[1,1,1,1]}'
cp "$T/rows.mask.npy" "$T/nopad.mask.npy"
cal-cat -o "$T/nopad.npy" "$T/nopad.cal"
check ".npy without padding writes no mask and removes a stale NAME.mask.npy" sh -c "[ -e '$T/nopad.npy' ] && ! [ -e '$T/nopad.mask.npy' ]"
cal-cat -o "$T/nopad.safetensors" "$T/nopad.cal"
eq ".safetensors without padding has only input_ids" \
  "$($STR "$T/nopad.safetensors" | tail -n +3 | $PY -c 'import json,sys; print([json.loads(l)["name"] for l in sys.stdin])')" "['input_ids']"
cal-cat --import "$T/nopad.safetensors" | cmp -s - "$T/nopad.cal"
eq "round trip without padding is byte-identical" $? 0

# ---- import of files written by other tools -----------------------------
# An EXL2-style cal_data.safetensors as safetensors.torch.save_file writes it.
$PY - "$T/cal_data.safetensors" <<'EOF'
import json, struct, sys
import numpy as np
ids = np.array([[1, 2, 3, 4, 5, 6], [7, 8, 9, 10, 11, 12], [-1] * 6], dtype="<i8")
h = json.dumps({"__metadata__": {"format": "pt"}, "input_ids": {"dtype": "I64", "shape": [3, 6], "data_offsets": [0, ids.nbytes]}}, separators=(",", ":")).encode()
h += b" " * (-len(h) % 8)
open(sys.argv[1], "wb").write(struct.pack("<Q", len(h)) + h + ids.tobytes())
EOF
cal-cat --import "$T/cal_data.safetensors" | cal-cat --json >"$T/got"
ids=$($PY -c '
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
print(r[0]["meta"], [(x["label"], x["ids"], x["noise"], x["id"]) for x in r[1:]])' "$T/got")
want_ids=$($PY -c '
import ctypes, numpy as np
x = ctypes.CDLL("libxxhash.so.0"); x.XXH3_64bits.restype = ctypes.c_uint64; x.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
rows = [([1, 2, 3, 4, 5, 6], False), ([7, 8, 9, 10, 11, 12], False), ([0] * 6, True)]
out = []
for ids, noise in rows:
    b = np.array(ids, dtype="<u4").tobytes()
    out.append(("cal_data", ids, noise, "%016x" % x.XXH3_64bits(b, len(b))))
print(out)')
eq "--import of an EXL2 cal_data.safetensors: rows, noise row, XXH3 ids, stage" "$ids" \
  "[['stage', 'cal-cat --import $T/cal_data.safetensors']] $want_ids"

cal-cat --import "$T/cal_data.safetensors" -v --progress >"$T/imp-v.cal" 2>/dev/null
cal-cat -o "$T/imp-o.cal" --import "$T/cal_data.safetensors"
cal-cat --import "$T/cal_data.safetensors" >"$T/imp.cal"
same "--import: -v --progress do not enter the stream" "$T/imp-v.cal" "$T/imp.cal"
same "--import: -o OUT.cal writes the bytes of standard output" "$T/imp-o.cal" "$T/imp.cal"
$PY -c 'import numpy as np, sys; np.save(sys.argv[1], np.array([[3, 1, 4], [1, 5, 9]], dtype="<i4"))' "$T/i32.npy"
eq "--import of an int32 .npy" "$(cal-cat --import "$T/i32.npy" | cal-cat | tail -2 | cut -d' ' -f1,2,4-)" "ROW i32 len=3 3 1 4
ROW i32 len=3 1 5 9"
printf '{"input_ids":[1,2]}\n\n{"input_ids":[3,4,5],"attention_mask":[1,1,0]}\n' >"$T/u.jsonl"
eq "--import of .jsonl rows of unequal length with a mask" \
  "$(cal-cat --import "$T/u.jsonl" | cal-cat | tail -2 | cut -d' ' -f1,2,4-)" "ROW u len=2 1 2
ROW u len=3 mask(1 padded) 3 4 5"
cal-cat --import "$T/u.jsonl" -o "$T/u.cal"
eq "--import -o OUT.cal writes the stream to a file" "$(cal-cat --check "$T/u.cal" | sed 's/.*: ok: //')" \
  "1 header, 2 records (TEXT 0, TOKENS 0, ROW 2, VECTORS 0), $(wc -c <"$T/u.cal" | tr -d ' ') bytes"

# ---- errors --------------------------------------------------------------
$W <"$T/rows.jsonl" >"$T/r2.cal"
{ cat "$T/rows.jsonl"; printf '%s\n' '{"kind":"ROW","label":"wiki","id":15,"ids":[1,2,3]}'; } | $W >"$T/r2.cal"
off=$(( $(wc -c <"$T/rows.cal" | tr -d " ") - 32 ))  # where the END record was
# rows of unequal length (cal-pack --pad none) are padded to the longest, with
# attention_mask and lengths, and come back byte for byte
cal-cat -o "$T/ok.safetensors" "$T/r2.cal" && cal-cat --import "$T/ok.safetensors" >"$T/r2back.cal"
same "rows of unequal length: .safetensors with lengths comes back byte for byte" "$T/r2back.cal" "$T/r2.cal"
check "rows of unequal length go to .npy (+ .mask.npy) and .npz" sh -c "cal-cat -o '$T/ok.npy' '$T/r2.cal' && cal-cat -o '$T/ok.npz' '$T/r2.cal' && test -f '$T/ok.mask.npy'"
check ".jsonl accepts rows of unequal length" cal-cat -o "$T/ok.jsonl" "$T/r2.cal"
expect_fail "non-ROW records cannot be converted" 1 "s1.cal: byte 105: expected ROW records to convert, got TEXT" \
  cal-cat -o "$T/bad.npy" "$T/s1.cal"
printf '{"input_ids":[1,2]}\n{"input_ids":[1,-2]}\n' >"$T/neg.jsonl"
expect_fail "--import .jsonl rejects a negative id with its line" 1 \
  "^cal-cat: .*neg.jsonl: line 2: input_ids\[1\] = -2 is not a token id" cal-cat --import "$T/neg.jsonl" -o "$T/neg.cal"
$PY -c 'import numpy as np, sys; np.save(sys.argv[1], np.array([[1, 2], [3, 5000000000]], dtype="<i8"))' "$T/big.npy"
expect_fail "--import .npy rejects an id over 32 bits with its byte offset" 1 \
  "big.npy: byte 152: array\[1\]\[1\] = 5000000000 is not a token id" cal-cat --import "$T/big.npy" -o "$T/big.cal"
$PY -c 'import numpy as np, sys; np.save(sys.argv[1], np.zeros((2, 2), dtype="<f4"))' "$T/f.npy"
expect_fail "--import .npy rejects float arrays" 1 "f.npy: byte [0-9]+: dtype '<f4' is not int64 or int32" \
  cal-cat --import "$T/f.npy" -o "$T/f.cal"
$PY - "$T/noids.safetensors" <<'EOF'
import json, struct, sys
h = json.dumps({"input_idz": {"dtype": "I64", "shape": [1, 1], "data_offsets": [0, 8]}}).encode()
h += b" " * (-len(h) % 8)
open(sys.argv[1], "wb").write(struct.pack("<Q", len(h)) + h + bytes(8))
EOF
expect_fail "--import without input_ids suggests the close name" 1 \
  "noids.safetensors: byte 8: no tensor 'input_ids'; close names: 'input_idz'$" \
  cal-cat --import "$T/noids.safetensors" -o "$T/x.cal"
head -c 40 "$T/rows.safetensors" >"$T/short.safetensors"
expect_fail "--import of a truncated .safetensors" 1 "short.safetensors: byte 0: header length [0-9]+ runs past the end" \
  cal-cat --import "$T/short.safetensors" -o "$T/x.cal"
$PY - "$T/rows.safetensors" "$T/edited.safetensors" <<'EOF'
import json, struct, sys
b = open(sys.argv[1], "rb").read()
(n,) = struct.unpack("<Q", b[:8])
h = json.loads(b[8:8 + n])
h["__metadata__"]["calkit.ids"] = h["__metadata__"]["calkit.ids"][16:]
j = json.dumps(h, separators=(",", ":")).encode()
j += b" " * (-len(j) % 8)
open(sys.argv[2], "wb").write(struct.pack("<Q", len(j)) + j + b[8 + n:])
EOF
expect_fail "--import with calkit metadata that does not match the rows" 1 \
  "edited.safetensors: byte 8: calkit.ids metadata is not 16 hex digits for each of 5 rows" \
  cal-cat --import "$T/edited.safetensors" -o "$T/x.cal"
expect_fail "unknown option: the parser's one wording" 2 "^cal-cat: unknown option '--bogus' \\(see --help\\)$" cal-cat --bogus
expect_fail "-o with an unknown extension is a usage error" 2 "must end in .safetensors, .npy, .npz, .jsonl, .parquet or .cal" \
  cal-cat -o "$T/x.txt" "$T/s1.cal"
expect_fail "modes exclude each other" 2 "exclude each other" cal-cat --json --check "$T/s1.cal"
expect_fail "a missing file" 1 "^cal-cat: $T/nope.cal: No such file" cal-cat "$T/nope.cal"

# ---- conventions -----------------------------------------------------------
eq "--version" "$(cal-cat --version)" "cal-cat (calkit) $(sed -n 's/^#define CAL_VERSION "\(.*\)"/\1/p' lib/base/err.h)"
opts_help=$(cal-cat --help | grep -E '^ +-' | grep -oE -- '(^| )--?[a-z][a-z-]*' | tr -d ' ' | sort -u | tr '\n' ' ')
opts_man=$(sed -n '/^\.SH OPTIONS/,/^\.SH [A-Z]/p' man/cal-cat.1 | awk '/^\.TP/ { getline; print }' |
  sed 's/\\f[BIRP]/ /g; s/\\-/-/g' |
  grep -oE -- '(^| )--?[a-z][a-z-]*' | tr -d ' ' | sort -u | tr '\n' ' ')
eq "options in --help match man/cal-cat.1" "$opts_help" "$opts_man"
for i in 1 2 3 4 5 6 7 8; do cat "$T/s1.cal"; done >"$T/s8.cal"
for i in 1 2 3 4 5 6 7 8; do cat "$T/s8.cal"; done >"$T/s64.cal"
for i in 1 2 3 4 5 6 7 8; do cat "$T/s64.cal"; done >"$T/s512.cal"
for i in 1 2 3 4 5 6 7 8; do cat "$T/s512.cal"; done >"$T/big.cal"
(cal-cat --pass <"$T/big.cal"; echo "status $?" >"$T/rc") | head -c 10 >/dev/null
eq "--pass into a closed pipe (| head) exits 0 quietly" "$(cat "$T/rc")" "status 0"
(cal-cat "$T/big.cal" 2>"$T/err"; echo "status $?" >"$T/rc") | head -1 >/dev/null
eq "summary into a closed pipe exits 0 quietly" "$(cat "$T/rc") $(cat "$T/err")" "status 0 "
eq "-v prints one summary line" "$(cal-cat -v --check "$T/s1.cal" 2>&1 >/dev/null | sed 's/ in .*//')" "cal-cat: 6 records, 1 headers, 534 bytes"
