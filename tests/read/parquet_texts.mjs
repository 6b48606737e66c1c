// parquet_texts.mjs FILE.parquet OUT.json - the rows of a Parquet file's
// columns as two independent readers give them: DuckDB (npm
// @duckdb/node-api: read_parquet, its column names and types, and the
// footer's key/value metadata) and hyparquet (a pure JavaScript reader).
// OUT: {"duckdb": [[...], ...], "types": [[name, type]], "kv": {...},
// "hyparquet": [[...], ...]}. Installed by tests/read/npm.sh.
import fs from 'node:fs';
import path from 'node:path';
import {createRequire} from 'node:module';
const require = createRequire(path.resolve('build/npm/package.json'));
const {DuckDBInstance} = require('@duckdb/node-api');
const {parquetReadObjects} = await import(path.resolve('build/npm/node_modules/hyparquet/src/index.js'));

const [file, out] = process.argv.slice(2);
const inst = await DuckDBInstance.create();
const c = await inst.connect();
const q = (s) => c.runAndReadAll(s).then((r) => r.getRows());
const lit = "'" + file.replace(/'/g, "''") + "'";
const rows = await q(`select * from read_parquet(${lit})`);
const types = await q(`select column_name, column_type from (describe select * from read_parquet(${lit}))`);
const kv = Object.fromEntries((await q(`select decode(key), decode(value) from parquet_kv_metadata(${lit})`)).map((r) => [r[0], r[1]]));
const buf = fs.readFileSync(file);
const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
const hy = await parquetReadObjects({file: ab});
fs.writeFileSync(out, JSON.stringify({duckdb: rows, types, kv, hyparquet: hy.map((o) => Object.values(o))}));
