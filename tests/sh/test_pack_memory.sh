#!/bin/sh
# test_pack_memory.sh - cal-pack's memory does not grow with its input
# (issue 30): the modes that draw from the whole input (window, --per-doc,
# --stratify, --sort) run on a 40 MB stream, from the file and through a
# pipe, with -S 2M, in a peak resident size (the kernel's ru_maxrss of the
# process) under a fixed cap of 24 MB that holding the input would pass
# (before: 45 MB); and give the same rows from the file, from a pipe, with
# -S 64K (every store spilled) and -S 1G (nothing spilled).
. tests/lib.sh
export PYTHONPATH="$PWD/examples"
# distinct random documents of 64-4095 ids (no repeated block): 40 MB for
# the memory, 5 MB for the rows
$PY - "$T/in.cal" 40 "$T/small.cal" 5 <<'PYEOF' || not_ok "make the inputs"
import sys
import numpy as np
import calstream as cs
r = np.random.default_rng(30)
for path, mb in zip(sys.argv[1::2], sys.argv[2::2]):
  n = cnt = 0
  with open(path, "wb") as f:
    f.write(cs.header([("tokenizer", "t"), ("vocab", "128256"), ("bos", "1"), ("eos", "2"), ("pad", "0")]))
    while n < int(mb) << 20:
        k = int(r.integers(64, 4096))
        rec = cs.record(cs.TOKENS, "ab"[cnt % 2], int(r.integers(0, 2**63)), r.integers(0, 128256, k, dtype="<u4").tobytes())
        f.write(rec)
        n, cnt = n + len(rec), cnt + 1
    f.write(cs.end(cnt))
PYEOF
# peak RSS in MB of `cal-pack ARGS FILE`, or of `cat FILE | cal-pack ARGS` with "pipe"
peak() {
  $PY - "$@" <<'PYEOF'
import os, subprocess, sys
how, f, args = sys.argv[1], sys.argv[2], sys.argv[3:]
if how == "pipe":
    cat = subprocess.Popen(["cat", f], stdout=subprocess.PIPE)
    p = subprocess.Popen(["cal-pack"] + args, stdin=cat.stdout, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cat.stdout.close()
else:
    p = subprocess.Popen(["cal-pack"] + args + [f], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_, st, ru = os.wait4(p.pid, 0)
print("%d %d" % (st, ru.ru_maxrss // 1024))
PYEOF
}
MB=$(( $(wc -c <"$T/in.cal") >> 20 ))
CAP=24
for how in file pipe; do
  for args in "-l 2048 --mode window -n 64" "-l 1024 --mode window -n 200 --per-doc --rng python" \
              "-l 512 --mode doc --stratify 512,1024,2048 -n 90" "-l 512 --mode doc --sort desc -n 50"; do
    # shellcheck disable=SC2086
    set -- $(peak "$how" "$T/in.cal" -S 2M $args)
    if [ "${CAL_SANITIZE:-}" = 1 ]; then # ASan's shadow memory and quarantine: its size, not calkit's
      if [ "$1" = 0 ]; then skip "$how, $args: peak size" "ASan build (peak $2 MB)"; else not_ok "$how, $args" "status $1"; fi
    elif [ "$1" = 0 ] && [ "$2" -lt "$CAP" ] && [ "$MB" -gt $((CAP + 10)) ]; then ok "$how, $args: peak $2 MB for $MB MB of input (cap $CAP MB)"
    else not_ok "$how, $args: peak $2 MB for $MB MB of input (cap $CAP MB)" "status $1"; fi
  done
done

# the same rows however the input comes and whatever -S (records compared,
# not the stage line: it names the file), on the 5 MB input
rows() { cal-cat "$1" | grep -v '^#'; }
for args in "-l 2048 --mode window -n 64 --sep eos --bos alt" "-l 300 --mode window -n 500 --per-doc" \
            "-l 1024 --mode window -n 200 --per-doc --rng python --to-end" "-l 100 --mode window -n 20000 --rng numpy" \
            "-l 512 --mode doc --stratify 512,1024,2048 -n 90 --bos row" "-l 512 --mode doc --sort desc -n 50 --truncate head" \
            "-l 512 --mode doc --sort asc --min-tokens 100 --max-repeat 3 --eos half -n 40"; do
  # shellcheck disable=SC2086
  cal-pack -S 1G $args "$T/small.cal" -o "$T/mem.cal" 2>"$T/e.mem" || not_ok "$args: in memory"
  rows "$T/mem.cal" >"$T/mem.rows"
  for way in "file -S 64K" "pipe -S 64K" "pipe" "file"; do
    case $way in
      file*) cal-pack ${way#file} $args "$T/small.cal" -o "$T/o.cal" 2>"$T/e.o" ;;  # shellcheck disable=SC2086
      pipe*) cat "$T/small.cal" | cal-pack ${way#pipe} $args -o "$T/o.cal" 2>"$T/e.o" ;;  # shellcheck disable=SC2086
    esac
    rows "$T/o.cal" >"$T/o.rows"
    sed 's/stdin/in/; s|[^ ]*/small.cal|in|' "$T/e.mem" >"$T/e1"; sed 's/stdin/in/; s|[^ ]*/small.cal|in|' "$T/e.o" >"$T/e2"
    if [ -s "$T/mem.rows" ] && cmp -s "$T/mem.rows" "$T/o.rows" && cmp -s "$T/e1" "$T/e2"; then ok "$args ($way): the rows and messages of -S 1G"
    else not_ok "$args ($way): the rows and messages of -S 1G" "$(cmp "$T/mem.rows" "$T/o.rows" 2>&1)" "$(cat "$T/e1" "$T/e2")"; fi
  done
done
