// hf_decode.js - the reference's decode (Rust HF tokenizers, npm
// @anush008/tokenizers: decode(ids, skipSpecialTokens=false)) of every
// record of a JSON-lines file of id lists, one JSON string per line.
//
//   node hf_decode.js TOKENIZER.json IDS.jsonl
'use strict';
const fs = require('fs');
const path = require('path');
const {Tokenizer} = require(path.resolve(__dirname, '../../build/npm/node_modules/@anush008/tokenizers'));

async function main() {
  const [tokPath, idsPath] = process.argv.slice(2);
  const tok = Tokenizer.fromFile(tokPath);
  const out = [];
  for (const line of fs.readFileSync(idsPath, 'utf8').split('\n')) {
    if (line) out.push(JSON.stringify(await tok.decode(JSON.parse(line), false)));
  }
  process.stdout.write(out.join('\n') + '\n');
}

main().catch((e) => {
  console.error(`hf_decode.js: ${e.message}`);
  process.exit(1);
});
