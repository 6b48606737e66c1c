#!/usr/bin/python3
"""loaders.py LOADER PATH - loads a calibration export the way a quantizer
does (its loading logic, restated from its source in a few lines each) and
prints one JSON line per row: {"input_ids": [...], "attention_mask": [...]}
as the quantizer would feed them to the model. Fails as the quantizer would.

  autogptq      AutoGPTQ quantize(examples), examples = JSON lines;
                _prepare_examples_for_quantization reads example["attention_mask"]
                (KeyError without it), collate_data pads each batch
  gptqmodel     GPTQModel prepare_dataset over dicts of torch tensors from
                np.load(.npz), or from NAME.npy + NAME.mask.npy
  llmcompressor llm-compressor oneshot(dataset=load_dataset("json", ...)):
                Arrow columns (a key missing from a row is None), a DataLoader
                with transformers' default_data_collator, batch_size 1
  exllamav2     convert: load_file(cal_data.safetensors)["input_ids"], int64
                [rows, len]; a row of -1 is a noise row
"""
import json
import struct
import sys

import numpy as np
import torch


def to_list(t):  # AutoGPTQ / GPTQModel _convert_tensor_to_list
    if isinstance(t, torch.Tensor):
        if len(t.shape) == 1:
            t = t.unsqueeze(0)
        return t.long().cpu().numpy().tolist()
    return [t]


def collate(batch, pad):  # AutoGPTQ collate_data: pad on the left to the longest
    n = max(len(e["input_ids"][0]) for e in batch)
    ids, mask = [], []
    for e in batch:
        for i, m in zip(e["input_ids"], e["attention_mask"]):
            ids.append([pad] * (n - len(i)) + i)
            mask.append([0] * (n - len(m)) + m)
    return {"input_ids": torch.LongTensor(ids), "attention_mask": torch.LongTensor(mask)}


def gptq_prepare(examples, pad=0, batch_size=1):
    new = []
    for ex in examples:
        ids, mask = to_list(ex["input_ids"]), to_list(ex["attention_mask"])
        assert all(len(i) == len(m) for i, m in zip(ids, mask)), "input_ids and attention_mask differ"
        new.append({"input_ids": ids, "attention_mask": mask})
    return [collate(new[s:s + batch_size], pad) for s in range(0, len(new), batch_size)]


def autogptq(path):
    return gptq_prepare([json.loads(l) for l in open(path) if l.strip()])


def gptqmodel(path):
    if path.endswith(".npz"):
        z = np.load(path)
        ids, mask = z["input_ids"], z["attention_mask"]
    else:
        ids, mask = np.load(path), np.load(path[:-4] + ".mask.npy")
    assert ids.shape == mask.shape and ids.dtype == np.int64
    return gptq_prepare([{"input_ids": torch.from_numpy(i), "attention_mask": torch.from_numpy(m)}
                         for i, m in zip(ids, mask)])


def llmcompressor(path):
    rows = [json.loads(l) for l in open(path) if l.strip()]
    cols = sorted({k for r in rows for k in r})
    table = {c: [r.get(c) for r in rows] for c in cols}  # Arrow: missing -> None
    out = []
    for i in range(len(rows)):
        # default_data_collator: torch.tensor([f[k] for f in features]); None fails
        out.append({k: torch.tensor([table[k][i]]) for k in cols})
    return out


def exllamav2(path):
    b = open(path, "rb").read()
    (n,) = struct.unpack("<Q", b[:8])
    h = json.loads(b[8:8 + n])
    t = h["input_ids"]
    assert t["dtype"] == "I64" and len(t["shape"]) == 2
    s, e = t["data_offsets"]
    ids = torch.frombuffer(bytearray(b[8 + n + s:8 + n + e]), dtype=torch.int64).reshape(t["shape"])
    out = []
    for r in ids:  # noise rows (all -1) become random embeddings; no mask is used
        assert (r == -1).all() or (r >= 0).all(), "a row mixes -1 and token ids"
        out.append({"input_ids": r.unsqueeze(0), "attention_mask": torch.ones_like(r).unsqueeze(0)})
    return out


batches = globals()[sys.argv[1]](sys.argv[2])
for b in batches:
    for i, m in zip(b["input_ids"].tolist(), b["attention_mask"].tolist()):
        print(json.dumps({"input_ids": i, "attention_mask": m}, separators=(",", ":")))
