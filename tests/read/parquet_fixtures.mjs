// parquet_fixtures.mjs OUTDIR - writes the Parquet test fixtures with two
// independent writers (DuckDB and hyparquet-writer) and, for each NAME.parquet,
// NAME.want: the non-null values of its "text" column, one JSON string per line,
// as read back by DuckDB (DuckDB's own read of every file, including the
// hyparquet ones; the test also checks it against the generated rows).
import { DuckDBInstance } from '@duckdb/node-api';
import { parquetWriteFile } from 'hyparquet-writer';
import fs from 'node:fs';

const out = process.argv[2];
const nrows = Number(process.argv[3] || 3000);  // small files (e.g. 20) make fuzz seeds
const rows = [];
for (let i = 0; i < nrows; i++) {
  let t;
  if (i % 17 === 0) t = null;
  else if (i % 5 === 0) t = ['common value', 'héllo wörld', '日本語のテキスト', 'Ω≈ç√∫'][i % 4];
  else if (i % 700 === 1) t = `long ${i} ` + 'Ünïcødé тест 中文 '.repeat(1500);
  else t = `doc ${i}: naïve café — ${'abc'.repeat(i % 40)} end ${i * 7919 % 1000}\nsecond line ${i}`;
  rows.push(t);
}
fs.writeFileSync(`${out}/rows.jsonl`, rows.map((t, i) => JSON.stringify({ text: t, n: i })).join('\n') + '\n');
fs.writeFileSync(`${out}/rows.want`, rows.filter((t) => t !== null).map((t) => JSON.stringify(t)).join('\n') + '\n');

const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
await con.run('SET threads=1');
await con.run(`CREATE TABLE t AS SELECT text, n FROM read_json('${out}/rows.jsonl', columns={text: 'VARCHAR', n: 'INTEGER'}) ORDER BY n`);
await con.run(`CREATE TABLE d AS SELECT CASE WHEN n % 11 = 0 THEN NULL ELSE 'word ' || (n % 37) || ' ünïcode' END AS text, n FROM t ORDER BY n`);

const duck = async (name, table, opts) => {
  await con.run(`COPY (SELECT * FROM ${table} ORDER BY n) TO '${out}/${name}.parquet' (FORMAT parquet, ${opts})`);
};
for (const codec of ['uncompressed', 'snappy', 'gzip', 'zstd']) {
  for (const v of ['V1', 'V2']) await duck(`duck_${codec}_${v}`, 't', `COMPRESSION ${codec}, ROW_GROUP_SIZE 700, PARQUET_VERSION ${v}`);
}
await duck('duck_dict_V1', 'd', 'COMPRESSION snappy, ROW_GROUP_SIZE 1000');
await duck('duck_dict_V2', 'd', 'COMPRESSION zstd, ROW_GROUP_SIZE 1000, PARQUET_VERSION V2');
await duck('duck_lz4', 't', 'COMPRESSION lz4');
await duck('duck_brotli', 't', 'COMPRESSION brotli');
await con.run(`COPY (SELECT [text] AS text, n FROM t ORDER BY n) TO '${out}/duck_list.parquet' (FORMAT parquet)`);
await con.run(`COPY (SELECT {'body': text, 'k': n} AS doc, n FROM t ORDER BY n) TO '${out}/duck_struct.parquet' (FORMAT parquet)`);

const hyp = (name, enc, codec, extra = {}) => {
  parquetWriteFile({
    filename: `${out}/${name}.parquet`,
    columnData: [
      { name: 'id', data: rows.map((_, i) => i), type: 'INT32' },
      { name: 'text', data: rows, type: 'STRING', ...(enc ? { encoding: enc } : {}) },
    ],
    codec,
    rowGroupSize: 1000,
    pageSize: 65536,
    ...extra,
  });
};
hyp('hyp_plain', 'PLAIN', 'UNCOMPRESSED');
hyp('hyp_plain_snappy', 'PLAIN', 'SNAPPY');
hyp('hyp_default', undefined, 'SNAPPY');
hyp('hyp_dlba', 'DELTA_LENGTH_BYTE_ARRAY', 'UNCOMPRESSED');
hyp('hyp_dba', 'DELTA_BYTE_ARRAY', 'SNAPPY');
// a REQUIRED column (no definition levels): the rows without their nulls
parquetWriteFile({
  filename: `${out}/hyp_required.parquet`,
  columnData: [{ name: 'text', data: rows.filter((t) => t !== null), type: 'STRING', nullable: false }],
  codec: 'SNAPPY',
  rowGroupSize: 500,
});

// the reference read of every readable file
for (const f of fs.readdirSync(out).filter((f) => f.endsWith('.parquet')).sort()) {
  if (/lz4|brotli|list|struct/.test(f)) continue;
  const r = await con.runAndReadAll(`SELECT text FROM read_parquet('${out}/${f}') WHERE text IS NOT NULL`);
  const vals = r.getRows().map((x) => JSON.stringify(x[0]));
  fs.writeFileSync(`${out}/${f.replace('.parquet', '.want')}`, vals.join('\n') + '\n');
}
const r = await con.runAndReadAll(`SELECT doc.body FROM read_parquet('${out}/duck_struct.parquet') WHERE doc.body IS NOT NULL`);
fs.writeFileSync(`${out}/duck_struct.want`, r.getRows().map((x) => JSON.stringify(x[0])).join('\n') + '\n');

// what the fixtures cover, by DuckDB's reading of their metadata: one
// "CODEC ENCODING" line per distinct pair of the text columns
const cover = new Set();
for (const f of fs.readdirSync(out).filter((f) => f.endsWith('.parquet')).sort()) {
  const m = await con.runAndReadAll(`SELECT compression, encodings FROM parquet_metadata('${out}/${f}') WHERE path_in_schema IN ('text', 'doc, body')`);
  for (const [c, e] of m.getRows()) for (const x of String(e).split(/[ ,]+/)) if (x) cover.add(`${c} ${x}`);
}
fs.writeFileSync(`${out}/coverage.txt`, [...cover].sort().join('\n') + '\n');
