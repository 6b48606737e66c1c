#!/usr/bin/python3
"""calstream.py - read and write cal-stream bytes from Python (man/cal-stream.5).

A stream is a header (magic, version, metadata), records, and an END record
(u64 count of the segment's records) that closes the segment; every header
and record ends with the XXH3-64 (seed 0) of its bytes, taken from libxxhash
(Debian libxxhash0, which calkit links anyway) through ctypes. Little-endian
throughout. Written from the manual, not from calkit's C code, so the tests
use it as an independent reference; dump-activations.py uses the writer.

Writing:
    w = CalStreamWriter(sys.stdout.buffer, {"source": "my-model layer 0"})
    w.vectors("layer0", rows_f32_numpy_array)   # n x d, float32/float16/bf16
    w.tokens("doc", [1, 2, 3])
    w.row("row", ids, mask=None, noise=False)
    w.close()        # the END record: without it readers report a cut stream
  or as bytes: header(meta), record(kind, label, id, payload), tokens(...),
  row(...), end(count); write(path, meta, records); write_text(path, docs).

Reading:
    metas, recs = read_records(path)  # per-header metadata, (kind, label, id,
                                      # payload, offset) tuples
    meta, recs = read(path)           # all metadata, one dict per record

Command line (for the shell tests):
    calstream.py json < JSON-LINES > STREAM
    calstream.py text OUT [KEY=VALUE]... < one document per line
    calstream.py dump FILE
"""
import ctypes
import ctypes.util
import json
import struct
import sys

_xx = ctypes.CDLL(ctypes.util.find_library("xxhash") or "libxxhash.so.0")
_xx.XXH3_64bits.restype = ctypes.c_uint64
_xx.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
_xx.XXH3_64bits_withSeed.restype = ctypes.c_uint64
_xx.XXH3_64bits_withSeed.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint64]


def xxh3(b, seed=0):
    """XXH3-64 of bytes b (the seeded form serves the documented RNG keys)."""
    return _xx.XXH3_64bits_withSeed(b, len(b), seed) if seed else _xx.XXH3_64bits(b, len(b))


MAGIC = b"\x89CAL\r\n\x1a\n"
TEXT, TOKENS, ROW, VECTORS, END = 1, 2, 3, 4, 5
NOISE, MASK, ROLE = 1, 2, 4  # ROW flags (ROLE: a role mask, 1 = the assistant's output)
F32, F16, BF16 = 1, 2, 3    # VECTORS dtypes


def _sum(b):
    return b + struct.pack("<Q", xxh3(b))


# ---- writing -------------------------------------------------------------

CONTINUES = 1               # header flag: continues the stream before it (a trailer)


def header(meta, version=1, flags=0):
    """meta: (key, value) pairs in order; values are escaped (\\\\ and \\n).
    flags: CONTINUES for a header that continues the stream (its writer's
    metadata grew: the trailer that says what was dropped)."""
    m = "".join("%s=%s\n" % (k, str(v).replace("\\", "\\\\").replace("\n", "\\n"))
                for k, v in meta).encode()
    return _sum(MAGIC + struct.pack("<HHI", version, flags, len(m)) + m)


def record(kind, label, rid, payload):
    """label: str or bytes."""
    lab = label.encode() if isinstance(label, str) else label
    return _sum(struct.pack("<BBHIQ", kind, 0, len(lab), len(payload), rid) + lab + payload)


def tokens_payload(ids):
    return struct.pack("<%dI" % len(ids), *ids)


def row_payload(ids, mask=None, flags=0, role=None):
    p = struct.pack("<II", len(ids), flags | (MASK if mask is not None else 0) | (ROLE if role is not None else 0))
    p += tokens_payload(ids)
    if mask is not None:
        p += bytes(mask)
    if role is not None:
        p += bytes(role)
    return p


def vectors_payload(data, dtype=F32):
    """data: a 2-D numpy array; F32/F16 take float32/float16 arrays, BF16
    takes the raw uint16 bit patterns."""
    n, d = data.shape
    return struct.pack("<IIB3xI", n, d, dtype, 0) + data.astype(data.dtype.newbyteorder("<")).tobytes()


def tokens(label, rid, ids):
    return record(TOKENS, label, rid, tokens_payload(ids))


def row(label, rid, ids, mask=None, flags=0):
    return record(ROW, label, rid, row_payload(ids, mask, flags))


def end(count):
    return record(END, b"", 0, struct.pack("<Q", count))


def write(path, meta, recs):
    """One segment: header, the record bytes recs, END."""
    with open(path, "wb") as f:
        f.write(header(meta))
        n = 0
        for r in recs:
            f.write(r)
            n += 1
        f.write(end(n))


def write_text(path, docs, meta=()):
    """docs: iterable of (label, bytes); the id is XXH3-64 of the bytes."""
    write(path, meta, (record(TEXT, label, xxh3(text), text) for label, text in docs))


class CalStreamWriter:
    """Writes one segment to a binary file object; close() writes END."""

    def __init__(self, f, meta=None):
        self.f = f
        f.write(header(list(meta.items()) if isinstance(meta, dict) else list(meta or [])))
        self.count = 0

    def record(self, kind, label, payload, rid=0):
        self.f.write(record(kind, label, rid, payload))
        self.count += 1
        return self

    def close(self):
        """Ends the stream with the END record (u64 count of records)."""
        self.f.write(end(self.count))
        self.f.flush()

    def tokens(self, label, ids, rid=0):
        return self.record(TOKENS, label, tokens_payload(ids), rid)

    def row(self, label, ids, mask=None, noise=False, rid=0):
        m = None if mask is None else [1 if x else 0 for x in mask]
        return self.record(ROW, label, row_payload(ids, m, NOISE if noise else 0), rid)

    def vectors(self, label, data, dtype=F32, rid=0):
        return self.record(VECTORS, label, vectors_payload(data, dtype), rid)


# ---- reading -------------------------------------------------------------

def _parse(path, verify=True):
    """Yields ("header", [(key, escaped value)]) and ("record", kind, label
    bytes, id, payload, offset, raw bytes) in order; END records are checked
    (checksum, count) and not yielded."""
    data = open(path, "rb").read()
    i, seg = 0, 0
    while i < len(data):
        if data[i:i + 8] == MAGIC:
            flags, n = struct.unpack_from("<HI", data, i + 10)
            if flags & ~CONTINUES:
                raise ValueError("%s: byte %d: unknown header flags %#x" % (path, i + 10, flags))
            e = i + 16 + n
            if verify and data[e:e + 8] != struct.pack("<Q", xxh3(data[i:e])):
                raise ValueError("%s: byte %d: bad header checksum" % (path, i))
            yield ("header", [tuple(line.split("=", 1)) for line in data[i + 16:e].decode().split("\n")[:-1]])
            i, seg = e + 8, 0
            continue
        kind, _, llen, plen, rid = struct.unpack_from("<BBHIQ", data, i)
        e = i + 16 + llen + plen
        if verify and data[e:e + 8] != struct.pack("<Q", xxh3(data[i:e])):
            raise ValueError("%s: byte %d: bad checksum" % (path, i))
        pay = data[i + 16 + llen:e]
        if kind == END:
            (cnt,) = struct.unpack("<Q", pay)
            if cnt != seg:
                raise ValueError("%s: byte %d: END counts %d records, segment has %d" % (path, i, cnt, seg))
            seg = 0
        else:
            yield ("record", kind, data[i + 16:i + 16 + llen], rid, pay, i, data[i:e + 8])
            seg += 1
        i = e + 8


def _unescape(v):
    return v.replace("\\n", "\n").replace("\\\\", "\\")


def read_records(path, verify=True):
    """Returns (metas, records): metas a list of header (key, value) lists in
    order (values unescaped), records a list of (kind, label bytes, id,
    payload bytes, offset)."""
    metas, recs = [], []
    for ev in _parse(path, verify):
        if ev[0] == "header":
            metas.append([(k, _unescape(v)) for k, v in ev[1]])
        else:
            recs.append(ev[1:6])
    return metas, recs


def read(path):
    """Returns (meta, records): meta the (key, value) pairs of all headers as
    written, records dicts with kind, label, id, raw (all bytes) and ids,
    flags, mask (TOKENS, ROW) or payload (other kinds). Checks checksums."""
    meta, recs = [], []
    for ev in _parse(path):
        if ev[0] == "header":
            meta += ev[1]
            continue
        _, kind, lab, rid, p, _, raw = ev
        r = {"kind": kind, "label": lab.decode(), "id": rid, "raw": raw}
        if kind == TOKENS:
            r["ids"] = ids_of(p)
        elif kind == ROW:
            n, flags = struct.unpack_from("<II", p)
            r["ids"] = list(struct.unpack_from("<%dI" % n, p, 8))
            r["flags"] = flags
            r["mask"] = list(p[8 + 4 * n:8 + 5 * n]) if flags & MASK else None
            r["role"] = list(p[len(p) - n:]) if flags & ROLE else None
        else:
            r["payload"] = p
        recs.append(r)
    return meta, recs


def ids_of(payload):
    return list(struct.unpack("<%dI" % (len(payload) // 4), payload))


def meta_get(meta, key):
    """The last value of key (keys may repeat), or None."""
    v = None
    for k, x in meta:
        if k == key:
            v = x
    return v


# ---- command line --------------------------------------------------------

_KINDS = {"TEXT": TEXT, "TOKENS": TOKENS, "ROW": ROW, "VECTORS": VECTORS}
_DTYPES = {"f32": (F32, "<f4"), "f16": (F16, "<f2"), "bf16": (BF16, None)}


def _json_record(r):
    k = r["kind"]
    if k == "TEXT":
        p = r["text"].encode()
    elif k == "TOKENS":
        p = tokens_payload(r["ids"])
    elif k == "ROW":
        p = row_payload(r["ids"], r.get("mask"), NOISE if r.get("noise") else 0)
    elif k == "VECTORS":
        import numpy as np
        code, np_t = _DTYPES[r["dtype"]]
        v = np.array(r["values"], dtype="<f4")
        if np_t is None:  # bf16: the high half of the f32 bits (values chosen exact)
            data = (v.view("<u4") >> 16).astype("<u2").tobytes()
        else:
            data = v.astype(np_t).tobytes()
        p = struct.pack("<IIB3xI", r["n"], r["d"], code, 0) + data
    else:
        raise SystemExit("unknown kind " + k)
    return record(_KINDS[k], r["label"], r["id"], p)


def _json(inp, out):
    """JSON lines to stream bytes:
      {"header": [["key", "value"], ...], "version": 1}
      {"kind": "TEXT", "label": "wiki", "id": 1, "text": "..."}
      {"kind": "TOKENS", "label": "wiki", "id": 2, "ids": [1, 2]}
      {"kind": "ROW", "label": "wiki", "id": 3, "ids": [1, 2], "mask": [1, 0], "noise": false}
      {"kind": "VECTORS", "label": "l0", "id": 4, "n": 1, "d": 2, "dtype": "f32", "values": [0.5, 1]}
    Each segment is closed by an END record before the next header and at the
    end of input, unless a line {"omit_end": true} says to leave the current
    segment open (to test truncation)."""
    count, open_seg, omit = 0, False, False
    for line in inp:
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
            out.write(_json_record(r))
            count += 1
    if open_seg and not omit:
        out.write(end(count))


def _main(argv):
    """calstream.py json: JSON lines on stdin (see _json) to a stream on stdout
    calstream.py text OUT [KEY=VALUE]...  one TEXT record per stdin line
        (backslash escapes such as \\xff decoded to raw bytes), labels lab0..lab2
    calstream.py dump FILE  "HEADER k=v ..." per header, then per record
        "KIND LABEL ID [ids...]" (ids for TOKENS)."""
    if len(argv) == 2 and argv[1] == "json":
        _json(sys.stdin, sys.stdout.buffer)
    elif len(argv) >= 3 and argv[1] == "text":
        meta = [tuple(a.split("=", 1)) for a in argv[3:]]
        docs = [line.rstrip("\n").encode().decode("unicode_escape").encode("latin-1")
                for line in sys.stdin]
        write_text(argv[2], (("lab%d" % (i % 3), d) for i, d in enumerate(docs)), meta)
    elif len(argv) == 3 and argv[1] == "dump":
        metas, recs = read_records(argv[2])
        for m in metas:
            print("HEADER " + " ".join("%s=%s" % kv for kv in m))
        for kind, lab, i, pay, _ in recs:
            print(kind, lab.decode(), "%016x" % i, *(ids_of(pay) if kind == TOKENS else []))
    else:
        raise SystemExit("usage: calstream.py json | text OUT [K=V]... | dump FILE")


if __name__ == "__main__":
    try:
        _main(sys.argv)
    except BrokenPipeError:  # dump | head
        sys.stderr.close()
