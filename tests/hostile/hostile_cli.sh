#!/bin/sh
# hostile_cli.sh - the programs against hostile input and surroundings, for
# what only a whole program shows: a 105-byte stream whose VECTORS size
# wraps (cal-cat --json read past it; ASan), --import and an error path of
# cal-read under LeakSanitizer, labels and metadata that are not UTF-8 text,
# -o through a FIFO, a private device node, process substitution and
# /dev/stdout, closed descriptors, pzstd input, damaged Parquet footers of
# DuckDB files, and SentencePiece on one long document: ids equal to
# python3-sentencepiece's, memory under `ulimit -v`, a clear limit where
# pieces would change the ids.
. tests/lib.sh
W="$PY examples/calstream.py json"
ulimit -f 4000000 2>/dev/null # 2 GB at most: a broken build must not fill the disk
# Documents for cal-read: 2000 JSON lines of made-up words (about 300 KB).
$PY - "$T/docs.jsonl" <<'EOF'
import json, random, sys
r = random.Random(1)
words = "the of and to in is was for on that with as by at from his her an which new".split()
with open(sys.argv[1], "w") as f:
    for i in range(2000):
        f.write(json.dumps({"text": " ".join(r.choice(words) for _ in range(25)) + " %d." % i}) + "\n")
EOF
D="$T/docs.jsonl"

# -- a VECTORS record of 2^31 x 2^31 f32: n*d*4 wraps to 0 -----------------------
$PY - "$T/wrap.cal" <<'EOF'
import struct, sys
sys.path.insert(0, "examples")
import calstream as cs
head = struct.pack("<IIB3xI", 1 << 31, 1 << 31, 1, 0)
open(sys.argv[1], "wb").write(cs.header({"stage": "x"}.items()) + cs.record(cs.VECTORS, "v", 1, head) + cs.end(1))
EOF
eq "the wrapping stream is 105 bytes" "$(wc -c <"$T/wrap.cal" | tr -d ' ')" 105
for mode in --check --json --pass ""; do
  expect_fail "cal-cat $mode rejects VECTORS 2^31 x 2^31 (no overread)" 1 \
    "wrap.cal: byte 49: VECTORS 2147483648 x 2147483648 f32 exceeds the 1073741824-byte payload limit$" \
    sh -c "cal-cat $mode '$T/wrap.cal' >/dev/null"
done

# -- sanitizers: --import (a leak each time, and a 0-length row) and cal-read ------
$PY -c 'import numpy as np, sys; np.save(sys.argv[1], np.zeros((2, 0), dtype="<i8")); np.save(sys.argv[2], np.arange(6).reshape(2, 3))' \
  "$T/empty.npy" "$T/rows.npy"
check "cal-cat --import of 2 rows of length 0" cal-cat --import "$T/empty.npy" -o "$T/empty.cal"
eq "  both rows are there" "$(cal-cat "$T/empty.cal" | grep -c '^ROW empty .* len=0$')" 2
check "cal-cat --import of a .npy (no leak under LeakSanitizer)" cal-cat --import "$T/rows.npy" -o "$T/rows.cal"
mkdir "$T/dir" && ln -s /nonexistent "$T/dir/gone.txt"
expect_fail "cal-read of a folder with a dangling link: one line naming it (no leak)" 1 "dir/gone.txt: a dangling symbolic link to /nonexistent$" \
  cal-read "$T/dir" -o "$T/gone.cal"

# -- labels and metadata are UTF-8 text: refused with the label named, or made valid
# refused NAME PATTERN CMD...: CMD fails (1 at the first record, or 2 when the
# option is checked as it is parsed) with one line matching PATTERN.
refused() {
  n=$1 pat=$2; shift 2
  "$@" >"$T/.out" 2>"$T/.err"; rc=$?
  if [ "$rc" = 1 ] || [ "$rc" = 2 ] && [ "$(wc -l <"$T/.err")" = 1 ] && grep -Eq -- "$pat" "$T/.err"; then ok "$n"
  else not_ok "$n" "want status 1 or 2 and /$pat/, got $rc:" "$(head -c 600 "$T/.err")"; fi
}
refused "cal-read -L with a newline names the label" "label 'a\\\\nb' has a control character" \
  cal-read -L "$(printf 'a\nb')" "$D" -o "$T/l.cal"
refused "cal-read -L Latin-1 names the label" "label 'caf\\\\xe9' is not UTF-8" \
  cal-read -L "$(printf 'caf\351')" "$D" -o "$T/l.cal"
$W <tests/data/sample.jsonl >"$T/s.cal"
refused "cal-blend label= with a tab names the label" "label 'x\\\\ty' has a control character" \
  cal-blend "$T/s.cal:rows=1:label=$(printf 'x\ty')" -o "$T/b.cal"
nl=$(printf 'news\nfeed.txt')
printf 'one document\n' >"$T/$nl"
cal-read -f text "$T/$nl" -o "$T/nl.cal" 2>"$T/err"
eq "a file name with a newline gives a readable stream labelled news_feed" \
  "$(cal-cat --json "$T/nl.cal" 2>&1 | sed -n 2p | $PY -c 'import json,sys; print(json.load(sys.stdin)["label"])')" news_feed
lat=$(printf 'caf\351.txt')
printf 'un caf\303\251\n' >"$T/$lat"
(cd "$T" && cal-read -f text "$lat" -o lat.cal)
eq "a Latin-1 file name: label caf_, stage quoted as \$'caf\\xe9.txt' (UTF-8)" \
  "$(cal-cat --json "$T/lat.cal" | $PY -c '
import json, sys
h, r = [json.loads(l) for l in sys.stdin][:2]
print(r["label"], [v for k, v in h["meta"] if k == "stage"][0])')" "caf_ cal-read -f text \$'caf\\xe9.txt'"

# -- cal-hessian: messages name the file and offset; UTF-8 metadata is kept ----
$PY - "$T" <<'EOF'
import json, struct, sys
import numpy as np
sys.path.insert(0, "examples")
import calstream as cs
t = sys.argv[1]
meta = [("stage", "dump-activations.py caf\u00e9 \u65e5\u672c")]
x = np.arange(8, dtype="<f4").reshape(2, 4)
open(t + "/d0.cal", "wb").write(cs.header(meta) + cs.record(cs.VECTORS, "v", 1, struct.pack("<IIB3xI", 3, 0, 1, 0)) + cs.end(1))
open(t + "/v.cal", "wb").write(cs.header(meta) + cs.record(cs.VECTORS, "v", 1, cs.vectors_payload(x)) + cs.end(1))
E = np.ones((4, 3), dtype="<f4"); E[2, 1] = np.nan
h = json.dumps({"model.embed_tokens.weight": {"dtype": "F32", "shape": [4, 3], "data_offsets": [0, 48]}}).encode()
h += b" " * (-len(h) % 8)
open(t + "/emb.safetensors", "wb").write(struct.pack("<Q", len(h)) + h + E.tobytes())
open(t + "/tok.cal", "wb").write(cs.header(meta) + cs.tokens("t", 1, [0, 2]) + cs.end(1))
EOF
expect_fail "VECTORS of d = 0: the record is named (was: vector width 0 is out of range)" 1 \
  "d0.cal: byte 63: VECTORS width d = 0 is out of range" cal-hessian -o "$T/h.safetensors" "$T/d0.cal"
off=$($PY -c 'import struct,sys; b=open(sys.argv[1],"rb").read(); print(8 + struct.unpack("<Q", b[:8])[0] + 2 * 12)' "$T/emb.safetensors")
expect_fail "a NaN in an embedding row names the model file, the row's offset and the tensor" 1 \
  "emb.safetensors: byte $off: embedding row 2 of 'model.embed_tokens.weight' holds NaN or Inf$" \
  cal-hessian --embed "$T/emb.safetensors" -o "$T/h.safetensors" "$T/tok.cal"
cal-hessian -o "$T/h.safetensors" "$T/v.cal"
eq "cal-hessian -o keeps non-ASCII stream metadata" "$($PY -c '
import json, struct, sys
b = open(sys.argv[1], "rb").read()
print(json.loads(b[8:8 + struct.unpack("<Q", b[:8])[0]])["__metadata__"]["stage"].splitlines()[0])' "$T/h.safetensors")" \
  "dump-activations.py café 日本"

# -o and --imatrix are committed together: a failing one leaves neither.
rm -f "$T/h2.safetensors" "$T/i2.gguf"
expect_fail "cal-hessian: --imatrix that cannot be written leaves no -o" 1 "/dev/full" \
  cal-hessian -o "$T/h2.safetensors" --imatrix /dev/full --imatrix-name blk.0.ffn_up.weight "$T/v.cal"
check "... and no -o file" test ! -e "$T/h2.safetensors"
expect_fail "cal-hessian: -o that cannot be written leaves no --imatrix" 1 "/dev/full" \
  cal-hessian -o /dev/full --imatrix "$T/i2.gguf" --imatrix-name blk.0.ffn_up.weight "$T/v.cal"
check "... and no --imatrix file" test ! -e "$T/i2.gguf"

# Hostile percentile sketches in a result: counts whose sum wraps uint64, a
# top bucket far outside the float64 range, a sketch tensor cut short.
cal-hessian --ranges -o "$T/r.safetensors" "$T/v.cal"
$PY - "$T" <<'EOF'
import json, struct, sys
t = sys.argv[1]
b = open(t + "/r.safetensors", "rb").read()
n = struct.unpack("<Q", b[:8])[0]; h = json.loads(b[8:8 + n]); at = 8 + n + h["sketch"]["data_offsets"][0]
def put(name, i, v):
    c = bytearray(b); struct.pack_into("<q", c, at + 8 * i, v); open(t + "/" + name, "wb").write(c)
put("wrap.safetensors", 1539, (1 << 63) - 1)  # channel 1, below: with its 2 values, 2^63 + 1 ...
put("top.safetensors", 0, 1 << 62)
h["sketch"]["shape"] = [4, 5]; h["sketch"]["data_offsets"][1] = h["sketch"]["data_offsets"][0] + 160
hb = json.dumps(h).encode(); hb += b" " * (-len(hb) % 8)
open(t + "/short.safetensors", "wb").write(struct.pack("<Q", len(hb)) + hb + b[8 + n:])
EOF
expect_fail "cal-hessian --merge: sketch counts far above the tokens" 1 \
  "wrap.safetensors: byte [0-9]+: tensor 'sketch' channel 1: sketch counts add up to 9223372036854775809, want 2" \
  cal-hessian --merge -o "$T/m.safetensors" "$T/wrap.safetensors"
expect_fail "cal-hessian --merge: a sketch top bucket outside float64" 1 \
  "top.safetensors: byte [0-9]+: tensor 'sketch' channel 0: sketch top bucket" \
  cal-hessian --merge -o "$T/m.safetensors" "$T/top.safetensors"
expect_fail "cal-hessian --merge: a sketch tensor cut short" 1 \
  "short.safetensors: tensor 'sketch' has 20 values, want 6152" \
  cal-hessian --merge -o "$T/m.safetensors" "$T/short.safetensors"

# -- FIFOs as inputs: the readers that map files say so at once (never
# opening it, which would wait for a writer and could end one with
# SIGPIPE); cal-hessian, which maps regular files, reads a FIFO's stream
mkfifo "$T/in.safetensors" "$T/in.cal"
expect_fail "cal-cat --import FIFO: not a regular file, without waiting for a writer" 1 \
  "in.safetensors: a FIFO, not a regular file" timeout 20 cal-cat --import "$T/in.safetensors"
mkdir "$T/reg" && cp "$T/v.cal" "$T/reg/in.cal" # the same operand name: the stage line holds it
timeout 60 sh -c 'cat "$1" >"$2"' sh "$T/v.cal" "$T/in.cal" &
(cd "$T" && cal-hessian -o fifo.st in.cal) && (cd "$T/reg" && cal-hessian -o ../file.st in.cal) &&
  same "cal-hessian: a FIFO's stream gives the file's tensors" "$T/fifo.st" "$T/file.st" ||
  not_ok "cal-hessian: a FIFO input"
wait

# -- -o: a FIFO with a reader, a private device node, process substitution, stdout
mkfifo "$T/fifo"
timeout 60 cat "$T/fifo" >"$T/from-fifo" & # a writer that replaced the FIFO never opens it
check "-o FIFO" cal-read "$D" -o "$T/fifo"
wait
[ -p "$T/fifo" ] && cal-cat --check "$T/from-fifo" >/dev/null && ok "  the FIFO stays, its reader got the stream" ||
  not_ok "  the FIFO stays, its reader got the stream" "$(ls -l "$T")"
if mknod "$T/null" c 1 3 2>/dev/null; then
  check "-o a character device" cal-read "$D" -o "$T/null"
  [ -c "$T/null" ] && ok "  it is still a character device" || not_ok "  it is still a character device" "$(ls -l "$T/null")"
else
  skip "-o a character device" "mknod refused"
fi
if command -v bash >/dev/null; then
  bash -c 'cal-read "$2" -o >(gzip >"$1/ps.gz"); wait' sh "$T" "$D"
  sleep 1
  check "-o >(gzip > x) writes through the pipe" sh -c "gzip -dc '$T/ps.gz' | cal-cat --check"
else
  skip "-o >(gzip > x)" "no bash"
fi
# A private link like /dev/stdout: a broken writer must not be able to rename
# a file over the system's /dev/stdout (as root it could).
ln -s /proc/self/fd/1 "$T/stdout"
cal-read "$D" -o "$T/stdout" >"$T/so.cal"
cal-read "$D" -o "$T/stdout" >>"$T/so.cal"
check "-o STDOUT-LINK >file, then >>file: two streams, the link stays" \
  sh -c "cal-cat --check '$T/so.cal' | grep -q '4 headers' && [ -L '$T/stdout' ]"
check "closed stdin, stdout and stderr: the output is intact" \
  sh -c "cal-read "$D" -o '$T/closed.cal' <&- >&- 2>&- ; cal-cat --check '$T/closed.cal'"

# -- pzstd output (a skippable frame first) is zstd ------------------------------
if command -v pzstd >/dev/null; then
  cp "$D" "$T/p.jsonl"
  pzstd -q -p 2 "$T/p.jsonl" -o "$T/p.jsonl.zst"
  cal-read "$T/p.jsonl.zst" | cal-cat --json | grep '"kind":' | cut -d, -f2- >"$T/a"
  cal-read "$T/p.jsonl" | cal-cat --json | grep '"kind":' | cut -d, -f2- >"$T/b"
  same "pzstd output reads like the plain file (2000 documents)" "$T/a" "$T/b"
else
  skip "pzstd input" "pzstd not installed"
fi
eq "  ... all 2000 documents" "$(wc -l <"$T/a" | tr -d ' ')" 2000

# -- Parquet: a one-bit change in the footer of a DuckDB file never reads as a
# file with other values (it used to give 0 documents, exit 0) ---------------
if NM=$(sh tests/read/npm.sh 2>/dev/null); then
  mkdir "$T/pq"
  cp tests/read/parquet_fixtures.mjs "$NM/../parquet_fixtures.mjs"
  if node "$NM/../parquet_fixtures.mjs" "$T/pq" 2>"$T/gen.err"; then
    # every byte of the footer under plain builds, every 8th under sanitizers
    step=1; [ "${CAL_SANITIZE:-}" = 1 ] && step=8
    $PY - "$T/pq/duck_dict_V2.parquet" "$T/flip.parquet" "$step" <<'PYEOF' >"$T/flips"
import json, struct, subprocess, sys
src, dst, step = sys.argv[1], sys.argv[2], int(sys.argv[3])
def texts(path):
    p = subprocess.run(["cal-read", "-f", "parquet", path], capture_output=True)
    if p.returncode:
        return "error" if p.returncode == 1 and p.stderr.count(b"\n") == 1 else "bad exit %d" % p.returncode
    q = subprocess.run(["cal-cat", "--json"], input=p.stdout, capture_output=True)
    return [json.loads(l).get("text") for l in q.stdout.splitlines()[1:]]
b = open(src, "rb").read()
want = texts(src)
foot = len(b) - 8 - struct.unpack("<I", b[-8:-4])[0]
same = err = other = 0
for i in range(foot, len(b) - 8, step):
    open(dst, "wb").write(b[:i] + bytes([b[i] ^ 1]) + b[i + 1:])
    got = texts(dst)
    if got == "error": err += 1
    elif got == want: same += 1
    else: other += 1; print("byte %d: %s" % (i, got if isinstance(got, str) else "%d documents" % len(got)))
print("summary", len(want), same, err, other)
PYEOF
    eq "no flipped footer bit reads as other documents ($(tail -1 "$T/flips"))" "$(grep -v '^summary' "$T/flips" | head -3)" ""
  else
    not_ok "Parquet fixtures" "$(tail -3 "$T/gen.err")"
  fi
else
  skip "Parquet footer flips" "npm packages unavailable"
fi

# -- SentencePiece on one long document ---------------------------------------
TK=build/tokenizers
if [ ! -f $TK/llama2-spm.model ] || [ ! -f build/corpora/wiki.jsonl.zst ]; then
  skip "SentencePiece on long documents" "run make tokenizers and make corpora"
  exit 0
fi
# real text: the built-in corpora's documents joined into one
for c in wiki web technical multilingual; do zstd -dc build/corpora/$c.jsonl.zst; done |
  $PY -c 'import json, sys; sys.stdout.write("\n\n".join(json.loads(l)["text"] for l in sys.stdin))' >"$T/corpus.txt"
head -c 400000 "$T/corpus.txt" | $PY -c 'import sys; sys.stdout.write(sys.stdin.buffer.read().decode("utf-8", "ignore"))' >"$T/long.txt"
cal-read -f text "$T/long.txt" | cal-encode -t $TK/llama2-spm.model -j 1 | cal-cat --json | sed -n 2p |
  $PY -c 'import json, sys; print(" ".join(map(str, json.load(sys.stdin)["ids"])))' >"$T/ours"
$PY -c '
import sys, sentencepiece as spm
sp = spm.SentencePieceProcessor(model_file=sys.argv[1])
print(" ".join(map(str, sp.encode(open(sys.argv[2], encoding="utf-8").read()))))' $TK/llama2-spm.model "$T/long.txt" >"$T/ref"
same "a 400 KB document (encoded in 64 KiB pieces) gives python3-sentencepiece's ids ($(wc -w <"$T/ref" | tr -d ' ') ids)" "$T/ours" "$T/ref"
if [ "${CAL_SANITIZE:-}" = 1 ]; then
  skip "SentencePiece under ulimit -v" "sanitizers reserve terabytes of address space"
else
  head -c 3145728 "$T/corpus.txt" | $PY -c 'import sys; sys.stdout.write(sys.stdin.buffer.read().decode("utf-8", "ignore"))' >"$T/big.txt"
  cal-read -f text "$T/big.txt" -o "$T/big.cal"
  check "a 3 MiB document under ulimit -v 250 MB (whole, it needs 300 MB)" \
    sh -c "ulimit -v 250000 && cal-encode -t $TK/llama2-spm.model -j 1 '$T/big.cal' -o '$T/big.tok'"
  eq "  one TOKENS record" "$(cal-cat --check "$T/big.tok" 2>&1 | grep -o 'TOKENS [0-9]*')" "TOKENS 1"
fi
if [ -f $TK/albert-unigram.model ]; then
  head -c 9437184 /dev/zero | tr '\0' 'a' >"$T/nine.txt"
  cal-read -f text "$T/nine.txt" -o "$T/nine.cal"
  # libsentencepiece's 8 MiB limit is gone with calkit's own unigram search,
  # whose limit (64 MiB normalized) test_encode_unigram.sh checks.
  check "a 9 MiB document with a unigram model is encoded whole (calkit's search, not libsentencepiece's 8 MiB)" \
    cal-encode -t $TK/albert-unigram.model "$T/nine.cal" -o "$T/nine.tok"
  eq "  one TOKENS record" "$(cal-cat --check "$T/nine.tok" 2>&1 | grep -o 'TOKENS [0-9]*')" "TOKENS 1"
fi
