#!/bin/sh
# hostile_memory.sh - cal-hessian under every address-space limit from 64 MiB
# up, in 32 MiB steps, until it runs whole: OpenBLAS (0.3.21) does not fail
# an allocation, it maps its work buffer again for ever, so a limit between
# "too small to start" and "enough" made cal-hessian spin (the issue's
# ulimit -v band). Each run must end, within 60 s, either whole (output equal
# to the unlimited run's with LAPACK on one thread; stderr empty, or one line saying it ran fewer
# threads) or with status 1, one line "out of memory: ...", and no output or
# temp file. Cases: one 2048-wide accumulator on 2 threads with the GPTQ
# inverse (LAPACK in the caller) under ulimit -v and ulimit -d; three labels
# (--by-label: three accumulators whose buffers add up). Not under the
# sanitizers (ASan reserves terabytes of address space).
. tests/lib.sh
if [ "${CAL_SANITIZE:-}" = 1 ]; then skip "address-space limits" "ASan needs more address space than any limit here"; exit 0; fi
export PYTHONPATH="$PWD/tests/sh:$PWD/tests/py"
$PY - "$T" <<'PYEOF' || not_ok "make fixtures"
import sys, numpy as np
from hessian_lib import CalStreamWriter
T = sys.argv[1]
rng = np.random.default_rng(29)
with open(f"{T}/one.cal", "wb") as f:
    w = CalStreamWriter(f, {"source": "acts"})
    for i in range(2):
        w.vectors("", rng.standard_normal((128, 2048)).astype(np.float32))
    w.close()
with open(f"{T}/lab.cal", "wb") as f:
    w = CalStreamWriter(f, {"source": "acts"})
    for i in range(2):
        for k in ("model.layers.0.mlp.up_proj", "model.layers.0.mlp.down_proj", "model.layers.0.self_attn.q_proj"):
            w.vectors(k, rng.standard_normal((64, 1024)).astype(np.float32))
    w.close()
PYEOF

# sweep NAME LIMIT-FLAG FROM ARGS...: the runs from FROM MiB up to the first
# whole run without a notice (at most 2 GiB).
sweep() {
  name=$1 flag=$2 mib=$3; shift 3
  mkdir -p "$T/ref" "$T/run"
  # LAPACK runs on the caller's thread alone under a limit (no OpenBLAS
  # pool), and its result depends on its threads: the reference runs so.
  if ! cal-hessian "$@" --threads 1 -o "$T/ref/h.st" 2>"$T/.err"; then not_ok "$name: unlimited run" "$(cat "$T/.err")"; return; fi
  oom=0 fewer=0 whole=0 bad=0 done=0
  while [ $mib -le 2048 ] && [ $done = 0 ]; do
    rm -f "$T/run/"*
    (ulimit "$flag" $((mib * 1024)) && exec timeout 60 cal-hessian "$@" -o "$T/run/h.st") >/dev/null 2>"$T/.err"
    rc=$?
    left=$(ls "$T/run" | tr '\n' ' ')
    lines=$(wc -l <"$T/.err")
    if [ $rc = 0 ] && cmp -s "$T/ref/h.st" "$T/run/h.st"; then
      if [ "$lines" = 0 ]; then whole=$((whole + 1)); done=1
      elif [ "$lines" = 1 ] && grep -Eq '^cal-hessian: 1 thread instead of 2: ulimit -[vd] leaves room for 1 of OpenBLAS.s work buffers$' "$T/.err"; then fewer=$((fewer + 1))
      else bad=$((bad + 1)); not_ok "$name: ulimit $flag $mib MiB: whole, but stderr says" "$(head -c 400 "$T/.err")"; fi
    elif [ $rc = 1 ] && [ "$lines" = 1 ] && grep -q '^cal-hessian: out of memory' "$T/.err" && [ -z "$left" ]; then
      oom=$((oom + 1))
    else
      bad=$((bad + 1))
      not_ok "$name: ulimit $flag $mib MiB" "status $rc (124: spun until the timeout), files left: '$left'" "$(head -c 400 "$T/.err")"
    fi
    mib=$((mib + 32))
  done
  eq "$name: a limit was found where it runs whole" $done 1
  eq "$name: every limit ended cleanly ($oom out of memory, $fewer on fewer threads, $whole whole)" $bad 0
}

sweep "2048-wide, 2 threads, --gptq-inverse, ulimit -v" -v 64 --threads 2 --gptq-inverse "$T/one.cal"
# the band that spun before (room for one of two threads) is run through
eq "2048-wide: some limits ran it on 1 thread of 2" "$([ $fewer -gt 0 ] && echo yes)" yes
sweep "2048-wide, 2 threads, --gptq-inverse, ulimit -d" -d 192 --threads 2 --gptq-inverse "$T/one.cal"
sweep "three labels, 1 thread each, --gptq-inverse, ulimit -v" -v 512 --by-label --threads 1 --gptq-inverse "$T/lab.cal"
