"""spm_encode.py - the reference for SentencePiece .model files: encodes the
TEXT records of a cal-stream with python3-sentencepiece and writes, per
record, a little-endian u32 count followed by the u32 ids.

    /usr/bin/python3 spm_encode.py MODEL MODE IN.cal OUT.ids [MODE IN.cal OUT.ids]...
    MODE: plain      sp.encode(text): spm_encode --output_format=id
          parse      control/unknown piece text ("<s>", "<unk>") cut out
                     longest-first and mapped to its id, the text between
                     encoded piece by piece (HF LlamaTokenizer, legacy)
          add        BOS (when the model has one) + plain
          add-parse  BOS + parse
Record bytes are decoded with errors="replace" (U+FFFD per maximal subpart).
"""
import os
import struct
import sys

import sentencepiece

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples"))
import calstream  # noqa: E402


def split_special(text, specials):
    """Yields str pieces and int ids, cutting out the longest special first."""
    start, i = 0, 0
    while i < len(text):
        hit = next((s for s in specials if text.startswith(s, i)), None)
        if hit is None:
            i += 1
            continue
        if i > start:
            yield text[start:i]
        yield specials[hit]
        i += len(hit)
        start = i
    if len(text) > start:
        yield text[start:]


def main():
    model, jobs = sys.argv[1], sys.argv[2:]
    sp = sentencepiece.SentencePieceProcessor(model_file=model)
    for k in range(0, len(jobs), 3):
        encode_file(sp, *jobs[k:k + 3])


def encode_file(sp, mode, inp, out):
    specials = {sp.id_to_piece(i): i for i in range(sp.get_piece_size())
                if sp.is_control(i) or sp.is_unknown(i)}
    specials = {k: v for k, v in specials.items() if k}
    order = sorted(specials, key=len, reverse=True)
    _, recs = calstream.read_records(inp, verify=False)
    texts = [r[3].decode("utf-8", "replace") for r in recs]
    with open(out, "wb") as f:
        if mode == "plain":
            encoded = sp.encode(texts)
        else:
            encoded = []
            for t in texts:
                ids = [sp.bos_id()] if mode.startswith("add") and sp.bos_id() >= 0 else []
                if mode.endswith("parse"):
                    for part in split_special(t, {k: specials[k] for k in order}):
                        ids += [part] if isinstance(part, int) else sp.encode(part)
                else:
                    ids += sp.encode(t)
                encoded.append(ids)
        for ids in encoded:
            f.write(struct.pack("<I%dI" % len(ids), len(ids), *ids))


if __name__ == "__main__":
    main()
