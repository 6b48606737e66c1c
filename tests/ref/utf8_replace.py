"""utf8_replace.py V - the reference for tests/unit/test_base_utf8.c: CPython's
bytes.decode("utf-8", errors="replace") of every 1-, 2- and 3-byte sequence
and of every 4-byte sequence of any lead byte followed by three bytes from V
(comma-separated hex: the boundary values of the continuation ranges).

Each case is followed by "\\n" (not a continuation byte, so it ends a cut
sequence exactly as the end of the input does) and the cases of one lead byte
are decoded together. Output, in the order the C test generates the cases:
per block a little-endian u32 length and the decoded block as UTF-8."""
import sys

V = bytes(int(x, 16) for x in sys.argv[1].split(","))
out = sys.stdout.buffer


def emit(cols):
    """One block: the cases whose byte k is cols[k][i], each plus "\\n"."""
    n, w = len(cols[0]), len(cols) + 1
    buf = bytearray(n * w)
    for k, c in enumerate(cols):
        buf[k::w] = c
    buf[len(cols)::w] = b"\n" * n
    d = bytes(buf).decode("utf-8", "replace").encode("utf-8")
    out.write(len(d).to_bytes(4, "little"))
    out.write(d)


ALL = bytes(range(256))
emit([ALL])
for a in range(256):
    emit([bytes([a]) * 256, ALL])
HI = bytes(b for b in range(256) for _ in range(256))  # byte 2 of a 3-byte block
for a in range(256):
    emit([bytes([a]) * 65536, HI, ALL * 256])
m = len(V)
V2 = bytes(b for b in V for _ in range(m * m))
V3 = bytes(b for b in V for _ in range(m)) * m
for a in range(256):
    emit([bytes([a]) * m ** 3, V2, V3, V * m * m])
