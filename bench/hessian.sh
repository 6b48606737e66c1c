#!/bin/sh
# bench/hessian.sh - cal-hessian against the BLAS it uses, in one run:
#   1. cal-hessian end to end (stream file -> result) on n=32768 x d=4096 f32
#      VECTORS, against OpenBLAS dsyrk on the same shape (one call, all
#      threads; target: >= 80%), cal-hessian's own tiled BLAS work on rows in
#      memory (psyrk.c, no reading or decoding), ssyrk for reference, and
#      numpy X.T @ X: on float64 rows already in memory, and from the same
#      f32 data in a .npy file (load, to float64, product);
#   2. the distinct-token path against the per-position path on 128 x 2048
#      tokens (Zipf-distributed ids) with a 128k x 4096 bf16 embedding table
#      (target: >= 5x).
# Flops are counted as n*d*(d+1). The machine drifts, so only the ratios
# measured here mean anything. Needs ~3 GB of disk in $TMPDIR and ~3 GB RAM.
. "$(dirname "$0")/lib/preamble.sh"
N=32768 D=4096
mkdir -p build/bench
make -s build/obj/libcal.a
cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Icommon $(pkg-config --cflags openblas) -o build/bench/syrk_peak \
  bench/syrk_peak.c build/obj/libcal.a $(pkg-config --libs openblas) -lpthread -lm

echo "== data: $N x $D f32 VECTORS stream (and the same rows as .npy)"
PYTHONPATH=$PWD/tests/sh $PY - "$W" "$N" "$D" <<'PYEOF'
import sys, numpy as np
from hessian_lib import CalStreamWriter
W, n, d = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(7)
X = rng.standard_normal((n, d), dtype=np.float32)
np.save(f"{W}/x.npy", X)
with open(f"{W}/x.cal", "wb") as f:
    w = CalStreamWriter(f, {"source": "bench"})
    for i in range(0, n, 2048):
        w.vectors("x", X[i:i + 2048])
    w.close()
PYEOF

# cal-hessian picks its kernels itself (see OPENBLAS_CORETYPE in the man
# page); the BLAS anchors run with the same ones. The anchor, the program,
# its in-memory tiles and both numpy runs alternate for three rounds (the
# machine drifts); the ratios are the medians of the ratios within a round.
core=$("$BIN/cal-hessian" -v -o "$W/h.st" "$W/x.cal" 2>&1 | sed -n 's/.*(\(.*\) kernels).*/\1/p')
echo "cal-hessian uses OpenBLAS '$core' kernels"
if grep -qw avx512f /proc/cpuinfo; then
  other=$( [ "$core" = SkylakeX ] && echo Haswell || echo SkylakeX )
else
  other=
fi
PYTHONPATH=$PWD/tests/sh $PY - "$W" "$N" "$D" "$BIN" "$core" "$other" <<'PYEOF'
import os, subprocess, sys, time
import numpy as np
W, n, d, BIN, core, other = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
fl = n * d * (d + 1)
def peak(kind, ct=core):
    env = dict(os.environ, OPENBLAS_CORETYPE=ct)
    return float(subprocess.run(["build/bench/syrk_peak", str(n), str(d), kind], env=env,
                                capture_output=True, text=True, check=True).stdout.split()[0])
def cal():
    t = time.perf_counter()
    subprocess.run([f"{BIN}/cal-hessian", "-o", f"{W}/h.st", f"{W}/x.cal"], check=True)
    return fl / (time.perf_counter() - t) / 1e9
def npy(X):
    t = time.perf_counter(); X.T @ X
    return fl / (time.perf_counter() - t) / 1e9
def npy_file():
    t = time.perf_counter()
    X = np.load(f"{W}/x.npy").astype(np.float64); X.T @ X
    return fl / (time.perf_counter() - t) / 1e9
X64 = np.load(f"{W}/x.npy").astype(np.float64)
pk, cl, ti, n64, nf = [], [], [], [], []
for _ in range(3):
    pk.append(peak("d")); cl.append(cal()); ti.append(peak("p")); n64.append(npy(X64)); nf.append(npy_file())
del X64
X32 = np.load(f"{W}/x.npy")
n32 = npy(X32); sp = peak("s")
del X32
med = lambda v: sorted(v)[len(v) // 2]
runs = lambda v: " ".join(f"{x:.1f}" for x in v)
rat = lambda a, b: med([x / y for x, y in zip(a, b)])
p, c, f64 = med(pk), med(cl), med(n64)
print(f"cal-hessian end to end (read + decode + BLAS + write): {c:.1f} GFLOP/s   (runs: {runs(cl)})")
print(f"OpenBLAS dsyrk {n}x{d}, one call: {p:.1f} GFLOP/s (runs: {runs(pk)})   ssyrk: {sp:.1f} GFLOP/s")
print(f"cal-hessian's tiles (psyrk) on rows in memory: {med(ti):.1f} GFLOP/s (runs: {runs(ti)})")
if other:
    print(f"dsyrk with {other} kernels instead: {peak('d', other):.1f} GFLOP/s")
else:
    print("(no AVX-512 on this CPU: the SkylakeX kernels do not apply)")
print(f"numpy X.T@X float64, rows in memory: {f64:.1f} GFLOP/s (runs: {runs(n64)})   float32: {n32:.1f} GFLOP/s")
print(f"numpy from the .npy file (load + float64 + X.T@X): {med(nf):.1f} GFLOP/s (runs: {runs(nf)})")
print(f"RATIO cal-hessian / dsyrk peak         = {rat(cl, pk):.2f}  (target >= 0.80)")
print(f"RATIO cal-hessian tiles / dsyrk peak   = {rat(ti, pk):.2f}  (the tiling alone)")
print(f"RATIO cal-hessian / numpy float64      = {rat(cl, n64):.2f}  (numpy's rows already in memory as float64)")
print(f"RATIO cal-hessian / numpy from file    = {rat(cl, nf):.2f}")
print(f"RATIO cal-hessian / numpy float32      = {c / n32:.2f}  (numpy float32 runs ssyrk: float32 sums, ~1e-7 relative error)")
PYEOF
rm -f "$W/x.cal" "$W/x.npy"

echo "== distinct-token vs per-position: 128 x 2048 tokens, vocab 131072, d 4096, bf16 table"
PYTHONPATH=$PWD/tests/sh $PY - "$W" <<'PYEOF'
import sys, numpy as np
from hessian_lib import CalStreamWriter, st_write
W = sys.argv[1]
V, d = 131072, 4096
rng = np.random.default_rng(3)
E = rng.integers(0x3c00, 0x3d80, (V, d), dtype=np.uint16)   # bf16 bits of values in [0.0078, 0.0625)
E |= rng.integers(0, 2, (V, d), dtype=np.uint16) << 15
st_write(f"{W}/emb.safetensors", {"model.embed_tokens.weight": ("BF16", E)})
del E
ids = np.minimum(rng.zipf(1.2, (128, 2048)) - 1, V - 1).astype(np.uint32)
print(f"distinct tokens: {len(np.unique(ids))} of {ids.size} positions")
with open(f"{W}/tok.cal", "wb") as f:
    w = CalStreamWriter(f, {"source": "zipf"})
    for r in ids:
        w.row("r", r.tolist())
    w.close()
PYEOF
t0=$(date +%s.%N); "$BIN/cal-hessian" --embed "$W/emb.safetensors" -o "$W/d.st" "$W/tok.cal"; t1=$(date +%s.%N)
"$BIN/cal-hessian" --embed "$W/emb.safetensors" --per-position -o "$W/p.st" "$W/tok.cal"; t2=$(date +%s.%N)
$PY - "$t0" "$t1" "$t2" <<'PYEOF'
import sys
t0, t1, t2 = map(float, sys.argv[1:])
print(f"distinct-token: {t1 - t0:.2f} s   per-position: {t2 - t1:.2f} s")
print(f"RATIO per-position / distinct-token time = {(t2 - t1) / (t1 - t0):.1f}  (target >= 5)")
PYEOF
