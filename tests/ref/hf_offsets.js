// hf_offsets.js TOKENIZER.json TEXTS.jsonl OUT.json - the reference ids and
// character offsets of texts (the "text" of each JSON line that has one):
// the Rust Hugging Face tokenizers (npm @anush008/tokenizers, installed into
// build/npm by scripts/fetch-tokenizers.sh), special-token text cut out and
// none added, as transformers encodes a rendered chat; offsets are
// [start, end) in characters (code points), as Encoding.offsets gives them
// and char_to_token reads them. OUT: a JSON list of {ids, offsets}.
'use strict';
const fs = require('fs');
const path = require('path');
const {Tokenizer} = require(path.resolve(__dirname, '../../build/npm/node_modules/@anush008/tokenizers'));

(async () => {
  const [tokPath, inPath, outPath] = process.argv.slice(2);
  const tok = Tokenizer.fromFile(tokPath);
  const out = [];
  for (const line of fs.readFileSync(inPath, 'utf8').split('\n')) {
    if (!line) continue;
    const r = JSON.parse(line);
    if (typeof r.text !== 'string' || r.text === '') continue;
    const e = await tok.encode(r.text, null, {addSpecialTokens: false});
    out.push({ids: Array.from(e.getIds()), offsets: e.getOffsets()});
  }
  fs.writeFileSync(outPath, JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
