"""calstream.py - an independent reader/writer of the cal-stream format
(man/cal-stream.5) for the tests: TEXT streams with arbitrary bytes (even
invalid UTF-8, which cal-read would repair) and parsing of TOKENS streams.

Checksums are XXH3-64 (python3-xxhash, or libxxhash through ctypes).
"""
import ctypes
import ctypes.util
import struct

MAGIC = b"\x89CAL\r\n\x1a\n"
TEXT, TOKENS, ROW, VECTORS, END = 1, 2, 3, 4, 5

try:  # python3-xxhash when present (faster), else libxxhash through ctypes
    from xxhash import xxh3_64_intdigest as xxh3
except ImportError:
    _lib = ctypes.CDLL(ctypes.util.find_library("xxhash") or "libxxhash.so.0")
    _lib.XXH3_64bits.restype = ctypes.c_uint64
    _lib.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]

    def xxh3(b):
        return _lib.XXH3_64bits(b, len(b))


def header(meta):
    """meta: list of (key, value) strings."""
    body = b"".join(
        k.encode() + b"=" + v.replace("\\", "\\\\").replace("\n", "\\n").encode() + b"\n"
        for k, v in meta)
    h = MAGIC + bytes([1, 0, 0, 0]) + struct.pack("<I", len(body)) + body
    return h + struct.pack("<Q", xxh3(h))


def record(kind, label, doc_id, payload):
    lab = label.encode() if isinstance(label, str) else label
    r = struct.pack("<BBHIQ", kind, 0, len(lab), len(payload), doc_id) + lab + payload
    return r + struct.pack("<Q", xxh3(r))


def write_text(path, docs, meta=()):
    """docs: iterable of (label, bytes); the id is XXH3-64 of the bytes.
    One segment: header, records, END record with the record count."""
    with open(path, "wb") as f:
        f.write(header(list(meta)))
        n = 0
        for label, text in docs:
            f.write(record(TEXT, label, xxh3(text), text))
            n += 1
        f.write(record(END, b"", 0, struct.pack("<Q", n)))


def read(path, verify=True):
    """Returns (metas, records): metas a list of header (key, value) lists in
    order, records a list of (kind, label bytes, id, payload bytes, offset);
    END records are checked (count) and not returned."""
    data = open(path, "rb").read()
    metas, recs, i, seg = [], [], 0, 0
    while i < len(data):
        if data[i:i + 8] == MAGIC:
            n = struct.unpack_from("<I", data, i + 12)[0]
            body = data[i + 16:i + 16 + n].decode()
            m = []
            for line in body.split("\n")[:-1]:
                k, v = line.split("=", 1)
                m.append((k, v.replace("\\n", "\n").replace("\\\\", "\\")))
            metas.append(m)
            i += 16 + n + 8
            continue
        kind, _, llen, plen, doc_id = struct.unpack_from("<BBHIQ", data, i)
        lab = data[i + 16:i + 16 + llen]
        pay = data[i + 16 + llen:i + 16 + llen + plen]
        end = i + 16 + llen + plen
        if verify and struct.unpack_from("<Q", data, end)[0] != xxh3(data[i:end]):
            raise ValueError("%s: byte %d: bad checksum" % (path, i))
        if kind == END:
            if struct.unpack("<Q", pay)[0] != seg:
                raise ValueError("%s: byte %d: END counts %d records, segment has %d" % (path, i, struct.unpack("<Q", pay)[0], seg))
            seg = 0
        else:
            recs.append((kind, lab, doc_id, pay, i))
            seg += 1
        i = end + 8
    return metas, recs


def ids_of(payload):
    return list(struct.unpack("<%dI" % (len(payload) // 4), payload))


def _main(argv):
    """Command line for the shell tests:
    calstream.py text OUT [KEY=VALUE]...  one TEXT record per stdin line
        (backslash escapes such as \\xff decoded to raw bytes), labels lab0..lab2
    calstream.py dump FILE  "HEADER k=v ..." per header, then per record
        "KIND LABEL ID [ids...]" (ids for TOKENS)."""
    if argv[1] == "text":
        meta = [tuple(a.split("=", 1)) for a in argv[3:]]
        docs = [line.rstrip("\n").encode().decode("unicode_escape").encode("latin-1")
                for line in sys.stdin]
        write_text(argv[2], (("lab%d" % (i % 3), d) for i, d in enumerate(docs)), meta)
    elif argv[1] == "dump":
        metas, recs = read(argv[2])
        for m in metas:
            print("HEADER " + " ".join("%s=%s" % kv for kv in m))
        for kind, lab, i, pay, _ in recs:
            print(kind, lab.decode(), "%016x" % i, *(ids_of(pay) if kind == TOKENS else []))
    else:
        raise SystemExit("usage: calstream.py text OUT [K=V]... | dump FILE")


if __name__ == "__main__":
    import sys
    try:
        _main(sys.argv)
    except BrokenPipeError:  # dump | head
        sys.stderr.close()
