#!/bin/sh
# cal-shuffle: a permutation by the documented keys, independent of -S
# (spilling forced with a tiny -S), seeded; --window; --segments.
. tests/lib.sh
HERE=$(cd "$(dirname "$0")/../py" && pwd)
export PYTHONPATH="$PWD/examples"   # calstream.py (packref.py is in $HERE)
$PY - "$HERE" "$T/in.cal" <<'PYEOF'
import sys, random; sys.path.insert(0, sys.argv[1]); import calstream as cs
r = random.Random(5)
recs = []
for i in range(3000):
    k = r.randrange(3)
    if k == 0: recs.append(cs.tokens("a", i, [r.randrange(1000) for _ in range(r.randrange(0, 50))]))
    elif k == 1: recs.append(cs.record(cs.TEXT, "b", i, bytes(r.randrange(97, 123) for _ in range(r.randrange(0, 80)))))
    else: recs.append(cs.row("c", i, [r.randrange(1000) for _ in range(16)], [1] * 10 + [0] * 6))
cs.write(sys.argv[2], [("tokenizer", "t"), ("vocab", "1000")], recs)
PYEOF
recs() { $PY - "$HERE" "$@" <<'PYEOF'
import sys; sys.path.insert(0, sys.argv[1]); import calstream as cs
for f in sys.argv[2:]:
    sys.stdout.write("".join(x["raw"].hex() + "\n" for x in cs.read(f)[1]))
PYEOF
}
check "in memory" cal-shuffle --seed 7 -v "$T/in.cal" -o "$T/m.cal"
case "$(cat "$T/.err")" in *" 0 runs spilled"*) ok "default -S: in memory" ;; *) not_ok "default -S: in memory" "$(cat "$T/.err")" ;; esac
check "spilling (-S 16K)" cal-shuffle --seed 7 -S 16K -v "$T/in.cal" -o "$T/s.cal"
case "$(cat "$T/.err")" in *" 0 runs spilled"*) not_ok "tiny -S spills" "$(cat "$T/.err")" ;; *"runs spilled"*) ok "tiny -S spills" ;; *) not_ok "tiny -S spills" "$(cat "$T/.err")" ;; esac
check "many runs, multi-pass merge (-S 4K)" cal-shuffle --seed 7 -S 4K -v "$T/in.cal" -o "$T/s2.cal"
same "result independent of -S (16K)" "$T/m.cal" "$T/s.cal"
same "result independent of -S (4K)" "$T/m.cal" "$T/s2.cal"
recs "$T/in.cal" | sort >"$T/a"; recs "$T/m.cal" | sort >"$T/b"
same "a permutation (same multiset of records)" "$T/a" "$T/b"
out=$($PY - "$HERE" "$T/in.cal" "$T/m.cal" <<'PYEOF'
import sys; sys.path.insert(0, sys.argv[1]); import calstream as cs, packref as ref
_, a = cs.read(sys.argv[2]); _, b = cs.read(sys.argv[3])
order = ref.shuffle_order(len(a), 7)
print("yes" if [x["raw"] for x in b] == [a[i]["raw"] for i in order] else "no")
PYEOF
)
eq "order = sort by XXH3(index, seed) (documented)" "$out" yes
cal-shuffle --seed 8 "$T/in.cal" -o "$T/m8.cal"
if cmp -s "$T/m.cal" "$T/m8.cal"; then not_ok "other seed, other order"; else ok "other seed, other order"; fi
cal-shuffle --seed 7 <"$T/in.cal" >"$T/p.cal"
recs "$T/m.cal" >"$T/a"; recs "$T/p.cal" >"$T/b"
same "stdin/stdout same records" "$T/a" "$T/b"
TMPDIR=$T/nonexistent cal-shuffle -S 4K "$T/in.cal" >/dev/null 2>"$T/e"; rc=$?
case "$rc:$(cat "$T/e")" in 1:*"cannot create a temporary file"*) ok "unwritable TMPDIR: clear error" ;; *) not_ok "unwritable TMPDIR: clear error" "$rc $(cat "$T/e")" ;; esac

# uniformity: over 600 seeds, the first record of 4 lands in each position ~150 times
$PY - "$HERE" "$T/four.cal" <<'PYEOF'
import sys; sys.path.insert(0, sys.argv[1]); import calstream as cs
cs.write(sys.argv[2], [], [cs.tokens("x", i, [i]) for i in range(4)])
PYEOF
out=$($PY - "$HERE" <<'PYEOF'
import sys; sys.path.insert(0, sys.argv[1]); import packref as ref
c = [0] * 4
for s in range(4000):
    c[ref.shuffle_order(4, s).index(0)] += 1
print("yes" if all(880 < x < 1120 for x in c) else "no %s" % c)
PYEOF
)
eq "keyed-hash permutation is uniform (chi-by-eye, 4000 seeds)" "$out" yes

# --window W: a permutation; W=1 keeps the order; seeded
check "window 10" cal-shuffle --window 10 --seed 3 "$T/in.cal" -o "$T/w.cal"
recs "$T/in.cal" | sort >"$T/a"; recs "$T/w.cal" | sort >"$T/b"
same "window: a permutation" "$T/a" "$T/b"
recs "$T/w.cal" >"$T/b"; recs "$T/in.cal" >"$T/a"
if cmp -s "$T/a" "$T/b"; then not_ok "window 10 reorders"; else ok "window 10 reorders"; fi
cal-shuffle --window 1 "$T/in.cal" -o "$T/w1.cal"; recs "$T/w1.cal" >"$T/b"
same "window 1 keeps order" "$T/a" "$T/b"
out=$($PY - "$HERE" "$T/in.cal" "$T/w.cal" <<'PYEOF'
import sys; sys.path.insert(0, sys.argv[1]); import calstream as cs
_, a = cs.read(sys.argv[2]); _, b = cs.read(sys.argv[3])
pos = {x["raw"]: i for i, x in enumerate(a)}
# a record can only come out after its input position - W + 1 records were read
print("yes" if all(pos[x["raw"]] <= j + 9 for j, x in enumerate(b)) else "no")
PYEOF
)
eq "window: displacement bounded by W" "$out" yes

# --segments K -n ROWS -l LENGTH (EXL2 shuffled rows)
$PY - "$HERE" "$T/tok.cal" <<'PYEOF'
import sys; sys.path.insert(0, sys.argv[1]); import calstream as cs
cs.write(sys.argv[2], [("vocab", "5000")], [cs.tokens("ml", 77 + i, list(range(i * 1000, i * 1000 + 700))) for i in range(3)])
PYEOF
check "segments with replacement" cal-shuffle --segments 8 -n 20 -l 30 --seed 69420 "$T/tok.cal" -o "$T/g.cal"
out=$($PY - "$HERE" "$T/tok.cal" "$T/g.cal" <<'PYEOF'
import sys; sys.path.insert(0, sys.argv[1]); import calstream as cs, packref as ref
_, a = cs.read(sys.argv[2]); _, b = cs.read(sys.argv[3])
toks = sum((x["ids"] for x in a), [])
nseg, rng, want = len(toks) // 8, ref.Rng(69420, "segments"), []
for r in range(20):
    row = []
    for k in range(4):
        s = rng.below(nseg); row += toks[s * 8:s * 8 + 8]
    want.append(row[:30])
print("yes" if [x["ids"] for x in b] == want and all(x["kind"] == cs.ROW and x["label"] == "ml" for x in b) else "no")
PYEOF
)
eq "segments: rows of drawn K-token segments (documented RNG)" "$out" yes
check "segments without replacement" cal-shuffle --segments 8 -n 65 -l 32 --no-replace "$T/tok.cal" -o "$T/g.cal"
out=$($PY - "$HERE" "$T/g.cal" <<'PYEOF'
import sys; sys.path.insert(0, sys.argv[1]); import calstream as cs
_, b = cs.read(sys.argv[2])
segs = [tuple(x["ids"][i:i + 8]) for x in b for i in range(0, 32, 8)]
print("yes" if len(segs) == 260 and len(set(segs)) == 260 and all(s[0] % 8 == s[0] % 1000 % 8 for s in segs) else "no")
PYEOF
)
eq "no-replace: 260 distinct segments" "$out" yes
expect_fail "no-replace short" 1 '262 segments of 8.*66 rows of 32 need 264 without replacement \(65 rows possible\)' cal-shuffle --segments 8 -n 66 -l 32 --no-replace "$T/tok.cal"
expect_fail "segments need -n -l" 2 'needs -n ROWS and -l LENGTH' cal-shuffle --segments 8 "$T/tok.cal"

# --by-id: shards concatenated in any order shuffle like the whole stream
$PY - "$HERE" "$T" <<'PYEOF'
import sys, random; sys.path.insert(0, sys.argv[1]); import calstream as cs
r = random.Random(11)
recs = [cs.tokens("s", r.getrandbits(64), [r.randrange(100) for _ in range(r.randrange(1, 30))]) for _ in range(500)]
meta = [("tokenizer_fp", "00000000000000aa")]
cs.write(sys.argv[2] + "/whole.cal", meta, recs)
for k in range(3):
    cs.write(sys.argv[2] + "/sh%d.cal" % k, meta + [("stage", "shard %d" % k)], recs[k::3])
PYEOF
cal-shuffle --by-id --seed 2 "$T/whole.cal" -o "$T/w.cal"
cat "$T/sh2.cal" "$T/sh0.cal" "$T/sh1.cal" | cal-shuffle --by-id --seed 2 -S 8K -o "$T/s.cal"
recs "$T/w.cal" >"$T/a"; recs "$T/s.cal" >"$T/b"
same "--by-id: shards in any order, same records in the same order" "$T/a" "$T/b"
out=$($PY - "$HERE" "$T/whole.cal" "$T/w.cal" <<'PYEOF'
import sys, struct; sys.path.insert(0, sys.argv[1]); import calstream as cs, packref as ref
_, a = cs.read(sys.argv[2]); _, b = cs.read(sys.argv[3])
order = sorted(range(len(a)), key=lambda i: (ref.h(struct.pack("<Q", a[i]["id"]), 2), i))
print("yes" if [x["raw"] for x in b] == [a[i]["raw"] for i in order] else "no")
PYEOF
)
eq "--by-id order = sort by XXH3(id, seed)" "$out" yes
