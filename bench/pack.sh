#!/bin/sh
# bench/pack.sh - cal-pack (concat), cal-blend and cal-shuffle on a token
# stream of CAL_BENCH_MB megabytes (default 512) of distinct random
# documents (bench/lib/tokens.py: no repeated block), against the tools in
# their place, in the same rounds (medians of REPS, 5):
#   cat F | cal-pack -l 2048 > /dev/null     against  cat F | cat > /dev/null
#   cal-blend A:rows=.. B:rows=.. > /dev/null against  cat A B > /dev/null
#   cal-shuffle -S (1/4 of F) F > /dev/null   against  cal-shuffle in memory,
#                                            and shuf on a text file of as many
#                                            lines and bytes
# Ratios of each program's own CPU time (robust on a shared machine), of the
# whole pipeline's CPU time, and of wall time (an idle machine only).
# Targets: concat and blend >= 0.9 x cat; spilling shuffle within 3x of the
# in-memory one (wall); against shuf the ratio is printed without one.
. "$(dirname "$0")/lib/preamble.sh"
MB=${CAL_BENCH_MB:-512}
$PY bench/lib/tokens.py "$W/all.cal" "$MB" 1 >/dev/null
NA=$($PY bench/lib/tokens.py "$W/a.cal" $((MB / 2)) 2)
NB=$($PY bench/lib/tokens.py "$W/b.cal" $((MB - MB / 2)) 3)
# shuf's input: as many lines as all.cal has records, of the same lengths
$PY - "$W/all.cal" "$W/lines.txt" <<'PYEOF'
import os, struct, sys
sys.path.insert(0, "examples")
import calstream as cs
import numpy as np
_, recs = cs.read_records(sys.argv[1], verify=False)
r = np.random.default_rng(4)
alpha = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", dtype=np.uint8)
with open(sys.argv[2], "wb") as f:
    for rec in recs:
        n = 16 + len(rec[1]) + len(rec[3]) + 8
        f.write(alpha[r.integers(0, len(alpha), n - 1)].tobytes() + b"\n")
PYEOF
BYTES=$(wc -c <"$W/all.cal")
SMB=$((BYTES / 1048576))
QS=$((SMB / 4))
[ "$QS" -ge 1 ] || QS=1
cat "$W/all.cal" "$W/a.cal" "$W/b.cal" "$W/lines.txt" >/dev/null # page cache
cd "$W"
PYTHONPATH=$OLDPWD/bench/lib $PY - "$BYTES" "$NA" "$NB" "$SMB" "$QS" "${REPS:-5}" "$BIN" <<'PYEOF'
import os, sys
from runs import measure_stages, ratio
n, na, nb, smb, qs, reps = (int(x) for x in sys.argv[1:7])
B = sys.argv[7]
mem = smb * 2 + 64
os.environ["TMPDIR"] = "."
m = measure_stages({
    "cat": ([["cat", "all.cal"], ["cat"]], None),
    "concat": ([["cat", "all.cal"], [B + "/cal-pack", "-l", "2048"]], None),
    "cat2": ([["cat", "a.cal", "b.cal"]], None),
    "blend": ([[B + "/cal-blend", f"a.cal:rows={na}", f"b.cal:rows={nb}", "--seed", "1"]], None),
    "shuf": ([[B + "/cal-shuffle", "-S", f"{mem}M", "all.cal"]], None),
    "spill": ([[B + "/cal-shuffle", "-S", f"{qs}M", "all.cal"]], None),
    "gnushuf": ([["shuf", "lines.txt"]], None),
}, reps)
print(f"bench/pack.sh: {smb} MB token stream ({na} + {nb} records to blend), medians of {reps} rounds")
names = {"cat": "cat F | cat", "concat": "cat F | cal-pack -l 2048 (concat)", "cat2": "cat A B",
         "blend": "cal-blend A B, interleaved", "shuf": f"cal-shuffle in memory (-S {mem}M)",
         "spill": f"cal-shuffle spilling (-S {qs}M, 4x)", "gnushuf": "shuf (text, as many lines and bytes)"}
for k, name in names.items():
    st, tot, wall = m[k]
    print(f"  {name:40s} stages {' '.join('%.3f' % c for c in st)}  total {tot:.3f}  wall {wall:.3f}  "
          f"{n / 1048576 / wall:7.1f} MB/s")
ratio("cal-pack concat / cat (its own CPU)", m["cat"][0][1] / m["concat"][0][1], 0.9)
ratio("cal-pack concat / cat (pipeline CPU)", m["cat"][1] / m["concat"][1], 0.9)
ratio("cal-pack concat / cat (wall)", m["cat"][2] / m["concat"][2], 0.9)
ratio("cal-blend / cat A B (CPU)", m["cat2"][1] / m["blend"][1], 0.9)
ratio("cal-blend / cat A B (wall)", m["cat2"][2] / m["blend"][2], 0.9)
ratio("cal-shuffle spilling / in memory (wall time)", m["spill"][2] / m["shuf"][2], 3, at_most=True)
ratio("cal-shuffle spilling / shuf (CPU time)", m["spill"][1] / m["gnushuf"][1])
ratio("cal-shuffle spilling / shuf (wall time)", m["spill"][2] / m["gnushuf"][2])
PYEOF
