#!/bin/sh
# cal-hessian on VECTORS input against a float64 numpy reference: H, sums,
# absmax/absmean, counts, scales, f16/bf16 decoding, merge of shards, the
# GPTQ inverse and the imatrix GGUF.
. tests/lib.sh
export PYTHONPATH="$PWD/tests/sh:$PWD/tests/py"

# Random activations in three streams (f32, f16, bf16) plus one file of all.
$PY - "$T" <<'PYEOF' || not_ok "make fixtures"
import sys, numpy as np
from hessian_lib import *
T = sys.argv[1]
rng = np.random.default_rng(11)
X = rng.standard_normal((700, 40)).astype(np.float32) * 3
X[:, 5] += 10            # a channel with a large mean
X[:, 7] = 0              # a dead channel (GPTQ's dead-column rule)
np.save(f"{T}/X.npy", X)
parts = [X[:250], X[250:251], X[251:600], X[600:]]
for k, P in enumerate(parts):
    with open(f"{T}/part{k}.cal", "wb") as f:
        CalStreamWriter(f, {"source": f"part{k}"}).vectors(f"p{k}", P).close()
with open(f"{T}/all.cal", "wb") as f:
    w = CalStreamWriter(f, {"source": "all"})
    for k, P in enumerate(parts):
        w.vectors(f"p{k}", P)
    w.close()
# f16 / bf16: one vector each whose values are every kind of number the
# format holds (normal, subnormal, largest, negative zero), so per-channel sums
# equal the decoded values exactly.
h = rng.integers(0, 0x7c00, 512).astype(np.uint16)          # finite f16 magnitudes
h[:64] = np.arange(64, dtype=np.uint16)                      # subnormals and zero
h[64] = 0x7bff                                               # largest f16
h |= (rng.integers(0, 2, 512).astype(np.uint16) << 15)      # random signs
with open(f"{T}/f16.cal", "wb") as f:
    CalStreamWriter(f).vectors("h", h.view(np.float16).reshape(1, -1), F16).close()
b = rng.integers(0, 0x7f80, 512).astype(np.uint16)           # finite bf16 magnitudes
b[:64] = np.arange(64, dtype=np.uint16)
b[64] = 0x7f7f
b |= (rng.integers(0, 2, 512).astype(np.uint16) << 15)
with open(f"{T}/bf16.cal", "wb") as f:
    CalStreamWriter(f).vectors("b", b.reshape(1, -1), BF16).close()
np.save(f"{T}/h16.npy", h)
np.save(f"{T}/b16.npy", b)
PYEOF

check "f64 run" cal-hessian --dtype f64 -o "$T/all.st" "$T/all.cal"
check "f32 run from stdin" sh -c "cal-hessian -o '$T/all32.st' < '$T/all.cal'"
check "mean scale" cal-hessian --dtype f64 --scale mean -o "$T/mean.st" "$T/all.cal"
check "gptq scale + inverse + imatrix" cal-hessian --dtype f64 --scale gptq --gptq-inverse --damp 0.01 \
  --imatrix "$T/imatrix.gguf" --imatrix-name blk.0.attn_q.weight -o "$T/gptq.st" "$T/all.cal"
for k in 0 1 2 3; do
  sc=sum; [ $k = 1 ] && sc=mean; [ $k = 2 ] && sc=gptq
  cal-hessian --dtype f64 --scale $sc -o "$T/part$k.st" "$T/part$k.cal" || not_ok "part $k"
done
check "merge of shards" cal-hessian --merge --dtype f64 -o "$T/merged.st" "$T/part2.st" "$T/part0.st" "$T/part3.st" "$T/part1.st"
check "several input files" cal-hessian --dtype f64 -o "$T/multi.st" "$T/part0.cal" "$T/part1.cal" "$T/part2.cal" "$T/part3.cal"
check "f16 run" cal-hessian --dtype f64 -o "$T/f16.st" "$T/f16.cal"
check "bf16 run" cal-hessian --dtype f64 -o "$T/bf16.st" "$T/bf16.cal"

$PY - "$T" <<'PYEOF'
import sys, struct, numpy as np
from hessian_lib import *
T = sys.argv[1]
X = np.load(f"{T}/X.npy").astype(np.float64)
H = X.T @ X
t, meta = st_read(f"{T}/all.st")
close("H matches numpy float64", t["hessian"], H, 1e-9)
report("H is symmetric", np.array_equal(t["hessian"], t["hessian"].T))
close("sum", t["sum"], X.sum(0), 1e-9)
close("sumsq", t["sumsq"], (X * X).sum(0), 1e-9)
close("abssum", t["abssum"], np.abs(X).sum(0), 1e-9)
close("absmean", t["absmean"], np.abs(X).mean(0), 1e-9)
report("absmax exact", np.array_equal(t["absmax"], np.abs(X).max(0)))
report("tokens and rows counted", int(t["tokens"][0]) == 700 and int(t["rows"][0]) == 4,
       (t["tokens"], t["rows"]))
report("hessian f64 by request", t["hessian"].dtype == np.float64)
report("metadata keeps the stream's and adds the stage",
       meta.get("source") == "all" and "cal-hessian" in meta.get("stage", "") and meta.get("hessian.scale") == "sum", meta)
t32, _ = st_read(f"{T}/all32.st")
report("hessian f32 by default", t32["hessian"].dtype == np.float32)
close("f32 output is H rounded once", t32["hessian"], H.astype(np.float32), 1e-7)
tm, mm = st_read(f"{T}/mean.st")
close("--scale mean = H / tokens", tm["hessian"], H / 700, 1e-9)
tg, mg = st_read(f"{T}/gptq.st")
close("--scale gptq = 2 H / rows", tg["hessian"], 2 * H / 4, 1e-9)
# GPTQ's recipe, in numpy: dead diagonal -> 1, damp mean(diag), chol, inverse, upper chol.
A = 2 * H / 4
dead = np.diag(A) == 0
A[dead, dead] = 1
A[np.diag_indices_from(A)] += 0.01 * np.mean(np.diag(A))
U = np.linalg.cholesky(np.linalg.inv(A)).T
close("gptq inverse = upper Cholesky of the damped inverse", tg["hessian_inv_chol"], U, 1e-9)
report("gptq inverse is upper triangular", np.array_equal(np.triu(tg["hessian_inv_chol"]), tg["hessian_inv_chol"]))
tw, _ = st_read(f"{T}/merged.st")
close("merge of 4 shards (mixed scales) = whole", tw["hessian"], t["hessian"], 1e-12)
close("merged sums", tw["sum"], t["sum"], 1e-12)
close("merged sumsq", tw["sumsq"], t["sumsq"], 1e-12)
report("merged absmax", np.array_equal(tw["absmax"], t["absmax"]))
report("merged counts", int(tw["tokens"][0]) == 700 and int(tw["rows"][0]) == 4)
tmu, _ = st_read(f"{T}/multi.st")
close("several input files = one stream", tmu["hessian"], H, 1e-9)

# f16 / bf16 decoding is exact: one vector, so sums are the values themselves.
h = np.load(f"{T}/h16.npy").view(np.float16).astype(np.float64)
t16, _ = st_read(f"{T}/f16.st")
report("f16 decode exact", np.array_equal(t16["sum"], h) and np.array_equal(t16["absmax"], np.abs(h)))
b = (np.load(f"{T}/b16.npy").astype(np.uint32) << 16).view(np.float32).astype(np.float64)
tb, _ = st_read(f"{T}/bf16.st")
report("bf16 decode exact", np.array_equal(tb["sum"], b) and np.array_equal(tb["absmax"], np.abs(b)))
close("bf16 H", tb["hessian"], np.outer(b, b), 1e-12)

# imatrix GGUF, read with a reader written from the GGUF spec (tests/py).
import gguf_spec
g = gguf_spec.read(f"{T}/imatrix.gguf")
kv = {k: v[2] for k, v in g.kv.items()}
report("imatrix: GGUF v3 with imatrix keys", g.version == 3 and kv.get("general.type") == "imatrix"
       and kv.get("imatrix.chunk_count") == 4 and kv.get("imatrix.chunk_size") == 175
       and kv.get("imatrix.datasets") == [f"{T}/all.cal"], kv)
ts = g.tensors
s2, cn, s1 = (ts.get("blk.0.attn_q.weight." + k) for k in ("in_sum2", "counts", "in_sum"))
report("imatrix: in_sum2 = sumsq (f32, 1-D [d])", s2 is not None and s2.ne == [40] and s2.type == 0
       and relerr(s2.values, (X * X).sum(0)) < 1e-6)
report("imatrix: in_sum = sum (f32, 1-D [d])", s1 is not None and s1.ne == [40] and relerr(s1.values, X.sum(0)) < 1e-6)
report("imatrix: counts = tokens ([1])", cn is not None and cn.ne == [1] and float(cn.values[0]) == 700.0)
report("imatrix: padded to 32 after the last tensor", g.data_end == g.size and g.size % 32 == 0, (g.data_end, g.size))
PYEOF

# The tiled accumulation (psyrk.c): d = 2600 gives 5 panels of about 520
# columns (15 tiles) and a padded row stride (d is not a multiple of 8);
# blocks of 256 rows, the last one short. H must match numpy and be
# byte-identical for any thread count, also with more workers (16) than this
# machine has cores and more than 4 per tile (the stage line drops
# --threads, so the whole files are equal).
$PY - "$T" <<'PYEOF'
import sys, numpy as np
from hessian_lib import *
T = sys.argv[1]
X = np.random.default_rng(4).standard_normal((600, 2600)).astype(np.float32)
np.save(f"{T}/Xw.npy", X)
with open(f"{T}/wide.cal", "wb") as f:
    w = CalStreamWriter(f)
    w.vectors("a", X[:333]); w.vectors("b", X[333:]); w.close()
PYEOF
for n in 1 2 3 16; do
  check "wide d, --threads $n" cal-hessian --threads $n --block 256 --dtype f64 -o "$T/wide$n.st" "$T/wide.cal"
done
same "--threads 1 and 2 write the same bytes" "$T/wide1.st" "$T/wide2.st"
same "--threads 1 and 3 write the same bytes" "$T/wide1.st" "$T/wide3.st"
same "--threads 1 and 16 write the same bytes" "$T/wide1.st" "$T/wide16.st"
# Blocks of 4 rows: 150 blocks, so lane 1 (in H's other triangle) opens at
# block 16, lanes 2 and 3 at block 128, and all are added into H at the end;
# still the same bytes for any thread count.
for n in 1 2 16; do
  check "wide d, 150 blocks (4 lanes), --threads $n" cal-hessian --threads $n --block 4 --dtype f64 -o "$T/lanes$n.st" "$T/wide.cal"
done
same "4 lanes: --threads 1 and 2 write the same bytes" "$T/lanes1.st" "$T/lanes2.st"
same "4 lanes: --threads 1 and 16 write the same bytes" "$T/lanes1.st" "$T/lanes16.st"
# A file operand and stdin: the same tensors.
check "wide d from stdin" sh -c 'cal-hessian --threads 2 --block 256 --dtype f64 -o "$1/wide_in.st" < "$1/wide.cal"' sh "$T"
$PY -c "
from hessian_lib import *
import numpy as np
X = np.load('$T/Xw.npy').astype(np.float64)
t, _ = st_read('$T/wide2.st')
close('wide d: H = numpy', t['hessian'], X.T @ X, 1e-12)
l, _ = st_read('$T/lanes2.st')
close('wide d, 4 lanes: H = numpy', l['hessian'], X.T @ X, 1e-12)
report('wide d, 4 lanes: H exactly symmetric', np.array_equal(l['hessian'], l['hessian'].T))
report('wide d: H exactly symmetric', np.array_equal(t['hessian'], t['hessian'].T))
u, _ = st_read('$T/wide_in.st')
report('wide d: a file operand and stdin give the same tensors', t.keys() == u.keys() and all(np.array_equal(t[k], u[k]) for k in t))"

# Bad input.
$PY - "$T" <<'PYEOF'
import sys, numpy as np
from hessian_lib import *
T = sys.argv[1]
with open(f"{T}/dmis.cal", "wb") as f:
    w = CalStreamWriter(f)
    w.vectors("a", np.ones((2, 8), np.float32)); w.vectors("b", np.ones((2, 9), np.float32)); w.close()
X = np.ones((5, 8), np.float32); X[3, 2] = np.nan
Y = np.ones((4, 8), np.float32); Y[1, 0] = np.inf
with open(f"{T}/nan.cal", "wb") as f:
    w = CalStreamWriter(f)
    w.vectors("good", np.ones((3, 8), np.float32)); w.vectors("bad", X); w.vectors("worse", Y); w.close()
PYEOF
expect_fail "d mismatch between records" 1 "byte [0-9]+: .*d = 9, earlier records have d = 8" \
  cal-hessian -o "$T/x.st" "$T/dmis.cal"
expect_fail "NaN names the record" 1 "nan.cal: byte [0-9]+: VECTORS record 'bad' row 3 holds NaN or Inf" \
  cal-hessian -o "$T/x.st" "$T/nan.cal"
[ -e "$T/x.st" ] && not_ok "no output after an error" || ok "no output after an error"
check "--skip-nonfinite" cal-hessian --skip-nonfinite --dtype f64 -o "$T/skip.st" "$T/nan.cal"
$PY -c "
from hessian_lib import *
t, _ = st_read('$T/skip.st')
report('--skip-nonfinite counts and excludes', int(t['skipped'][0]) == 2 and int(t['tokens'][0]) == 10
       and t['hessian'][0, 0] == 10.0, (t['skipped'], t['tokens']))"
# f16 / bf16: Inf and NaN bit patterns are caught, the largest finite values
# (f16 0x7bff, bf16 0x7f7f) and negative zero are not.
$PY - "$T" <<'PYEOF'
import sys, numpy as np
from hessian_lib import *
T = sys.argv[1]
one16, onebf = 0x3c00, 0x3f80
for name, dt, one, big, specials in (("f16", F16, one16, 0x7bff, (0x7c00, 0xfc00, 0x7e00, 0x7c01)),
                                     ("bf16", BF16, onebf, 0x7f7f, (0x7f80, 0xff80, 0x7fc0, 0xff81))):
    rows = [np.full(8, one, np.uint16), np.full(8, big, np.uint16), np.full(8, 0x8000, np.uint16)]
    for s in specials:
        r = np.full(8, one, np.uint16); r[5] = s; rows.append(r)
    with open(f"{T}/nf_{name}.cal", "wb") as f:
        w = CalStreamWriter(f)
        X = np.stack(rows)
        w.vectors("x", X.view(np.float16) if dt == F16 else X, dt); w.close()
PYEOF
for k in f16 bf16; do
  expect_fail "$k Inf/NaN names the record" 1 "nf_$k.cal: byte [0-9]+: VECTORS record 'x' row 3 holds NaN or Inf" \
    cal-hessian -o "$T/x.st" "$T/nf_$k.cal"
  check "$k --skip-nonfinite" cal-hessian --skip-nonfinite --dtype f64 -o "$T/nf_$k.st" "$T/nf_$k.cal"
  $PY -c "
from hessian_lib import *
t, _ = st_read('$T/nf_$k.st')
report('$k: 4 non-finite rows skipped, 3 kept', int(t['skipped'][0]) == 4 and int(t['tokens'][0]) == 3,
       (t['skipped'], t['tokens']))"
done
printf 'hello' > "$T/junk"
expect_fail "not a stream" 1 "junk" cal-hessian -o "$T/x.st" "$T/junk"
head -c 3000 "$T/all.cal" > "$T/trunc.cal"
expect_fail "truncated stream" 1 "trunc.cal: byte [0-9]+: .*truncated" cal-hessian -o "$T/x.st" "$T/trunc.cal"
# An error while the BLAS thread is busy must still end the program (OpenBLAS's
# exit-time shutdown used to hang when it raced a dsyrk call).
head -c 60000 "$T/all.cal" > "$T/trunc2.cal"
expect_fail "truncated mid-run, BLAS busy" 1 "trunc2.cal: byte [0-9]+: .*truncated" \
  timeout 120 cal-hessian --block 8 -o "$T/x.st" "$T/trunc2.cal"
# Kernels: the user's OPENBLAS_CORETYPE always wins over cal-hessian's own
# choice; without it, the kernels are at least as new as the CPU flags that
# the kernel reports allow (/proc/cpuinfo, an independent reading of CPUID).
kernels() { sed -n 's/.*(\([A-Za-z0-9]*\) kernels.*/\1/p' "$1"; }
OPENBLAS_CORETYPE=Haswell cal-hessian -v -o "$T/k.st" "$T/part1.cal" 2>"$T/k.err"
eq "OPENBLAS_CORETYPE set by the user is kept" "$(kernels "$T/k.err")" Haswell
grep -q "(Haswell kernels, from OPENBLAS_CORETYPE)" "$T/k.err" && ok "-v says the user chose the kernels" ||
  not_ok "-v says the user chose the kernels" "$(cat "$T/k.err")"
if [ "$(uname -m)" = x86_64 ] && [ -r /proc/cpuinfo ]; then
  env -u OPENBLAS_CORETYPE cal-hessian -v -o "$T/k.st" "$T/part1.cal" 2>"$T/k.err"
  flags=$(grep -m1 '^flags' /proc/cpuinfo)
  has() { for f in "$@"; do case " $flags " in *" $f "*) ;; *) return 1 ;; esac; done; }
  if has avx512f avx512bw avx512dq avx512vl; then want="SkylakeX Cooperlake SapphireRapids"
  elif has avx2 fma; then want="Haswell Zen Excavator SkylakeX Cooperlake SapphireRapids"
  else want=""; fi
  got=$(kernels "$T/k.err")
  case " $want " in
    "  ") skip "kernels as new as the CPU allows" "no AVX2 on this CPU" ;;
    *" $got "*) ok "kernels as new as the CPU allows: $got ($(sed -n 's/.*(\(.*\)).*/\1/p' "$T/k.err"))" ;;
    *) not_ok "kernels as new as the CPU allows" "got $got, want one of $want" ;;
  esac
  # The re-executed program reports what it replaced (and drops the marker).
  CAL_OPENBLAS_PICKED=Katmai OPENBLAS_CORETYPE=Prescott cal-hessian -v -o "$T/k.st" "$T/part1.cal" 2>"$T/k.err"
  grep -q "(Prescott kernels, chosen over OpenBLAS's Katmai)" "$T/k.err" && ok "-v names the kernels it replaced" ||
    not_ok "-v names the kernels it replaced" "$(cat "$T/k.err")"
fi
expect_fail "no -o" 2 "no output file" cal-hessian "$T/all.cal"
expect_fail "bad --scale" 2 "--scale must be" cal-hessian --scale avg -o "$T/x.st" "$T/all.cal"
expect_fail "--imatrix needs a name" 2 "imatrix-name" cal-hessian --imatrix "$T/i.gguf" -o "$T/x.st" "$T/all.cal"
expect_fail "merge of different d" 1 "hessian is 1 x 1|earlier inputs are" \
  cal-hessian --merge -o "$T/x.st" "$T/all.st" "$T/f16.st"
expect_fail "merge of a non-result" 1 "part0.cal: byte 0: " cal-hessian --merge -o "$T/x.st" "$T/part0.cal"
check "--help" cal-hessian --help
check "--version" cal-hessian --version
