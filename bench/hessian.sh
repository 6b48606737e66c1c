#!/bin/sh
# bench/hessian.sh - cal-hessian against the BLAS it uses, in one run:
#   1. cal-hessian end to end (stream file -> result) on n=32768 x d=4096 f32
#      VECTORS, against OpenBLAS dsyrk on the same shape with the same
#      kernels (target: >= 80%), ssyrk for reference, and numpy X.T @ X in
#      float32 and float64;
#   2. the distinct-token path against the per-position path on 128 x 2048
#      tokens (Zipf-distributed ids) with a 128k x 4096 bf16 embedding table
#      (target: >= 5x).
# Flops are counted as n*d*(d+1). The machine drifts, so only the ratios
# measured here mean anything. Needs ~2.5 GB of disk in $TMPDIR and ~3 GB RAM.
set -eu
cd "$(dirname "$0")/.."
BIN=${CAL_BIN:-$PWD/bin}
PY=/usr/bin/python3
W=$(mktemp -d "${TMPDIR:-/tmp}/calbench.XXXXXX")
trap 'rm -rf "$W"' EXIT
N=32768 D=4096
mkdir -p build/bench
cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L $(pkg-config --cflags openblas) -o build/bench/syrk_peak \
  bench/syrk_peak.c $(pkg-config --libs openblas)

echo "== data: $N x $D f32 VECTORS stream"
PYTHONPATH=$PWD/tests/sh $PY - "$W" "$N" "$D" <<'PYEOF'
import sys, numpy as np
from hessian_lib import CalStreamWriter
W, n, d = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(7)
with open(f"{W}/x.cal", "wb") as f:
    w = CalStreamWriter(f, {"source": "bench"})
    for i in range(0, n, 2048):
        w.vectors("x", rng.standard_normal((min(2048, n - i), d), dtype=np.float32))
PYEOF

# cal-hessian picks its kernels itself (see OPENBLAS_CORETYPE in the man
# page); the BLAS anchor runs with the same ones.
out=$("$BIN/cal-hessian" -v -o "$W/h.st" "$W/x.cal" 2>&1)
core=$(echo "$out" | sed -n 's/.*(\(.*\) kernels).*/\1/p')
echo "cal-hessian uses OpenBLAS '$core' kernels"
peak() { OPENBLAS_CORETYPE=$core build/bench/syrk_peak "$N" "$D" "$1" | cut -d' ' -f1; }
# Alternate anchor and program; keep the best of two of each.
p1=$(peak d)
t0=$(date +%s.%N); "$BIN/cal-hessian" -o "$W/h.st" "$W/x.cal"; t1=$(date +%s.%N)
p2=$(peak d)
t2=$(date +%s.%N); "$BIN/cal-hessian" -o "$W/h.st" "$W/x.cal"; t3=$(date +%s.%N)
sp=$(peak s)
if grep -qw avx512f /proc/cpuinfo; then
  other=$( [ "$core" = SkylakeX ] && echo Haswell || echo SkylakeX )
  alt_d=$(OPENBLAS_CORETYPE=$other build/bench/syrk_peak "$N" "$D" d | cut -d' ' -f1)
  alt="dsyrk with $other kernels: $alt_d GFLOP/s"
else
  alt="(no AVX-512 on this CPU: SkylakeX kernels not applicable)"
fi
np=$($PY - "$N" "$D" <<'PYEOF'
import sys, time, numpy as np
n, d = int(sys.argv[1]), int(sys.argv[2])
fl = n * d * (d + 1)
out = []
for dt in (np.float32, np.float64):
    X = np.random.default_rng(1).standard_normal((n, d)).astype(dt)
    t = time.perf_counter(); X.T @ X; best = time.perf_counter() - t
    out.append("%.1f" % (fl / best / 1e9))
    del X
print(" ".join(out))
PYEOF
)
$PY - "$N" "$D" "$t0" "$t1" "$t2" "$t3" "$p1" "$p2" "$sp" "$np" "$alt" <<'PYEOF'
import sys
n, d = int(sys.argv[1]), int(sys.argv[2])
t0, t1, t2, t3 = map(float, sys.argv[3:7])
p = max(float(sys.argv[7]), float(sys.argv[8])); sp = float(sys.argv[9])
nf32, nf64 = map(float, sys.argv[10].split()); alt = sys.argv[11]
fl = n * d * (d + 1)
cal = fl / min(t1 - t0, t3 - t2) / 1e9
print(f"cal-hessian end to end (read + decode + dsyrk + write): {cal:.1f} GFLOP/s")
print(f"OpenBLAS dsyrk {n}x{d}: {p:.1f} GFLOP/s   ssyrk: {sp:.1f} GFLOP/s   {alt}")
print(f"numpy X.T@X float32: {nf32:.1f} GFLOP/s   float64: {nf64:.1f} GFLOP/s")
print(f"RATIO cal-hessian / dsyrk peak     = {cal / p:.2f}  (target >= 0.80)")
print(f"RATIO cal-hessian / numpy float64  = {cal / nf64:.2f}")
print(f"RATIO cal-hessian / numpy float32  = {cal / nf32:.2f}")
PYEOF
rm -f "$W/x.cal"

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
PYEOF
t0=$(date +%s.%N); "$BIN/cal-hessian" --embed "$W/emb.safetensors" -o "$W/d.st" "$W/tok.cal"; t1=$(date +%s.%N)
"$BIN/cal-hessian" --embed "$W/emb.safetensors" --per-position -o "$W/p.st" "$W/tok.cal"; t2=$(date +%s.%N)
$PY - "$t0" "$t1" "$t2" <<'PYEOF'
import sys
t0, t1, t2 = map(float, sys.argv[1:])
print(f"distinct-token: {t1 - t0:.2f} s   per-position: {t2 - t1:.2f} s")
print(f"RATIO per-position / distinct-token time = {(t2 - t1) / (t1 - t0):.1f}  (target >= 5)")
PYEOF
