#!/usr/bin/python3
"""unpadded.py TOKENS.cal ROWS.jsonl L - checks cal-pack --mode doc --pad none
--bos doc -l L exported as .jsonl against the rows the peers' loaders make:
llm-compressor tokenizes each sample with truncation=True, max_length=L and
no padding (each row its own length; BOS counted in L), as the HF tokenizer
does: row = ([BOS] + ids)[:L] (the ids of cal-encode, checked against the
Rust HF tokenizers elsewhere). Exit 1 with the first difference.

unpadded.py gptqmodel ROWS.jsonl BATCH PAD OUT.json - GPTQModel's own loader
on those rows (ModelCloud/GPTQModel, commit
f4c327a17eb3e24524d5a97a3d682e3696ae6a28, read there and written anew):
prepare_calibration_dataset (gptqmodel/utils/calibration.py) drops rows of
<= 10 ids (calibration_data_min_length), sorts them by length descending
(calibration_dataset_sort="desc", Python's stable sorted) and batches them
BATCH at a time through collate_data (gptqmodel/utils/data.py): each batch
padded on the right (padding_side "right") to its longest row with the pad
id, attention_mask 0 there. OUT gets {"input_ids.K": ..., "attention_mask.K": ...}.

unpadded.py npz FILE.npz OUT.json / safetensors FILE OUT.json - the arrays of
a calkit export as lists, for comparing."""
import json
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples"))
import calstream  # noqa: E402


def llmcompressor(tok_path, rows_path, L):
    meta, recs = calstream.read(tok_path)
    bos = int(calstream.meta_get(meta, "bos"))
    want = [([bos] + r["ids"])[:L] for r in recs if r["kind"] == calstream.TOKENS]
    got = [json.loads(line) for line in open(rows_path)]
    if len(got) != len(want):
        sys.exit("%d rows, want %d" % (len(got), len(want)))
    for i, (g, w) in enumerate(zip(got, want)):
        if g["input_ids"] != w or g["attention_mask"] != [1] * len(w):
            sys.exit("row %d: got %r want %r" % (i, g["input_ids"][:20], w[:20]))


def collate_data(batch, pad_token_id):
    rows = [r for item in batch for r in item["input_ids"]]
    masks = [m for item in batch for m in item["attention_mask"]]
    max_len = max(len(r) for r in rows)
    ids = [r + [pad_token_id] * (max_len - len(r)) for r in rows]
    msk = [m + [0] * (max_len - len(m)) for m in masks]
    return {"input_ids": ids, "attention_mask": msk}


def gptqmodel(rows_path, batch, pad, out):
    data = []
    for line in open(rows_path):
        r = json.loads(line)
        data.append({"input_ids": [r["input_ids"]], "attention_mask": [r["attention_mask"]]})
    data = [d for d in data if not len(d["input_ids"][0]) <= 10]
    data = sorted(data, key=lambda item: len(item["input_ids"][0]), reverse=True)
    res = {}
    for k, start in enumerate(range(0, len(data), batch)):
        b = collate_data(data[start:start + batch], pad)
        res["input_ids.%d" % k] = b["input_ids"]
        res["attention_mask.%d" % k] = b["attention_mask"]
    json.dump(res, open(out, "w"), sort_keys=True)


def arrays(kind, path, out):
    import numpy as np
    if kind == "npz":
        z = np.load(path)
        res = {k: z[k].tolist() for k in z.files}
    else:
        b = open(path, "rb").read()
        (n,) = struct.unpack("<Q", b[:8])
        hdr = json.loads(b[8:8 + n])
        hdr.pop("__metadata__", None)
        res = {k: np.frombuffer(b[8 + n + t["data_offsets"][0]:8 + n + t["data_offsets"][1]], "<i8").reshape(t["shape"]).tolist()
               for k, t in hdr.items()}
    json.dump(res, open(out, "w"), sort_keys=True)


if __name__ == "__main__":
    a = sys.argv[1:]
    if a[0] == "gptqmodel":
        gptqmodel(a[1], int(a[2]), int(a[3]), a[4])
    elif a[0] in ("npz", "safetensors"):
        arrays(a[0], a[1], a[2])
    else:
        llmcompressor(a[0], a[1], int(a[2]))
