#!/bin/sh
# cal-hessian --ranges / --percentiles: per-channel and per-tensor
# percentiles of x and |x| against np.percentile (method 'linear') within
# the bound stated in lib/stats/sketch.h, on adversarial channels (heavy
# tails, all equal, zeros, signed zeros, negatives, subnormals, outliers
# 1e30 above the rest), f16 and bf16 input, embedding rows of a checkpoint
# (weighted distinct-token path) and a torch model's activations; exact
# min/max; shards merged in every order equal the single run byte for byte;
# a result merged alone is unchanged; rows with NaN/Inf skipped or refused;
# and every corruption of the sketch data is a one-line error.
. tests/lib.sh
export PYTHONPATH="$PWD/tests/sh"
PCT=0,0.5,50,99,99.9,99.99,100

$PY - "$T" <<'PYEOF' || not_ok "make fixtures"
import sys, numpy as np
from hessian_lib import *
T = sys.argv[1]
rng = np.random.default_rng(7)
n = 6000
cols = [
    rng.standard_normal(n),                                   # plain
    rng.standard_cauchy(n),                                    # heavy tails both sides
    np.exp(rng.uniform(-60, 60, n)) * rng.choice([-1, 1], n),  # 50 decades, signed
    np.full(n, 3.7),                                           # all equal
    np.zeros(n),                                               # all zero
    np.where(rng.random(n) < .5, 0.0, -0.0),                   # signed zeros
    -np.abs(rng.standard_normal(n)) - 5,                       # negatives only
    rng.standard_normal(n) * 1e-40,                            # f32 subnormals
    np.where(rng.random(n) < .99, 0.0, rng.standard_normal(n)),# mostly zero (ReLU-like)
    np.where(np.arange(n) == 17, 1e30, rng.standard_normal(n)),# one outlier 1e30
    rng.standard_normal(n) * 1e-30,                            # tiny but normal
    np.abs(rng.standard_t(2, n)),                              # |heavy| >= 0
]
X = np.stack(cols, 1).astype(np.float32)
np.save(f"{T}/X.npy", X)
def write(path, parts, label="", dt=F32):
    with open(path, "wb") as f:
        w = CalStreamWriter(f, {"source": "adv"})
        for p in parts: w.vectors(label, p, dt)
        w.close()
write(f"{T}/all.cal", [X[:1000], X[1000:4000], X[4000:]])
# shards: the outlier row (17) and the wide channel's largest values in
# different shards, so that their windows slide at different times
write(f"{T}/s1.cal", [X[:1000]]); write(f"{T}/s2.cal", [X[1000:4000]]); write(f"{T}/s3.cal", [X[4000:]])
W = (rng.standard_t(4, (1500, 300)) * np.exp(rng.uniform(-5, 5, 300))).astype(np.float32)
np.save(f"{T}/W.npy", W); write(f"{T}/wide.cal", [W[:700], W[700:]])
Y = X.copy(); Y[5, 3] = np.nan; Y[9, 0] = np.inf
write(f"{T}/bad.cal", [Y])
write(f"{T}/good.cal", [np.delete(X, [5, 9], 0)])
F = (rng.standard_normal((3000, 16)) * np.exp(rng.uniform(-3, 3, 16))).astype(np.float16)
np.save(f"{T}/F.npy", F.astype(np.float64))
write(f"{T}/f16.cal", [F], dt=F16)
B, Bv = to_bf16_bits((rng.standard_t(3, (3000, 16)) * 4).astype(np.float32))
np.save(f"{T}/B.npy", Bv.astype(np.float64))
with open(f"{T}/bf16.cal", "wb") as f:
    w = CalStreamWriter(f); w.vectors("", B, BF16); w.close()
E, g = tiny_model(f"{T}/m.safetensors")
np.save(f"{T}/E.npy", E)
ids = np.minimum(rng.zipf(1.3, 4000) - 1, 999).astype(np.uint32)
np.save(f"{T}/ids.npy", ids)
with open(f"{T}/tok.cal", "wb") as f:
    w = CalStreamWriter(f, {"vocab": "1000"})
    for i in range(0, 4000, 500): w.tokens("", ids[i:i + 500])
    w.close()
PYEOF

# Checks a result against numpy: python3 verify.py RESULT DATA.npy [LABEL]
cat >"$T/verify.py" <<'PYEOF'
import sys, numpy as np
from hessian_lib import st_read
res, meta = st_read(sys.argv[1])
X = np.load(sys.argv[2]).astype(np.float64)
pre = sys.argv[3] + "." if len(sys.argv) > 3 else ""
P = [float(p) for p in meta["hessian.percentiles"].split(",")]
A, FL = 2.0 ** -7, (1 + 2.0 ** -6) / 4096
bad = []
def bound(v, p):
    """The bound of sketch.h for np.percentile(v, p): the two order
    statistics numpy interpolates, plus the window floor."""
    s = np.sort(v); h = (len(s) - 1) * (p / 100); i = int(np.floor(h)); f = h - i
    j = min(i + 1, len(s) - 1)
    return A * ((1 - f) * abs(s[i]) + f * abs(s[j])) + max(FL * np.max(np.abs(s)), np.finfo(float).tiny)
def check(name, got, v, p):
    want = np.percentile(v, p)
    if not abs(got - want) <= bound(v, p): bad.append(f"{name} p={p}: got {got!r} want {want!r} bound {bound(v, p)!r}")
for c in range(X.shape[1]):
    for k, p in enumerate(P):
        check(f"{pre}pct_x_lo[{k},{c}]", res[pre + "pct_x_lo"][k, c], X[:, c], 100 - p)
        check(f"{pre}pct_x_hi[{k},{c}]", res[pre + "pct_x_hi"][k, c], X[:, c], p)
        check(f"{pre}pct_absx[{k},{c}]", res[pre + "pct_absx"][k, c], np.abs(X[:, c]), p)
for k, p in enumerate(P):
    check(f"pct_x_lo_tensor[{k}]", res[pre + "pct_x_lo_tensor"][k], X.ravel(), 100 - p)
    check(f"pct_x_hi_tensor[{k}]", res[pre + "pct_x_hi_tensor"][k], X.ravel(), p)
    check(f"pct_absx_tensor[{k}]", res[pre + "pct_absx_tensor"][k], np.abs(X).ravel(), p)
# exact: min and max (bit for bit, -0 before +0), p = 0 and 100 of x, max |x|
mn, mx = X.min(0), X.max(0)
mn = np.where((mn == 0) & np.any(np.signbit(X) & (X == 0), 0), -0.0, mn)
mx = np.where((mx == 0) & np.any(~np.signbit(X) & (X == 0), 0), 0.0, mx)
if res[pre + "min"].tobytes() != mn.tobytes() or res[pre + "max"].tobytes() != mx.tobytes(): bad.append("min/max")
if 100 in P:
    k = P.index(100)
    if not (np.array_equal(res[pre + "pct_x_hi"][k], X.max(0)) and np.array_equal(res[pre + "pct_x_lo"][k], X.min(0))
            and np.array_equal(res[pre + "pct_absx"][k], np.abs(X).max(0))): bad.append("p = 0 / 100 not exact")
if int(res[pre + "sketch"][:, 1:].sum()) != X.size: bad.append("sketch counts")
print("\n".join(bad[:8]) + (f"\n... {len(bad)} bad" if bad else ""))
sys.exit(1 if bad else 0)
PYEOF
verify() { n=$1; shift; check "$n" $PY "$T/verify.py" "$@"; [ -s "$T/.out" ] && sed 's/^/# /' "$T/.out"; }

check "adversarial channels" cal-hessian --dtype f64 --percentiles $PCT -o "$T/all.st" "$T/all.cal"
verify "adversarial channels within the bound, min/max exact" "$T/all.st" "$T/X.npy"
# The sketch is split by channels over the workers: the same bytes for any N.
check "3 threads, blocks of 100 rows" cal-hessian --dtype f64 --percentiles $PCT --threads 3 --block 100 -o "$T/t3.st" "$T/wide.cal"
verify "300 channels in 3 ranges within the bound" "$T/t3.st" "$T/W.npy"
check "1 thread, blocks of 100 rows" cal-hessian --dtype f64 --percentiles $PCT --threads 1 --block 100 -o "$T/t1.st" "$T/wide.cal"
same "--threads 3 and 1 write the same bytes" "$T/t3.st" "$T/t1.st"
check "f16 input" cal-hessian --percentiles $PCT -o "$T/f16.st" "$T/f16.cal"
verify "f16 input within the bound" "$T/f16.st" "$T/F.npy"
check "bf16 input" cal-hessian --percentiles $PCT -o "$T/bf16.st" "$T/bf16.cal"
verify "bf16 input within the bound" "$T/bf16.st" "$T/B.npy"

# Embedding rows: the distinct-token path commits weighted rows.
$PY -c "
import numpy as np, sys
E = np.load('$T/E.npy'); ids = np.load('$T/ids.npy')
np.save('$T/emb.npy', E[ids])" || not_ok "embedding rows"
check "embedding rows (weighted)" cal-hessian --embed "$T/m.safetensors" --percentiles $PCT -o "$T/emb.st" "$T/tok.cal"
verify "embedding rows within the bound" "$T/emb.st" "$T/emb.npy"
check "embedding rows per position" cal-hessian --embed "$T/m.safetensors" --per-position --percentiles $PCT -o "$T/embp.st" "$T/tok.cal"
$PY - "$T" <<'PYEOF' && ok "weighted and per-position sketches agree" || not_ok "weighted and per-position sketches agree"
import sys
from hessian_lib import st_read
T = sys.argv[1]
a, _ = st_read(f"{T}/emb.st"); b, _ = st_read(f"{T}/embp.st")
sys.exit(any(a[k].tobytes() != b[k].tobytes() for k in ("sketch", "min", "max", "pct_absx", "pct_x_hi_tensor")))
PYEOF

# Defaults, the stage line, and nothing new without --ranges.
check "--ranges" cal-hessian --ranges --dtype f64 -o "$T/def.st" "$T/s1.cal"
$PY - "$T" <<'PYEOF' && ok "--ranges: 99.9,99.99 in metadata and stage line" || not_ok "--ranges defaults"
import sys
from hessian_lib import st_read
T = sys.argv[1]
r, m = st_read(f"{T}/def.st")
assert m["hessian.percentiles"] == "99.9,99.99" and m["hessian.sketch"] == "loglinear-m6-w768", m
assert m["stage"].endswith("--ranges --dtype f64 " + T + "/s1.cal --dtype f64 --scale sum --percentiles 99.9,99.99"), m["stage"]
assert r["pct_absx"].shape == (2, 12) and r["sketch"].shape == (12, 1538) and r["pct_absx_tensor"].shape == (2,)
PYEOF
check "no --ranges" cal-hessian --dtype f64 -o "$T/plain.st" "$T/s1.cal"
$PY -c "
import sys; sys.path.insert(0, '$PWD/tests/sh')
from hessian_lib import st_read
r, m = st_read('$T/plain.st')
sys.exit(any(k in r for k in ('sketch', 'min', 'pct_absx')) or 'hessian.percentiles' in m)" \
  && ok "no sketch without --ranges" || not_ok "no sketch without --ranges"

# NaN/Inf: refused, or skipped and left out of the sketch.
expect_fail "NaN row refused" 1 "holds NaN or Inf" cal-hessian --ranges -o "$T/bad.st" "$T/bad.cal"
check "NaN rows skipped" cal-hessian --skip-nonfinite --ranges --dtype f64 -o "$T/skip.st" "$T/bad.cal"
check "the same rows without them" cal-hessian --ranges --dtype f64 -o "$T/good.st" "$T/good.cal"
$PY - "$T" <<'PYEOF' && ok "skipped rows are not in the sketch" || not_ok "skipped rows are not in the sketch"
import sys
from hessian_lib import st_read
T = sys.argv[1]
a, _ = st_read(f"{T}/skip.st"); b, _ = st_read(f"{T}/good.st")
sys.exit(any(a[k].tobytes() != b[k].tobytes() for k in ("sketch", "min", "max", "pct_x_lo", "pct_absx_tensor")))
PYEOF

# Shards merged in every order: the single run's bytes.
for s in 1 2 3; do
  check "shard $s" cal-hessian --dtype f64 --percentiles $PCT -o "$T/p$s.st" "$T/s$s.cal"
done
for o in "1 2 3" "1 3 2" "2 1 3" "2 3 1" "3 1 2" "3 2 1"; do
  set -- $o
  cal-hessian --merge --dtype f64 -o "$T/m$1$2$3.st" "$T/p$1.st" "$T/p$2.st" "$T/p$3.st" 2>"$T/.err" ||
    not_ok "merge $o" "$(cat "$T/.err")"
done
# The float sums (hessian, sum, ...) are exact sums rounded in another
# order, so only the integer and extreme-value tensors can match bit for bit:
# the sketch, min, max, absmax, counts and the percentiles made from them.
cat >"$T/same.py" <<'PYEOF'
import sys
from hessian_lib import st_read
EXACT = ("sketch", "min", "max", "absmax", "tokens", "rows", "pct_x_lo", "pct_x_hi", "pct_absx",
         "pct_x_lo_tensor", "pct_x_hi_tensor", "pct_absx_tensor")
every = sys.argv[1] == "--all"
paths = sys.argv[2:] if every else sys.argv[1:]
ref, rm = st_read(paths[0])
for p in paths[1:]:
    got, gm = st_read(p)
    keys = set(ref) | set(got) if every else EXACT
    diff = [k for k in keys if k not in got or k not in ref or ref[k].tobytes() != got[k].tobytes()]
    diff += [k for k in rm if k != "stage" and rm[k] != gm.get(k)]
    if diff: sys.exit(f"{p} differs in {diff[:6]}")
PYEOF
check "merged shards, any order: sketch, min/max, percentiles = single run, byte for byte" \
  $PY "$T/same.py" "$T/all.st" "$T/m123.st" "$T/m132.st" "$T/m213.st" "$T/m231.st" "$T/m312.st" "$T/m321.st"
check "a result merged alone" cal-hessian --merge --dtype f64 -o "$T/rt.st" "$T/all.st"
check "round trip: every tensor unchanged" $PY "$T/same.py" --all "$T/all.st" "$T/rt.st"

# Percentile lists: recomputed from the sketch on merge; different lists
# need --percentiles; a mix of shards with and without sketches is refused.
check "merge with another list" cal-hessian --merge --dtype f64 --percentiles 90,99.9 -o "$T/l2.st" "$T/p1.st" "$T/p2.st" "$T/p3.st"
check "single run with that list" cal-hessian --dtype f64 --percentiles 90,99.9 -o "$T/l1.st" "$T/all.cal"
check "the list recomputed on merge = single run" $PY "$T/same.py" "$T/l1.st" "$T/l2.st"
expect_fail "different lists need --percentiles" 1 "different percentile lists" \
  cal-hessian --merge --dtype f64 -o "$T/x.st" "$T/p1.st" "$T/def.st"
expect_fail "shards with and without sketches" 1 "has no percentile sketches" \
  cal-hessian --merge --dtype f64 -o "$T/x.st" "$T/p1.st" "$T/plain.st"
expect_fail "--ranges on inputs without sketches" 1 "no input holds sketches" \
  cal-hessian --merge --ranges -o "$T/x.st" "$T/plain.st"
expect_fail "bad --percentiles" 2 "--percentiles takes" cal-hessian --percentiles 99,101 -o "$T/x.st" "$T/s1.cal"
expect_fail "empty --percentiles item" 2 "--percentiles takes" cal-hessian --percentiles 99,,9 -o "$T/x.st" "$T/s1.cal"

# By label: LABEL.-prefixed tensors, each label checked against its rows.
$PY - "$T" <<'PYEOF' || not_ok "labelled fixture"
import sys, numpy as np
from hessian_lib import *
T = sys.argv[1]
X = np.load(f"{T}/X.npy")
with open(f"{T}/lab.cal", "wb") as f:
    w = CalStreamWriter(f)
    w.vectors("blk.0.attn_q.weight", X[:3000]); w.vectors("blk.0.ffn_down.weight", X[3000:, :5]); w.close()
np.save(f"{T}/X1.npy", X[:3000]); np.save(f"{T}/X2.npy", X[3000:, :5])
PYEOF
check "--by-label --ranges" cal-hessian --by-label --percentiles $PCT -o "$T/lab.st" "$T/lab.cal"
verify "label 1 within the bound" "$T/lab.st" "$T/X1.npy" blk.0.attn_q.weight
verify "label 2 within the bound" "$T/lab.st" "$T/X2.npy" blk.0.ffn_down.weight

# Activations of a torch model's layers (dump-activations.py), if torch is here.
if $PY -c "import torch" 2>/dev/null; then
  $PY - "$T" <<'PYEOF' || not_ok "torch model"
import sys, numpy as np, torch
from hessian_lib import tiny_torch_model
T = sys.argv[1]
m, ids = tiny_torch_model(f"{T}/tm.pt")
np.save(f"{T}/tids.npy", ids)
with torch.no_grad():
    np.save(f"{T}/act.npy", np.concatenate([m[:3](torch.as_tensor(ids[i:i + 4])).reshape(-1, 24).numpy() for i in (0, 4)]))
PYEOF
  check "torch activations" sh -c "$PY examples/dump-activations.py --model '$T/tm.pt' --layer 3 --input-ids '$T/tids.npy' \
    --batch 4 | cal-hessian --percentiles $PCT -o '$T/act.st'"
  verify "torch activations (ReLU: zeros) within the bound" "$T/act.st" "$T/act.npy"
else
  skip "torch activations" "python3-torch is not installed"
fi

# Corrupt sketch data: one-line errors naming the file and offset.
cat >"$T/corrupt.py" <<'PYEOF'
import sys, json, struct, numpy as np
src, dst, what = sys.argv[1:4]
b = bytearray(open(src, "rb").read())
n = struct.unpack("<Q", b[:8])[0]; h = json.loads(b[8:8 + n])
def at(name, i): return 8 + n + h[name]["data_offsets"][0] + 8 * i
def put(name, i, fmt, v): struct.pack_into(fmt, b, at(name, i), v)
def get(name, i, fmt): return struct.unpack_from(fmt, b, at(name, i))[0]
S = 1538
if what == "count": put("sketch", 3 * S + 700, "<q", get("sketch", 3 * S + 700, "<q") + 1)
if what == "moved": put("sketch", 3 * S + 700, "<q", get("sketch", 3 * S + 700, "<q") - 1); put("sketch", 3 * S + 1, "<q", get("sketch", 3 * S + 1, "<q") + 1); put("sketch", 0, "<q", 5)
if what == "negative": put("sketch", 5, "<q", -3)
if what == "top": put("sketch", 0, "<q", get("sketch", 0, "<q") + 1)
if what == "min": put("min", 2, "<d", 1e300)
if what == "nanmax": put("max", 1, "<d", float("nan"))
if what == "layout":
    h["__metadata__"]["hessian.sketch"] = "kll"
    hb = json.dumps(h).encode(); hb += b" " * (-len(hb) % 8)
    b = bytearray(struct.pack("<Q", len(hb)) + hb + b[8 + n:])
if what == "list":
    h["__metadata__"]["hessian.percentiles"] = "99.9,x"
    hb = json.dumps(h).encode(); hb += b" " * (-len(hb) % 8)
    b = bytearray(struct.pack("<Q", len(hb)) + hb + b[8 + n:])
if what == "drop":
    del h["max"]
    hb = json.dumps(h).encode(); hb += b" " * (-len(hb) % 8)
    b = bytearray(struct.pack("<Q", len(hb)) + hb + b[8 + n:])
open(dst, "wb").write(b)
PYEOF
corrupt() {
  what=$1 pat=$2
  $PY "$T/corrupt.py" "$T/p1.st" "$T/c_$what.st" "$what" || not_ok "corrupt $what"
  expect_fail "corrupt sketch ($what) is a one-line error" 1 "$pat" cal-hessian --merge -o "$T/x.st" "$T/c_$what.st"
}
corrupt count "c_count.st: byte [0-9]+: tensor 'sketch' channel 3: sketch counts add up to 1001, want 1000"
corrupt moved "c_moved.st: byte [0-9]+: tensor 'sketch' channel 0: sketch top bucket"
corrupt negative "c_negative.st: byte [0-9]+: tensor 'sketch' channel 0 holds a negative count"
corrupt top "c_top.st: byte [0-9]+: tensor 'sketch' channel 0: sketch top bucket"
corrupt min "c_min.st: byte [0-9]+: channel 2: min 1e\+300"
corrupt nanmax "c_nanmax.st: byte [0-9]+: tensor 'max' value 1 is not finite"
corrupt layout "c_layout.st: sketch layout 'kll' is not loglinear-m6-w768"
corrupt list "c_list.st: hessian.percentiles '99.9,x' is not a list"
corrupt drop "c_drop.st: no tensor 'max'"
