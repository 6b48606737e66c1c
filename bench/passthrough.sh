#!/bin/sh
# passthrough.sh - throughput of a filter that passes records through
# unchanged (cal-cat --pass: read, verify every checksum, re-emit) against
# cat on the same bytes, in the same run: `cat FILE | X > /dev/null` for X =
# cat, cal-cat --pass, cal-cat --check; ratios of CPU time (both processes,
# robust on a shared machine) and of wall time. Target: >= 0.9 x cat.
#   BENCH_MB   size of the test stream in MB (default 512); REPS (3)
# The stream (TOKENS of 100..3000 ids and ROW records of 2048 ids) is built
# once with examples/calstream.py json and concatenated copies of it.
. "$(dirname "$0")/lib/preamble.sh"
MB=${BENCH_MB:-512}
D=$W
$PY - "$D/unit.jsonl" <<'PYEOF'
import json, random, sys
random.seed(0)
with open(sys.argv[1], "w") as f:
    f.write(json.dumps({"header": [["tokenizer", "bench"], ["tokenizer_fp", "00000000000000aa"], ["vocab", "128256"]]}) + "\n")
    for i in range(400):
        n = random.randint(100, 3000)
        f.write(json.dumps({"kind": "TOKENS", "label": "wiki", "id": i, "ids": [random.randrange(128256) for _ in range(n)]}) + "\n")
        f.write(json.dumps({"kind": "ROW", "label": "code", "id": i, "ids": [random.randrange(128256) for _ in range(2048)]}) + "\n")
PYEOF
$PY examples/calstream.py json <"$D/unit.jsonl" >"$D/unit.cal"
unit=$(wc -c <"$D/unit.cal")
copies=$(( (MB * 1048576 + unit - 1) / unit ))
i=0
while [ $i -lt $copies ]; do cat "$D/unit.cal"; i=$((i + 1)); done >"$D/big.cal"
bytes=$(wc -c <"$D/big.cal")
"$BIN/cal-cat" --check "$D/big.cal" >/dev/null   # also warms the page cache

PYTHONPATH=$PWD/bench/lib $PY - "$D/big.cal" "$bytes" "$BIN" "${REPS:-3}" <<'PYEOF'
import sys
from runs import measure, ratio
f, n, BIN, reps = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
m = measure({"cat": f"cat {f} | cat >/dev/null", "pass": f"cat {f} | {BIN}/cal-cat --pass >/dev/null",
             "check": f"cat {f} | {BIN}/cal-cat --check >/dev/null"}, reps)
print(f"passthrough: {n / 1048576:.1f} MB of TOKENS/ROW records, `cat FILE | X > /dev/null`, medians of {reps}")
for k, name in (("cat", "cat"), ("pass", "cal-cat --pass"), ("check", "cal-cat --check")):
    print(f"  {name:16s} {n / 1048576 / m[k][1]:8.1f} MB/s   CPU {m[k][0]:.2f} s  wall {m[k][1]:.2f} s")
ratio("cal-cat --pass / cat (CPU)", m["cat"][0] / m["pass"][0], 0.9)
ratio("cal-cat --pass / cat (wall)", m["cat"][1] / m["pass"][1], 0.9)
PYEOF
