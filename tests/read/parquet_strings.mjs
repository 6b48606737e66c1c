// parquet_strings.mjs IN.json OUT.parquet - writes the strings of the JSON
// array IN.json as the column "text" of a Parquet file with hyparquet-writer
// (an independent writer, pinned by tests/read/npm.sh), for the tests that
// need text Parquet files of their own.
import { parquetWriteFile } from 'hyparquet-writer';
import fs from 'node:fs';

const [inPath, outPath] = process.argv.slice(2);
const rows = JSON.parse(fs.readFileSync(inPath, 'utf8'));
parquetWriteFile({
  filename: outPath,
  columnData: [{ name: 'text', data: rows, type: 'STRING' }],
  codec: 'SNAPPY',
});
