"""calstream.py - an independent reader/writer of the cal-stream format
(man/cal-stream.5) for the tests, on libxxhash through ctypes. Not calkit's code: it
re-implements the byte layout so that the tests check the C side against it.

Header: 8-byte magic, u8 version, u8 0, u16 flags, u32 meta_len, meta
("key=value\\n" lines), u64 XXH3-64 of all of the above.
Record: u8 kind, u8 0, u16 label_len, u32 payload_len, u64 id, label,
payload, u64 XXH3-64 of all of the above. Little-endian throughout.
Each segment ends with an END record (kind 5, empty label, id 0, payload
u64 record count)."""
import ctypes
import struct

# XXH3 from the system libxxhash (libxxhash-dev is a build dependency), so the
# tests need no extra Python package.
_xx = ctypes.CDLL("libxxhash.so.0")
_xx.XXH3_64bits.restype = ctypes.c_uint64
_xx.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
_xx.XXH3_64bits_withSeed.restype = ctypes.c_uint64
_xx.XXH3_64bits_withSeed.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint64]


def xxh3(b, seed=0):
    return _xx.XXH3_64bits_withSeed(b, len(b), seed) if seed else _xx.XXH3_64bits(b, len(b))

MAGIC = b"\x89CAL\r\n\x1a\n"
TEXT, TOKENS, ROW, VECTORS, END = 1, 2, 3, 4, 5
NOISE, MASK = 1, 2


def _h(b):
    return struct.pack("<Q", xxh3(b))


def header(meta):
    m = "".join("%s=%s\n" % (k, str(v).replace("\\", "\\\\").replace("\n", "\\n")) for k, v in meta).encode()
    h = MAGIC + struct.pack("<BBHI", 1, 0, 0, len(m)) + m
    return h + _h(h)


def record(kind, label, rid, payload):
    lb = label.encode()
    r = struct.pack("<BBHIQ", kind, 0, len(lb), len(payload), rid) + lb + payload
    return r + _h(r)


def tokens(label, rid, ids):
    return record(TOKENS, label, rid, struct.pack("<%dI" % len(ids), *ids))


def row(label, rid, ids, mask=None, flags=0):
    p = struct.pack("<II", len(ids), flags | (MASK if mask is not None else 0))
    p += struct.pack("<%dI" % len(ids), *ids)
    if mask is not None:
        p += bytes(mask)
    return record(ROW, label, rid, p)


def end(count):
    return record(END, "", 0, struct.pack("<Q", count))


def write(path, meta, recs):
    with open(path, "wb") as f:
        f.write(header(meta))
        n = 0
        for r in recs:
            f.write(r)
            n += 1
        f.write(end(n))


def read(path):
    """Returns (meta list, records); each record a dict. Checks checksums."""
    b = open(path, "rb").read()
    i, meta, recs = 0, [], []
    while i < len(b):
        if b[i:i + 8] == MAGIC:
            (mlen,) = struct.unpack_from("<I", b, i + 12)
            end = i + 16 + mlen
            assert b[end:end + 8] == _h(b[i:end]), "header checksum at %d" % i
            for line in b[i + 16:end].decode().splitlines():
                k, v = line.split("=", 1)
                meta.append((k, v))
            i = end + 8
            continue
        kind, _, llen, plen, rid = struct.unpack_from("<BBHIQ", b, i)
        end = i + 16 + llen + plen
        assert b[end:end + 8] == _h(b[i:end]), "record checksum at %d" % i
        label = b[i + 16:i + 16 + llen].decode()
        p = b[i + 16 + llen:end]
        if kind == END:
            i = end + 8
            continue
        r = {"kind": kind, "label": label, "id": rid, "raw": b[i:end + 8]}
        if kind == TOKENS:
            r["ids"] = list(struct.unpack("<%dI" % (plen // 4), p))
        elif kind == ROW:
            n, flags = struct.unpack_from("<II", p)
            r["ids"] = list(struct.unpack_from("<%dI" % n, p, 8))
            r["flags"] = flags
            r["mask"] = list(p[8 + 4 * n:]) if flags & MASK else None
        else:
            r["payload"] = p
        recs.append(r)
        i = end + 8
    return meta, recs


def meta_get(meta, key):
    v = None
    for k, x in meta:
        if k == key:
            v = x
    return v
