#!/bin/sh
# fanout.sh - what start-up costs a fan-out (issue 30 item 1): SHARDS
# (default 1000) small shards encoded by `xargs -P2 cal-encode`, one process
# each, against one process over the same files, in CPU time (user + sys
# of every process: robust on a shared machine), medians of REPS (3)
# rounds that run the two in turn. Target: the fan-out costs at most 2x the
# one process. Also printed: the fixed cost of one process (an empty
# shard) with the tokenizer's prepared image in the cache and without it
# (--no-cache: the tokenizer.json parsed), and the shard size at which
# that fixed cost equals the encoding.
# Text: every built-in corpus (make corpora), each document once, cut into
# SHARDS files of consecutive documents; else local text.
#   FANOUT_TOKENIZER  the tokenizer (default llama3)
. "$(dirname "$0")/lib/preamble.sh"
sh scripts/fetch-tokenizers.sh
TK=${FANOUT_TOKENIZER:-llama3}
N=${SHARDS:-1000}
export CAL_CACHE="$W/cache"

for c in wiki web code stories multilingual technical; do
  cal-read "$c" -o "$W/$c.cal" 2>/dev/null || true
done
mkdir -p "$W/shards"
$PY - "$W" "$N" <<'PYEOF'
import glob, os, sys
sys.path.insert(0, "examples")
import calstream
w, n = sys.argv[1], int(sys.argv[2])
docs = []
for f in sorted(glob.glob(os.path.join(w, "*.cal"))):
    docs += [(r[1], r[3]) for r in calstream.read_records(f, verify=False)[1]]
if not docs:
    print("bench/fanout.sh: corpora not built (make corpora); using /usr/share/common-licenses and Python sources", file=sys.stderr)
    for f in sorted(glob.glob("/usr/share/common-licenses/*") + glob.glob("/usr/lib/python3.11/*.py")):
        if os.path.isfile(f):
            docs.append((b"local", open(f, "rb").read()))
total = sum(len(d) for _, d in docs)
per, k, cur, size = total / n, 0, [], 0
for lab, d in docs:  # consecutive documents, about total / n bytes a shard
    cur.append((lab, d)); size += len(d)
    if size >= per * (k + 1) and k < n - 1:
        calstream.write_text(os.path.join(w, "shards", "s%05d.cal" % k), cur); k += 1; cur = []
calstream.write_text(os.path.join(w, "shards", "s%05d.cal" % k), cur)
print("text: %d documents, %.1f MB in %d shards of %.1f KB on average" % (len(docs), total / 1e6, k + 1, total / (k + 1) / 1e3))
PYEOF
printf '' | $PY examples/calstream.py text "$W/empty.cal"
cal-encode -t "$TK" "$W/empty.cal" -o /dev/null  # the image, made once before the timing

PYTHONPATH=$PWD/bench/lib $PY - "$W" "$TK" "${REPS:-3}" <<'PYEOF'
import glob, os, sys
from runs import measure, ratio
w, tk, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
shards = sorted(glob.glob(os.path.join(w, "shards", "*.cal")))
n = len(shards)
size = sum(os.path.getsize(s) for s in shards)
one = f"cal-encode -t {tk} {w}/shards/*.cal -o {w}/one.out"
fan = f"ls {w}/shards/*.cal | xargs -P2 -I{{}} cal-encode -t {tk} {{}} -o {{}}.out"
m = measure({"one": one, "fan": fan}, reps)
e = 20
f = measure({"cached": " ; ".join([f"cal-encode -t {tk} -j 1 {w}/empty.cal -o /dev/null"] * e),
             "uncached": " ; ".join([f"cal-encode -t {tk} -j 1 --no-cache {w}/empty.cal -o /dev/null"] * 2)}, 1)
fixed, cold = f["cached"][0] / e, f["uncached"][0] / 2
rate = size / m["one"][0]
print(f"fan-out of {n} shards ({size / 1e6:.1f} MB, tokenizer {tk}), CPU seconds, medians of {reps}:")
print(f"  one process over all shards   {m['one'][0]:7.2f} s CPU  {m['one'][1]:7.2f} s wall  ({rate / 1e6:.1f} MB per CPU second)")
print(f"  xargs -P2, a process a shard  {m['fan'][0]:7.2f} s CPU  {m['fan'][1]:7.2f} s wall")
print(f"  fixed cost of one process (an empty shard): {fixed * 1e3:.1f} ms CPU with the cached image, "
      f"{cold * 1e3:.0f} ms with --no-cache ({cold / fixed:.0f}x)")
print(f"  shard size at which the fixed cost equals the encoding: {fixed * rate / 1e3:.0f} KB")
ratio(f"{n} shards through xargs -P2 / one process (CPU)", m["fan"][0] / m["one"][0], 2, at_most=True)
PYEOF
