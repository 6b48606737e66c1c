// hf_encode.js - the reference: encodes the TEXT records of a cal-stream with
// the Rust Hugging Face tokenizers (npm @anush008/tokenizers, installed into
// build/npm by scripts/fetch-tokenizers.sh) and writes, per record, a
// little-endian u32 count followed by the u32 ids.
//
//   node hf_encode.js TOKENIZER.json [--add-tokens TOKENS.json] MODE IN.cal OUT.ids [MODE IN.cal OUT.ids]...
//   MODE: plain        encode(s, null, {addSpecialTokens: false}) on a copy of
//                      the tokenizer.json whose special added tokens can never
//                      match: HF encode_special_tokens=True (special-token
//                      text is plain text), which the binding cannot switch
//         parse        the original file: special-token text is cut out
//         add          as plain, with addSpecialTokens: true
//         add-parse    as parse, with addSpecialTokens: true
//
// --add-tokens: a JSON list of {content, lstrip, rstrip, single_word,
// normalized} added as special tokens (addAddedTokens, tokenizers'
// add_tokens, which transformers calls for the special tokens its
// configuration names) in the parse modes; TOKENS.json.ids receives their
// ids. (In the plain modes special tokens never match: nothing to add.)
//
// Each record's bytes are decoded with the WHATWG UTF-8 decoder (invalid
// sequences -> U+FFFD per maximal subpart, a BOM kept), since the reference
// takes JavaScript strings.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const {AddedToken, Tokenizer} = require(path.resolve(__dirname, '../../build/npm/node_modules/@anush008/tokenizers'));

function* textRecords(buf) {
  const magic = Buffer.from([0x89, 0x43, 0x41, 0x4c, 0x0d, 0x0a, 0x1a, 0x0a]);
  let i = 0;
  while (i < buf.length) {
    if (buf.length - i >= 8 && buf.subarray(i, i + 8).equals(magic)) {
      i += 16 + buf.readUInt32LE(i + 12) + 8;
      continue;
    }
    const kind = buf[i], llen = buf.readUInt16LE(i + 2), plen = buf.readUInt32LE(i + 4);
    const start = i + 16 + llen;
    if (kind === 1) yield buf.subarray(start, start + plen);
    else if (kind !== 5) throw new Error(`record at byte ${i} is not TEXT (kind ${kind})`); // 5: END
    i = start + plen + 8;
  }
}

// The tokenizer for a mode: the file itself, or (plain, add) a copy whose
// special added tokens cannot match.
function load(tokPath, parse, extra) {
  if (parse && extra) {
    const tok = Tokenizer.fromFile(tokPath);
    const list = JSON.parse(fs.readFileSync(extra, 'utf8'));
    tok.addAddedTokens(list.map((t) => new AddedToken(t.content, true, {
      leftStrip: !!t.lstrip, rightStrip: !!t.rstrip, singleWord: !!t.single_word, normalized: !!t.normalized})));
    fs.writeFileSync(extra + '.ids', JSON.stringify(list.map((t) => tok.tokenToId(t.content))) + '\n');
    return tok;
  }
  if (parse) return Tokenizer.fromFile(tokPath);
  // The library gives added tokens that are not in the model's vocabulary
  // the next free id in file order (it ignores their "id"), so a special
  // token cannot just be dropped: that would shift the ids after it. One
  // in the model vocabulary is dropped; any other keeps its place under a
  // content that never occurs in text. Checked below.
  const j = JSON.parse(fs.readFileSync(tokPath, 'utf8'));
  const v = j.model && j.model.vocab; // an object (BPE), or [[piece, score], ...] (Unigram)
  const vocab = !v ? {} : Array.isArray(v) ? Object.fromEntries(v.map(([p], i) => [p, i])) : v;
  j.added_tokens = (j.added_tokens || []).filter((t) => !t.special || !(t.content in vocab)).map((t) =>
    t.special ? {...t, content: `\uffff\ufffecalkit-disabled-special-${t.id}\ufffe\uffff`} : t);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hfref-'));
  const file = path.join(tmp, 'tokenizer.json');
  fs.writeFileSync(file, JSON.stringify(j));
  const tok = Tokenizer.fromFile(file);
  fs.rmSync(tmp, {recursive: true});
  for (const t of j.added_tokens) {
    if (tok.tokenToId(t.content) !== t.id) throw new Error(`added token ${t.content} got id ${tok.tokenToId(t.content)}, not ${t.id}`);
  }
  return tok;
}

async function encodeFile(tok, add, inPath, outPath) {
  const dec = new TextDecoder('utf-8', {fatal: false, ignoreBOM: true});
  const texts = [];
  for (const b of textRecords(fs.readFileSync(inPath))) texts.push(dec.decode(b));
  const out = fs.openSync(outPath, 'w');
  // Batches of about 1 MB (encodeBatch runs on all cores; same ids as encode).
  for (let i = 0; i < texts.length;) {
    let j = i, bytes = 0;
    while (j < texts.length && (j === i || bytes + texts[j].length < 1e6) && j - i < 4096) bytes += texts[j++].length;
    const encs = await tok.encodeBatch(texts.slice(i, j), {addSpecialTokens: add});
    const parts = [];
    for (const e of encs) {
      const ids = e.getIds();
      const b = Buffer.alloc(4 + 4 * ids.length);
      b.writeUInt32LE(ids.length, 0);
      for (let k = 0; k < ids.length; k++) b.writeUInt32LE(ids[k], 4 + 4 * k);
      parts.push(b);
    }
    fs.writeSync(out, Buffer.concat(parts));
    i = j;
  }
  fs.closeSync(out);
}

async function main() {
  let [tokPath, ...jobs] = process.argv.slice(2);
  let extra = null;
  if (jobs[0] === '--add-tokens') [, extra, ...jobs] = jobs;
  if (!jobs.length || jobs.length % 3) throw new Error('usage: hf_encode.js TOKENIZER.json MODE IN.cal OUT.ids ...');
  const toks = {};
  for (let k = 0; k < jobs.length; k += 3) {
    const [mode, inPath, outPath] = jobs.slice(k, k + 3);
    if (!['plain', 'parse', 'add', 'add-parse'].includes(mode)) throw new Error(`bad mode ${mode}`);
    const parse = mode.endsWith('parse');
    if (!toks[parse]) toks[parse] = load(tokPath, parse, extra);
    await encodeFile(toks[parse], mode.startsWith('add'), inPath, outPath);
  }
}

main().catch((e) => {
  console.error(`hf_encode.js: ${e.message}`);
  process.exit(1);
});
