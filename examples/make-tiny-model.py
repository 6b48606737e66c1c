#!/usr/bin/python3
"""make-tiny-model.py - write a small random checkpoint shaped like a Llama
model's first layer, to try cal-hessian --embed without downloading weights:

    python3 examples/make-tiny-model.py --vocab 128256 --dim 64 -o model.safetensors
    cal-read wiki | cal-encode -t tokenizer.json | cal-pack -l 2048 -n 128 |
      cal-hessian --embed model.safetensors \\
        --rmsnorm model.layers.0.input_layernorm.weight -o h.safetensors

Tensors: model.embed_tokens.weight [vocab, dim] and
model.layers.0.input_layernorm.weight [dim], in --dtype (bf16 default, f16,
f32); random with --seed. --vocab must cover the tokenizer's ids.
Needs numpy only (the safetensors layout is an 8-byte header length, a JSON
header, then the raw tensors).
"""
import argparse
import json
import struct

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vocab", type=int, required=True)
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--dtype", choices=("bf16", "f16", "f32"), default="bf16")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    E = (rng.standard_normal((a.vocab, a.dim)) * 0.02).astype(np.float32)
    g = (1 + 0.1 * rng.standard_normal(a.dim)).astype(np.float32)

    def enc(x):
        if a.dtype == "f32":
            return "F32", x.astype("<f4").tobytes()
        if a.dtype == "f16":
            return "F16", x.astype("<f2").tobytes()
        u = x.view(np.uint32).astype(np.uint64)   # bf16, round to nearest even
        return "BF16", ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype("<u2").tobytes()

    head, blobs, off = {"__metadata__": {"format": "pt"}}, [], 0
    for name, x in (("model.embed_tokens.weight", E), ("model.layers.0.input_layernorm.weight", g)):
        dt, raw = enc(x)
        head[name] = {"dtype": dt, "shape": list(x.shape), "data_offsets": [off, off + len(raw)]}
        blobs.append(raw)
        off += len(raw)
    hb = json.dumps(head).encode()
    hb += b" " * (-len(hb) % 8)
    with open(a.output, "wb") as f:
        f.write(struct.pack("<Q", len(hb)) + hb + b"".join(blobs))


if __name__ == "__main__":
    main()
