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
# The floor: SHARDS runs of /bin/true through the same xargs -P2 (what
# starting a process costs whatever it does), and the ratio a fan-out of
# processes that did nothing but start would reach (one + floor) / one:
# the target can be met only where that floor ratio is well under it.
# The same text is also cut into SHARDS/4 and SHARDS/16 shards (about 4x
# and 16x larger), so the reader sees at which shard size the 2x is met.
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
rm -rf "$W/shards" "$W/shards4" "$W/shards16"
mkdir -p "$W/shards" "$W/shards4" "$W/shards16"
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
for sub, m in (("shards", n), ("shards4", max(1, n // 4)), ("shards16", max(1, n // 16))):
    per, k, cur, size = total / m, 0, [], 0
    for lab, d in docs:  # consecutive documents, about total / m bytes a shard
        cur.append((lab, d)); size += len(d)
        if size >= per * (k + 1) and k < m - 1:
            calstream.write_text(os.path.join(w, sub, "s%05d.cal" % k), cur); k += 1; cur = []
    calstream.write_text(os.path.join(w, sub, "s%05d.cal" % k), cur)
    print("text: %d documents, %.1f MB in %d shards of %.1f KB on average" % (len(docs), total / 1e6, k + 1, total / (k + 1) / 1e3))
PYEOF
printf '' | $PY examples/calstream.py text "$W/empty.cal"
cal-encode -t "$TK" "$W/empty.cal" -o /dev/null  # the image, made once before the timing
# An image is trusted by its identity once over 2 s old (cal-encode(1),
# CACHE): a fan-out's first 2 s of processes check it whole, the rest not.
sleep 3
cal-encode -t "$TK" "$W/empty.cal" -o /dev/null

PYTHONPATH=$PWD/bench/lib $PY - "$W" "$TK" "${REPS:-3}" <<'PYEOF'
import glob, os, sys
from runs import measure, ratio
w, tk, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
sets = []
for sub in ("shards", "shards4", "shards16"):
    shards = sorted(glob.glob(os.path.join(w, sub, "*.cal")))
    sets.append((sub, len(shards), sum(os.path.getsize(s) for s in shards)))
cmds = {}
for sub, n, size in sets:
    cmds["one " + sub] = f"cal-encode -t {tk} {w}/{sub}/*.cal -o {w}/one.out"
    cmds["fan " + sub] = f"ls {w}/{sub}/*.cal | xargs -P2 -I{{}} cal-encode -t {tk} {{}} -o {{}}.out"
    cmds["true " + sub] = f"ls {w}/{sub}/*.cal | xargs -P2 -I{{}} /bin/true {{}}"
m = measure(cmds, reps)
e = 20
f = measure({"cached": " ; ".join([f"cal-encode -t {tk} -j 1 {w}/empty.cal -o /dev/null"] * e),
             "uncached": " ; ".join([f"cal-encode -t {tk} -j 1 --no-cache {w}/empty.cal -o /dev/null"] * 2)}, 1)
fixed, cold = f["cached"][0] / e, f["uncached"][0] / 2
sub, n, size = sets[0]
one = m["one " + sub][0]
rate = size / one
print(f"fan-out of {n} shards ({size / 1e6:.1f} MB, tokenizer {tk}), CPU seconds, medians of {reps}:")
print(f"  one process over all shards   {one:7.2f} s CPU  {m['one ' + sub][1]:7.2f} s wall  ({rate / 1e6:.1f} MB per CPU second)")
print(f"  xargs -P2, a process a shard  {m['fan ' + sub][0]:7.2f} s CPU  {m['fan ' + sub][1]:7.2f} s wall")
print(f"  xargs -P2, /bin/true a shard  {m['true ' + sub][0]:7.2f} s CPU  (the floor: starting {n} processes)")
print(f"  fixed cost of one process (an empty shard): {fixed * 1e3:.2f} ms CPU with the cached image, "
      f"{cold * 1e3:.0f} ms with --no-cache ({cold / fixed:.0f}x); /bin/true through xargs: "
      f"{m['true ' + sub][0] / n * 1e3:.2f} ms a process")
print(f"  the 2x target allows {one / n * 1e3:.2f} ms CPU a process beyond the encoding")
print(f"  shard size at which the fixed cost equals the encoding: {fixed * rate / 1e3:.0f} KB")
print("  by shard size (each set: the same text; one process over its files against xargs -P2):")
print("    shards  KB a shard   one s   fan-out s   ratio   floor ratio (one + /bin/true fan-out) / one")
for s_, k, sz in sets:
    o, fo, tr = m["one " + s_][0], m["fan " + s_][0], m["true " + s_][0]
    print(f"    {k:6d}  {sz / k / 1e3:10.1f}  {o:6.2f}  {fo:10.2f}  {fo / o:6.2f}  {(o + tr) / o:12.2f}")
ratio(f"{n} shards through xargs -P2 / one process (CPU)", m["fan " + sub][0] / one, 2, at_most=True)
ratio(f"floor: {n} x /bin/true through xargs -P2, plus one process, / one process (CPU)", (one + m["true " + sub][0]) / one,
      note="(no fan-out of processes can do better)")
PYEOF
