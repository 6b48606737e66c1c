#!/bin/sh
# test_summary.sh - cal-cat --summary (--json) against the same figures
# computed in Python from the stream's bytes (examples/calstream.py, written
# from cal-stream(5)): per label and in total records, rows, positions, real
# tokens, the length histogram, BOS/EOS among the real tokens, rows starting
# with BOS, distinct ids, duplicates; what every stage dropped, summed over
# shards; the shards, inputs, seeds and stages. Then --plot: an SVG that
# rsvg-convert (librsvg, Debian) renders.
. tests/lib.sh
export PYTHONPATH="$PWD/examples"
cd "$T" || exit 1
# A mixed set: wiki documents one per row (BOS on every row, padded), code
# rows concatenated, blended with code cycled (duplicates); two shards of
# wiki read with --min-chars, so their drops are summed.
for i in 0 1; do
  cal-read wiki --shard $i/2 --min-chars 300 2>/dev/null | cal-encode -t llama3 -o wiki$i.tok
done
cat wiki0.tok wiki1.tok | cal-shuffle --by-id | cal-pack -l 128 --mode doc --bos row -n 40 -o wiki.rows 2>/dev/null
cal-read code -n 2 | cal-encode -t llama3 | cal-pack -l 128 -o code.rows 2>/dev/null
n_code=$(cal-cat --check code.rows | sed 's/.* \([0-9]*\) records.*/\1/')
cal-blend wiki.rows:rows=40 code.rows:rows=$((n_code + 7)) --cycle -o mix.cal 2>blend.err
eq "cal-blend --cycle: the repeated records are said" "$(cat blend.err)" \
  "cal-blend: 7 records repeated by --cycle: code.rows has only $n_code"
cal-cat --summary --json mix.cal >sum.json || not_ok "cal-cat --summary --json"
cal-cat --summary mix.cal >sum.txt || not_ok "cal-cat --summary"

$PY - mix.cal sum.json <<'PYEOF'
import json, sys
import calstream as cs
meta, recs = cs.read(sys.argv[1])
got = json.load(open(sys.argv[2]))
def report(name, cond, detail=""):
    print(("ok - " if cond else "not ok - ") + name)
    if not cond: print("# " + str(detail)[:600])
m = {}
for k, v in dict.fromkeys(meta):  # the merge of cal-stream(5): a line already there is not added again
    m.setdefault(k, []).append(v)
def one(k):
    return int(m[k][-1]) if k in m else None
vocab, bos, eos = one("vocab"), one("bos"), one("eos")
def bucket(n):
    b = 0
    while n and b < 33: n >>= 1; b += 1
    return b
groups = {}
seen_all, seen_per, dups = set(), set(), 0
for r in recs:
    g = groups.setdefault(r["label"], {"records": 0, "rows": 0, "positions": 0, "real": 0, "bos": 0, "eos": 0,
                                       "rows_bos": 0, "ids": set(), "hist": {}, "dups": 0})
    key = (r["kind"], r["raw"][16 + len(r["label"].encode()):-8])
    if key in seen_all: dups += 1
    seen_all.add(key)
    if (r["label"], key) in seen_per: g["dups"] += 1
    seen_per.add((r["label"], key))
    g["records"] += 1; g["rows"] += 1; g["positions"] += len(r["ids"])
    real = [i for i, k in zip(r["ids"], r["mask"] or [1] * len(r["ids"])) if k]
    g["real"] += len(real); g["bos"] += real.count(bos); g["eos"] += real.count(eos)
    g["rows_bos"] += bool(real) and real[0] == bos
    g["ids"].update(real)
    b = bucket(len(real)); g["hist"][b] = g["hist"].get(b, 0) + 1
    g["longest"] = max(g.get("longest", 0), len(real))
def bucket_name(b, longest):  # the power-of-two range, its top cut at the longest length
    lo, hi = (1 << (b - 1), (1 << b) - 1) if b else (0, 0)
    if lo <= longest < hi: hi = longest
    return str(lo) if hi <= lo else "%d-%d" % (lo, hi)
labels = [g["label"] for g in got["labels"]]
report("labels in the order met: %s" % labels, labels == list(groups))
for lab, want in groups.items():
    g = next(x for x in got["labels"] if x["label"] == lab)
    hist = {bucket(h["min"]) if h["min"] else 0: h["count"] for h in g["lengths"]}
    checks = [("records", g["records"], want["records"]), ("rows", g["rows"], want["rows"]),
              ("positions", g["positions"], want["positions"]), ("real tokens", g["real_tokens"], want["real"]),
              ("padding", g["padding"], want["positions"] - want["real"]),
              ("real share", round(g["real_share"], 6), round(want["real"] / want["positions"], 6)),
              ("bos", g["bos"], want["bos"]), ("eos", g["eos"], want["eos"]),
              ("rows starting with bos", g["rows_starting_with_bos"], want["rows_bos"]),
              ("distinct ids", g["distinct_ids"], len(want["ids"])),
              ("vocab share", round(g["vocab_share"], 6), round(len(want["ids"]) / vocab, 6)),
              ("duplicates", g["duplicates"], want["dups"]), ("length histogram", hist, want["hist"]),
              ("bucket names", [h["bucket"] for h in g["lengths"]],
               [bucket_name(b, want["longest"]) for b in sorted(want["hist"])])]
    for name, a, b in checks:
        report("%s: %s = Python's (%s)" % (lab, name, b), a == b, (a, b))
t = got["total"]
allids = set().union(*(g["ids"] for g in groups.values()))
report("total: records, real tokens, distinct ids and duplicates = Python's",
       (t["records"], t["real_tokens"], t["distinct_ids"], t["duplicates"]) ==
       (len(recs), sum(g["real"] for g in groups.values()), len(allids), dups),
       ((t["records"], t["real_tokens"], t["distinct_ids"], t["duplicates"]), (len(recs), len(allids), dups)))
report("some rows are duplicates (the cycled code rows): %d" % dups, dups >= 7)
# What was lost, from the drop lines: every cause summed over shards.
want = {}
for v in m.get("drop", []):
    chain, prog, n, noun, amount, unit, why = v.split(" ", 6)
    k = (prog, noun, why, "" if unit == "-" else unit)
    a = want.setdefault(k, [0, 0, 0]); a[0] += int(n); a[1] += int(amount); a[2] += 1
gd = {(d["stage"], d["what"], d["why"], d["unit"] or ""): [d["count"], d["amount"], d["streams"]] for d in got["drops"]}
report("drops: every cause of every stage, summed over shards (%d causes)" % len(want), gd == want, (gd, want))
mc = [k for k in want if k[2].startswith("dropped by --min-chars 300")]
report("the --min-chars drops of both wiki shards are one cause, 2 shards", mc and want[mc[0]][2] == 2, want)
report("the stages, seeds and inputs are the stream's", got["stages"] == m["stage"] and got["inputs"] == m["input"] and
       {s["stage"]: s["seed"] for s in got["seeds"]}.get("cal-blend") == 0, (got["stages"], got["seeds"]))
report("the shards: the wiki family, whole", got["shards"] == ["cal-read wiki --shard I/2 --min-chars 300: 2 of 2"],
       got["shards"])
report("the tokenizer as numbers", got["tokenizer"]["vocab"] == vocab and got["tokenizer"]["bos"] == bos, got["tokenizer"])
PYEOF

# The text form says the same, for a person.
grep -q '^  cal-read: [0-9]* documents dropped by --min-chars 300 ([0-9]* bytes) \[2 streams\]$' sum.txt &&
  ok "text: the drops of two shards summed, marked [2 streams]" || not_ok "text: drops summed" "$(cat sum.txt)"
grep -q '^rows: [0-9]* (0 noise), [0-9]* positions: [0-9]* real tokens ([0-9.]*%), [0-9]* padding ([0-9.]*%)$' sum.txt &&
  ok "text: the real-token share of the rows" || not_ok "text: the real-token share" "$(head -5 sum.txt)"

# A TEXT stream: lengths in bytes, no rows.
cal-read wiki -n 50 | cal-cat --summary --json >t.json
$PY -c '
import json, sys; g = json.load(open("t.json"))["total"]
print("ok - TEXT: 50 records, bytes counted" if g["text"] == 50 and g["text_bytes"] > 0 and g["rows"] == 0
      else "not ok - TEXT summary: %s" % g)'

# --plot: an SVG a real renderer draws (rsvg-convert; the picture was
# looked at when this test was written: four panels, labels legible).
if command -v rsvg-convert >/dev/null 2>&1; then
  cal-cat --plot mix.svg mix.cal && rsvg-convert mix.svg -o mix.png 2>conv.err
  if [ -s mix.png ] && [ ! -s conv.err ]; then
    w=$($PY -c 'import struct; d=open("mix.png","rb").read(24); print(struct.unpack(">II", d[16:24])[0])')
    eq "--plot: rsvg-convert renders it, 860 pixels wide" "$w" 860
  else not_ok "--plot: rsvg-convert renders it" "$(cat conv.err)"; fi
  for s in "Domain mix (share of real tokens)" "Real tokens (colour) and padding (grey) per label" \
           "Lengths (real tokens per row)" "Lost on the way" "code.rows has only"; do
    grep -qF "$s" mix.svg && ok "--plot: '$s'" || not_ok "--plot: '$s'"
  done
  printf 'a <b> & "c"\n' | cal-read -L 'x<y&z' - | cal-cat --plot esc.svg && rsvg-convert esc.svg -o esc.png 2>conv.err &&
    [ ! -s conv.err ] && ok "--plot: labels with < & \" are escaped (the SVG stays valid)" ||
    not_ok "--plot: escaping" "$(cat conv.err)"
else
  skip "--plot rendering" "rsvg-convert is not installed (librsvg2-bin)"
fi
expect_fail "--plot wants .svg" 2 "the name must end in .svg" cal-cat --plot x.png mix.cal
expect_fail "--summary and --pass exclude each other" 2 "exclude each other" cal-cat --summary --pass mix.cal
