#!/bin/sh
# passthrough.sh - a filter that passes records through unchanged
# (cal-cat --pass: read, verify every checksum, write the records) against
# cat in the same place of the same pipelines, in the same rounds:
#   cat F | X > /dev/null        and        cat F | X | cat > /dev/null
# and from the file itself: X F > /dev/null, X F | cat > /dev/null (cat F
# in its place).
# Three ratios each, X against cat: X's own CPU time against the cat in its
# place (the honest per-program figure), the whole pipeline's CPU time (what
# earlier rounds printed as "CPU": the upstream cat, the same in both, pulls
# it towards 1), and wall time (meaningful on an idle machine only).
# Target: >= 0.9 x cat.
#   BENCH_MB   size of the test stream in MB (default 512); REPS (5)
# The stream: distinct random TOKENS records (bench/lib/tokens.py), no
# repeated block.
. "$(dirname "$0")/lib/preamble.sh"
MB=${BENCH_MB:-512}
$PY bench/lib/tokens.py "$W/big.cal" "$MB" 1 >/dev/null
bytes=$(wc -c <"$W/big.cal")
"$BIN/cal-cat" --check "$W/big.cal" >/dev/null   # also warms the page cache

PYTHONPATH=$PWD/bench/lib $PY - "$W/big.cal" "$bytes" "$BIN" "${REPS:-5}" <<'PYEOF'
import sys
from runs import measure_stages, ratio
f, n, BIN, reps = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
cat, X = ["cat"], [BIN + "/cal-cat", "--pass"]
m = measure_stages({"cat": ([["cat", f], cat], None), "pass": ([["cat", f], X], None),
                    "catp": ([["cat", f], cat, cat], None), "passp": ([["cat", f], X, cat], None),
                    "fcat": ([cat + [f]], None), "fpass": ([X + [f]], None),
                    "fcatp": ([cat + [f], cat], None), "fpassp": ([X + [f], cat], None)}, reps)
print(f"passthrough: {n / 1048576:.1f} MB of TOKENS records, medians of {reps} rounds (CPU s of each stage; wall)")
for k, name in (("cat", "cat F | cat"), ("pass", "cat F | cal-cat --pass"), ("catp", "cat F | cat | cat"),
                ("passp", "cat F | cal-cat --pass | cat"), ("fcat", "cat F"), ("fpass", "cal-cat --pass F"),
                ("fcatp", "cat F | cat"), ("fpassp", "cal-cat --pass F | cat")):
    st, tot, wall = m[k]
    print(f"  {name:30s} stages {' '.join('%.3f' % c for c in st)}  total {tot:.3f}  wall {wall:.3f}")
for a, b, where in (("cat", "pass", "to /dev/null"), ("catp", "passp", "to a pipe")):
    ratio(f"cal-cat --pass / cat, {where} (its own CPU)", m[a][0][1] / m[b][0][1], 0.9)
    ratio(f"cal-cat --pass / cat, {where} (pipeline CPU)", m[a][1] / m[b][1], 0.9)
    ratio(f"cal-cat --pass / cat, {where} (wall)", m[a][2] / m[b][2], 0.9)
# From the file itself (cal-cat --pass F against cat F: the first stage)
for a, b, where in (("fcat", "fpass", "from a file to /dev/null"), ("fcatp", "fpassp", "from a file into a pipe")):
    ratio(f"cal-cat --pass / cat, {where} (its own CPU)", m[a][0][0] / m[b][0][0], 0.9)
    ratio(f"cal-cat --pass / cat, {where} (pipeline CPU)", m[a][1] / m[b][1], 0.9)
    ratio(f"cal-cat --pass / cat, {where} (wall)", m[a][2] / m[b][2], 0.9)
PYEOF
