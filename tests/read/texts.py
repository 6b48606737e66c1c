#!/usr/bin/python3
"""texts.py [--labels] - reads `cal-cat --json` output on stdin and prints the
text of each TEXT record as one JSON string per line (so that multi-line
texts compare exactly); --labels prints "label<TAB>id<TAB>text"."""
import json
import sys

labels = "--labels" in sys.argv[1:]
for line in sys.stdin:
    r = json.loads(line)
    if r.get("kind") != "TEXT":
        continue
    s = json.dumps(r["text"], ensure_ascii=False)
    print("%s\t%s\t%s" % (r["label"], r["id"], s) if labels else s)
