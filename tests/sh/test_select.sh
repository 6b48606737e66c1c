#!/bin/sh
# cal-select against independent references (tests/py/select_check.py:
# TF-IDF by scikit-learn's TfidfTransformer and the projection drawn again
# in Python, k-means++ in numpy, Lloyd by scikit-learn's KMeans from the same
# centroids, k-center and greedy MMD in numpy, the allocation, the whole
# choice), determinism over -j and input order, and its errors.
. tests/lib.sh
[ -f build/tokenizers/llama3/tokenizer.json ] || { skip "cal-select" "llama3 missing (make tokenizers)"; exit 0; }
# Inputs: documents of four corpora, as TOKENS (llama3) and as TEXT; a
# target sample from other documents of two of them.
for c in wiki:160 web:160 code:80 multilingual:40; do
  cal-read "${c%:*}" -n "${c#*:}" >>"$T/mix.txt" || not_ok "cal-read ${c%:*}"
done
cal-encode -t llama3 "$T/mix.txt" -o "$T/mix.tok"
cal-read web -n 220 --shard 1/3 | cal-encode -t llama3 -o "$T/tgt.tok"
# scikit-learn and scipy serve select_check.py alone: without them the rest runs
if $PY -c 'import sklearn, scipy' 2>/dev/null; then
  $PY tests/py/select_check.py "$T" "$CAL_UNIT/select_lib"
else
  skip "cal-select references" "python3-sklearn missing (make deps)"
fi

# -- the same bytes for any -j; the same choice whatever the input order;
#    a pipe (spilled) gives what a file gives --------------------------------
for m in "--method kmeans" "--method kcenter" "--method random" "--like $T/tgt.tok"; do
  for j in 1 2 3; do cal-select -n 24 $m -j $j "$T/mix.tok" -o "$T/j$j.cal"; done
  same "$m: -j 1 and -j 2 write the same bytes" "$T/j1.cal" "$T/j2.cal"
  same "$m: -j 1 and -j 3 write the same bytes" "$T/j1.cal" "$T/j3.cal"
done
recids() { cal-cat "$1" | grep -v '^#' | awk '{ print $3 }' | sort; }
cal-read multilingual -n 40 | cal-encode -t llama3 -o "$T/a.tok"
cal-read code -n 80 | cal-encode -t llama3 -o "$T/b.tok"
cal-select -n 20 "$T/a.tok" "$T/b.tok" -o "$T/ab.cal"
cat "$T/b.tok" "$T/a.tok" | cal-select -n 20 -o "$T/ba.cal"
eq "inputs in another order (and through a pipe): the same documents" "$(recids "$T/ba.cal")" "$(recids "$T/ab.cal")"
cat "$T/mix.tok" | cal-select -n 24 -o "$T/p.cal"
cal-select -n 24 "$T/mix.tok" -o "$T/f.cal"
cal-cat "$T/p.cal" | grep -v '^#' >"$T/p.txt"; cal-cat "$T/f.cal" | grep -v '^#' >"$T/f.txt"
same "a pipe, spilled to \$TMPDIR, chooses what the file does" "$T/p.txt" "$T/f.txt"
eq "the stage line resolves every default" "$(cal-cat "$T/f.cal" | grep '^#   stage=cal-select')" \
  "#   stage=cal-select -n 24 $T/mix.tok --method kmeans -k 16 --alloc size --max-iter 300 --features tfidf --dim 256 --seed 0"
# -- under ulimit -v: fewer threads, or one line; never OpenBLAS waiting for ever
#    for a work buffer it cannot map (it did with -j 16 under 1000000 KB) -----
if [ "${CAL_SANITIZE:-}" = 1 ]; then
  skip "cal-select under ulimit -v" "ASan reserves terabytes of virtual memory, so ulimit -v cannot apply"
else
  timeout 120 sh -c "ulimit -v 1000000; exec cal-select -n 24 -j 16 '$T/mix.tok' -o '$T/lim.cal'" 2>"$T/e"
  eq "ulimit -v 1000000, -j 16: ends (status 0)" "$?" 0
  case "$(cat "$T/e")" in "cal-select: "[1-9]*" instead of 16: ulimit -v leaves room for "[1-9]*" of OpenBLAS's work buffers")
    ok "ulimit -v: fewer threads, said on stderr" ;; *) not_ok "ulimit -v: fewer threads, said on stderr" "$(cat "$T/e")" ;; esac
  same "ulimit -v: the bytes of the unlimited run" "$T/lim.cal" "$T/f.cal"
  expect_fail "ulimit -v with no room for a thread: one line" 1 \
    "^cal-select: out of memory: choosing among 440 documents needs [0-9]+ MiB of address space \(the 256-wide features, a thread and OpenBLAS's work buffer\), [0-9]+ MiB are left under ulimit -v$" \
    timeout 120 sh -c "ulimit -v 200000; exec cal-select -n 24 -j 16 '$T/mix.tok' -o '$T/x.cal'"
fi
cal-select -n 24 --seed 1 "$T/mix.tok" -o "$T/s1.cal"
if cmp -s "$T/s1.cal" "$T/f.cal"; then not_ok "another seed, another choice"; else ok "another seed, another choice"; fi
cal-select -n 5 --method random "$T/f.cal" -o "$T/again.cal"
eq "selecting from a selection replaces the select keys" \
  "$(cal-cat "$T/again.cal" | grep -c '^#   select\.cluster')$(cal-cat "$T/again.cal" | grep '^#   select.method')" "0#   select.method=random"
cal-select -n 3 -v "$T/mix.tok" -o /dev/null 2>"$T/v"
case "$(cat "$T/v")" in "cal-select: kmeans: 440 documents (tfidf, dim 256), 3 chosen; 3 clusters in "*"iterations; per cluster (size/chosen): "*) ok "-v: one line with the clusters" ;;
  *) not_ok "-v: one line with the clusters" "$(cat "$T/v")" ;; esac
{ cal-select -n 100 "$T/mix.tok" 2>"$T/e"; echo $? >"$T/rc"; } | head -c 100 >/dev/null
eq "| head: quiet, status 0" "$(cat "$T/rc"):$(cat "$T/e")" "0:"

# -- TEXT keeps its flags; empty documents are skipped and said ------------------
$PY - "$T/t.cal" <<'PYEOF'
import struct, sys; sys.path.insert(0, "examples"); import calstream as cs
chat = bytearray(cs.record(cs.TEXT, "c", 1, b"<|im_start|>user hello")[:-8])
chat[1] = 1  # the CHAT flag
recs = [bytes(chat) + struct.pack("<Q", cs.xxh3(bytes(chat)))] + [cs.record(cs.TEXT, l, i, t) for l, i, t in
        (("e", 2, b""), ("p", 3, b"... !!"), ("w", 4, b"Hello world"))]
cs.write(sys.argv[1], [("stage", "x")], recs)
PYEOF
cal-select -n 2 --method random "$T/t.cal" -o "$T/t2.cal" 2>"$T/e"
eq "documents without terms: skipped and counted on stderr" "$(cat "$T/e")" \
  "cal-select: 2 documents skipped as empty (no terms to make features of)"
out=$($PY - "$T/t.cal" "$T/t2.cal" <<'PYEOF'
import sys; sys.path.insert(0, "examples"); import calstream as cs
a = [r["raw"] for r in cs.read(sys.argv[1])[1]]; b = [r["raw"] for r in cs.read(sys.argv[2])[1]]
print("yes" if b == [a[0], a[3]] and b[0][1] == 1 else "no")
PYEOF
)
eq "TEXT records out unchanged, in input order (CHAT flag kept)" "$out" yes
expect_fail "too few documents: one line" 1 "^cal-select: only 2 documents \(with features\) for -n 3 \(--allow-short takes them all\)$" \
  cal-select -n 3 "$T/t.cal" -o "$T/x.cal"
cal-select -n 3 --allow-short --method random "$T/t.cal" -o "$T/t3.cal" 2>"$T/e"
eq "--allow-short: all of them, and what is missing said" "$(cat "$T/e")" \
  "cal-select: 2 documents skipped as empty (no terms to make features of)
cal-select: 1 documents short of -n 3 (the input has 2 with features)"

# -- past 40000 ids: a cluster's list that would pass them is left out, a later
#    one that fits is listed, and the ids left out are said (stderr, drop line)
$PY - "$T/big.cal" <<'PYEOF'
import sys; sys.path.insert(0, "examples"); import calstream as cs
cs.write(sys.argv[1], [], [cs.tokens("d", i, [6] if i % 8001 == 0 else [5]) for i in range(40007)])
PYEOF
cal-select -n 40007 -k 2 --dim 8 "$T/big.cal" -o "$T/bigsel.cal" 2>"$T/e"
eq "40001 ids of a cluster: said on stderr" "$(cat "$T/e")" \
  "cal-select: 40001 ids left out of the select.cluster metadata (lists that would pass 40000 ids)"
cal-cat "$T/bigsel.cal" | grep '^#   ' >"$T/bigmeta"
eq "the big cluster: size and count, no ids; the small one after it: listed" \
  "$(grep '^#   select.cluster.0=' "$T/bigmeta")|$(grep '^#   select.cluster.1=' "$T/bigmeta")" \
  "#   select.cluster.0=40001 40001|#   select.cluster.1=6 6 0000000000000000 0000000000001f41 0000000000003e82 0000000000005dc3 0000000000007d04 0000000000009c45"
eq "the ids left out: a drop line in the stream" "$(grep -c '^#   drop=[0-9a-f]* cal-select 40001 ids 0 - left out of the select.cluster metadata' "$T/bigmeta")" 1

# -- errors -----------------------------------------------------------------------
expect_fail "-n is required" 2 "^cal-select: -n N is required \\(see --help\\)$" cal-select "$T/mix.tok"
expect_fail "an unknown method" 2 "^cal-select: --method must be kmeans, kcenter or random, not 'x' \\(see --help\\)$" cal-select -n 2 --method x "$T/mix.tok"
expect_fail "-k above -n" 2 "^cal-select: -k 9 exceeds -n 8" cal-select -n 8 -k 9 "$T/mix.tok"
expect_fail "-k with kcenter" 2 "^cal-select: -k, --alloc and --max-iter apply to --method kmeans only \\(see --help\\)$" cal-select -n 8 -k 2 --method kcenter "$T/mix.tok"
expect_fail "--like with --method" 2 "^cal-select: --like is a method of its own: leave out --method \\(see --help\\)$" cal-select -n 8 --method random --like "$T/tgt.tok" "$T/mix.tok"
expect_fail "--features embed without --embed" 2 "^cal-select: --features embed needs --embed MODEL \\(see --help\\)$" cal-select -n 8 --features embed "$T/mix.tok"
cal-pack -l 16 "$T/a.tok" -o "$T/rows.cal"
expect_fail "ROW records: one line" 1 "^cal-select: .*rows.cal: byte [0-9]+: expected TEXT or TOKENS records \(documents\), got ROW$" cal-select -n 2 "$T/rows.cal"
expect_fail "TEXT mixed with TOKENS" 1 "stdin: byte [0-9]+: mixed TEXT and TOKENS records: choose from one kind" sh -c "cat '$T/a.tok' '$T/t.cal' | cal-select -n 2"
$PY - "$T/empty.cal" <<'PYEOF'
import sys; sys.path.insert(0, "examples"); import calstream as cs
cs.write(sys.argv[1], [("stage", "x")], [])
PYEOF
expect_fail "no documents: one line" 1 "^cal-select: no documents to choose from \(the input holds no records\)$" cal-select -n 2 "$T/empty.cal"
expect_fail "more clusters than documents" 1 "^cal-select: -k 3 exceeds the 2 documents \(with features\)$" cal-select -n 3 --allow-short -k 3 "$T/t.cal" -o /dev/null
cal-select -n 2 --allow-short -k 2 "$T/t.cal" -o /dev/null 2>/dev/null && ok "-k 2 of 2 documents" || not_ok "-k 2 of 2 documents"
$PY - "$T/dup.cal" <<'PYEOF'
import sys; sys.path.insert(0, "examples"); import calstream as cs
cs.write(sys.argv[1], [], [cs.tokens("d", i, [5, 6]) for i in range(6)])
PYEOF
expect_fail "fewer distinct vectors than clusters" 1 "^cal-select: the documents hold only 1 distinct feature vectors, fewer than the 2 clusters$" cal-select -n 4 -k 2 "$T/dup.cal"

# -- --embed: the table's rows, and ids it does not hold --------------------------
$PY examples/make-tiny-model.py --vocab 1000 --dim 24 --dtype f32 --seed 3 -o "$T/m.safetensors"
$PY - "$T/e.tok" <<'PYEOF'
import random, sys; sys.path.insert(0, "examples"); import calstream as cs
r = random.Random(2)
cs.write(sys.argv[1], [], [cs.tokens("t", 1000 + i, [r.randrange(1000) for _ in range(r.randrange(0, 30))]) for i in range(120)])
PYEOF
for dim in "" "--dim 10"; do
  cal-select -n 5 --method random --embed "$T/m.safetensors" $dim --save-features "$T/ef.npy" "$T/e.tok" -o /dev/null 2>/dev/null
  out=$($PY - "$T" $dim <<'PYEOF'
import json, struct, sys; sys.path.insert(0, "tests/py"); sys.path.insert(0, "examples")
import numpy as np, calstream as cs, selectref as ref
t = sys.argv[1]
raw = open(t + "/m.safetensors", "rb").read()
n = struct.unpack("<Q", raw[:8])[0]; hdr = json.loads(raw[8:8 + n])["model.embed_tokens.weight"]
a, b = hdr["data_offsets"]
E = np.frombuffer(raw[8 + n + a:8 + n + b], dtype="<f4").reshape(hdr["shape"])
_, recs = cs.read(t + "/e.tok")
dim = int(sys.argv[3]) if len(sys.argv) > 3 else E.shape[1]
want, kept = ref.embed_features(E, [r["raw"][17:-8] for r in recs], dim, 0)
got = np.load(t + "/ef.npy")
print("yes" if got.shape == want.shape and np.abs(got - want).max() < 2e-6 else "no %s %s" % (got.shape, want.shape))
PYEOF
)
  eq "--embed ${dim:-(the table's width)}: mean-pooled rows, normalised (and projected) as the reference" "$out" yes
done
expect_fail "--embed: a token id outside the table" 1 "e2.tok: byte [0-9]+: token id 1000 is outside the embedding table 'model.embed_tokens.weight' \(1000 rows\)$" \
  sh -c "$PY -c 'import sys; sys.path.insert(0, \"examples\"); import calstream as cs; cs.write(sys.argv[1], [], [cs.tokens(\"t\", 1, [3, 1000])])' '$T/e2.tok' && cal-select -n 1 --embed '$T/m.safetensors' '$T/e2.tok'"
expect_fail "--embed needs TOKENS" 1 "t.cal: byte [0-9]+: --embed needs TOKENS records" cal-select -n 1 --embed "$T/m.safetensors" "$T/t.cal"

# -- the manual page and --help name the same options ------------------------------
cal-select --help | grep -oE -- '--[a-z][a-z-]*' | sort -u >"$T/h"
sed 's/\\-/-/g' man/cal-select.1 | sed -n '/^\.SH OPTIONS/,/^\.SH METADATA/p' | grep -oE -- '--[a-z][a-z-]*' | sort -u >"$T/m"
same "man OPTIONS = --help options" "$T/h" "$T/m"
eq "the man page renders without warnings" "$(man --warnings -l man/cal-select.1 2>&1 >/dev/null)" ""

# -- the README's gallery lines, as written, on small inputs -------------------------
(cd "$T" && cal-read wiki -n 60 | cal-encode -t llama3 > wiki.tok && cal-read code -n 60 | cal-encode -t llama3 > code.tok &&
  cal-read web -n 60 | cal-encode -t llama3 > web.tok && cp tgt.tok mine.tok && cat wiki.tok code.tok web.tok > pool.tok &&
  cat wiki.tok code.tok web.tok | cal-select -n 32 -k 16 -v 2>v.txt |
    cal-pack -l 2048 --mode doc --pad right > rows.cal &&
  cal-select -n 128 --like mine.tok pool.tok > like-mine.tok) 2>"$T/e"
eq "README: 32 representatives, one padded row each" "$(cal-cat --check "$T/rows.cal" | sed 's/.*ROW \([0-9]*\).*/\1/')" 32
eq "README: -v names the 16 clusters" "$(grep -c '; 16 clusters in ' "$T/v.txt")" 1
eq "README: 128 documents like mine.tok" "$(cal-cat --check "$T/like-mine.tok" | sed 's/.*TOKENS \([0-9]*\).*/\1/')" 128
