#!/usr/bin/python3
"""calstream.py - an independent cal-stream writer, written from
man/cal-stream.5 (checksums by libxxhash through ctypes), for tests.

Reads JSON lines on stdin and writes the stream bytes to stdout:
  {"header": [["key", "value"], ...], "version": 1}
  {"kind": "TEXT", "label": "wiki", "id": 1, "text": "..."}
  {"kind": "TOKENS", "label": "wiki", "id": 2, "ids": [1, 2]}
  {"kind": "ROW", "label": "wiki", "id": 3, "ids": [1, 2], "mask": [1, 0], "noise": false}
  {"kind": "VECTORS", "label": "l0", "id": 4, "n": 1, "d": 2, "dtype": "f32", "values": [0.5, 1]}
Each stream segment is closed by an END record (u64 record count) before the
next header and at the end of input, unless a line {"omit_end": true} says
to leave the current segment open (to test truncation).
"""
import ctypes
import json
import struct
import sys

import numpy as np

_xx = ctypes.CDLL("libxxhash.so.0")
_xx.XXH3_64bits.restype = ctypes.c_uint64
_xx.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]


def xxh3(b):
    return _xx.XXH3_64bits(b, len(b))


def header(pairs, version=1):
    meta = "".join("%s=%s\n" % (k, v.replace("\\", "\\\\").replace("\n", "\\n")) for k, v in pairs).encode()
    h = b"\x89CAL\r\n\x1a\n" + struct.pack("<HHI", version, 0, len(meta)) + meta
    return h + struct.pack("<Q", xxh3(h))


KINDS = {"TEXT": 1, "TOKENS": 2, "ROW": 3, "VECTORS": 4}
DTYPES = {"f32": (1, "<f4"), "f16": (2, "<f2"), "bf16": (3, None)}


def payload(r):
    k = r["kind"]
    if k == "TEXT":
        return r["text"].encode()
    if k == "TOKENS":
        return np.array(r["ids"], dtype="<u4").tobytes()
    if k == "ROW":
        ids = r["ids"]
        mask = r.get("mask")
        flags = (1 if r.get("noise") else 0) | (2 if mask is not None else 0)
        p = struct.pack("<II", len(ids), flags) + np.array(ids, dtype="<u4").tobytes()
        if mask is not None:
            p += bytes(mask)
        return p
    if k == "VECTORS":
        code, np_t = DTYPES[r["dtype"]]
        v = np.array(r["values"], dtype="<f4")
        if np_t is None:  # bf16: the high half of the f32 bits (values chosen exact)
            data = (v.view("<u4") >> 16).astype("<u2").tobytes()
        else:
            data = v.astype(np_t).tobytes()
        return struct.pack("<IIB3xI", r["n"], r["d"], code, 0) + data
    raise SystemExit("unknown kind " + k)


def record(r):
    label = r["label"].encode()
    p = payload(r)
    h = struct.pack("<BBHIQ", KINDS[r["kind"]], 0, len(label), len(p), r["id"]) + label + p
    return h + struct.pack("<Q", xxh3(h))


def end(count):
    h = struct.pack("<BBHIQ", 5, 0, 0, 8, 0) + struct.pack("<Q", count)
    return h + struct.pack("<Q", xxh3(h))


def main():
    out = sys.stdout.buffer
    count, open_seg, omit = 0, False, False
    for line in sys.stdin:
        if not line.strip():
            continue
        r = json.loads(line)
        if "omit_end" in r:
            omit = r["omit_end"]
        elif "header" in r:
            if open_seg and not omit:
                out.write(end(count))
            out.write(header(r["header"], r.get("version", 1)))
            count, open_seg, omit = 0, True, False
        else:
            out.write(record(r))
            count += 1
    if open_seg and not omit:
        out.write(end(count))


if __name__ == "__main__":
    main()
