#!/bin/sh
# bench/pack.sh - throughput of cal-pack (concat), cal-shuffle (in memory,
# and spilling with a stream 4x larger than -S) and cal-blend on a token
# stream of CAL_BENCH_MB megabytes (default 1024), each as MB/s of input and
# as a ratio to `cat | cat` on the same bytes in the same run (the machine
# drifts, so only same-run ratios mean something). Median of 3 runs each.
# Targets (issue 5): concat and blend >= 0.5 x cat; spilling shuffle within
# 3x of the in-memory shuffle.
. "$(dirname "$0")/lib/preamble.sh"
MB=${CAL_BENCH_MB:-1024}
D=$W
/usr/bin/python3 - "$D" "$MB" <<'PYEOF'
# One header, then ~8 MB of TOKENS records (documents of 64-4096 tokens)
# repeated up to the size; halves a.cal and b.cal for cal-blend.
import random, struct, sys
sys.path.insert(0, "examples")
import calstream as cs
d, mb = sys.argv[1], int(sys.argv[2])
r = random.Random(1)
recs, n = [], 0
while n < 8 << 20:
    ids = [r.randrange(128256) for _ in range(r.randrange(64, 4096))]
    recs.append(cs.tokens("bench", r.getrandbits(64), ids))
    n += len(recs[-1])
chunk = b"".join(recs)
reps = max(1, (mb << 20) // len(chunk))
meta = [("tokenizer", "bench"), ("vocab", "128256"), ("bos", "1"), ("eos", "2")]
with open(d + "/all.cal", "wb") as f:
    f.write(cs.header(meta))
    for _ in range(reps):
        f.write(chunk)
    f.write(cs.end(len(recs) * reps))
for name, k in (("a", reps // 2), ("b", reps - reps // 2)):
    with open("%s/%s.cal" % (d, name), "wb") as f:
        f.write(cs.header(meta))
        for _ in range(max(1, k)):
            f.write(chunk)
        f.write(cs.end(len(recs) * max(1, k)))
open(d + "/counts", "w").write("%d %d\n" % (len(recs) * max(1, reps // 2), len(recs) * max(1, reps - reps // 2)))
PYEOF
read -r NA NB <"$D/counts"
BYTES=$(wc -c <"$D/all.cal")
SMB=$((BYTES / 1048576))
# time_med CMD: median wall seconds of 3 runs
time_med() {
  for i in 1 2 3; do
    s=$(date +%s.%N)
    sh -c "$1" >/dev/null
    e=$(date +%s.%N)
    echo "$e - $s" | bc -l
  done | sort -n | sed -n 2p
}
row() { # row NAME SECONDS
  awk -v n="$1" -v t="$2" -v b="$BYTES" -v c="$CAT" \
    'BEGIN { printf "%-34s %8.1f MB/s  %6.2f x cat  (%.2f s)\n", n, b / 1048576 / t, c / t, t }'
}
echo "bench/pack.sh: $SMB MB token stream ($NA + $NB records), median of 3"
CAT=$(time_med "cat '$D/all.cal' | cat")
row "cat | cat" "$CAT"
T1=$(time_med "cat '$D/all.cal' | cal-pack -l 2048")
row "cal-pack -l 2048 (concat)" "$T1"
T2=$(time_med "cd '$D' && cal-blend a.cal:rows=$NA b.cal:rows=$NB --seed 1")
row "cal-blend 2 sources, interleaved" "$T2"
MEM=$((SMB * 2 + 64))
T3=$(time_med "cal-shuffle -S ${MEM}M '$D/all.cal'")
row "cal-shuffle in memory (-S ${MEM}M)" "$T3"
QS=$((SMB / 4))
[ "$QS" -ge 1 ] || QS=1
T4=$(time_med "TMPDIR='$D' cal-shuffle -S ${QS}M '$D/all.cal'")
row "cal-shuffle spilling (-S ${QS}M, 4x)" "$T4"
awk -v a="$T4" -v b="$T3" 'BEGIN { printf "spilling / in-memory shuffle time: %.2f (target <= 3)\n", a / b }'
