#!/bin/sh
# bench/read.sh - cal-read throughput on JSON Lines + zstd and on Parquet
# (zstd codec) against `zstd -dc` of the same text, measured in the same run
# (median of 3). The text: the built-in web, wiki and stories corpora when
# built, else generated prose, repeated to about 60 MB. Prints MB/s of text
# and the ratio to zstd -dc (the issue asks for >= 0.5).
. "$(dirname "$0")/lib/preamble.sh"
NM=$(sh tests/read/npm.sh)

srcs=""
for c in web wiki stories; do
  [ -f "build/corpora/$c.jsonl.zst" ] && srcs="$srcs build/corpora/$c.jsonl.zst"
done
# shellcheck disable=SC2086
$PY - "$W" $srcs <<'PYEOF'
import json, subprocess, sys
w, srcs = sys.argv[1], sys.argv[2:]
docs = []
for s in srcs:
    out = subprocess.run(["zstd", "-dc", s], stdout=subprocess.PIPE, check=True).stdout
    docs += [json.loads(l)["text"] for l in out.decode().splitlines()]
if not docs:
    docs = [("Sentence %d of a generated document about calibration data. " % i) * (5 + i % 50) for i in range(5000)]
total, out = 0, []
while total < 60_000_000:
    for d in docs:
        out.append(d); total += len(d.encode())
with open(w + "/text.txt", "w") as f:
    f.write("".join(out))
with open(w + "/docs.jsonl", "w") as f:
    for d in out:
        f.write(json.dumps({"text": d, "meta": {"n": len(d)}}, ensure_ascii=False) + "\n")
PYEOF
zstd -q -3 "$W/text.txt" -o "$W/text.txt.zst"
zstd -q -3 "$W/docs.jsonl" -o "$W/docs.jsonl.zst"
cat >"$NM/../bench_parquet.mjs" <<JS
import { DuckDBInstance } from '@duckdb/node-api';
const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
await c.run("COPY (SELECT text FROM read_json('$W/docs.jsonl', columns={text: 'VARCHAR', meta: 'JSON'})) TO '$W/docs.parquet' (FORMAT parquet, COMPRESSION zstd)");
JS
node "$NM/../bench_parquet.mjs"
rm -f "$W/docs.jsonl"
bytes=$(wc -c <"$W/text.txt")
rm -f "$W/text.txt"

# median of 3 runs of each, as CPU seconds (user+sys, robust on a shared
# machine) and wall-clock seconds
$PY - "$bytes" "$W/text.txt.zst" "$BIN/cal-read" "$W/docs.jsonl.zst" "$W/docs.parquet" <<'PYEOF'
import os, resource, statistics, subprocess, sys, time
b, tz, calread, jz, pq = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
def run(cmd):
    cpu, wall = [], []
    for _ in range(3):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN); t0 = time.monotonic()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
        t1 = time.monotonic(); r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime); wall.append(t1 - t0)
    return statistics.median(cpu), statistics.median(wall)
z = run(["zstd", "-dc", tz])
j = run([calread, jz])
p = run([calread, pq])
print("read: %.1f MB of text (median of 3)" % (b / 1e6))
print("  %-24s %8s %8s %12s" % ("", "CPU MB/s", "wall MB/s", "ratio (CPU)"))
print("  %-24s %8.1f %8.1f %12s" % ("zstd -dc (anchor)", b / z[0] / 1e6, b / z[1] / 1e6, "1.00"))
for name, t in (("cal-read JSONL.zst", j), ("cal-read Parquet zstd", p)):
    print("  %-24s %8.1f %8.1f %7.2f (wall %.2f)" % (name, b / t[0] / 1e6, b / t[1] / 1e6, z[0] / t[0], z[1] / t[1]))
PYEOF
