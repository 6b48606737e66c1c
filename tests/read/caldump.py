#!/usr/bin/python3
"""caldump.py [FILE] - prints the TEXT records of a cal-stream, one JSON
string per line (an independent reader of the record framing for the
cal-read tests; see man/cal-stream.5). --labels prints "label<TAB>id" too."""
import json
import struct
import sys

MAGIC = b"\x89CAL\r\n\x1a\n"


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    labels = "--labels" in sys.argv
    data = open(args[0], "rb").read() if args else sys.stdin.buffer.read()
    i, out = 0, sys.stdout
    while i < len(data):
        if data[i:i + 8] == MAGIC:
            (mlen,) = struct.unpack_from("<I", data, i + 12)
            i += 16 + mlen + 8
            continue
        kind, _, llen, plen, rid = struct.unpack_from("<BBHIQ", data, i)
        label = data[i + 16:i + 16 + llen].decode()
        payload = data[i + 16 + llen:i + 16 + llen + plen]
        if len(payload) != plen:
            sys.exit("caldump: truncated record")
        i += 16 + llen + plen + 8
        if kind != 1:
            sys.exit("caldump: not a TEXT record")
        s = json.dumps(payload.decode("utf-8"), ensure_ascii=False)
        out.write(("%s\t%016x\t%s\n" % (label, rid, s)) if labels else s + "\n")


main()
