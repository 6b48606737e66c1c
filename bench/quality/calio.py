"""calio.py - the bench's files: ROW streams in (through
examples/calstream.py, the project's Python reader), safetensors in and out
(the published layout: an 8-byte little-endian header length, a JSON header,
the raw tensors; Debian's torch 1.13 has no safetensors), and the metadata
checks that keep a set and a model on one vocabulary."""
import json
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples"))
from calstream import MASK, NOISE, ROW, read_records  # noqa: E402

_NP = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4", "U8": "u1"}


class SetError(Exception):
    """A calibration set the bench cannot use (the message says why)."""


def read_rows(path):
    """(meta dict, rows): the ROW records of a cal-stream as (label, ids
    int64 array, mask bool array or None); noise rows are skipped and
    counted in meta["noise_rows"]. Repeated metadata keys keep the last."""
    try:
        metas, recs = read_records(path)
    except (OSError, ValueError, struct.error) as e:
        raise SetError(f"{path}: {e}")
    meta = {k: v for m in metas for k, v in m}
    rows, noise = [], 0
    for kind, label, _rid, pay, off in recs:
        if kind != ROW:
            raise SetError(f"{path}: byte {off}: expected ROW records (cal-pack's output), got kind {kind}")
        n, flags = struct.unpack_from("<II", pay)
        if flags & NOISE:
            noise += 1
            continue
        ids = np.frombuffer(pay, "<u4", n, 8).astype(np.int64)
        mask = np.frombuffer(pay, "u1", n, 8 + 4 * n) != 0 if flags & MASK else None
        rows.append((label.decode("utf-8", "replace"), ids, mask))
    meta["noise_rows"] = noise
    return meta, rows


def check_vocab(path, meta, rows, vocab, tokenizer_fp=None):
    """A set must be encoded with the model's tokenizer: its tokenizer_fp
    (when both are known) equals the held-out rows', and no id reaches past
    the model's vocabulary (when vocab is given). Raises SetError naming the
    set and the values."""
    fp = meta.get("tokenizer_fp")
    if tokenizer_fp and fp and fp != tokenizer_fp:
        raise SetError(f"{path}: encoded with tokenizer {meta.get('tokenizer', '?')} (tokenizer_fp {fp}), "
                       f"the model's is {tokenizer_fp}: encode it with the model's tokenizer")
    top = max((int(ids.max()) for _, ids, _ in rows if len(ids)), default=-1)
    if vocab is not None and top >= vocab:
        raise SetError(f"{path}: token id {top} is outside the model's vocabulary of {vocab}")
    if not rows:
        raise SetError(f"{path}: no rows")


def st_read(path):
    """(tensors as numpy arrays, metadata dict) of a .safetensors file."""
    with open(path, "rb") as f:
        b = f.read()
    (n,) = struct.unpack_from("<Q", b)
    hdr = json.loads(b[8:8 + n])
    meta = hdr.pop("__metadata__", {})
    out = {}
    for name, t in hdr.items():
        s, e = t["data_offsets"]
        out[name] = np.frombuffer(b, _NP[t["dtype"]], (e - s) // np.dtype(_NP[t["dtype"]]).itemsize,
                                  8 + n + s).reshape(t["shape"])
    return out, meta


def st_write(path, tensors, meta=None):
    """Writes float32/float64/int64 numpy arrays as .safetensors, atomically."""
    rev = {v: k for k, v in _NP.items()}
    head, blobs, off = {"__metadata__": dict(meta or {})}, [], 0
    for name, x in tensors.items():
        x = np.ascontiguousarray(x)
        raw = x.astype(x.dtype.newbyteorder("<")).tobytes()
        head[name] = {"dtype": rev[x.dtype.newbyteorder("<").str], "shape": list(x.shape),
                      "data_offsets": [off, off + len(raw)]}
        blobs.append(raw)
        off += len(raw)
    hb = json.dumps(head).encode()
    hb += b" " * (-len(hb) % 8)
    with open(path + ".tmp", "wb") as f:
        f.write(struct.pack("<Q", len(hb)) + hb + b"".join(blobs))
    os.replace(path + ".tmp", path)
