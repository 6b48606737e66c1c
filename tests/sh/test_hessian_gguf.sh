#!/bin/sh
# cal-hessian's imatrix GGUF as llama.cpp writes and reads it: the layout
# (keys, names in byte order, 1-D tensors, in_sum, data padded after the last
# tensor) checked by a reader written from the GGUF spec (tests/py) and by
# the @huggingface/gguf parser; values against numpy; --merge of llama-imatrix
# files (per-expert rows, an older file's single count, a file without
# in_sum) with cal-hessian results, against llama-imatrix --in-file's sums in
# numpy; strict reading of GGUF inputs and the rejection of negative counts
# and NaN in both kinds of input.
. tests/lib.sh
export PYTHONPATH="$PWD/tests/sh:$PWD/tests/py"

$PY - "$T" <<'PYEOF' || not_ok "make fixtures"
import sys, numpy as np
from hessian_lib import *
import gguf_spec as G
T = sys.argv[1]
rng = np.random.default_rng(5)
X = rng.standard_normal((300, 40)).astype(np.float32) * 2
np.save(f"{T}/X.npy", X)
with open(f"{T}/x.cal", "wb") as f:
    w = CalStreamWriter(f, {"source": "x"}); w.vectors("a", X[:100]); w.vectors("b", X[100:]); w.close()
# Two llama-imatrix files of a MoE model (4 experts of d = 8) and a dense
# weight of d = 40, the way llama-imatrix writes them; the second is an older
# one: a single count for the experts, and no in_sum.
def entries(seed, nmat_counts):
    r = np.random.default_rng(seed)
    e = {}
    A = r.standard_normal((4, 8)).astype(np.float32)
    e["blk.0.ffn_up_exps.weight"] = ((A * A * 50).astype(np.float32), (A * 7).astype(np.float32),
                                     np.array(nmat_counts, np.float32))
    B = r.standard_normal((1, 40)).astype(np.float32)
    e["blk.0.attn_q.weight"] = ((B * B * 300).astype(np.float32), (B * 11).astype(np.float32),
                                np.array([512 * 10], np.float32))
    return e
e1, e2 = entries(1, [300, 0, 1200, 3620]), entries(2, [2560])
G.llama_imatrix(f"{T}/l1.gguf", e1, ["wiki.train.raw"], 10, 512)
G.llama_imatrix(f"{T}/l2.gguf", e2, ["c4.txt", "code.txt"], 5, 512, with_in_sum=False)
np.savez(f"{T}/l.npz", **{f"{k}|{i}|{n}": v for n, e in (("1", e1), ("2", e2)) for k, t in e.items() for i, v in enumerate(t)})
PYEOF

check "imatrix of one run" cal-hessian --imatrix "$T/i.gguf" --imatrix-name blk.0.attn_q.weight -o "$T/r.st" "$T/x.cal"
check "imatrix without -o" cal-hessian --imatrix "$T/only.gguf" --imatrix-name blk.0.attn_q.weight "$T/x.cal"
same "with and without -o: the same imatrix" "$T/i.gguf" "$T/only.gguf"

$PY - "$T" <<'PYEOF'
import sys, numpy as np
from hessian_lib import report, relerr
import gguf_spec as G
T = sys.argv[1]
X = np.load(f"{T}/X.npy").astype(np.float64)
try:
    g = G.read(f"{T}/i.gguf")
except G.GgufError as e:
    report("imatrix passes the strict spec reader", False, e); sys.exit()
report("imatrix passes the strict spec reader", True)
report("keys in llama-imatrix's order and types",
       [(k, v[0], v[1]) for k, v in g.kv.items()] == [("general.type", G.STRING, None), ("imatrix.datasets", G.ARRAY, G.STRING),
        ("imatrix.chunk_count", G.U32, None), ("imatrix.chunk_size", G.U32, None)], g.kv)
report("key values: datasets, 2 chunks of 150", g.kv["imatrix.datasets"][2] == [f"{T}/x.cal"]
       and g.kv["imatrix.chunk_count"][2] == 2 and g.kv["imatrix.chunk_size"][2] == 150, g.kv)
n = "blk.0.attn_q.weight"
report("tensors in_sum2, counts, in_sum; 1-D; f32", [(t.name, t.ne, t.type) for t in g.tensors.values()] ==
       [(n + ".in_sum2", [40], 0), (n + ".counts", [1], 0), (n + ".in_sum", [40], 0)],
       [(t.name, t.ne, t.type) for t in g.tensors.values()])
t = g.tensors
report("in_sum2 = float32(numpy sum of x^2)", np.array_equal(t[n + ".in_sum2"].values, (X * X).sum(0).astype(np.float32))
       or relerr(t[n + ".in_sum2"].values, (X * X).sum(0)) < 2e-7, relerr(t[n + ".in_sum2"].values, (X * X).sum(0)))
report("in_sum = float32(numpy sum of x)", relerr(t[n + ".in_sum"].values, X.sum(0)) < 2e-7)
report("counts = 300", t[n + ".counts"].values.tolist() == [300.0])
report("every offset aligned, the data padded to 32 after the last tensor, nothing after",
       all(x.offset % 32 == 0 for x in t.values()) and g.data_end == g.size and g.data_start % 32 == 0)
PYEOF

if NM=$(sh tests/read/npm.sh @huggingface/gguf@0.4.6 2>"$T/npm.err"); then
  cat >"$T/hf.mjs" <<EOF
import { gguf } from "$NM/@huggingface/gguf/dist/index.mjs";
const r = await gguf(process.argv[2], { allowLocalFile: true });
console.log(JSON.stringify({ meta: r.metadata, tensors: r.tensorInfos, data: r.tensorDataOffset },
  (k, v) => typeof v === "bigint" ? Number(v) : v));
EOF
  for f in i.gguf l1.gguf; do
    node "$T/hf.mjs" "$T/$f" >"$T/$f.json" 2>"$T/hf.err" || not_ok "@huggingface/gguf reads $f" "$(cat "$T/hf.err")"
  done
  $PY - "$T" <<'PYEOF'
import sys, json
from hessian_lib import report
import gguf_spec as G
T = sys.argv[1]
for f in ("i.gguf", "l1.gguf"):
    h = json.load(open(f"{T}/{f}.json"))
    g = G.read(f"{T}/{f}")
    meta = {k: v for k, v in h["meta"].items() if k not in ("version", "tensor_count", "kv_count")}
    report(f"@huggingface/gguf reads {f}: keys and values as the spec reader",
           meta == {k: v[2] for k, v in g.kv.items()} and h["meta"]["version"] == 3, (meta, g.kv))
    report(f"@huggingface/gguf reads {f}: tensor names, shapes, types, offsets, data start",
           [(t["name"], t["shape"], t["dtype"], t["offset"]) for t in h["tensors"]] ==
           [(t.name, t.ne, t.type, t.offset) for t in g.tensors.values()] and h["data"] == g.data_start, h)
PYEOF
else
  skip "@huggingface/gguf" "npm package unavailable: $(head -c 200 "$T/npm.err")"
fi

# --merge: two llama-imatrix files and a cal-hessian result into one imatrix.
check "merge of llama-imatrix files and a result" cal-hessian --merge --imatrix "$T/m.gguf" \
  --imatrix-name blk.0.attn_q.weight "$T/l1.gguf" "$T/l2.gguf" "$T/r.st"
check "merge of llama-imatrix files alone" cal-hessian --merge --imatrix "$T/m2.gguf" "$T/l1.gguf" "$T/l2.gguf"
check "merge of a merged file again" cal-hessian --merge --imatrix "$T/m3.gguf" "$T/m2.gguf"
same "a merged file merged alone is unchanged" "$T/m2.gguf" "$T/m3.gguf"
$PY - "$T" <<'PYEOF'
import sys, numpy as np
from hessian_lib import report
import gguf_spec as G
T = sys.argv[1]
X = np.load(f"{T}/X.npy").astype(np.float64)
L = np.load(f"{T}/l.npz")
get = lambda k, i, n: L[f"{k}|{i}|{n}"]
g = G.read(f"{T}/m.gguf")
t = g.tensors
kv = {k: v[2] for k, v in g.kv.items()}
report("merged datasets in input order, chunks added", kv["imatrix.datasets"] == ["wiki.train.raw", "c4.txt", "code.txt", f"{T}/r.st"]
       and kv["imatrix.chunk_count"] == 10 + 5 + 2, kv)
report("merged tensors: names in byte order, in_sum only where every input had it",
       list(t) == ["blk.0.attn_q.weight.in_sum2", "blk.0.attn_q.weight.counts", "blk.0.ffn_up_exps.weight.in_sum2",
                   "blk.0.ffn_up_exps.weight.counts"], list(t))
# What llama-imatrix --in-file l1 --in-file l2 computes (float32 sums, int64
# counts, an old single count copied to each expert), in numpy.
q, e = "blk.0.attn_q.weight", "blk.0.ffn_up_exps.weight"
s2 = get(e, 0, "1").astype(np.float32) + get(e, 0, "2").astype(np.float32)
c = get(e, 2, "1").astype(np.int64) + np.int64(get(e, 2, "2")[0])
report("experts: in_sum2 [8, 4] = llama-imatrix's sum", t[e + ".in_sum2"].ne == [8, 4]
       and np.array_equal(t[e + ".in_sum2"].values, (get(e, 0, "1").astype(np.float64) + get(e, 0, "2")).astype(np.float32))
       and np.max(np.abs(t[e + ".in_sum2"].values - s2) / np.spacing(s2)) <= 1, str((t[e + ".in_sum2"].values, s2)))
report("experts: counts [1, 4] add, the old single count copied to each expert",
       t[e + ".counts"].ne == [1, 4] and t[e + ".counts"].values.ravel().tolist() == c.tolist(), str(t[e + ".counts"].values))
want = get(q, 0, "1")[0].astype(np.float64) + get(q, 0, "2")[0] + (X * X).sum(0)
report("dense: in_sum2 = float32 of the exact sum of three inputs", t[q + ".in_sum2"].ne == [40]
       and np.array_equal(t[q + ".in_sum2"].values, want.astype(np.float32)))
report("dense: counts add", t[q + ".counts"].values.tolist() == [5120 + 5120 + 300.0])
PYEOF

# Inputs llama.cpp's reader rejects, and values no writer makes.
$PY - "$T" <<'PYEOF'
import sys, struct, numpy as np
from hessian_lib import st_read, st_write
import gguf_spec as G
T = sys.argv[1]
g = G.read(f"{T}/m2.gguf")
last = list(g.tensors.values())[-1]
assert last.nbytes % 32
b = open(f"{T}/m2.gguf", "rb").read()
open(f"{T}/unpadded.gguf", "wb").write(b[:g.data_start + last.offset + last.nbytes])   # as calkit's old files end
b = open(f"{T}/i.gguf", "rb").read()
g = G.read(f"{T}/i.gguf")
def patch(name, tensor, i, v):
    t = g.tensors[tensor]
    at = g.data_start + t.offset + 4 * i
    open(f"{T}/{name}", "wb").write(b[:at] + struct.pack("<f", v) + b[at + 4:])
patch("negcount.gguf", "blk.0.attn_q.weight.counts", 0, -300.0)
patch("nan.gguf", "blk.0.attn_q.weight.in_sum2", 7, float("nan"))
patch("negsq.gguf", "blk.0.attn_q.weight.in_sum2", 3, -1.0)
t, meta = st_read(f"{T}/r.st")
def result(name, key, value):
    ts = {k: (("I64" if v.dtype == np.int64 else "F64" if v.dtype == np.float64 else "F32"), v.copy()) for k, v in t.items()}
    ts[key][1].flat[0] = value
    st_write(f"{T}/{name}", ts, meta)
result("negtok.st", "tokens", -5)
result("negrows.st", "rows", -1)
result("nanh.st", "hessian", np.nan)
result("negsumsq.st", "sumsq", -1.0)
PYEOF
expect_fail "an imatrix without the padding after the last tensor" 1 \
  "unpadded.gguf: byte [0-9]+: the data section needs [0-9]+ bytes \(each tensor padded to 32\), the file has" \
  cal-hessian --merge --imatrix "$T/x.gguf" "$T/unpadded.gguf"
expect_fail "negative count in a GGUF imatrix" 1 "negcount.gguf: byte [0-9]+: tensor 'blk.0.attn_q.weight.counts' value 0 \(-300\) is negative" \
  cal-hessian --merge --imatrix "$T/x.gguf" "$T/negcount.gguf"
expect_fail "NaN in a GGUF imatrix" 1 "nan.gguf: byte [0-9]+: tensor 'blk.0.attn_q.weight.in_sum2' value 7 \(nan\) is not finite" \
  cal-hessian --merge --imatrix "$T/x.gguf" "$T/nan.gguf"
expect_fail "negative sum of squares in a GGUF imatrix" 1 "value 3 \(-1\) is negative" \
  cal-hessian --merge --imatrix "$T/x.gguf" "$T/negsq.gguf"
expect_fail "negative tokens in a result" 1 "negtok.st: byte [0-9]+: tensor 'tokens' is negative \(-5\)" \
  cal-hessian --merge -o "$T/x.st" "$T/r.st" "$T/negtok.st"
expect_fail "negative rows in a result" 1 "negrows.st: byte [0-9]+: tensor 'rows' is negative" \
  cal-hessian --merge -o "$T/x.st" "$T/negrows.st"
expect_fail "NaN in a result's hessian" 1 "nanh.st: byte [0-9]+: tensor 'hessian' value 0 is not finite" \
  cal-hessian --merge -o "$T/x.st" "$T/nanh.st"
expect_fail "negative sumsq in a result" 1 "negsumsq.st: byte [0-9]+: tensor 'sumsq' value 0 is negative" \
  cal-hessian --merge -o "$T/x.st" "$T/negsumsq.st"
expect_fail "a GGUF input has no hessian for -o" 1 "l1.gguf: a GGUF imatrix holds no hessian" \
  cal-hessian --merge -o "$T/x.st" "$T/r.st" "$T/l1.gguf"
expect_fail "an unlabelled result needs --imatrix-name" 1 "needs a weight name \(--imatrix-name\)" \
  cal-hessian --merge --imatrix "$T/x.gguf" "$T/r.st"
expect_fail "a weight of another shape" 1 "'blk.0.ffn_up_exps.weight' has 1 x 40 values here and 4 x 8 before" \
  cal-hessian --merge --imatrix "$T/x.gguf" --imatrix-name blk.0.ffn_up_exps.weight "$T/l1.gguf" "$T/r.st"
[ -e "$T/x.gguf" ] || [ -e "$T/x.st" ] && not_ok "no output after an error" || ok "no output after an error"
expect_fail "--imatrix-name too long for ggml" 2 "--imatrix-name must have 1 to 55 bytes" \
  cal-hessian --imatrix "$T/x.gguf" --imatrix-name "$(printf 'w%.0s' $(seq 56))" "$T/x.cal"
