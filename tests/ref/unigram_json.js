// unigram_json.js - a tokenizer.json with a "Unigram" model made from a real
// SentencePiece unigram .model, as transformers' convert_slow_tokenizer.py
// (huggingface/transformers 00111b31, read for this) converts one, then
// loaded and saved again by the Rust HF tokenizers (npm @anush008/tokenizers,
// the reference), so that the file is in the reference's own serialization:
//
//   node unigram_json.js MODEL.model albert|spm|bert OUT.json
//
//   albert  AlbertConverter (do_lower_case, not keep_accents): Replace `` and
//           '' by ", NFKD, StripAccents, Lowercase, Precompiled (the model's
//           character map), Replace / {2,}/ by " "; pieces ending in a digit
//           and a comma score 100 less (check_number_comma); [CLS] $A [SEP]
//   spm     SpmConverter: Precompiled, Strip (right), Replace / {2,}/ by U+2581
//   bert    a BERT-style WordPiece tokenizer (no npm package here ships one
//           either): the vocabulary is the model's pieces, "\u2581w" as the
//           word w and any other piece p as "##p" (single characters as both),
//           after [PAD] [UNK] [CLS] [SEP] [MASK]; BertNormalizer (clean_text,
//           handle_chinese_chars, lowercase, strip_accents null),
//           BertPreTokenizer, WordPiece (## prefix, 100 characters),
//           BertProcessing, the WordPiece decoder: what bert-base-uncased's
//           tokenizer.json holds, with this vocabulary
// albert and spm: pre-tokenizer and decoder Metaspace (U+2581, prepend "always",
// split), Unigram(vocab = [piece, score] in id order, unk_id = the unknown
// piece, byte_fallback false), control pieces as special added tokens and
// user-defined pieces as non-special ones (normalized false). No npm package
// here ships a Unigram tokenizer.json; this one is the real model's
// vocabulary and map, converted and serialized by the reference library.
'use strict';
const fs = require('fs');
const path = require('path');
const {Tokenizer} = require(path.resolve(__dirname, '../../build/npm/node_modules/@anush008/tokenizers'));

function* fields(b) {
  let i = 0;
  const varint = () => {
    let v = 0n, s = 0n;
    for (;;) {
      const c = b[i++];
      v |= BigInt(c & 0x7f) << s;
      s += 7n;
      if (c < 0x80) return v;
    }
  };
  while (i < b.length) {
    const tag = Number(varint()), f = tag >> 3, w = tag & 7;
    if (w === 0) yield [f, Number(varint())];
    else if (w === 1) { yield [f, b.subarray(i, i + 8)]; i += 8; }
    else if (w === 5) { yield [f, b.subarray(i, i + 4)]; i += 4; }
    else if (w === 2) { const n = Number(varint()); yield [f, b.subarray(i, i + n)]; i += n; }
    else throw new Error(`wire type ${w}`);
  }
}

function readModel(file) {
  const pieces = [];
  let charsmap = null, unk = null;
  for (const [f, v] of fields(fs.readFileSync(file))) {
    if (f === 1) {
      const p = {piece: '', score: 0, type: 1};
      for (const [g, w] of fields(v)) {
        if (g === 1) p.piece = Buffer.from(w).toString('utf8');
        if (g === 2) p.score = Buffer.from(w).readFloatLE(0);
        if (g === 3) p.type = w;
      }
      if (p.type === 2 && unk === null) unk = pieces.length;
      pieces.push(p);
    } else if (f === 3) {
      for (const [g, w] of fields(v)) if (g === 2) charsmap = Buffer.from(w);
    }
  }
  return {pieces, charsmap, unk};
}

// transformers' check_number_comma
const numberComma = (p) => p.length < 2 || p[p.length - 1] !== ',' || !/[0-9]/.test(p[p.length - 2]);

function main() {
  const [model, style, out] = process.argv.slice(2);
  if (!out || !['albert', 'spm', 'bert'].includes(style)) throw new Error('usage: unigram_json.js MODEL albert|spm|bert OUT.json');
  const m = readModel(model);
  if (style === 'bert') return save(bert(m), out);
  const pre = {type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'always', split: true};
  const precompiled = m.charsmap ? [{type: 'Precompiled', precompiled_charsmap: m.charsmap.toString('base64')}] : [];
  const normalizers = style === 'albert'
    ? [{type: 'Replace', pattern: {String: '``'}, content: '"'}, {type: 'Replace', pattern: {String: "''"}, content: '"'},
      {type: 'NFKD'}, {type: 'StripAccents'}, {type: 'Lowercase'}, ...precompiled,
      {type: 'Replace', pattern: {Regex: ' {2,}'}, content: ' '}]
    : [...precompiled, {type: 'Strip', strip_left: false, strip_right: true},
      {type: 'Replace', pattern: {Regex: ' {2,}'}, content: '\u2581'}];
  const vocab = m.pieces.map((p) => [p.piece, style === 'albert' && !numberComma(p.piece) ? p.score - 100 : p.score]);
  const added = m.pieces.map((p, id) => ({id, p})).filter(({p}) => p.type === 3 || p.type === 4).map(({id, p}) => ({
    id, content: p.piece, single_word: false, lstrip: false, rstrip: false, normalized: false, special: p.type === 3}));
  const id = (s) => m.pieces.findIndex((p) => p.piece === s);
  const post = style === 'albert' ? {
    type: 'TemplateProcessing',
    single: [{SpecialToken: {id: '[CLS]', type_id: 0}}, {Sequence: {id: 'A', type_id: 0}}, {SpecialToken: {id: '[SEP]', type_id: 0}}],
    pair: [{SpecialToken: {id: '[CLS]', type_id: 0}}, {Sequence: {id: 'A', type_id: 0}}, {SpecialToken: {id: '[SEP]', type_id: 0}},
      {Sequence: {id: 'B', type_id: 1}}, {SpecialToken: {id: '[SEP]', type_id: 1}}],
    special_tokens: {'[CLS]': {id: '[CLS]', ids: [id('[CLS]')], tokens: ['[CLS]']},
      '[SEP]': {id: '[SEP]', ids: [id('[SEP]')], tokens: ['[SEP]']}},
  } : null;
  const json = {
    version: '1.0', truncation: null, padding: null, added_tokens: added,
    normalizer: {type: 'Sequence', normalizers}, pre_tokenizer: pre, post_processor: post, decoder: pre,
    model: {type: 'Unigram', unk_id: m.unk, vocab, byte_fallback: false},
  };
  save(json, out);
}

function save(json, out) {
  const tmp = out + '.in';
  fs.writeFileSync(tmp, JSON.stringify(json));
  Tokenizer.fromFile(tmp).save(out);
  fs.rmSync(tmp);
}

function bert(m) {
  const specials = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
  const vocab = {};
  let n = 0;
  const add = (w) => { if (w && !(w in vocab)) vocab[w] = n++; };
  specials.forEach(add);
  for (const p of m.pieces) {
    if (p.type !== 1 && p.type !== 4) continue;
    const chars = [...p.piece];
    if (chars[0] === '\u2581') add(chars.slice(1).join(''));
    else {
      if (chars.length === 1) add(p.piece);
      add('##' + p.piece);
    }
  }
  return {
    version: '1.0', truncation: null, padding: null,
    added_tokens: specials.map((content, id) => ({id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true})),
    normalizer: {type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true},
    pre_tokenizer: {type: 'BertPreTokenizer'},
    post_processor: {type: 'BertProcessing', sep: ['[SEP]', 3], cls: ['[CLS]', 2]},
    decoder: {type: 'WordPiece', prefix: '##', cleanup: true},
    model: {type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab},
  };
}

main();
