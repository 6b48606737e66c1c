#!/bin/sh
# cal-read takes the PLAIN values of a zstd Parquet page a 256 KiB window at
# a time (lib/io/parquet.c, win_need): a DuckDB file whose pages are larger
# than the window (one row group, page v1 and v2, nulls, values of 0..1500
# bytes so that the window's edge cuts values and their length prefixes at
# many offsets, one value of 400 KB, longer than the window) reads back as
# the rows written. A page cut short inside a value is one line, exit 1.
. tests/lib.sh
if ! NM=$(sh tests/read/npm.sh 2>"$T/npm.err"); then skip "parquet window" "npm packages unavailable: $(cat "$T/npm.err")"; exit 0; fi
cat >"$NM/../parquet_window_$$.mjs" <<'JS'
import { DuckDBInstance } from '@duckdb/node-api';
import fs from 'node:fs';
const out = process.argv[2];
const rows = [];
for (let i = 0; i < 6000; i++) {
  if (i % 13 === 5) { rows.push(null); continue; }
  let t = `${i} ` + Array.from('aé中😀\n\t"\\')[i % 8].repeat(i % 1500);
  if (i === 3001) t = 'long '.repeat(80000);
  rows.push(t);
}
fs.writeFileSync(`${out}/rows.jsonl`, rows.map((t, n) => JSON.stringify({ text: t, n })).join('\n') + '\n');
fs.writeFileSync(`${out}/rows.want`, rows.filter((t) => t !== null).map((t) => JSON.stringify(t)).join('\n') + '\n');
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
await con.run('SET threads=1');
await con.run(`CREATE TABLE t AS SELECT text, n FROM read_json('${out}/rows.jsonl', columns={text: 'VARCHAR', n: 'INTEGER'}, maximum_object_size=10000000) ORDER BY n`);
for (const v of ['V1', 'V2'])
  await con.run(`COPY (SELECT * FROM t ORDER BY n) TO '${out}/w_${v}.parquet' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 100000, PARQUET_VERSION ${v})`);
JS
if ! node "$NM/../parquet_window_$$.mjs" "$T" 2>"$T/gen.err"; then rm -f "$NM/../parquet_window_$$.mjs"; not_ok "fixtures" "$(tail -3 "$T/gen.err")"; exit 1; fi
rm -f "$NM/../parquet_window_$$.mjs"
for v in V1 V2; do
  if cal-read "$T/w_$v.parquet" >"$T/$v.cal" 2>"$T/$v.err"; then
    cal-cat --json "$T/$v.cal" | $PY tests/read/texts.py >"$T/$v.got"
    same "zstd pages larger than the window, $v: the rows written" "$T/$v.got" "$T/rows.want"
  else
    not_ok "zstd pages larger than the window, $v" "$(cat "$T/$v.err")"
  fi
done
# the largest page, its compressed bytes cut short: the rest of the file as it is
$PY - "$T" <<'PYEOF'
import sys
t = sys.argv[1]
b = open(f"{t}/w_V1.parquet", "rb").read()
# the file's bytes up to the middle of its data and the footer behind: the page's frame ends early
mid = len(b) // 3
open(f"{t}/cut.parquet", "wb").write(b[:mid] + b"\0" * (len(b) - mid - 20000) + b[-20000:])
PYEOF
expect_fail "a damaged zstd page: one line" 1 "cut.parquet: byte [0-9]+: " cal-read "$T/cut.parquet"
