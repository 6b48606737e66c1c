"""Helpers for the cal-hessian tests: safetensors read/write with numpy and
cal-stream writing (examples/calstream.py). Independent of the C code."""
import json
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples"))
from calstream import CalStreamWriter, F32, F16, BF16  # noqa: E402,F401

NP = {"F64": np.float64, "F32": np.float32, "F16": np.float16, "I64": np.int64, "BF16": np.uint16}


def st_read(path):
    b = open(path, "rb").read()
    n = struct.unpack("<Q", b[:8])[0]
    h = json.loads(b[8:8 + n])
    meta = h.pop("__metadata__", {})
    out = {}
    for k, v in h.items():
        s, e = v["data_offsets"]
        a = np.frombuffer(b[8 + n + s:8 + n + e], dtype=NP[v["dtype"]]).reshape(v["shape"])
        if v["dtype"] == "BF16":
            a = (a.astype(np.uint32) << 16).view(np.float32)
        out[k] = a
    return out, meta


def st_write(path, tensors, meta=None):
    """tensors: name -> (dtype string, numpy array already in that dtype's bits)."""
    h, off, blobs = {}, 0, []
    if meta:
        h["__metadata__"] = meta
    for k, (dt, a) in tensors.items():
        raw = np.ascontiguousarray(a).tobytes()
        h[k] = {"dtype": dt, "shape": list(a.shape), "data_offsets": [off, off + len(raw)]}
        off += len(raw)
        blobs.append(raw)
    hb = json.dumps(h).encode()
    hb += b" " * (-len(hb) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(hb)) + hb + b"".join(blobs))


def tiny_torch_model(path):
    """Embedding(500, 24) -> Linear(24, 24) -> ReLU -> Linear(24, 8), saved
    with torch.save; returns it and 6 x 50 token ids."""
    import torch
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Embedding(500, 24), torch.nn.Linear(24, 24), torch.nn.ReLU(), torch.nn.Linear(24, 8))
    torch.save(m, path)
    return m, np.random.default_rng(1).integers(0, 500, (6, 50)).astype(np.int64)


def to_bf16_bits(x):
    """float32 -> bf16 bit patterns (round to nearest even), and their values."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    u = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return u, (u.astype(np.uint32) << 16).view(np.float32)


def relerr(a, b):
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))


def report(name, ok, detail=""):
    """Prints a TAP-like line for tests/run.sh."""
    print(("ok - " if ok else "not ok - ") + name)
    if not ok and detail:
        print("# " + str(detail))


def close(name, got, want, tol):
    e = relerr(got, want)
    report(name, e <= tol, f"relative error {e:.3g} > {tol:g}")


def tiny_model(path, vocab=1000, d=64, dtype="F32", seed=3, shards=0, embed=("model.embed_tokens.weight",)):
    """A small checkpoint: embed_tokens [vocab, d] (under each name in embed)
    and a RMSNorm weight [d]. Returns (E, gamma) as the float64 values
    actually stored. With shards > 0 writes PATH/model-0000K-of-0000N.safetensors
    + model.safetensors.index.json (tensors dealt round-robin, in order)."""
    rng = np.random.default_rng(seed)
    E = rng.standard_normal((vocab, d)).astype(np.float32) * 0.05
    g = (1 + 0.1 * rng.standard_normal(d)).astype(np.float32)
    if dtype == "BF16":
        eb, E = to_bf16_bits(E)
        gb, g = to_bf16_bits(g)
        te, tg = ("BF16", eb), ("BF16", gb)
    elif dtype == "F16":
        E, g = E.astype(np.float16), g.astype(np.float16)
        te, tg = ("F16", E), ("F16", g)
    else:
        te, tg = ("F32", E), ("F32", g)
    other = ("F32", rng.standard_normal((d, d)).astype(np.float32))
    tensors = {embed[0]: te, "model.layers.0.input_layernorm.weight": tg}
    tensors.update({n: te for n in embed[1:]})
    tensors["model.layers.0.self_attn.q_proj.weight"] = other
    if shards:
        os.makedirs(path, exist_ok=True)
        names = list(tensors)
        wm = {}
        for k in range(shards):
            fn = f"model-{k + 1:05d}-of-{shards:05d}.safetensors"
            part = {n: tensors[n] for i, n in enumerate(names) if i % shards == k}
            st_write(os.path.join(path, fn), part, {"format": "pt"})
            wm.update({n: fn for n in part})
        json.dump({"metadata": {}, "weight_map": wm}, open(os.path.join(path, "model.safetensors.index.json"), "w"))
    else:
        st_write(path, tensors, {"format": "pt"})
    return E.astype(np.float64), g.astype(np.float64)


def rmsnorm(X, g, eps):
    return X / np.sqrt((X * X).mean(axis=1, keepdims=True) + eps) * g
