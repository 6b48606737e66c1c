#!/usr/bin/python3
"""safetensors_read.py FILE - an independent .safetensors reader (json +
numpy only, from the published format) for tests. Prints the header length,
whether the data start is 8-byte aligned, the metadata and each tensor as
JSON lines, values included, and checks that offsets tile the data."""
import json
import struct
import sys

import numpy as np

NP = {"I64": "<i8", "I32": "<i4", "F32": "<f4", "F16": "<f2", "U8": "u1", "BOOL": "?"}

b = open(sys.argv[1], "rb").read()
(n,) = struct.unpack("<Q", b[:8])
hdr = json.loads(b[8:8 + n].decode("utf-8"))
print(json.dumps({"header_len": n, "aligned": (8 + n) % 8 == 0, "pad_ok": b[8:8 + n].rstrip(b" ").endswith(b"}")}))
meta = hdr.pop("__metadata__", {})
print(json.dumps({"metadata": meta}, sort_keys=True))
data = b[8 + n:]
end = 0
for name, t in sorted(hdr.items(), key=lambda kv: kv[1]["data_offsets"][0]):
    s, e = t["data_offsets"]
    assert s == end, "tensors do not tile the data"
    end = e
    a = np.frombuffer(data[s:e], dtype=NP[t["dtype"]]).reshape(t["shape"])
    print(json.dumps({"name": name, "dtype": t["dtype"], "shape": t["shape"], "values": a.tolist()}))
assert end == len(data), "data has trailing bytes"
