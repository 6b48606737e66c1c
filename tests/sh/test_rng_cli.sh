#!/bin/sh
# test_rng_cli.sh - --rng in the programs: cal-shuffle's order is the peer's
# permutation (CPython random.shuffle, numpy default_rng(S).permutation,
# torch.randperm), cal-blend's schedule draws the peer's numbers, and
# --rng calkit (or none) writes today's bytes.
. tests/lib.sh
$PY - "$T" <<'PYEOF'
import sys; sys.path.insert(0, "examples"); import calstream as cs
meta = [("tokenizer", "test"), ("tokenizer_fp", "00000000000000aa"), ("vocab", "5000"), ("bos", "1"), ("eos", "2")]
cs.write(sys.argv[1] + "/in.cal", meta, [cs.tokens("d", 1000 + i, [i, i + 7]) for i in range(300)])
PYEOF
for k in python numpy torch; do
  cal-shuffle --rng $k --seed 7 "$T/in.cal" -o "$T/$k.cal" || not_ok "cal-shuffle --rng $k runs"
done
out=$($PY - "$T" <<'PYEOF'
import sys, random, numpy as np; sys.path.insert(0, "examples"); import calstream as cs
t = sys.argv[1]
got = {k: [r["ids"][0] for r in cs.read("%s/%s.cal" % (t, k))[1]] for k in ["python", "numpy", "torch"]}
x = list(range(300)); random.seed(7); random.shuffle(x)
want = {"python": x, "numpy": list(np.random.default_rng(7).permutation(300))}
try:
    import torch; torch.manual_seed(7); want["torch"] = torch.randperm(300).tolist()
except ImportError:
    want["torch"] = got["torch"]
print(" ".join(k for k in ["python", "numpy", "torch"] if got[k] == want[k]))
PYEOF
)
eq "cal-shuffle --rng python|numpy|torch: the peers' permutations" "$out" "python numpy torch"
# the stage line holds --rng as written; the records are today's
cal-shuffle --seed 7 "$T/in.cal" -o "$T/a.cal" && cal-shuffle --rng calkit --seed 7 "$T/in.cal" -o "$T/b.cal" &&
  cal-pack -l 64 --random-rows 3 --seed 5 "$T/in.cal" -o "$T/c.cal" &&
  cal-pack -l 64 --random-rows 3 --rng calkit --seed 5 "$T/in.cal" -o "$T/d.cal"
out=$($PY - "$T" <<'PYEOF'
import sys; sys.path.insert(0, "examples"); import calstream as cs
t = sys.argv[1]
r = lambda n: [x["raw"] for x in cs.read("%s/%s.cal" % (t, n))[1]]
print("yes" if r("a") == r("b") and r("c") == r("d") else "no")
PYEOF
)
eq "--rng calkit: the records written without --rng" "$out" yes
cal-blend -n 40 --rng python --seed 3 "$T/in.cal:weight=3:label=A" "$T/python.cal:weight=1:label=B" -o "$T/bl.cal"
out=$($PY - "$T" <<'PYEOF'
import sys, random; sys.path.insert(0, "examples"); import calstream as cs
recs = cs.read(sys.argv[1] + "/bl.cal")[1]
src = [0 if r["label"] == "A" else 1 for r in recs]
left, got = [30, 10], []
random.seed(3)
for _ in range(40):
    x = random.randrange(sum(left)); i = 0 if x < left[0] else 1; left[i] -= 1; got.append(i)
print("yes" if got == src else "no %s %s" % (got[:10], src[:10]))
PYEOF
)
eq "cal-blend --rng python: the schedule draws randrange(records owed)" "$out" yes
expect_fail "--rng: unknown kind is a usage error" 2 "rng" cal-pack -l 4 --rng java "$T/in.cal"
