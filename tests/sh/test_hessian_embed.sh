#!/bin/sh
# cal-hessian with --embed: TOKENS/ROW records through a tiny checkpoint
# (f32, bf16, f16, sharded), RMSNorm, padding and noise rows, and the
# distinct-token path against the per-position path and numpy; the embedding
# found by name suffix (single file and sharded), and the errors for several
# candidates and for missing tensors (close names).
. tests/lib.sh
export PYTHONPATH="$PWD/tests/sh"

$PY - "$T" <<'PYEOF' || not_ok "make fixtures"
import sys, numpy as np
from hessian_lib import *
T = sys.argv[1]
for dt in ("F32", "BF16", "F16"):
    E, g = tiny_model(f"{T}/m_{dt}.safetensors", dtype=dt)
    np.save(f"{T}/E_{dt}.npy", E); np.save(f"{T}/g_{dt}.npy", g)
tiny_model(f"{T}/sharded", dtype="BF16", shards=2)
# Found only by the suffix embed_tokens.weight; the same E as m_F32 / m_BF16.
tiny_model(f"{T}/prefixed.safetensors", embed=("model.text_model.embed_tokens.weight",))
tiny_model(f"{T}/prefixed", dtype="BF16", shards=2, embed=("model.text_model.embed_tokens.weight",))
tiny_model(f"{T}/ambiguous", dtype="BF16", shards=2,
           embed=("model.text_model.embed_tokens.weight", "model.vision_model.embed_tokens.weight"))
tiny_model(f"{T}/noembed", dtype="BF16", shards=2, embed=("model.embed.weight",))
open(f"{T}/empty.index.json", "w").write('{"weight_map": {}}')
rng = np.random.default_rng(5)
# Zipf-like ids, so tokens repeat as in text.
ids = np.minimum(rng.zipf(1.3, 3000) - 1, 999).astype(np.uint32)
mask = np.ones(3000, np.uint8); mask[1000:1037] = 0; mask[1500:1510] = 0
with open(f"{T}/tok.cal", "wb") as f:
    w = CalStreamWriter(f, {"source": "zipf", "vocab": "1000"})
    w.tokens("doc", ids[:1000].tolist())
    w.row("r1", ids[1000:2000].tolist(), mask=mask[1000:2000].tolist())
    w.row("noise", [0] * 64, noise=True)
    w.row("r2", ids[2000:].tolist())
    w.close()
np.save(f"{T}/ids.npy", ids)
keep = np.ones(3000, bool); keep[1000:2000] = mask[1000:2000] == 1
np.save(f"{T}/keep.npy", keep)
with open(f"{T}/big.cal", "wb") as f:
    CalStreamWriter(f).tokens("x", [1000]).close()
with open(f"{T}/text.cal", "wb") as f:
    CalStreamWriter(f).record(1, "t", b"hello").close()
PYEOF

M=$T/m_F32.safetensors
check "distinct-token path" cal-hessian --embed "$M" --dtype f64 -o "$T/d.st" "$T/tok.cal"
check "per-position path" cal-hessian --embed "$M" --per-position --dtype f64 -o "$T/p.st" "$T/tok.cal"
check "rmsnorm, distinct" cal-hessian --embed "$M" --rmsnorm model.layers.0.input_layernorm.weight --eps 1e-5 \
  --dtype f64 -o "$T/rd.st" "$T/tok.cal"
check "rmsnorm, per-position" cal-hessian --embed "$M:model.embed_tokens.weight" --per-position \
  --rmsnorm model.layers.0.input_layernorm.weight --eps 1e-5 --dtype f64 -o "$T/rp.st" "$T/tok.cal"
check "bf16 table" cal-hessian --embed "$T/m_BF16.safetensors" --dtype f64 -o "$T/b.st" "$T/tok.cal"
check "f16 table" cal-hessian --embed "$T/m_F16.safetensors" --dtype f64 -o "$T/h.st" "$T/tok.cal"
check "sharded (index.json)" cal-hessian --embed "$T/sharded/model.safetensors.index.json" --dtype f64 -o "$T/s1.st" "$T/tok.cal"
check "sharded (folder)" cal-hessian --embed "$T/sharded" --rmsnorm model.layers.0.input_layernorm.weight \
  --dtype f64 -o "$T/s2.st" "$T/tok.cal"
check "bf16 table + rmsnorm" cal-hessian --embed "$T/m_BF16.safetensors" --rmsnorm model.layers.0.input_layernorm.weight \
  --dtype f64 -o "$T/brd.st" "$T/tok.cal"
check "suffix, single file" cal-hessian --embed "$T/prefixed.safetensors" --dtype f64 -o "$T/x1.st" "$T/tok.cal"
check "suffix, sharded (folder)" cal-hessian --embed "$T/prefixed" --dtype f64 -o "$T/x2.st" "$T/tok.cal"
check "suffix, sharded (index.json)" cal-hessian --embed "$T/prefixed/model.safetensors.index.json" \
  --dtype f64 -o "$T/x3.st" "$T/tok.cal"
check "several candidates, one named" cal-hessian --embed "$T/ambiguous:model.vision_model.embed_tokens.weight" \
  --dtype f64 -o "$T/x4.st" "$T/tok.cal"

$PY - "$T" <<'PYEOF'
import sys, numpy as np
from hessian_lib import *
T = sys.argv[1]
ids = np.load(f"{T}/ids.npy"); keep = np.load(f"{T}/keep.npy")
def ref(dt, norm=False, eps=1e-6):
    E = np.load(f"{T}/E_{dt}.npy"); g = np.load(f"{T}/g_{dt}.npy")
    X = E[ids[keep]]
    if norm: X = rmsnorm(X, g, eps)
    return X
X = ref("F32")
d, _ = st_read(f"{T}/d.st"); p, meta = st_read(f"{T}/p.st")
close("per-position H = numpy", p["hessian"], X.T @ X, 1e-9)
close("distinct-token H = numpy", d["hessian"], X.T @ X, 1e-9)
close("distinct-token = per-position (H)", d["hessian"], p["hessian"], 1e-12)
for k in ("sum", "sumsq", "abssum"):
    close(f"distinct-token = per-position ({k})", d[k], p[k], 1e-12)
report("distinct-token = per-position (absmax)", np.array_equal(d["absmax"], p["absmax"]))
report("absmax = numpy", np.array_equal(d["absmax"], np.abs(X).max(0)))
report("padding and noise excluded and counted",
       int(d["tokens"][0]) == int(keep.sum()) == 3000 - 47 and int(d["padding"][0]) == 47
       and int(d["noise_rows"][0]) == 1 and int(d["rows"][0]) == 3,
       {k: int(d[k][0]) for k in ("tokens", "padding", "noise_rows", "rows")})
report("per-position counts the same", all(int(d[k][0]) == int(p[k][0]) for k in ("tokens", "padding", "noise_rows", "rows")))
report("metadata names the embedding tensor", meta.get("hessian_input") == "model.embed_tokens.weight" and meta.get("source") == "zipf", meta)
Xr = ref("F32", True, 1e-5)
rd, _ = st_read(f"{T}/rd.st"); rp, _ = st_read(f"{T}/rp.st")
close("rmsnorm H = numpy", rd["hessian"], Xr.T @ Xr, 1e-9)
close("rmsnorm distinct = per-position", rd["hessian"], rp["hessian"], 1e-12)
close("rmsnorm sum", rd["sum"], Xr.sum(0), 1e-9)
Xb = ref("BF16"); b, _ = st_read(f"{T}/b.st")
close("bf16 table H = numpy", b["hessian"], Xb.T @ Xb, 1e-9)
Xh = ref("F16"); h, _ = st_read(f"{T}/h.st")
close("f16 table H = numpy", h["hessian"], Xh.T @ Xh, 1e-9)
s1, _ = st_read(f"{T}/s1.st")
report("sharded = single file", np.array_equal(s1["hessian"], b["hessian"]))
Xbr = ref("BF16", True); s2, _ = st_read(f"{T}/s2.st")
close("sharded folder + rmsnorm = numpy", s2["hessian"], Xbr.T @ Xbr, 1e-9)
for f, dt, name in (("x1", "F32", "model.text_model.embed_tokens.weight"),
                    ("x2", "BF16", "model.text_model.embed_tokens.weight"),
                    ("x3", "BF16", "model.text_model.embed_tokens.weight"),
                    ("x4", "BF16", "model.vision_model.embed_tokens.weight")):
    X = ref(dt); r, meta = st_read(f"{T}/{f}.st")
    close(f"{f}: H = numpy", r["hessian"], X.T @ X, 1e-9)
    report(f"{f}: metadata names {name}", meta.get("hessian_input") == name, meta)
PYEOF

# fails_with NAME LINE CMD...: CMD exits 1 and its stderr is exactly LINE.
fails_with() {
  n=$1 want=$2; shift 2
  "$@" >"$T/.out" 2>"$T/.err"; rc=$?
  eq "$n" "$rc: $(cat "$T/.err")" "1: $want"
}
fails_with "several candidates: an error naming them" \
  "cal-hessian: $T/ambiguous: 2 tensors could be the embedding ('model.text_model.embed_tokens.weight', 'model.vision_model.embed_tokens.weight'); name one as MODEL:TENSOR" \
  cal-hessian --embed "$T/ambiguous" -o "$T/x.st" "$T/tok.cal"
fails_with "no embedding found: close names of the usual one" \
  "cal-hessian: $T/noembed: no tensor 'model.embed_tokens.weight'; close names: 'model.embed.weight'" \
  cal-hessian --embed "$T/noembed" -o "$T/x.st" "$T/tok.cal"
fails_with "an index with no tensors" \
  "cal-hessian: $T/empty.index.json: no tensor 'model.embed_tokens.weight'" \
  cal-hessian --embed "$T/empty.index.json" -o "$T/x.st" "$T/tok.cal"
fails_with "unknown tensor, single file: the close name" \
  "cal-hessian: $M: no tensor 'model.embed_token.weight'; close names: 'model.embed_tokens.weight'" \
  cal-hessian --embed "$M:model.embed_token.weight" -o "$T/x.st" "$T/tok.cal"
fails_with "unknown tensor, single file: three close names, closest first" \
  "cal-hessian: $M: no tensor 'weight'; close names: 'model.embed_tokens.weight', 'model.layers.0.input_layernorm.weight', 'model.layers.0.self_attn.q_proj.weight'" \
  cal-hessian --embed "$M:weight" -o "$T/x.st" "$T/tok.cal"
fails_with "unknown tensor, sharded: the close name" \
  "cal-hessian: $T/sharded/model.safetensors.index.json: no tensor 'model.embed_token.weight'; close names: 'model.embed_tokens.weight'" \
  cal-hessian --embed "$T/sharded/model.safetensors.index.json:model.embed_token.weight" -o "$T/x.st" "$T/tok.cal"
fails_with "unknown tensor, sharded: at most three close names, ties by name" \
  "cal-hessian: $T/ambiguous: no tensor 'weight'; close names: 'model.text_model.embed_tokens.weight', 'model.layers.0.input_layernorm.weight', 'model.layers.0.self_attn.q_proj.weight'" \
  cal-hessian --embed "$T/ambiguous:weight" -o "$T/x.st" "$T/tok.cal"
expect_fail "unknown rmsnorm tensor" 1 "no tensor 'model.layers.0.input_norm.weight'.*input_layernorm" \
  cal-hessian --embed "$M" --rmsnorm model.layers.0.input_norm.weight -o "$T/x.st" "$T/tok.cal"
expect_fail "rmsnorm of the wrong shape" 1 "must have shape \[64\]" \
  cal-hessian --embed "$M" --rmsnorm model.layers.0.self_attn.q_proj.weight -o "$T/x.st" "$T/tok.cal"
expect_fail "token id outside the table" 1 "big.cal: byte [0-9]+: token id 1000 is outside the embedding table" \
  cal-hessian --embed "$M" -o "$T/x.st" "$T/big.cal"
expect_fail "tokens without --embed" 1 "TOKENS records need --embed" cal-hessian -o "$T/x.st" "$T/tok.cal"
expect_fail "TEXT input" 1 "got TEXT" cal-hessian --embed "$M" -o "$T/x.st" "$T/text.cal"
expect_fail "missing model" 1 "nope.safetensors" cal-hessian --embed "$T/nope.safetensors" -o "$T/x.st" "$T/tok.cal"
