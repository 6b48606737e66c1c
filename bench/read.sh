#!/bin/sh
# bench/read.sh - cal-read throughput on JSON Lines + zstd and on Parquet
# (zstd codec) against `zstd -dc` of the same text, measured in the same run
# (medians of REPS, 3, interleaved rounds). The text: the built-in web, wiki
# and stories corpora when built, else generated prose, repeated to about 60
# MB. Prints MB/s of text and the ratios to zstd -dc, of CPU time (robust on
# a shared machine) and wall time; target >= 0.9.
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

PYTHONPATH=$PWD/bench/lib $PY - "$bytes" "$W/text.txt.zst" "$BIN/cal-read" "$W/docs.jsonl.zst" "$W/docs.parquet" "${REPS:-3}" <<'PYEOF'
import sys
from runs import measure, ratio
b, tz, calread, jz, pq, reps = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6])
m = measure({"zstd": f"zstd -dc {tz} >/dev/null", "jsonl": f"{calread} {jz} >/dev/null",
             "parquet": f"{calread} {pq} >/dev/null"}, reps)
print(f"read: {b / 1e6:.1f} MB of text, medians of {reps}")
for k, name in (("zstd", "zstd -dc (anchor)"), ("jsonl", "cal-read JSONL.zst"), ("parquet", "cal-read Parquet zstd")):
    print(f"  {name:24s} {b / m[k][0] / 1e6:8.1f} MB/s of CPU  {b / m[k][1] / 1e6:8.1f} MB/s wall")
for k, name in (("jsonl", "JSONL.zst"), ("parquet", "Parquet (zstd)")):
    ratio(f"cal-read {name} / zstd -dc (CPU)", m["zstd"][0] / m[k][0], 0.9)
    ratio(f"cal-read {name} / zstd -dc (wall)", m["zstd"][1] / m[k][1], 0.9)
PYEOF
