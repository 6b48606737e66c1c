#!/bin/sh
# cal-blend: exact and weighted counts (largest remainder), the seeded
# schedule, --grouped, --cycle, short sources, fingerprints, named pipes.
. tests/lib.sh
HERE=$(cd "$(dirname "$0")/../py" && pwd)
export PYTHONPATH="$PWD/examples"   # calstream.py (packref.py is in $HERE)
gen() { # gen OUT LABEL COUNT KIND [FP]
  $PY - "$HERE" "$@" <<'PYEOF'
import sys; sys.path.insert(0, sys.argv[1]); import calstream as cs
out, label, n, kind = sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
fp = sys.argv[6] if len(sys.argv) > 6 else "00000000000000aa"
mk = {"tok": lambda i: cs.tokens(label, i, [i, i + 1, len(label)]),
      "text": lambda i: cs.record(cs.TEXT, label, i, ("%s %d" % (label, i)).encode()),
      "row": lambda i: cs.row(label, i, [i] * 4, [1, 1, 0, 0])}[kind]
cs.write(out, [("tokenizer", "t"), ("tokenizer_fp", fp), ("vocab", "100")], [mk(i) for i in range(n)])
PYEOF
}
gen "$T/a.cal" a 50 tok; gen "$T/b.cal" b 30 text; gen "$T/c.cal" c 40 row; gen "$T/x.cal" x 10 tok 00000000000000bb
# verify OUT SEED GROUPED "path:count ..." : records are each source's first
# COUNT records (cycled), in the documented schedule or in SPEC order
verify() {
  $PY - "$HERE" "$@" <<'PYEOF'
import sys; sys.path.insert(0, sys.argv[1]); import calstream as cs, packref as ref
out, seed, grouped = sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
srcs = [(p.rsplit(":", 1)[0], int(p.rsplit(":", 1)[1])) for p in sys.argv[5].split()]
recs = [cs.read(p)[1] for p, _ in srcs]
counts = [c for _, c in srcs]
order = sum(([i] * c for i, c in enumerate(counts)), []) if grouped else ref.blend_schedule(counts, seed)
taken, want = [0] * len(srcs), []
for i in order:
    want.append(recs[i][taken[i] % len(recs[i])]["raw"]); taken[i] += 1
got = [x["raw"] for x in cs.read(out)[1]]
print("yes" if got == want else "no: %d vs %d records" % (len(got), len(want)))
PYEOF
}
check "rows= interleaved" cal-blend "$T/a.cal:rows=20" "$T/b.cal:rows=10" "$T/c.cal:rows=5" --seed 3 -o "$T/o.cal"
eq "rows=: exact counts, documented schedule, any kind" "$(verify "$T/o.cal" 3 0 "$T/a.cal:20 $T/b.cal:10 $T/c.cal:5")" yes
check "weights -n" cal-blend -n 37 "$T/a.cal:weight=1" "$T/b.cal:weight=1" "$T/c.cal:weight=1" -o "$T/o.cal"
eq "weights: 13/12/12 by largest remainder, sum 37" "$(verify "$T/o.cal" 0 0 "$T/a.cal:13 $T/b.cal:12 $T/c.cal:12")" yes
check "mixed rows= and weights" cal-blend -n 30 "$T/a.cal:weight=0.2" "$T/b.cal:rows=7" "$T/c.cal:weight=0.5" --grouped -o "$T/o.cal"
# 23 left for weights 0.2/0.5: 6.571 -> 6 (+1 by remainder .571 vs .428) = 7, 16.43 -> 16
eq "mixed: fixed 7, rest 7/16, grouped in SPEC order" "$(verify "$T/o.cal" 0 1 "$T/a.cal:7 $T/b.cal:7 $T/c.cal:16")" yes
out=$($PY - "$HERE" <<'PYEOF'
import sys, random; sys.path.insert(0, sys.argv[1]); import packref as ref
r = random.Random(3); ok = True
for _ in range(300):
    w = [r.choice([0.1, 1, 2.5, 3, r.random()]) for _ in range(r.randrange(1, 7))]
    t = r.randrange(0, 1000); c = ref.largest_remainder(t, w)
    ok &= sum(c) == t and all(abs(ci - t * wi / sum(w)) < 1 for ci, wi in zip(c, w))
print("yes" if ok else "no")
PYEOF
)
eq "largest remainder model: sums exact, each within 1 of its quota" "$out" yes
i=0; while [ $i -lt 12 ]; do
  n=$(( (i * 37) % 119 + 1 )); w1=$((i % 5 + 1)); w2=$(( (i * 3) % 7 + 1 ))
  cal-blend -n $n --cycle "$T/a.cal:weight=$w1" "$T/b.cal:weight=$w2" "$T/c.cal:weight=0.5" --seed $i -o "$T/p.cal"
  want=$($PY - "$HERE" $n $w1 $w2 <<'PYEOF'
import sys; sys.path.insert(0, sys.argv[1]); import packref as ref
print(" ".join(map(str, ref.largest_remainder(int(sys.argv[2]), [float(sys.argv[3]), float(sys.argv[4]), 0.5]))))
PYEOF
)
  set -- $want
  r=$(verify "$T/p.cal" $i 0 "$T/a.cal:$1 $T/b.cal:$2 $T/c.cal:$3")
  [ "$r" = yes ] || break
  i=$((i + 1))
done
eq "12 random weightings: counts sum to -n, schedule exact (--cycle)" "$i" 12
check "grouped, all records" cal-blend --grouped "$T/a.cal" "$T/c.cal:rows=3" "$T/b.cal" -o "$T/o.cal"
eq "grouped without counts takes everything" "$(verify "$T/o.cal" 0 1 "$T/a.cal:50 $T/c.cal:3 $T/b.cal:30")" yes
check "--cycle" cal-blend "$T/x.cal:rows=25" --cycle -o "$T/o.cal" 2>/dev/null || true
expect_fail "short source names it and its count" 1 "b.cal: has only 30 records, 31 needed \(use --cycle" cal-blend "$T/a.cal:rows=3" "$T/b.cal:rows=31"
expect_fail "fingerprint mismatch" 1 "x.cal: tokenizer_fp mismatch" cal-blend "$T/a.cal:rows=3" "$T/x.cal:rows=3"
check "cycle a short source" cal-blend "$T/b.cal:rows=70" "$T/c.cal:rows=2" --cycle -o "$T/o.cal"
eq "--cycle repeats the source in order" "$(verify "$T/o.cal" 0 0 "$T/b.cal:70 $T/c.cal:2")" yes
check "label=" cal-blend "$T/a.cal:rows=2:label=web" "$T/b.cal:rows=2" -o "$T/o.cal"
out=$($PY - "$HERE" "$T/o.cal" <<'PYEOF'
import sys; sys.path.insert(0, sys.argv[1]); import calstream as cs
print(" ".join(sorted(x["label"] for x in cs.read(sys.argv[2])[1])))
PYEOF
)
eq "label= relabels, payload and ids kept" "$out" "b b web web"
expect_fail "weight without -n" 2 "weight= needs -n" cal-blend "$T/a.cal:weight=2"
expect_fail "rows over -n" 2 "rows= add up to 9, more than -n 5" cal-blend -n 5 "$T/a.cal:rows=9" "$T/b.cal"
expect_fail "interleave needs counts" 2 "needs rows=" cal-blend "$T/a.cal" "$T/b.cal"
expect_fail "missing file" 1 "nope.cal" cal-blend "$T/nope.cal:rows=1"
# same seed same bytes; other seed other order
cal-blend -n 60 "$T/a.cal:weight=1" "$T/b.cal:weight=1" --seed 4 >"$T/s1.cal"
cal-blend -n 60 "$T/a.cal:weight=1" "$T/b.cal:weight=1" --seed 4 >"$T/s2.cal"
cal-blend -n 60 "$T/a.cal:weight=1" "$T/b.cal:weight=1" --seed 5 >"$T/s3.cal"
same "same seed, same bytes" "$T/s1.cal" "$T/s2.cal"
if cmp -s "$T/s1.cal" "$T/s3.cal"; then not_ok "other seed differs"; else ok "other seed differs"; fi

# named pipes fed by ONE producer that writes all of A (2 MB, far beyond a
# pipe buffer) before any of B: only concurrent reading avoids a deadlock
mkfifo "$T/fa" "$T/fb"
gen "$T/big.cal" a 40000 tok
$PY - "$T/big.cal" "$T/b.cal" "$T/fa" "$T/fb" <<'PYEOF' &
import sys
a, b = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
fa = open(sys.argv[3], "wb"); fb = open(sys.argv[4], "wb")
fa.write(a); fa.close(); fb.write(b); fb.close()
PYEOF
check "fifos: no deadlock" timeout 60 cal-blend "$T/fa:rows=40000" "$T/fb:rows=30" --seed 1 -o "$T/o.cal"
wait
eq "fifos: exact result" "$(verify "$T/o.cal" 1 0 "$T/big.cal:40000 $T/b.cal:30")" yes
cat "$T/c.cal" | cal-blend --grouped -- "-:rows=4" "$T/a.cal:rows=4" >"$T/o.cal"
eq "stdin as a source" "$(verify "$T/o.cal" 0 1 "$T/c.cal:4 $T/a.cal:4")" yes
