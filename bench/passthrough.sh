#!/bin/sh
# passthrough.sh - throughput of a filter that passes records through
# unchanged (cal-cat --pass: read, verify every checksum, re-emit) against
# cat on the same bytes, in the same run. The issue's target: ratio >= 0.5.
#   BENCH_MB   size of the test stream in MB (default 512)
# The stream (TOKENS of 100..3000 ids and ROW records of 2048 ids) is built
# once with examples/calstream.py json and concatenated copies of it.
. "$(dirname "$0")/lib/preamble.sh"
MB=${BENCH_MB:-512}
D=$W
/usr/bin/python3 - "$D/unit.jsonl" <<'PYEOF'
import json, random, sys
random.seed(0)
with open(sys.argv[1], "w") as f:
    f.write(json.dumps({"header": [["tokenizer", "bench"], ["tokenizer_fp", "00000000000000aa"], ["vocab", "128256"]]}) + "\n")
    for i in range(400):
        n = random.randint(100, 3000)
        f.write(json.dumps({"kind": "TOKENS", "label": "wiki", "id": i, "ids": [random.randrange(128256) for _ in range(n)]}) + "\n")
        f.write(json.dumps({"kind": "ROW", "label": "code", "id": i, "ids": [random.randrange(128256) for _ in range(2048)]}) + "\n")
PYEOF
/usr/bin/python3 examples/calstream.py json <"$D/unit.jsonl" >"$D/unit.cal"
unit=$(wc -c <"$D/unit.cal")
copies=$(( (MB * 1048576 + unit - 1) / unit ))
i=0
while [ $i -lt $copies ]; do cat "$D/unit.cal"; i=$((i + 1)); done >"$D/big.cal"
bytes=$(wc -c <"$D/big.cal")
"$BIN/cal-cat" --check "$D/big.cal" >/dev/null   # also warms the page cache

now() { date +%s.%N; }
# best of two runs of: cat FILE | CMD > /dev/null
best() {
  b=""
  for _ in 1 2; do
    t0=$(now); cat "$D/big.cal" | "$@" >/dev/null; t1=$(now)
    b=$(awk -v a="$t0" -v z="$t1" -v b="$b" 'BEGIN { t = z - a; if (b == "" || t < b) b = t; print b }')
  done
  echo "$b"
}
tc=$(best cat)
tp=$(best "$BIN/cal-cat" --pass)
tk=$(best "$BIN/cal-cat" --check)
mbs() { awk -v n="$bytes" -v t="$1" 'BEGIN { printf "%.1f", n / 1048576 / t }'; }
echo "passthrough: $(awk -v n="$bytes" 'BEGIN { printf "%.1f", n / 1048576 }') MB of TOKENS/ROW records"
echo "  cat            $(mbs "$tc") MB/s"
echo "  cal-cat --pass $(mbs "$tp") MB/s"
echo "  cal-cat --check $(mbs "$tk") MB/s"
echo "passthrough ratio (cal-cat --pass / cat): $(awk -v c="$tc" -v p="$tp" 'BEGIN { printf "%.2f", c / p }') (target >= 0.5)"
