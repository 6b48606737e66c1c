#!/bin/sh
# examples/dump-activations.py --all-linear on a tiny random Llama-like model
# (tests/py/tiny_llama.py: transformers' module names, a MoE layer), rows from
# a calkit stream, into cal-hessian --by-label --gguf-names: every layer's
# H = X^T X and its imatrix sums against numpy on the layers' inputs taken by
# forward pre-hooks. Needs python3-torch (skipped without it).
. tests/lib.sh
export PYTHONPATH="$PWD/tests/sh:$PWD/tests/py"
if ! $PY -c "import torch" 2>/dev/null; then skip "dump-activations.py --all-linear" "python3-torch is missing"; exit 0; fi
$PY - "$T" <<'PYEOF' || not_ok "make model and rows"
import sys, numpy as np, torch
from hessian_lib import CalStreamWriter
from tiny_llama import TinyLlama
sys.path.insert(0, "examples")
keep_rows = __import__("dump-activations").keep_rows
T = sys.argv[1]
torch.manual_seed(0)
m = TinyLlama(moe=True).eval()
torch.save(m, f"{T}/m.pt")
rng = np.random.default_rng(1)
rows = [(rng.integers(0, 100, n).tolist(), mk, noise) for n, mk, noise in
        [(12, None, False), (12, [0, 0, 0] + [1] * 9, False), (12, None, True),
         (8, None, False), (8, [1] * 6 + [0, 0], False), (12, None, False)]]
with open(f"{T}/rows.cal", "wb") as f:
    w = CalStreamWriter(f, {"tokenizer": "t", "stage": "test"})
    for ids, mk, noise in rows:
        w.row("wiki", ids, mk, noise)
    w.close()
# The reference: the same batches (2 rows of one length at a time, the noise
# row skipped), each Linear's input taken by a forward pre-hook at the
# unpadded positions, in float64.
X, cur = {}, {}
def pre(name):
    def f(mod, inp):
        x = inp[0]
        if cur["mask"] is not None:
            x = torch.cat(keep_rows(x, cur["mask"])[0])
        X.setdefault(name, []).append(x.reshape(-1, x.shape[-1]).double().numpy())
    return f
for n, mod in m.named_modules():
    if isinstance(mod, torch.nn.Linear):
        mod.register_forward_pre_hook(pre(n))
kept = [r for r in rows if not r[2]]
with torch.no_grad():
    for b in (kept[0:2], kept[2:4], kept[4:5]):
        ids = torch.tensor([r[0] for r in b])
        mask = torch.tensor([r[1] or [1] * len(r[0]) for r in b]) != 0
        cur["mask"] = mask if any(r[1] for r in b) else None
        m(ids, attention_mask=mask.long())
np.savez(f"{T}/X.npz", **{k: np.concatenate(v) for k, v in X.items()})
PYEOF
$PY examples/dump-activations.py --model "$T/m.pt" --all-linear --process-output --rows "$T/rows.cal" --batch 2 \
  >"$T/act.cal" 2>"$T/dump.err"
eq "dump-activations.py says it skipped the noise row" "$(grep -c '^dump-activations.py: skipped 1 noise rows$' "$T/dump.err")" 1
eq "and that the experts' routed tokens keep their padding" "$(grep -c 'experts.*padded positions are kept' "$T/dump.err")" \
  "$(grep -c 'experts' "$T/dump.err")"
check "activations | cal-hessian --by-label --gguf-names" \
  cal-hessian --by-label --gguf-names --dtype f64 -o "$T/h.st" --imatrix "$T/im.gguf" "$T/act.cal"
$PY - "$T" <<'PYEOF'
import re, sys, numpy as np
import gguf_spec as G
from hessian_lib import st_read, close, report
T = sys.argv[1]
X = dict(np.load(f"{T}/X.npz"))
t, meta = st_read(f"{T}/h.st")
labels = sorted(k[:-len(".hessian")] for k in t if k.endswith(".hessian"))
report("one Hessian per Linear that saw tokens (experts without tokens have none)", labels == sorted(X),
       (labels, sorted(X)))
report("the model has 7 linear layers in layer 0, a router and experts in layer 1, lm_head",
       "model.layers.0.mlp.down_proj" in X and "model.layers.1.mlp.gate" in X and "lm_head" in X
       and any(".experts." in k for k in X), sorted(X))
worst = max(np.max(np.abs(t[k + ".hessian"] - X[k].T @ X[k])) / np.max(np.abs(X[k].T @ X[k])) for k in X)
report("H = X^T X for every layer (numpy, float64), padded positions dropped", worst < 1e-9, worst)
report("rows per layer: one record per row of each batch", all(int(t[k + ".rows"][0]) == 5 for k in X
       if ".experts." not in k), {k: t[k + ".rows"] for k in X})
report("token counts per layer", all(int(t[k + ".tokens"][0]) == len(X[k]) for k in X if ".experts." not in k)
       and len(X["lm_head"]) == 12 + 9 + 8 + 6 + 12, {k: len(v) for k, v in X.items()})
g = G.read(f"{T}/im.gguf")
def gname(k):
    k = re.sub(r"^model\.layers\.(\d+)\.", r"blk.\1.", k)
    for a, b in (("self_attn.q_proj", "attn_q"), ("self_attn.k_proj", "attn_k"), ("self_attn.v_proj", "attn_v"),
                 ("self_attn.o_proj", "attn_output"), ("mlp.gate_proj", "ffn_gate"), ("mlp.up_proj", "ffn_up"),
                 ("mlp.down_proj", "ffn_down"), ("mlp.gate", "ffn_gate_inp")):
        if k.endswith(a):
            return k[:-len(a)] + b + ".weight"
    if k == "lm_head":
        return "output.weight"
    e = re.match(r"(blk\.\d+\.)mlp\.experts\.(\d+)\.(gate|up|down)_proj$", k)
    return (e.group(1) + "ffn_%s_exps.weight" % e.group(3), int(e.group(2)))
bad = []
for k, x in X.items():
    n = gname(k)
    if isinstance(n, tuple):
        s2 = g.tensors[n[0] + ".in_sum2"].values[n[1]]
        c = g.tensors[n[0] + ".counts"].values.reshape(-1)[n[1]]
    else:
        s2, c = g.tensors[n + ".in_sum2"].values.reshape(-1), g.tensors[n + ".counts"].values.reshape(-1)[0]
    want = (x ** 2).sum(0)
    if np.max(np.abs(s2 - want)) > 1e-5 * np.max(want) or c != len(x):
        bad.append((k, n, float(c), len(x)))
report("imatrix: every layer under llama.cpp's name, in_sum2 = sum x^2 and counts (experts as rows)", not bad, bad)
n_exps = g.tensors["blk.1.ffn_up_exps.weight.in_sum2"].values.shape
report("the expert weights' imatrix rows: [experts, d]", n_exps == (4, 16), n_exps)
PYEOF
$PY examples/dump-activations.py --model "$T/m.pt" --all-linear --rows "$T/rows.cal" 2>/dev/null | cal-cat --json >"$T/nolm.json"
eq "--all-linear without --process-output leaves lm_head out, as llama-imatrix does" \
  "$(grep -c '"label":"lm_head"' "$T/nolm.json") $(grep -c '"label":"model.layers.0.mlp.down_proj"' "$T/nolm.json")" "0 5"
$PY -c "
import sys, torch; sys.path.insert(0, 'tests/py'); from tiny_llama import TinyLlama
torch.manual_seed(3); m = TinyLlama(vocab=100, layers=1).eval()
torch.jit.trace(m, torch.zeros((1, 4), dtype=torch.long), check_trace=False).save(sys.argv[1])" "$T/ts.pt" 2>/dev/null
expect_fail "a TorchScript model is refused, saying what to give" 1 "ts.pt is TorchScript, whose layers take no forward hooks: save the model itself with torch.save\\(model\\)" \
  $PY examples/dump-activations.py --model "$T/ts.pt" --all-linear --rows "$T/rows.cal"
expect_fail "unknown layer" 1 "no layer 'nope'" $PY examples/dump-activations.py --model "$T/m.pt" --layer nope --rows "$T/rows.cal"
$PY examples/dump-activations.py --model "$T/m.pt" --layer lm_head --all-linear --rows "$T/rows.cal" 2>"$T/err"
eq "--layer and --all-linear exclude each other (status 2)" "$? $(tail -1 "$T/err")" \
  "2 dump-activations.py: error: give --layer NAME (one or more) or --all-linear"

# ---- examples/imatrix.sh: text -> rows -> activations -> one imatrix.gguf ----
mkdir -p "$T/tok"
$PY - "$T" <<'PYEOF' || not_ok "make corpus and model"
import sys, random, torch
from hessian_lib import CalStreamWriter
import calstream as cs
from tiny_llama import TinyLlama
T = sys.argv[1]
r = random.Random(5)
meta = [("tokenizer", "test"), ("tokenizer_fp", "00000000000000aa"), ("vocab", "500"), ("bos", "1"), ("eos", "2")]
cs.write(f"{T}/tok/wiki,--join,\\n\\n.cal", meta, [cs.tokens("wiki", i, [r.randrange(3, 500) for _ in range(r.randrange(20, 90))])
                                     for i in range(40)])
torch.manual_seed(2)
torch.save(TinyLlama(vocab=500, layers=2).eval(), f"{T}/m500.pt")
PYEOF
CAL_TOKENS_DIR="$T/tok" sh examples/imatrix.sh -m "$T/m500.pt" -n 6 -l 64 -b 2 -o "$T/ex.gguf" -H "$T/ex.st" >"$T/ex.out" 2>&1
eq "imatrix.sh runs and says what it wrote" "$? $(tail -1 "$T/ex.out")" \
  "0 imatrix of every linear layer: 6 rows of 64 tokens (llama-imatrix's chunks) from wiki -> $T/ex.gguf"
# By hand, the same stages: the example must give the same bytes.
cal-pack -l 64 --mode llama -n 6 --allow-short "$T/tok/wiki,--join,\n\n.cal" -o "$T/r.cal" 2>/dev/null
$PY examples/dump-activations.py --model "$T/m500.pt" --all-linear --rows "$T/r.cal" --batch 2 |
  cal-hessian --by-label --gguf-names --imatrix "$T/hand.gguf"
$PY - "$T" <<'PYEOF'
import sys, numpy as np
import gguf_spec as G
from hessian_lib import report
T = sys.argv[1]
g, h = G.read(f"{T}/ex.gguf"), G.read(f"{T}/hand.gguf")
names = sorted({n.rsplit(".", 1)[0] for n in g.tensors})
want = sorted(["blk.%d.%s.weight" % (i, w) for i in (0, 1) for w in
               ("attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down")])
report("imatrix.sh: one imatrix with every linear layer but output.weight, under llama.cpp's names (strict GGUF read)",
       names == want, names)
report("imatrix.sh: counts are the rows' tokens", all(float(g.tensors[n + ".counts"].values.reshape(-1)[0]) == 6 * 64
                                                     for n in want), "")
report("imatrix.sh: chunk_count = rows (one record per row of a batch)", g.kv["imatrix.chunk_count"][-1] == 6,
       g.kv.get("imatrix.chunk_count"))
report("imatrix.sh: the same values as the stages run by hand",
       all(np.array_equal(g.tensors[n].values, h.tensors[n].values) for n in g.tensors), "")
PYEOF
check "imatrix.sh -H writes the per-layer Hessians too" sh -c "$PY tests/py/safetensors_read.py '$T/ex.st' | grep -q 'model.layers.1.mlp.down_proj.hessian'"
sh examples/imatrix.sh -o "$T/x.gguf" >/dev/null 2>&1
eq "imatrix.sh without -m prints the usage (status 2)" "$?" 2
