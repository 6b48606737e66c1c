#!/bin/sh
# cal-hessian --by-label: VECTORS records labelled with the weight they feed
# go to one accumulator per label, in one run: one result with every
# Hessian and statistic (against numpy), one imatrix with every weight
# (--gguf-names: llama.cpp's names, experts as rows of the 3-D weight);
# shards merged equal the whole; labels that cannot be used are errors.
. tests/lib.sh
export PYTHONPATH="$PWD/tests/sh:$PWD/tests/py"

$PY - "$T" <<'PYEOF' || not_ok "make fixtures"
import sys, numpy as np
from hessian_lib import *
T = sys.argv[1]
rng = np.random.default_rng(9)
L = {"model.layers.0.self_attn.q_proj": 16, "model.layers.0.mlp.down_proj": 24,
     "model.layers.0.mlp.experts.0.up_proj": 16, "model.layers.0.mlp.experts.2.up_proj": 16}
data = {k: [] for k in L}
recs = []
for step in range(6):            # one "row" of the model: a record per label (experts when routed)
    for k, d in L.items():
        if "experts.2" in k and step % 3:
            continue
        X = (rng.standard_normal((int(rng.integers(1, 9)), d)) * (1 + step)).astype(np.float32)
        data[k].append(X); recs.append((k, X))
np.savez(f"{T}/data.npz", **{k: np.concatenate(v) for k, v in data.items()})
for name, part in (("all", recs), ("p1", recs[:9]), ("p2", recs[9:])):
    with open(f"{T}/{name}.cal", "wb") as f:
        w = CalStreamWriter(f, {"source": "acts"})
        for k, X in part:
            w.vectors(k, X)
        w.close()
with open(f"{T}/nolabel.cal", "wb") as f:
    w = CalStreamWriter(f); w.vectors("model.layers.0.mlp.up_proj", np.ones((2, 4), np.float32)); w.vectors("", np.ones((2, 4), np.float32)); w.close()
with open(f"{T}/unknown.cal", "wb") as f:
    w = CalStreamWriter(f); w.vectors("model.layers.0.self_attn.q_norm", np.ones((2, 4), np.float32)); w.close()
PYEOF

check "one run, every label" cal-hessian --by-label --gguf-names --dtype f64 -o "$T/all.st" --imatrix "$T/all.gguf" "$T/all.cal"
check "shard 1" cal-hessian --by-label --dtype f64 -o "$T/p1.st" "$T/p1.cal"
check "shard 2" cal-hessian --by-label --dtype f64 -o "$T/p2.st" "$T/p2.cal"
check "shards merged" cal-hessian --merge --dtype f64 -o "$T/m.st" "$T/p1.st" "$T/p2.st"
check "shards merged into an imatrix" cal-hessian --merge --gguf-names --imatrix "$T/m.gguf" "$T/p1.st" "$T/p2.st"
expect_fail "transformers' labels as imatrix names are refused (llama-quantize would ignore them)" 1 \
  "imatrix entry 'model.layers.0.[a-z_.]*' has a transformers module name, which llama-quantize ignores: add --gguf-names" \
  cal-hessian --by-label --imatrix "$T/raw.gguf" "$T/p1.cal"
cal-hessian -v --by-label -o "$T/v.st" "$T/all.cal" 2>"$T/v.err"
grep -q "^cal-hessian: 4 hessians, d 16, " "$T/v.err" && ok "-v counts the labels" || not_ok "-v counts the labels" "$(cat "$T/v.err")"

$PY - "$T" <<'PYEOF'
import sys, numpy as np
from hessian_lib import *
import gguf_spec as G
T = sys.argv[1]
D = {k: v.astype(np.float64) for k, v in np.load(f"{T}/data.npz").items()}
t, meta = st_read(f"{T}/all.st")
ok = True
for k, X in D.items():
    ok &= relerr(t[k + ".hessian"], X.T @ X) < 1e-12 and relerr(t[k + ".sumsq"], (X * X).sum(0)) < 1e-12
    ok &= np.array_equal(t[k + ".absmax"], np.abs(X).max(0)) and int(t[k + ".tokens"][0]) == len(X)
    ok &= meta.get(k + ".hessian.d") == str(X.shape[1])
report("every label's hessian, sums, maxima and counts = numpy", ok)
report("rows per label", int(t["model.layers.0.self_attn.q_proj.rows"][0]) == 6
       and int(t["model.layers.0.mlp.experts.2.up_proj.rows"][0]) == 2)
m, _ = st_read(f"{T}/m.st")
report("shards merged = the whole, label by label",
       all(relerr(m[k], t[k]) < 1e-12 for k in t) and sorted(m) == sorted(t), sorted(set(m) ^ set(t)))
g = G.read(f"{T}/all.gguf")
ts = g.tensors
names = ["blk.0.attn_q.weight", "blk.0.ffn_down.weight", "blk.0.ffn_up_exps.weight"]
report("imatrix: llama.cpp's names, in byte order, each with in_sum2, counts, in_sum",
       list(ts) == [n + s for n in names for s in (".in_sum2", ".counts", ".in_sum")], list(ts))
q = D["model.layers.0.self_attn.q_proj"]
report("imatrix: a dense weight", ts["blk.0.attn_q.weight.in_sum2"].ne == [16]
       and relerr(ts["blk.0.attn_q.weight.in_sum2"].values, (q * q).sum(0)) < 1e-6
       and ts["blk.0.attn_q.weight.counts"].values.tolist() == [len(q)])
e0, e2 = D["model.layers.0.mlp.experts.0.up_proj"], D["model.layers.0.mlp.experts.2.up_proj"]
x = ts["blk.0.ffn_up_exps.weight.in_sum2"]
want = np.stack([(e0 * e0).sum(0), np.zeros(16), (e2 * e2).sum(0)])
report("imatrix: experts as rows [16, 3], the one never seen empty", x.ne == [16, 3] and relerr(x.values, want) < 1e-6
       and ts["blk.0.ffn_up_exps.weight.counts"].values.ravel().tolist() == [len(e0), 0, len(e2)])
report("imatrix: chunks = the most rows of a label", g.kv["imatrix.chunk_count"][2] == 6, g.kv)
gm = G.read(f"{T}/m.gguf")
report("imatrix of merged shards = the whole's",
       all(np.array_equal(gm.tensors[k].values, ts[k].values) for k in ts) and list(gm.tensors) == list(ts))
import os
report("without --gguf-names no imatrix is written", not os.path.exists(f"{T}/raw.gguf"))
PYEOF

expect_fail "a record without a label" 1 "nolabel.cal: byte [0-9]+: VECTORS record has no label" \
  cal-hessian --by-label -o "$T/x.st" "$T/nolabel.cal"
expect_fail "a label --gguf-names does not know" 1 "label 'model.layers.0.self_attn.q_norm' is not a module name" \
  cal-hessian --by-label --gguf-names --imatrix "$T/x.gguf" "$T/unknown.cal"
expect_fail "--by-label with --embed" 2 "--by-label takes VECTORS records" \
  cal-hessian --by-label --embed m.safetensors -o "$T/x.st" "$T/all.cal"
[ -e "$T/x.st" ] || [ -e "$T/x.gguf" ] && not_ok "no output after an error" || ok "no output after an error"
