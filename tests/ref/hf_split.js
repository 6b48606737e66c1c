// hf_split.js - the reference for tests/helpers/hf_split.c: the pieces the
// Rust HF tokenizers' Split pre-tokenizer (npm @anush008/tokenizers) makes
// of each text, with the behaviours Isolated and Removed, for each input
// line {"pattern": P, "texts": [S...]}; {"error": MESSAGE} when the library
// refuses P (Oniguruma does not compile it).
//
//   node hf_split.js <CASES.jsonl >OUT.jsonl
'use strict';
const fs = require('fs');
const path = require('path');
const {Tokenizer} = require(path.resolve(__dirname, '../../build/npm/node_modules/@anush008/tokenizers'));

function splitter(pattern, behavior) {
  const j = {version: '1.0', truncation: null, padding: null, added_tokens: [], normalizer: null,
    pre_tokenizer: {type: 'Split', pattern: {Regex: pattern}, behavior, invert: false},
    post_processor: null, decoder: null, model: {type: 'BPE', vocab: {a: 0}, merges: []}};
  return Tokenizer.fromString(JSON.stringify(j)).getPreTokenizer();
}

const out = [];
for (const line of fs.readFileSync(0, 'utf8').split('\n')) {
  if (!line) continue;
  const c = JSON.parse(line);
  let iso, rem;
  try {
    iso = splitter(c.pattern, 'Isolated');
    rem = splitter(c.pattern, 'Removed');
  } catch (e) {
    out.push(JSON.stringify({error: String(e.message || e).replace(/ at line \d+ column \d+$/, '')}));
    continue;
  }
  const pieces = (pt) => c.texts.map((s) => pt.preTokenizeString(s).map((x) => x[0]));
  out.push(JSON.stringify({isolated: pieces(iso), removed: pieces(rem)}));
}
process.stdout.write(out.join('\n') + '\n');
