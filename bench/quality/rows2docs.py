#!/usr/bin/python3
"""rows2docs.py IN OUT - the ROW records of a cal-stream as TOKENS records
(label, id and ids kept; metadata carried, with a stage line added), so that
rows cut by cal-pack can be chosen among by programs that choose documents
(cal-select, cal-shuffle | cal-pack). Padded or noise rows are refused: a
chunk is a whole row of tokens. IN may be - (stdin)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples"))
from calstream import MASK, NOISE, ROW, TOKENS, header, read_records, record, end, tokens_payload  # noqa: E402
import struct  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: rows2docs.py IN OUT")
    src, out = sys.argv[1:]
    metas, recs = read_records("/dev/stdin" if src == "-" else src)
    meta = [kv for m in metas for kv in m] + [("stage", "rows2docs.py")]
    tmp = out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(header(meta))
        for kind, label, rid, pay, off in recs:
            if kind != ROW:
                sys.exit(f"rows2docs.py: {src}: byte {off}: expected a ROW record, got kind {kind}")
            n, flags = struct.unpack_from("<II", pay)
            if flags & (MASK | NOISE):
                sys.exit(f"rows2docs.py: {src}: byte {off}: a padded or noise row is not a chunk of tokens")
            f.write(record(TOKENS, label, rid, tokens_payload(struct.unpack_from("<%dI" % n, pay, 8))))
        f.write(end(len(recs)))
    os.replace(tmp, out)


if __name__ == "__main__":
    main()
