#!/bin/sh
# bench/read.sh - cal-read throughput on JSON Lines + zstd and on Parquet
# (zstd codec) against `zstd -dc` of the same text, measured in the same
# rounds (medians of REPS, 5; each round starts with another of the three).
# The text is real and every document occurs once: the built-in corpora
# (web, wiki, stories, technical, multilingual, code) and, when `make
# corpora` fetched it and dpkg-deb is there, the Go 1.19 sources of
# Debian's golang-1.19-src (about 100 MB of code, escape-dense in JSON).
# Repeating documents would flatter Parquet: DuckDB keeps a repeated string
# once in a dictionary (2.11x zstd -dc on the earlier repeated input, 0.85x
# with distinct strings at 1.1 GB). Prints MB/s of text and the ratios to
# zstd -dc, of CPU time (robust on a shared machine) and wall time (an idle
# machine only), per input: prose (the corpora), code (Go), and both.
# cal-read on JSONL.zst runs with CAL_DECOMPRESS_THREAD=0 for the CPU figure
# and =1 for the wall figure (both printed), not by the load average.
# Target >= 0.9.
. "$(dirname "$0")/lib/preamble.sh"
NM=$(sh tests/read/npm.sh)
deb=$(ls build/corpora-src/deb/golang-1.19-src_*.deb 2>/dev/null | head -1)
if [ -n "$deb" ] && command -v dpkg-deb >/dev/null; then dpkg-deb -x "$deb" "$W/go"; fi

$PY - "$W" <<'PYEOF'
import json, os, subprocess, sys
w = sys.argv[1]
sets = {"prose": [], "code": []}
for c in ("web", "wiki", "stories", "technical", "multilingual", "code"):
    p = "build/corpora/%s.jsonl.zst" % c
    if os.path.exists(p):
        out = subprocess.run(["zstd", "-dc", p], stdout=subprocess.PIPE, check=True).stdout
        sets["prose"] += [json.loads(l)["text"] for l in out.decode().splitlines()]
if not sets["prose"]: # no corpora: generated prose, each document different
    sets["prose"] = [" ".join("w%d" % ((i * 7919 + k * 104729) % 50021) for k in range(50 + i % 400)) for i in range(20000)]
seen = set()
for root, dirs, files in sorted(os.walk(w + "/go")):
    dirs.sort()
    for f in sorted(files):
        p = os.path.join(root, f)
        if os.path.islink(p) or not f.endswith((".go", ".s", ".c", ".h", ".txt", ".md")):
            continue
        t = open(p, "rb").read()
        try:
            t = t.decode()
        except UnicodeDecodeError:
            continue
        if t.strip() and t not in seen: # every document once
            seen.add(t)
            sets["code"].append(t)
if not sets["code"]:
    del sets["code"]
else:
    sets["both"] = sets["prose"] + sets["code"]
for name, docs in sets.items():
    with open("%s/%s.txt" % (w, name), "w") as f:
        f.write("".join(docs))
    with open("%s/%s.jsonl" % (w, name), "w") as f:
        for d in docs:
            f.write(json.dumps({"text": d, "meta": {"n": len(d)}}, ensure_ascii=False) + "\n")
open(w + "/sets", "w").write(" ".join(sets))
PYEOF
for s in $(cat "$W/sets"); do
  zstd -q -3 "$W/$s.txt" -o "$W/$s.txt.zst"
  zstd -q -3 "$W/$s.jsonl" -o "$W/$s.jsonl.zst"
  cat >"$NM/../bench_parquet.mjs" <<JS
import { DuckDBInstance } from '@duckdb/node-api';
const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
await c.run("COPY (SELECT text FROM read_json('$W/$s.jsonl', columns={text: 'VARCHAR', meta: 'JSON'}, maximum_object_size=1000000000)) TO '$W/$s.parquet' (FORMAT parquet, COMPRESSION zstd)");
JS
  node "$NM/../bench_parquet.mjs"
  wc -c <"$W/$s.txt" >"$W/$s.bytes"
  rm -f "$W/$s.jsonl" "$W/$s.txt"
done
rm -f "$NM/../bench_parquet.mjs"

PYTHONPATH=$PWD/bench/lib $PY - "$W" "$BIN/cal-read" "${REPS:-5}" <<'PYEOF'
import sys
from runs import measure_stages, ratio
w, calread, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
for s in open(w + "/sets").read().split():
    b = int(open("%s/%s.bytes" % (w, s)).read())
    m = measure_stages({"zstd": ([["zstd", "-dc", "%s/%s.txt.zst" % (w, s)]], None),
                        "jsonl": ([["env", "CAL_DECOMPRESS_THREAD=0", calread, "%s/%s.jsonl.zst" % (w, s)]], None),
                        "jsonl_t": ([["env", "CAL_DECOMPRESS_THREAD=1", calread, "%s/%s.jsonl.zst" % (w, s)]], None),
                        "parquet": ([[calread, "%s/%s.parquet" % (w, s)]], None)}, reps)
    print(f"read, {s}: {b / 1e6:.1f} MB of text, every document once, medians of {reps} rounds")
    for k, name in (("zstd", "zstd -dc (anchor)"), ("jsonl", "cal-read JSONL.zst"), ("jsonl_t", "  the same, thread on"),
                    ("parquet", "cal-read Parquet zstd")):
        print(f"  {name:24s} {b / m[k][1] / 1e6:8.1f} MB/s of CPU  {b / m[k][2] / 1e6:8.1f} MB/s wall")
    # cal-read's decompression thread starts by the load average; pinned here so the figures
    # do not depend on it: off for the CPU ratio (the thread adds CPU), on for the wall ratio.
    ratio(f"cal-read JSONL.zst / zstd -dc, {s} (CPU, CAL_DECOMPRESS_THREAD=0)", m["zstd"][1] / m["jsonl"][1], 0.9)
    ratio(f"cal-read JSONL.zst / zstd -dc, {s} (wall, CAL_DECOMPRESS_THREAD=1)", m["zstd"][2] / m["jsonl_t"][2], 0.9)
    ratio(f"cal-read Parquet (zstd) / zstd -dc, {s} (CPU)", m["zstd"][1] / m["parquet"][1], 0.9)
    ratio(f"cal-read Parquet (zstd) / zstd -dc, {s} (wall)", m["zstd"][2] / m["parquet"][2], 0.9)
PYEOF
