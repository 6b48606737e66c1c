#!/usr/bin/python3
"""json_csv.py DIR - the JSON and CSV inputs of tests/sh/test_read_json_csv.sh
and what CPython reads from them: for every NAME.EXT written into DIR,
NAME.want holds the documents, one JSON string per line, in order, as the
peers' loaders take them:

- JSON (json.load): a list gives its elements, a dict of records its values
  (auto-round's `local` loader, calib_dataset.get_local_dataset); a lone
  record is one record; values separated by whitespace (records printed
  over several lines) are read one after the other (json.JSONDecoder.
  raw_decode). A dict is a dict of records when every value is an object
  and it lacks the text field. A record's text is record[FIELD] (a dotted path walks
  objects), a string record is its own text; null texts are skipped.
- CSV/TSV (csv.DictReader over the file opened with newline=""): each row's
  FIELD column; None (a short row) is skipped.

Documents that are empty are left out (cal-read skips empty documents).
Shapes covered: pretty-printed (indents 0, 1, 2, tabs), compact, a list,
an object of records, one record, records over several lines, JSON Lines in
a .json file, every BMP code point escaped and raw, astral code points as
surrogate pairs, every escape, nested fields; CSV written by csv.writer with
each quoting and line terminator, fields holding every ASCII character,
delimiters, quotes, line ends and non-ASCII text, and the non-strict cases
that csv reads (text after a closing quote, quotes inside unquoted fields)."""
import csv
import gzip
import io
import json
import os
import random
import sys

D = sys.argv[1]
rnd = random.Random(27)
ALPHA = ["a", "b", " ", ",", "\"", "'", "\n", "\r", "\r\n", "\t", "\\", "/", "é", "日本", "😀", "\u2028", "\x7f", "{", "}",
         "[", "]", ":", "<|im_start|>", "\u0000", "\x01", "\x1f"]


def text(k=12):
    return "".join(rnd.choice(ALPHA) for _ in range(rnd.randint(0, k)))


def want(name, docs):
    with open(os.path.join(D, name + ".want"), "w", encoding="utf-8") as f:
        for d in docs:
            if d:
                f.write(json.dumps(d, ensure_ascii=False) + "\n")


def at(r, path):
    for p in path.split("."):
        r = r[int(p)] if isinstance(r, list) else r.get(p) if isinstance(r, dict) else None
        if r is None:
            return None
    return r


def json_docs(values, field="text"):
    if len(values) == 1 and isinstance(values[0], dict):  # auto-round: a dict gives its values
        v = values[0]
        top = field.split(".")[0]
        if v and top not in v and "messages" not in v and all(isinstance(x, dict) for x in v.values()):
            values = [list(v.values())]
    out = []
    for v in values:
        for r in v if isinstance(v, list) else [v]:
            t = r if isinstance(r, str) else at(r, field)
            if t is not None:
                out.append(t)
    return out


def load_values(s):
    dec, i, vals = json.JSONDecoder(), 0, []
    while True:
        while i < len(s) and s[i] in " \t\r\n":
            i += 1
        if i == len(s):
            return vals
        v, i = dec.raw_decode(s, i)
        vals.append(v)


def put(name, s, field="text", binary=False):
    with open(os.path.join(D, name), "wb") as f:
        f.write(s if binary else s.encode("utf-8"))
    raw = s.decode("utf-8") if binary else s
    raw = raw[1:] if raw.startswith("\ufeff") else raw  # read as utf-8-sig
    want(name.split(".")[0], json_docs(load_values(raw), field))


def records(n):
    out = []
    for i in range(n):
        r = {"id": i, "meta": {"body": text(), "k": [1, 2.5, None]}, "text": text(20)}
        if i % 7 == 3:
            r["text"] = None
        if i % 5 == 1:
            r = dict(reversed(list(r.items())))  # the text first or last
        out.append(r)
    return out


recs = records(300)
put("indent2.json", json.dumps(recs, indent=2, ensure_ascii=False))
put("indent0.json", json.dumps(recs, indent=0, ensure_ascii=True))
put("tabs.json", json.dumps(recs, indent="\t", ensure_ascii=False, separators=(",", " : ")))
put("compact.json", json.dumps(recs, ensure_ascii=False, separators=(",", ":")))
put("nested.json", json.dumps(recs, indent=1), field="meta.body")
put("mixed.json", json.dumps(["a string record", {"text": "x"}, None and 0 or {"text": None}, "  ", {"text": ""}], indent=2))
put("objrecs.json", json.dumps({"k%d" % i: r for i, r in enumerate(recs)}, indent=2))
put("lone.json", json.dumps({"meta": {"a": {"b": [1, {"c": "]"}]}}, "text": "one record, its first member an object"}, indent=3))
put("pretty_lines.json", "\n".join(json.dumps(r, indent=1) for r in recs[:50]) + "\n")
put("jsonl_in.json", "".join(json.dumps(r) + "\n" for r in recs[:50]))
put("lists.json", json.dumps(recs[:20]) + "\n" + json.dumps(recs[20:40], indent=2))
put("bom.json", "\ufeff" + json.dumps(recs[:10], indent=2))
put("empty_list.json", " [ ]\n")
# every BMP code point outside the surrogates, escaped and raw; astral ones
cps = [c for c in range(1, 0x10000) if not 0xD800 <= c < 0xE000]
blocks = [{"text": "".join(map(chr, cps[i:i + 256]))} for i in range(0, len(cps), 256)]
blocks += [{"text": "".join(map(chr, range(0x10000 + k, 0x110000, 4099)))} for k in range(0, 4099, 211)]
put("cp_escaped.json", json.dumps(blocks, indent=1, ensure_ascii=True))
put("cp_raw.json", json.dumps(blocks, indent=1, ensure_ascii=False))
# every escape JSON has, in both cases of hex digits
esc = '["\\"\\\\\\/\\b\\f\\n\\r\\t", "\\u00e9\\u00E9\\uD83D\\uDE00\\ud83d\\ude00", "a\\u0000b"]'
put("escapes.json", esc)
with gzip.open(os.path.join(D, "gz.json.gz"), "wb") as f:
    f.write(json.dumps(recs, indent=2).encode())
want("gz", json_docs(recs))

# CSV and TSV
FIELDS = ["text", "other", "n"]


def csv_rows(n):
    rows = []
    for i in range(n):
        rows.append([text(16), text(6), str(i)])
    for c in range(1, 128):  # every ASCII character inside a field, alone and between letters
        rows.append([chr(c), "x%sy" % chr(c), str(c)])
    return rows


for delim, ext in ((",", "csv"), ("\t", "tsv")):
    for q, qn in ((csv.QUOTE_MINIMAL, "min"), (csv.QUOTE_ALL, "all"), (csv.QUOTE_NONNUMERIC, "nonnum")):
        for term, tn in (("\r\n", "crlf"), ("\n", "lf"), ("\r", "cr")):
            rows = [r for r in csv_rows(150) if "\x00" not in "".join(r)]
            buf = io.StringIO(newline="")
            w = csv.writer(buf, delimiter=delim, quoting=q, lineterminator=term)
            w.writerow(FIELDS)
            w.writerows(rows)
            name = "%s_%s_%s" % (ext, qn, tn)
            with open(os.path.join(D, name + "." + ext), "w", encoding="utf-8", newline="") as f:
                f.write(buf.getvalue())
            for fld in ("text", "other"):
                got = [r[fld] for r in csv.DictReader(io.StringIO(buf.getvalue(), newline=""), delimiter=delim)]
                want(name + "." + fld, [g for g in got if g is not None])
# what csv reads beyond RFC 4180 (non-strict), blank lines, short rows
odd = 'text,b\r\n"a"b,1\na"b,2\n"q" ,3\n\n\r\n"x\r\ny",4\r"",5\nshort\n"", \nlast,6'
with open(os.path.join(D, "odd.csv"), "w", encoding="utf-8", newline="") as f:
    f.write(odd)
want("odd.text", [r["text"] for r in csv.DictReader(io.StringIO(odd, newline="")) if r["text"] is not None])
want("odd.b", [r["b"] for r in csv.DictReader(io.StringIO(odd, newline="")) if r["b"] is not None])
