"""calstream.py - write cal-stream records from Python (see man/cal-stream.5).

A stream is a header (magic, version, metadata) followed by records; every
header and record ends with the XXH3-64 (seed 0) of its bytes, taken from
the xxhash module (Debian python3-xxhash) when present, else from libxxhash
(Debian libxxhash0, which calkit links anyway) through ctypes. Used by
dump-activations.py and by the tests.

    w = CalStreamWriter(sys.stdout.buffer, {"source": "my-model layer 0"})
    w.vectors("layer0", rows_f32_numpy_array)   # n x d, float32/float16/bf16
    w.tokens("doc", [1, 2, 3])
    w.row("row", ids, mask=None, noise=False)
    w.close()        # the END record: without it readers report a cut stream
"""
import ctypes
import ctypes.util
import struct

try:
    from xxhash import xxh3_64_intdigest as _xxh3
except ImportError:
    _lib = ctypes.CDLL(ctypes.util.find_library("xxhash") or "libxxhash.so.0")
    _lib.XXH3_64bits.restype = ctypes.c_uint64
    _lib.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]

    def _xxh3(b):
        return _lib.XXH3_64bits(b, len(b))

MAGIC = b"\x89CAL\r\n\x1a\n"
TOKENS, ROW, VECTORS, END = 2, 3, 4, 5
F32, F16, BF16 = 1, 2, 3


def _meta_text(meta):
    out = []
    for k, v in meta:
        v = str(v).replace("\\", "\\\\").replace("\n", "\\n")
        out.append(f"{k}={v}\n")
    return "".join(out).encode()


class CalStreamWriter:
    def __init__(self, f, meta=None):
        self.f = f
        items = list(meta.items()) if isinstance(meta, dict) else list(meta or [])
        m = _meta_text(items)
        h = MAGIC + struct.pack("<BBHI", 1, 0, 0, len(m)) + m
        f.write(h + struct.pack("<Q", _xxh3(h)))
        self.count = 0

    def record(self, kind, label, payload, rid=0):
        lab = label.encode()
        rec = struct.pack("<BBHIQ", kind, 0, len(lab), len(payload), rid) + lab + payload
        self.f.write(rec + struct.pack("<Q", _xxh3(rec)))
        self.count += 1
        return self

    def close(self):
        """Ends the stream with the END record (u64 count of records)."""
        rec = struct.pack("<BBHIQQ", END, 0, 0, 8, 0, self.count)
        self.f.write(rec + struct.pack("<Q", _xxh3(rec)))
        self.f.flush()

    def tokens(self, label, ids, rid=0):
        return self.record(TOKENS, label, struct.pack(f"<{len(ids)}I", *ids), rid)

    def row(self, label, ids, mask=None, noise=False, rid=0):
        flags = (1 if noise else 0) | (2 if mask is not None else 0)
        p = struct.pack(f"<II{len(ids)}I", len(ids), flags, *ids)
        if mask is not None:
            p += bytes(1 if m else 0 for m in mask)
        return self.record(ROW, label, p, rid)

    def vectors(self, label, data, dtype=F32, rid=0):
        """data: a 2-D numpy array; dtype F32/F16 take float32/float16 arrays,
        BF16 takes the raw uint16 bit patterns."""
        n, d = data.shape
        head = struct.pack("<IIB3xI", n, d, dtype, 0)
        return self.record(VECTORS, label, head + data.astype(data.dtype.newbyteorder("<")).tobytes(), rid)
