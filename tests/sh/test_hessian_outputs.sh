#!/bin/sh
# cal-hessian's outputs: -o and --imatrix are opened before any input is read
# (a bad path fails at once, even when the input never comes) and committed
# together (a failing --imatrix leaves no -o, an error keeps the old files);
# -v, --progress, --threads and -o stay out of the stage line, so the same
# command writes the same bytes with and without them; --opt=value and the
# generated --help.
. tests/lib.sh
export PYTHONPATH="$PWD/tests/sh"

$PY - "$T" <<'PYEOF' || not_ok "make fixtures"
import sys, numpy as np
from hessian_lib import *
T = sys.argv[1]
X = np.random.default_rng(2).standard_normal((500, 48)).astype(np.float32)
with open(f"{T}/x.cal", "wb") as f:
    w = CalStreamWriter(f, {"source": "x"}); w.vectors("a", X[:200]); w.vectors("b", X[200:]); w.close()
Y = np.ones((4, 8), np.float32)    # rank 1: the undamped GPTQ inverse fails
with open(f"{T}/zero.cal", "wb") as f:
    w = CalStreamWriter(f); w.vectors("z", Y); w.close()
PYEOF
mkfifo "$T/never"   # an input nobody writes: reading it blocks for ever

# A bad output path fails before the input is opened.
expect_fail "unwritable -o fails before reading" 1 "nodir/r.st" \
  timeout 20 cal-hessian -o "$T/nodir/r.st" "$T/never"
expect_fail "unwritable --imatrix fails before reading" 1 "nodir/i.gguf" \
  timeout 20 cal-hessian -o "$T/r.st" --imatrix "$T/nodir/i.gguf" --imatrix-name w "$T/never"
expect_fail "unwritable --imatrix" 1 "nodir/i.gguf" \
  cal-hessian -o "$T/r.st" --imatrix "$T/nodir/i.gguf" --imatrix-name w "$T/x.cal"
[ -e "$T/r.st" ] && not_ok "a failing --imatrix leaves no -o" || ok "a failing --imatrix leaves no -o"
expect_fail "unwritable -o fails before --merge reads" 1 "nodir/m.st" \
  cal-hessian --merge -o "$T/nodir/m.st" "$T/nope.st"
ls "$T" | grep -q '\.tmp\.' && not_ok "no temp file left" "$(ls "$T")" || ok "no temp file left"

# An error after the work keeps both old outputs as they were.
echo old-result >"$T/keep.st"
echo old-imatrix >"$T/keep.gguf"
expect_fail "GPTQ inverse of a zero hessian fails" 1 "not positive definite" \
  cal-hessian --gptq-inverse --damp 0 -o "$T/keep.st" --imatrix "$T/keep.gguf" --imatrix-name w "$T/zero.cal"
eq "the old -o is kept" "$(cat "$T/keep.st")" old-result
eq "the old --imatrix is kept" "$(cat "$T/keep.gguf")" old-imatrix
ls "$T" | grep -q '\.tmp\.' && not_ok "no temp file left after the error" || ok "no temp file left after the error"

# -v, --progress, --threads and -o never change the bytes (run in two folders:
# --imatrix is written as given, and enters the stage line as it is).
mkdir "$T/a" "$T/b"
(cd "$T/a" && cal-hessian -o r.st --imatrix i.gguf --imatrix-name w ../x.cal) || not_ok "plain run"
(cd "$T/b" && cal-hessian -v --progress --threads 3 --output=r.st --imatrix i.gguf --imatrix-name w ../x.cal \
  2>"$T/v.err") || not_ok "run with -v --progress --threads"
same "-v --progress --threads: the same result" "$T/a/r.st" "$T/b/r.st"
same "-v --progress --threads: the same imatrix" "$T/a/i.gguf" "$T/b/i.gguf"
grep -q "d 48, 500 vectors, 2 rows" "$T/v.err" && ok "-v summary" || not_ok "-v summary" "$(cat "$T/v.err")"
(cd "$T/a" && cal-hessian --dtype f64 -o m.st ../x.cal && cal-hessian --merge -o mm.st m.st) || not_ok "merge run"
(cd "$T/b" && cal-hessian --dtype f64 -o m.st ../x.cal --threads=2 && cal-hessian -v --merge --progress -o mm.st m.st \
  2>/dev/null) || not_ok "merge run with -v"
same "--merge with -v --progress: the same bytes" "$T/a/mm.st" "$T/b/mm.st"
$PY -c "
from hessian_lib import st_read, report
_, m = st_read('$T/b/r.st')
report('stage line: no -v, --progress, --threads, -o', m['stage'] == 'cal-hessian --imatrix i.gguf --imatrix-name w ../x.cal --dtype f32 --scale sum', m['stage'])"

# --opt=value is an option like --opt value.
check "--opt=value" cal-hessian --dtype=f64 --scale=mean --output="$T/eq.st" "$T/x.cal"
check "--opt value" cal-hessian --dtype f64 --scale mean -o "$T/sp.st" "$T/x.cal"
$PY -c "
import numpy as np
from hessian_lib import st_read, report
a, ma = st_read('$T/eq.st'); b, mb = st_read('$T/sp.st')
report('--opt=value gives the same tensors', all(np.array_equal(a[k], b[k]) for k in b) and ma['hessian.scale'] == 'mean')"
expect_fail "bad option wording" 2 "^cal-hessian: unknown option '--bogus' \(see --help\)" cal-hessian --bogus -o "$T/x.st"
expect_fail "a flag takes no value" 2 "option '--merge' takes no value" cal-hessian --merge=1 -o "$T/x.st" "$T/x.cal"
expect_fail "no output at all" 2 "no output file" cal-hessian "$T/x.cal"
cal-hessian -h >"$T/h1" && cal-hessian --help >"$T/h2" && same "-h = --help" "$T/h1" "$T/h2"
grep -q -- "--imatrix-name NAME" "$T/h1" && ok "--help made from the table" || not_ok "--help made from the table"
