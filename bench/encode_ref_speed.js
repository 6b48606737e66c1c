// encode_ref_speed.js - the reference's single-thread speed for bench/encode.sh:
// node encode_ref_speed.js TOKENIZER.json IN.cal -> "CPU_SECONDS BYTES" on stdout.
// One document at a time (RAYON_NUM_THREADS=1 is set by the caller), encoding
// time only (the tokenizer load and the UTF-8 decoding are not counted), as
// CPU time of the whole process (every thread: the binding's async calls run
// on libuv's pool), which a busy machine does not inflate.
'use strict';
const fs = require('fs');
const path = require('path');
const {Tokenizer} = require(path.resolve(__dirname, '../build/npm/node_modules/@anush008/tokenizers'));

async function main() {
  const [tokPath, inPath] = process.argv.slice(2);
  const buf = fs.readFileSync(inPath);
  const texts = [];
  let bytes = 0;
  for (let i = 0; i < buf.length;) {
    if (buf[i] === 0x89) { i += 16 + buf.readUInt32LE(i + 12) + 8; continue; } // header
    const llen = buf.readUInt16LE(i + 2), plen = buf.readUInt32LE(i + 4);
    if (buf[i] === 1) {
      texts.push(buf.toString('utf8', i + 16 + llen, i + 16 + llen + plen));
      bytes += plen;
    }
    i += 16 + llen + plen + 8;
  }
  const tok = Tokenizer.fromFile(tokPath);
  const c0 = process.cpuUsage();
  for (const t of texts) await tok.encode(t, null, {addSpecialTokens: false});
  const c = process.cpuUsage(c0);
  const dt = (c.user + c.system) / 1e6;
  console.log(`${dt} ${bytes}`);
}
main().catch((e) => { console.error(`encode_ref_speed.js: ${e.message}`); process.exit(1); });
