"""gguf_spec.py - a GGUF reader and writer for tests, written from the GGUF
specification (ggml's docs/gguf.md) with struct and numpy only, independent
of calkit's C code.

read(path) checks the file strictly and returns a Gguf: version, kv (key ->
(type, value) in file order), tensors (name -> Tensor, file order),
alignment, data_start, data_end (the padded end of the last tensor).
It raises GgufError on: a wrong magic or version, a count that does not fit,
an unknown value type, an array of arrays, a bool other than 0/1, a string
that is not UTF-8, an empty or repeated key, general.alignment that is not a
u32 power of two, a tensor name of 64 bytes or more or repeated, more than 4
dimensions, an unknown ggml type or a row that is not whole blocks, an offset
that is not a multiple of the alignment or not where the previous tensor's
padded data ends, and a data section that does not reach the padded end of
the last tensor.

write(path, kv, tensors) writes what ggml writes: kv is a list of (key, type,
value), tensors a list of (name, numpy array of float32/float16) whose
shape is given in ggml order (ne0 first) and stored with trailing dims of 1
dropped, each padded to 32 bytes."""
import struct

import numpy as np

U8, I8, U16, I16, U32, I32, F32, BOOL, STRING, ARRAY, U64, I64, F64 = range(13)
SCALAR = {U8: "<B", I8: "<b", U16: "<H", I16: "<h", U32: "<I", I32: "<i", F32: "<f", BOOL: "<B",
          U64: "<Q", I64: "<q", F64: "<d"}
# ggml_type -> (name, elements per block, bytes per block), from ggml.h
GGML = {0: ("F32", 1, 4), 1: ("F16", 1, 2), 2: ("Q4_0", 32, 18), 3: ("Q4_1", 32, 20), 6: ("Q5_0", 32, 22),
        7: ("Q5_1", 32, 24), 8: ("Q8_0", 32, 34), 9: ("Q8_1", 32, 36), 10: ("Q2_K", 256, 84),
        11: ("Q3_K", 256, 110), 12: ("Q4_K", 256, 144), 13: ("Q5_K", 256, 176), 14: ("Q6_K", 256, 210),
        15: ("Q8_K", 256, 292), 16: ("IQ2_XXS", 256, 66), 17: ("IQ2_XS", 256, 74), 18: ("IQ3_XXS", 256, 98),
        19: ("IQ1_S", 256, 50), 20: ("IQ4_NL", 32, 18), 21: ("IQ3_S", 256, 110), 22: ("IQ2_S", 256, 82),
        23: ("IQ4_XS", 256, 136), 24: ("I8", 1, 1), 25: ("I16", 1, 2), 26: ("I32", 1, 4), 27: ("I64", 1, 8),
        28: ("F64", 1, 8), 29: ("IQ1_M", 256, 56), 30: ("BF16", 1, 2), 34: ("TQ1_0", 256, 54),
        35: ("TQ2_0", 256, 66), 39: ("MXFP4", 32, 17)}
NUMPY = {0: "<f4", 1: "<f2", 24: "<i1", 25: "<i2", 26: "<i4", 27: "<i8", 28: "<f8"}


class GgufError(Exception):
    pass


class Tensor:
    def __init__(self, name, ne, type_, offset):
        self.name, self.ne, self.type, self.offset = name, ne, type_, offset
        self.nbytes = 0
        self.values = None  # numpy array, shape = reversed ne (row-major), for plain types


class Gguf:
    pass


def read(path):
    b = open(path, "rb").read()
    p = 0

    def take(n, what):
        nonlocal p
        if n > len(b) - p:
            raise GgufError(f"{what}: needs {n} bytes at {p}, file has {len(b)}")
        v = b[p:p + n]
        p += n
        return v

    def num(fmt, what):
        return struct.unpack(fmt, take(struct.calcsize(fmt), what))[0]

    def string(what):
        n = num("<Q", what)
        raw = take(n, what)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise GgufError(f"{what}: not UTF-8")

    def value(t, what):
        if t == STRING:
            return string(what)
        if t == BOOL:
            v = num("<B", what)
            if v > 1:
                raise GgufError(f"{what}: bool {v}")
            return bool(v)
        if t not in SCALAR:
            raise GgufError(f"{what}: unknown type {t}")
        return num(SCALAR[t], what)

    if take(4, "magic") != b"GGUF":
        raise GgufError("magic")
    g = Gguf()
    g.version = num("<I", "version")
    if g.version not in (2, 3):
        raise GgufError(f"version {g.version}")
    nt, nkv = num("<Q", "tensor count"), num("<Q", "kv count")
    if nt >= 1 << 63 or nkv >= 1 << 63 or nt * 24 > len(b) or nkv * 12 > len(b):
        raise GgufError("counts do not fit")
    g.kv = {}
    for _ in range(nkv):
        k = string("key")
        if not k or k in g.kv:
            raise GgufError(f"key {k!r} empty or repeated")
        t = num("<I", k)
        if t == ARRAY:
            et, n = num("<I", k), num("<Q", k)
            if et == ARRAY or (et != STRING and et not in SCALAR):
                raise GgufError(f"{k}: array of type {et}")
            g.kv[k] = (ARRAY, et, [value(et, k) for _ in range(n)])
        else:
            g.kv[k] = (t, None, value(t, k))
    g.alignment = 32
    if "general.alignment" in g.kv:
        t, _, a = g.kv["general.alignment"]
        if t != U32 or a == 0 or a & (a - 1):
            raise GgufError("general.alignment")
        g.alignment = a
    g.tensors = {}
    for _ in range(nt):
        name = string("tensor name")
        if len(name.encode()) >= 64 or name in g.tensors:
            raise GgufError(f"tensor name {name!r} too long or repeated")
        nd = num("<I", name)
        if nd > 4:
            raise GgufError(f"{name}: {nd} dimensions")
        ne = [num("<Q", name) for _ in range(nd)]
        if any(x >= 1 << 63 for x in ne):
            raise GgufError(f"{name}: negative dimension")
        t = num("<I", name)
        if t not in GGML:
            raise GgufError(f"{name}: ggml type {t}")
        _, blck, size = GGML[t]
        if ne and ne[0] % blck:
            raise GgufError(f"{name}: row not whole blocks")
        T = Tensor(name, ne, t, num("<Q", name))
        T.nbytes = int(np.prod(ne, dtype=object)) // blck * size
        g.tensors[name] = T
    a = g.alignment
    g.data_start = -(-p // a) * a if nt else p
    end = 0
    for T in g.tensors.values():
        if T.offset % a:
            raise GgufError(f"{T.name}: offset {T.offset} not a multiple of {a}")
        if T.offset != end:
            raise GgufError(f"{T.name}: offset {T.offset}, previous tensors end at {end}")
        end = T.offset + -(-T.nbytes // a) * a
    g.data_end = g.data_start + end
    if g.data_end > len(b):
        raise GgufError(f"data section ends at {g.data_end} (padded), file has {len(b)} bytes")
    if any(b[p:g.data_start]):
        raise GgufError("non-zero padding before the data")
    for T in g.tensors.values():
        at = g.data_start + T.offset
        if any(b[at + T.nbytes:at + -(-T.nbytes // a) * a]):
            raise GgufError(f"{T.name}: non-zero padding")
        if T.type in NUMPY:
            n = T.nbytes // np.dtype(NUMPY[T.type]).itemsize
            T.values = np.frombuffer(b, NUMPY[T.type], n, at).reshape(list(reversed(T.ne)) or [1])
    g.size = len(b)
    return g


def write(path, kv, tensors, alignment=32):
    """kv: [(key, type, value)] (arrays: (key, (ARRAY, elem_type), [values]));
    tensors: [(name, ne list in ggml order, numpy array)]."""
    out = bytearray(b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kv)))

    def s(x):
        e = x.encode()
        out.extend(struct.pack("<Q", len(e)) + e)

    def v(t, x):
        if t == STRING:
            s(x)
        else:
            out.extend(struct.pack(SCALAR[t], x))

    for k, t, x in kv:
        s(k)
        if isinstance(t, tuple):
            out.extend(struct.pack("<IIQ", ARRAY, t[1], len(x)))
            for y in x:
                v(t[1], y)
        else:
            out.extend(struct.pack("<I", t))
            v(t, x)
    off = 0
    blobs = []
    for name, ne, arr in tensors:
        ne = list(ne)
        while len(ne) > 1 and ne[-1] == 1:
            ne.pop()
        raw = np.ascontiguousarray(arr).tobytes()
        t = {np.dtype(np.float32): 0, np.dtype(np.float16): 1}[arr.dtype]
        s(name)
        out.extend(struct.pack("<I", len(ne)) + struct.pack(f"<{len(ne)}Q", *ne) + struct.pack("<IQ", t, off))
        raw += b"\0" * (-len(raw) % alignment)
        blobs.append(raw)
        off += len(raw)
    out.extend(b"\0" * (-len(out) % alignment))
    for r in blobs:
        out.extend(r)
    open(path, "wb").write(bytes(out))


def llama_imatrix(path, entries, datasets, chunk_count, chunk_size, with_in_sum=True):
    """An imatrix as llama-imatrix writes it: entries {name: (in_sum2, in_sum,
    counts)} with nmat = len(counts) matrices of in_sum2.size / nmat values; names
    sorted, in_sum2, counts, in_sum per name, 2-D tensors [d, nmat]."""
    kv = [("general.type", STRING, "imatrix"), ("imatrix.datasets", (ARRAY, STRING), datasets),
          ("imatrix.chunk_count", U32, chunk_count), ("imatrix.chunk_size", U32, chunk_size)]
    ts = []
    for name in sorted(entries, key=lambda n: n.encode()):
        s2, s1, c = entries[name]
        nmat = len(c)
        d = s2.size // nmat
        ts.append((name + ".in_sum2", [d, nmat], s2.astype(np.float32)))
        ts.append((name + ".counts", [1, nmat], np.asarray(c, np.float32)))
        if with_in_sum:
            ts.append((name + ".in_sum", [d, nmat], s1.astype(np.float32)))
    write(path, kv, ts)
