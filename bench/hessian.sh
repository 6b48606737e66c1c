#!/bin/sh
# bench/hessian.sh - cal-hessian against the BLAS it runs on and against
# numpy, in one run, for each thread count T in THREADS:
#   dsyrk        OpenBLAS dsyrk, one call over all N rows in memory, T threads
#                (the anchor: what a program that holds all rows would call,
#                once, in a fresh process); also the best of 3 calls in one
#                process (warm: C's pages, BLAS buffers and threads set up)
#   psyrk        cal-hessian's tiles and workers (lib/stats/psyrk.c) on the
#                same rows in memory, blocks copied in as its reader would
#   cal-hessian  end to end: N x D f32 VECTORS from a stream file to the
#                result (start, read, decode, statistics, BLAS, write with
#                fsync; a new file each run), --threads T; and the accumulation alone (what -v
#                times: reading to the last block added)
#   numpy        X.T @ X on float64 rows already in memory, numpy's BLAS on
#                T threads (the issue's anchor on a big machine)
# then the distinct-token path against the per-position one (EMBED=0 skips
# it). Flops are counted as N*D*(D+1); only ratios within one run mean
# anything. Ratios print with their targets: cal-hessian / dsyrk >= 0.95 on
# 2 threads, cal-hessian / numpy >= 0.9 on 16.
#
# Settings (environment): SIZE=NxD (default 32768x4096), THREADS (default:
# the CPU count, e.g. THREADS="1 2 4 8 16"), REPS (default 3: medians of
# interleaved rounds), EMBED (1), BASE (a cal-hessian to compare with, e.g.
# one built from main: timed end to end in the same rounds). On a machine without the build tools,
# CAL_BIN is a folder made by bench/lib/bundle.sh (cal-hessian, syrk_peak and,
# in ../lib, their shared libraries) and CAL_PY a python3 with numpy; see
# bench/README.md. Needs ~4 N D bytes of disk in $TMPDIR and ~10 N D of RAM.
. "$(dirname "$0")/lib/preamble.sh"
SIZE=${SIZE:-32768x4096}
N=${SIZE%x*} D=${SIZE#*x}
THREADS=${THREADS:-$(getconf _NPROCESSORS_ONLN)}
REPS=${REPS:-3}
PEAK=$BIN/syrk_peak
if [ ! -x "$PEAK" ]; then
  PEAK=build/bench/syrk_peak
  mkdir -p build/bench
  make -s build/obj/libcal.a
  cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Ilib $(pkg-config --cflags openblas) -o "$PEAK" \
    bench/syrk_peak.c build/obj/libcal.a $(pkg-config --libs openblas) -lpthread -lm
fi

echo "== hessian: $N x $D f32 VECTORS, threads: $THREADS, medians of $REPS"
PYTHONPATH=$PWD/tests/sh $PY - "$W" "$N" "$D" <<'PYEOF'
import sys, numpy as np
from hessian_lib import CalStreamWriter
W, n, d = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(7)
X = np.lib.format.open_memmap(f"{W}/x.npy", mode="w+", dtype=np.float32, shape=(n, d))
with open(f"{W}/x.cal", "wb") as f:
    w = CalStreamWriter(f, {"source": "bench"})
    for i in range(0, n, 2048):
        X[i:i + 2048] = rng.standard_normal((min(2048, n - i), d), dtype=np.float32)
        w.vectors("x", X[i:i + 2048])
    w.close()
X.flush()
PYEOF
kern=$("$BIN/cal-hessian" -v -o "$W/h.st" "$W/x.cal" 2>&1 | sed -n 's/.*threads (\(.*\))$/\1/p')
echo "cal-hessian: $kern; syrk_peak: $("$PEAK" 64 64 d | cut -d' ' -f2) kernels"
[ -z "${OPENBLAS_CORETYPE:-}" ] || echo "note: OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE in the environment decides the kernels of all three"
$PY -c 'import numpy; c = numpy.show_config(mode="dicts")["Build Dependencies"]["blas"]; print("numpy", numpy.__version__, "BLAS:", c.get("name"), c.get("version"))' 2>/dev/null ||
  $PY -c 'import numpy; print("numpy", numpy.__version__)'

BASE=${BASE:-} PYTHONPATH=$PWD/bench/lib $PY - "$W" "$N" "$D" "$BIN" "$PEAK" "$REPS" "$PY" $THREADS <<'PYEOF'
import os, re, statistics, subprocess, sys, time
from runs import ratio
W, n, d, BIN, PEAK, reps, PY = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5], int(sys.argv[6]), sys.argv[7]
threads = [int(t) for t in sys.argv[8:]]
fl = n * d * (d + 1)
block = max(256, min(4096, (1 << 20) // d))  # cal-hessian's default --block (lib/stats/hessian.c)
def peak(kind, t, calls=1):
    """GFLOP/s per second of wall time, and per second of CPU time (all threads): the best of `calls` calls
    in one process (1: a fresh process's only call, as a program that holds the rows would make it)."""
    out = subprocess.run([PEAK, str(n), str(d), kind, str(calls), str(block), str(t)], capture_output=True, text=True, check=True)
    f = out.stdout.split()
    return float(f[0]), float(f[2])
BASE = os.environ.get("BASE")
def cal(t, prog=f"{BIN}/cal-hessian"):
    """End to end (the whole process), and the accumulation alone as -v reports it. Each run writes a new
    file: the last run's is removed before the clock starts (replacing it would add the deletion of a
    d x d file, 22 ms for 64 MB on a disk mounted with discard, to a program the anchors do not compare)."""
    if os.path.exists(f"{W}/h.st"):
        os.remove(f"{W}/h.st")
    t0 = time.perf_counter()
    r = subprocess.run([prog, "-v", "--threads", str(t), "-o", f"{W}/h.st", f"{W}/x.cal"],
                       check=True, capture_output=True, text=True)
    e2e = fl / (time.perf_counter() - t0) / 1e9
    acc = float(re.search(r" ([0-9.]+) s, ", r.stderr).group(1))
    return e2e, fl / acc / 1e9
NUMPY = """
import sys, time, numpy as np
X = np.load(sys.argv[1]).astype(np.float64); fl = X.shape[0] * X.shape[1] * (X.shape[1] + 1)
for _ in range(int(sys.argv[2])):
    t = time.perf_counter(); X.T @ X; print(fl / (time.perf_counter() - t) / 1e9)
"""
def numpy_runs(t):
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(t), OMP_NUM_THREADS=str(t), MKL_NUM_THREADS=str(t))
    out = subprocess.run([PY, "-c", NUMPY, f"{W}/x.npy", str(reps)], env=env, capture_output=True, text=True, check=True)
    return [float(x) for x in out.stdout.split()]
med = statistics.median
show = lambda v: " ".join(f"{x:.1f}" for x in v)
for t in threads:
    ds, ps, cs, accs, dcpu, pcpu, bs, warm = [], [], [], [], [], [], [], []
    for i in range(reps):
        (w, c) = peak("d", t); ds.append(w); dcpu.append(c)
        warm.append(peak("d", t, 3)[0])
        (w, c) = peak("p", t); ps.append(w); pcpu.append(c)
        # BASE and this build take turns at running first, just after the anchors, whose
        # freed memory slows the next process's first touches on some machines
        for prog in ([None, BASE] if i % 2 == 0 else [BASE, None]) if BASE else [None]:
            if prog:
                bs.append(cal(t, prog)[0])
                continue
            e2e, acc = cal(t)
            cs.append(e2e); accs.append(acc)
    ns = numpy_runs(t)
    print(f"threads {t:3d}  dsyrk, one call, rows in memory        {med(ds):7.1f} GFLOP/s  (runs {show(ds)})")
    print(f"threads {t:3d}  dsyrk, best of 3 calls in one process  {med(warm):7.1f} GFLOP/s  (runs {show(warm)}; warm: C, buffers and threads set up)")
    print(f"threads {t:3d}  psyrk: cal-hessian's tiles, in memory  {med(ps):7.1f} GFLOP/s  (runs {show(ps)})")
    print(f"threads {t:3d}  cal-hessian end to end, from the file  {med(cs):7.1f} GFLOP/s  (runs {show(cs)})")
    print(f"threads {t:3d}  cal-hessian accumulation alone (-v)    {med(accs):7.1f} GFLOP/s  (runs {show(accs)})")
    print(f"threads {t:3d}  numpy X.T@X float64, rows in memory   {med(ns):7.1f} GFLOP/s  (runs {show(ns)})")
    if BASE:
        print(f"threads {t:3d}  BASE cal-hessian end to end            {med(bs):7.1f} GFLOP/s  (runs {show(bs)})")
    r = lambda a, b: med([x / y for x, y in zip(a, b)])
    ratio(f"cal-hessian / dsyrk, {t} threads", r(cs, ds), 0.95 if t == 2 else None)
    if BASE:
        ratio(f"BASE cal-hessian / dsyrk, {t} threads", r(bs, ds))
        ratio(f"cal-hessian / BASE cal-hessian, {t} threads", r(cs, bs))
    ratio(f"cal-hessian / warm dsyrk, {t} threads", r(cs, warm))
    ratio(f"cal-hessian tiles (psyrk) / dsyrk, {t} threads", r(ps, ds))
    ratio(f"cal-hessian tiles (psyrk) / dsyrk per CPU second, {t} threads", r(pcpu, dcpu))
    ratio(f"cal-hessian / numpy float64, {t} threads", med(cs) / med(ns), 0.9 if t == 16 else None)
PYEOF
rm -f "$W/x.cal" "$W/x.npy" "$W/h.st"

[ "${EMBED:-1}" = 0 ] && exit 0
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
PYTHONPATH=$PWD/bench/lib $PY - "$W" "$BIN" <<'PYEOF'
import sys
from runs import measure, ratio
W, BIN = sys.argv[1], sys.argv[2]
m = measure({"d": f"{BIN}/cal-hessian --embed {W}/emb.safetensors -o {W}/d.st {W}/tok.cal",
             "p": f"{BIN}/cal-hessian --embed {W}/emb.safetensors --per-position -o {W}/p.st {W}/tok.cal"}, reps=1)
print(f"distinct-token: {m['d'][1]:.2f} s   per-position: {m['p'][1]:.2f} s")
ratio("per-position / distinct-token time", m["p"][1] / m["d"][1], 5)
PYEOF
