// gen-unicode.mjs DIR - writes to stdout the C tables of lib/tok/unicode.h from
// the @unicode/unicode-VERSION packages unpacked in DIR/VERSION/package
// (scripts/fetch-unicode.sh). Deterministic: the same packages give the same
// bytes.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = process.argv[2];
if (!dir) throw new Error('usage: node gen-unicode.mjs build/unicode');
const load = async (version, prop) =>
  (await import(pathToFileURL(path.resolve(dir, version, 'package', prop, 'code-points.mjs')).href)).default;

// In lib/tok/unicode.h's order (utf8proc's).
const GC = ['Unassigned', 'Uppercase_Letter', 'Lowercase_Letter', 'Titlecase_Letter', 'Modifier_Letter',
  'Other_Letter', 'Nonspacing_Mark', 'Spacing_Mark', 'Enclosing_Mark', 'Decimal_Number', 'Letter_Number',
  'Other_Number', 'Connector_Punctuation', 'Dash_Punctuation', 'Open_Punctuation', 'Close_Punctuation',
  'Initial_Punctuation', 'Final_Punctuation', 'Other_Punctuation', 'Math_Symbol', 'Currency_Symbol',
  'Modifier_Symbol', 'Other_Symbol', 'Space_Separator', 'Line_Separator', 'Paragraph_Separator', 'Control',
  'Format', 'Surrogate', 'Private_Use'];
const ALPHA = 0x20, NUMERIC17 = 0x40, NEW9 = 0x80, SPACE = 0x100, JOINC = 0x200, MARK9 = 0x400;
const OTHER8 = 0x800, MN8 = 0x1000, PUNCT8 = 0x2000;
const N = 0x110000;
const props = new Uint16Array(N); // GC 0 = Unassigned

for (let g = 1; g < GC.length; g++) for (const c of await load('16.0.0', `General_Category/${GC[g]}`)) props[c] |= g;
for (const c of await load('16.0.0', 'Binary_Property/Alphabetic')) props[c] |= ALPHA;
for (const c of await load('16.0.0', 'Binary_Property/White_Space')) props[c] |= SPACE;
for (const c of await load('16.0.0', 'Binary_Property/Join_Control')) props[c] |= JOINC;
for (const c of await load('17.0.0', 'General_Category/Number')) props[c] |= NUMERIC17;
for (const c of await load('9.0.0', 'General_Category/Mark')) props[c] |= MARK9;
// the unicode_categories crate 0.1.1 of BertNormalizer and BertPreTokenizer:
// lists of Unicode 8.0's code points (its tables.rs at 92bb246 has none of
// 9.0's new marks), private use as whole ranges (lib.rs matches them)
for (const g of ['Control', 'Format', 'Private_Use']) for (const c of await load('8.0.0', `General_Category/${g}`)) props[c] |= OTHER8;
for (const c of await load('8.0.0', 'General_Category/Nonspacing_Mark')) props[c] |= MN8;
for (const c of await load('8.0.0', 'General_Category/Punctuation')) props[c] |= PUNCT8;
const assigned9 = new Uint8Array(N).fill(1);
for (const c of await load('9.0.0', 'General_Category/Unassigned')) assigned9[c] = 0;
for (let c = 0; c < N; c++) if (!assigned9[c]) props[c] |= NEW9;

// The Script property (16.0), as an index into the sorted names; Unknown
// where no script lists a code point.
const SCRIPTS = (await import(pathToFileURL(path.resolve(dir, '16.0.0', 'package', 'index.mjs')).href)).default.Script;
if (!SCRIPTS || SCRIPTS.length > 255) throw new Error('no Script list of at most 255 names in the 16.0.0 package');
const script = new Uint8Array(N).fill(SCRIPTS.indexOf('Unknown'));
for (let s = 0; s < SCRIPTS.length; s++) for (const c of await load('16.0.0', `Script/${SCRIPTS[s]}`)) script[c] = s;

// Two stages of 128 code points: identical blocks are stored once.
const stages = (values) => {
  const blocks = [], index = new Map(), stage1 = [];
  for (let b = 0; b < N / 128; b++) {
    const blk = Array.from(values.subarray(b * 128, b * 128 + 128));
    const key = blk.join(',');
    if (!index.has(key)) { index.set(key, blocks.length); blocks.push(blk); }
    stage1.push(index.get(key));
  }
  return [stage1, blocks];
};
const [stage1, blocks] = stages(props), [scStage1, scBlocks] = stages(script);

// Grapheme clusters (UAX #29, 16.0) as the unicode-segmentation crate 1.12
// sees them: one category per code point (Grapheme_Cluster_Break, with
// Extended_Pictographic and InCB=Consonant as categories of their own),
// InCB=Extend and InCB=Linker as bits (lib/tok/grapheme.h). The package
// gives InCB as one set: Linker and Consonant are its viramas and
// consonants of the six scripts UAX #44 names, Extend the rest.
const GCB = ['Other', 'CR', 'LF', 'Control', 'Extend', 'ZWJ', 'Regional_Indicator', 'Prepend', 'SpacingMark',
  'L', 'V', 'T', 'LV', 'LVT'];
const EXTPICT = 14, CONSONANT = 15, INCB_EXTEND = 0x10, INCB_LINKER = 0x20;
const gcb = new Uint8Array(N);
for (let g = 1; g < GCB.length; g++) for (const c of await load('16.0.0', `Grapheme_Cluster_Break/${GCB[g]}`)) gcb[c] = g;
for (const c of await load('16.0.0', 'Binary_Property/Extended_Pictographic')) {
  if (gcb[c]) throw new Error(`U+${c.toString(16)}: Extended_Pictographic with a Grapheme_Cluster_Break`);
  gcb[c] = EXTPICT;
}
const incbScripts = new Set();
for (const sc of ['Bengali', 'Devanagari', 'Gujarati', 'Malayalam', 'Oriya', 'Telugu'])
  for (const c of await load('16.0.0', `Script/${sc}`)) incbScripts.add(c);
const virama = new Set(await load('16.0.0', 'Indic_Syllabic_Category/Virama'));
const consonant = new Set(await load('16.0.0', 'Indic_Syllabic_Category/Consonant'));
let nlinker = 0;
for (const c of await load('16.0.0', 'Binary_Property/InCB')) {
  if (incbScripts.has(c) && virama.has(c)) { gcb[c] |= INCB_LINKER; nlinker++; }
  else if (incbScripts.has(c) && consonant.has(c)) {
    if (gcb[c]) throw new Error(`U+${c.toString(16)}: InCB=Consonant with a Grapheme_Cluster_Break`);
    gcb[c] = CONSONANT;
  } else gcb[c] |= INCB_EXTEND;
}
if (nlinker !== 6) throw new Error(`${nlinker} InCB=Linker code points, not 6`);
const [gcbStage1, gcbBlocks] = stages(gcb);

// Rust's char::to_lowercase: SpecialCasing's unconditional mappings, else the simple one.
const simple = await load('17.0.0', 'Simple_Case_Mapping/Lowercase');
const special = await load('17.0.0', 'Special_Casing/Lowercase');
const lower = [], lowerSpecial = [];
for (const [c, l] of [...simple.entries()].sort((a, b) => a[0] - b[0])) if (!special.has(c) && l !== c) lower.push([c, l]);
for (const [c, l] of [...special.entries()].sort((a, b) => a[0] - b[0])) {
  if (l.length === 1) { if (l[0] !== c) lower.push([c, l[0]]); continue; }
  if (l.length > 3) throw new Error(`lowercase of U+${c.toString(16)} is longer than 3`);
  lowerSpecial.push([c, ...l, 0, 0].slice(0, 4));
}
lower.sort((a, b) => a[0] - b[0]);

const rows = (arr, per) => {
  const out = [];
  for (let i = 0; i < arr.length; i += per) out.push('    ' + arr.slice(i, i + per).join(', ') + ',');
  return out.join('\n');
};
const out = [];
out.push('/* Generated by scripts/gen-unicode.mjs from npm @unicode/unicode-9.0.0, -16.0.0 and -17.0.0');
out.push(' * (see lib/tok/unicode.h): do not edit. */');
out.push('#include "tok/unicode.h"', '');
out.push('const char tu_versions[] = "regex 16.0.0, char methods 17.0.0, normalizers 9.0.0, graphemes 16.0.0";', '');
out.push(`const uint16_t tu_stage1[0x110000 >> 7] = {\n${rows(stage1, 16)}\n};`, '');
out.push(`const uint16_t tu_stage2[${blocks.length}][128] = {`);
for (const b of blocks) out.push(`  {\n${rows(b, 16)}\n  },`);
out.push('};', '');
out.push(`const uint16_t tu_sc_stage1[0x110000 >> 7] = {\n${rows(scStage1, 16)}\n};`, '');
out.push(`const uint8_t tu_sc_stage2[${scBlocks.length}][128] = {`);
for (const b of scBlocks) out.push(`  {\n${rows(b, 16)}\n  },`);
out.push('};', '');
out.push(`const uint16_t tu_gcb_stage1[0x110000 >> 7] = {\n${rows(gcbStage1, 16)}\n};`, '');
out.push(`const uint8_t tu_gcb_stage2[${gcbBlocks.length}][128] = {`);
for (const b of gcbBlocks) out.push(`  {\n${rows(b, 16)}\n  },`);
out.push('};', '');
out.push(`const char *const tu_script_names[${SCRIPTS.length}] = {\n${rows(SCRIPTS.map((s) => `"${s}"`), 6)}\n};`);
out.push(`const size_t tu_nscripts = ${SCRIPTS.length};`, '');
out.push(`const uint32_t tu_lower17[${lower.length}][2] = {\n${rows(lower.map(([a, b]) => `{0x${a.toString(16)}, 0x${b.toString(16)}}`), 6)}\n};`);
out.push(`const size_t tu_nlower17 = ${lower.length};`, '');
out.push(`const uint32_t tu_lower17_special[${lowerSpecial.length}][4] = {\n${rows(lowerSpecial.map((r) => `{${r.map((x) => '0x' + x.toString(16)).join(', ')}}`), 4)}\n};`);
out.push(`const size_t tu_nlower17_special = ${lowerSpecial.length};`);
process.stdout.write(out.join('\n') + '\n');
