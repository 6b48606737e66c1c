// parquet_nested.mjs OUTDIR - Parquet fixtures with list and struct columns,
// written by DuckDB and by hyparquet-writer (small pages: many per column
// chunk; PLAIN and dictionary encodings), with the shapes of chat data:
//   messages: list<struct<role: string, content: string>>  (ultrachat_200k)
//   tags:     list<string>
//   meta:     struct<source: string, lang: string>
// and Alpaca's instruction/input/output strings. Nulls at every level, empty
// lists, several row groups. For each NAME.parquet, NAME.want holds DuckDB's
// reading of its rows (one JSON object a line); rows.jsonl the rows as
// written (the same records as JSON Lines).
import { DuckDBInstance } from '@duckdb/node-api';
import { parquetWriteFile } from 'hyparquet-writer';
import fs from 'node:fs';

const out = process.argv[2];
const nrows = Number(process.argv[3] || 2500); // small files (e.g. 30) make fuzz seeds
const words = ['naïve', 'café', '日本語', 'Ω≈ç', '<|im_start|>', 'tab\there', 'line\nbreak', 'plain'];
const rows = [];
for (let i = 0; i < nrows; i++) {
  let messages = null;
  if (i % 23 === 0) messages = null;
  else if (i % 19 === 0) messages = [];
  else {
    messages = [];
    if (i % 7 === 0) messages.push({ role: 'system', content: `be brief ${i}` });
    for (let j = 0; j < 1 + (i % 5); j++) {
      const long = i % 211 === 5 ? ' ' + 'ünïcode text '.repeat(400) : '';
      const content = (i + j) % 13 === 0 ? null : `turn ${j} of ${i}: ${words[(i + j) % words.length]}${long}`;
      messages.push({ role: j % 2 ? 'assistant' : 'user', content });
    }
  }
  let tags = null;
  if (i % 11 === 0) tags = null;
  else if (i % 9 === 0) tags = [];
  else tags = [`t${i % 7}`, ...(i % 4 === 0 ? [null] : []), `tag ${i} ${words[i % words.length]}`];
  const meta = i % 29 === 0 ? null : { source: i % 3 === 0 ? null : `src${i % 5}`, lang: ['en', 'fr', 'ja'][i % 3] };
  rows.push({
    n: i, messages, tags, meta,
    instruction: `Do task ${i}`, input: i % 31 === 0 ? null : i % 2 ? '' : `input ${words[i % 8]}`, output: `answer ${i}`,
  });
}
fs.writeFileSync(`${out}/rows.jsonl`, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');

const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
await con.run('SET threads=1');
await con.run(`CREATE TABLE t AS SELECT * FROM read_json('${out}/rows.jsonl', columns={n: 'INTEGER',
  messages: 'STRUCT(role VARCHAR, content VARCHAR)[]', tags: 'VARCHAR[]', meta: 'STRUCT(source VARCHAR, lang VARCHAR)',
  instruction: 'VARCHAR', input: 'VARCHAR', output: 'VARCHAR'}) ORDER BY n`);
const duck = async (name, opts) =>
  con.run(`COPY (SELECT * FROM t ORDER BY n) TO '${out}/${name}.parquet' (FORMAT parquet, ${opts})`);
await duck('nduck_snappy_V1', 'COMPRESSION snappy, ROW_GROUP_SIZE 700');
await duck('nduck_zstd_V2', 'COMPRESSION zstd, ROW_GROUP_SIZE 1000, PARQUET_VERSION V2');
await duck('nduck_gzip_1rg', 'COMPRESSION gzip');
await duck('nduck_unc_V1', 'COMPRESSION uncompressed, ROW_GROUP_SIZE 900');

const str = (name, rep = 'OPTIONAL') => ({ name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: rep });
const schema = [
  { name: 'root', num_children: 7 },
  { name: 'n', type: 'INT32', repetition_type: 'REQUIRED' },
  { name: 'messages', repetition_type: 'OPTIONAL', num_children: 1, converted_type: 'LIST' },
  { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
  { name: 'element', repetition_type: 'OPTIONAL', num_children: 2 },
  str('role'), str('content'),
  { name: 'tags', repetition_type: 'OPTIONAL', num_children: 1, converted_type: 'LIST' },
  { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
  str('element'),
  { name: 'meta', repetition_type: 'OPTIONAL', num_children: 2 },
  str('source'), str('lang'),
  str('instruction'), str('input'), str('output'),
];
const hyp = (name, extra, enc) =>
  parquetWriteFile({
    filename: `${out}/${name}.parquet`,
    schema,
    columnData: ['n', 'messages', 'tags', 'meta', 'instruction', 'input', 'output'].map((c) => ({
      name: c, data: rows.map((r) => r[c]), ...(enc && c !== 'n' ? { encoding: enc } : {}),
    })),
    ...extra,
  });
hyp('nhyp_pages', { codec: 'SNAPPY', rowGroupSize: 800, pageSize: 2048 });
hyp('nhyp_plain', { codec: 'UNCOMPRESSED', rowGroupSize: [300, 1200], pageSize: 4096 }, 'PLAIN');

// DuckDB's reading of every file: the nested columns as JSON
const cols = ['messages', 'tags', 'meta', 'instruction', 'input', 'output'];
for (const f of fs.readdirSync(out).filter((f) => f.endsWith('.parquet')).sort()) {
  const r = await con.runAndReadAll(
    `SELECT ${cols.map((c) => `to_json(${c})`).join(', ')} FROM read_parquet('${out}/${f}')`);
  const lines = r.getRows().map((x) => JSON.stringify(Object.fromEntries(cols.map((c, k) => [c, x[k] === null ? null : JSON.parse(x[k])]))));
  fs.writeFileSync(`${out}/${f.replace('.parquet', '.want')}`, lines.join('\n') + '\n');
}
// what the fixtures cover, by DuckDB's reading of their metadata
const cover = new Set();
for (const f of fs.readdirSync(out).filter((f) => f.endsWith('.parquet')).sort()) {
  const m = await con.runAndReadAll(`SELECT path_in_schema, encodings, row_group_id FROM parquet_metadata('${out}/${f}')`);
  for (const [p, e, g] of m.getRows()) {
    for (const x of String(e).split(/[ ,]+/)) if (x) cover.add(`enc ${x}`);
    if (Number(g) > 0) cover.add(`row groups ${f}`);
  }
}
fs.writeFileSync(`${out}/coverage.txt`, [...cover].sort().join('\n') + '\n');
