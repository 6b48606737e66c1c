#!/bin/sh
# bench/pack.sh - throughput of cal-pack (concat), cal-shuffle (in memory,
# and spilling with a stream 4x larger than -S) and cal-blend on a token
# stream of CAL_BENCH_MB megabytes (default 1024), each as MB/s of input and
# as a ratio to `cat | cat` on the same bytes in the same run (the machine
# drifts, so only same-run ratios mean something), of CPU time (robust on a
# shared machine) and wall time. Medians of REPS (3) interleaved rounds.
# Targets: concat and blend >= 0.9 x cat; spilling shuffle within 3x of the
# in-memory shuffle.
. "$(dirname "$0")/lib/preamble.sh"
MB=${CAL_BENCH_MB:-1024}
D=$W
$PY - "$D" "$MB" <<'PYEOF'
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
QS=$((SMB / 4))
[ "$QS" -ge 1 ] || QS=1
cd "$D"
PYTHONPATH=$OLDPWD/bench/lib $PY - "$BYTES" "$NA" "$NB" "$SMB" "$QS" "${REPS:-3}" <<'PYEOF'
import sys
from runs import measure, ratio
n, na, nb, smb, qs, reps = (int(x) for x in sys.argv[1:])
mem = smb * 2 + 64
m = measure({
    "cat": "cat all.cal | cat >/dev/null",
    "concat": "cat all.cal | cal-pack -l 2048 >/dev/null 2>&1",
    "blend": f"cal-blend a.cal:rows={na} b.cal:rows={nb} --seed 1 >/dev/null",
    "shuf": f"cal-shuffle -S {mem}M all.cal >/dev/null",
    "spill": f"TMPDIR=. cal-shuffle -S {qs}M all.cal >/dev/null",
}, reps)
print(f"bench/pack.sh: {smb} MB token stream ({na} + {nb} records), medians of {reps}")
names = {"cat": "cat | cat", "concat": "cat | cal-pack -l 2048 (concat)", "blend": "cal-blend 2 sources, interleaved",
         "shuf": f"cal-shuffle in memory (-S {mem}M)", "spill": f"cal-shuffle spilling (-S {qs}M, 4x)"}
for k, name in names.items():
    print(f"  {name:36s} {n / 1048576 / m[k][1]:8.1f} MB/s  CPU {m[k][0]:.2f} s  wall {m[k][1]:.2f} s")
for k, name in (("concat", "cal-pack concat"), ("blend", "cal-blend")):
    ratio(f"{name} / cat (CPU)", m["cat"][0] / m[k][0], 0.9)
    ratio(f"{name} / cat (wall)", m["cat"][1] / m[k][1], 0.9)
ratio("cal-shuffle spilling / in memory (wall time)", m["spill"][1] / m["shuf"][1], 3, at_most=True)
PYEOF
