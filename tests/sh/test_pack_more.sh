#!/bin/sh
# cal-pack: short-input errors, usage errors for missing ids, synthetic rows,
# stratified sampling, determinism across seeds, the EXL2 wiki layout.
. tests/lib.sh
HERE=$(cd "$(dirname "$0")/../py" && pwd)
export PYTHONPATH="$PWD/examples"   # calstream.py (packref.py is in $HERE)
mk() { # mk OUT META DOCS: META like "vocab=100,bos=1"; DOCS a python list of id lists
  $PY - "$HERE" "$@" <<'PYEOF'
import sys; sys.path.insert(0, sys.argv[1]); import calstream as cs
meta = [tuple(kv.split("=")) for kv in sys.argv[3].split(",") if kv]
docs = eval(sys.argv[4])
cs.write(sys.argv[2], meta, [cs.tokens("d%d" % (i % 3), 1000 + i, d) for i, d in enumerate(docs)])
PYEOF
}
dump() { $PY - "$HERE" "$1" <<'PYEOF'
import sys; sys.path.insert(0, sys.argv[1]); import calstream as cs
m, r = cs.read(sys.argv[2])
for x in r: print(x["label"], x["flags"], " ".join(map(str, x["ids"])), x["mask"] or "")
PYEOF
}
mk "$T/a.cal" "vocab=50,bos=1,eos=2,pad=0" "[list(range(10,20)), list(range(20,25)), list(range(30,45))]"
mk "$T/noids.cal" "tokenizer=x" "[list(range(10,40))]"

# -n exact; short input says how many rows were possible
check "concat -n 3" cal-pack -l 10 -n 3 "$T/a.cal" -o "$T/o.cal"
eq "concat -n 3 rows" "$(dump "$T/o.cal" | wc -l)" 3
expect_fail "concat short -n" 1 'gives only 3 rows of 10 tokens, -n 4 asked' cal-pack -l 10 -n 4 "$T/a.cal"
check "concat --allow-short" cal-pack -l 10 -n 4 --allow-short "$T/a.cal" -o "$T/o.cal"
eq "allow-short rows" "$(dump "$T/o.cal" | wc -l)" 3
expect_fail "doc short -n" 1 'only 3 rows' cal-pack -l 10 -n 5 --mode doc "$T/a.cal"
expect_fail "window short" 1 'has 30 tokens; window mode needs at least 31' cal-pack -l 30 -n 2 --mode window "$T/a.cal"
expect_fail "per-doc none long" 1 'no document has more than 15 tokens' cal-pack -l 15 -n 2 --mode window --per-doc "$T/a.cal"
expect_fail "article short" 1 'only 0 rows' cal-pack -l 40 -n 1 --mode article --bos doc "$T/a.cal"
expect_fail "stratify short bucket" 1 'length bucket 1-5 has 1 documents, 2 needed for -n 8' cal-pack -l 16 --mode doc --stratify 5,10,20,40 -n 8 "$T/a.cal"

# ids from the header, overrides, and clear usage errors when absent
expect_fail "bos absent" 2 "no 'bos'; give --bos-id" cal-pack -l 8 --bos row "$T/noids.cal"
expect_fail "eos absent" 2 "no 'eos'; give --eos-id" cal-pack -l 8 --sep eos "$T/noids.cal"
expect_fail "pad absent" 2 "no 'pad' or 'eos'" cal-pack -l 8 --mode doc "$T/noids.cal"
expect_fail "vocab absent" 2 "no 'vocab'" cal-pack -l 8 --random-rows 1 "$T/noids.cal"
expect_fail "half needs -n" 2 'half needs -n' cal-pack -l 8 --bos half "$T/a.cal"
expect_fail "window needs -n" 2 'window needs -n' cal-pack -l 8 --mode window "$T/a.cal"
expect_fail "no length" 2 'LENGTH is required' cal-pack "$T/a.cal"
expect_fail "bad mode" 2 "unknown value 'x'" cal-pack -l 4 --mode x "$T/a.cal"
expect_fail "no room" 2 'no room' cal-pack -l 2 --bos row --eos row --bos-id 1 --eos-id 2 "$T/a.cal"
cal-pack -l 6 --bos row --bos-id 7 "$T/noids.cal" -o "$T/o.cal"
eq "--bos-id override" "$(dump "$T/o.cal" 2>/dev/null | head -1)" "d0 0 7 10 11 12 13 14 "
cal-pack -l 6 --bos row --bos-id 7 "$T/a.cal" -o "$T/o.cal"
eq "--bos-id beats header" "$(dump "$T/o.cal" 2>/dev/null | head -1 | cut -d' ' -f3)" "7"
mk "$T/text.cal" "" "[]"
$PY - "$HERE" "$T/text.cal" <<'PYEOF'
import sys; sys.path.insert(0, sys.argv[1]); import calstream as cs
cs.write(sys.argv[2], [], [cs.record(cs.TEXT, "x", 1, b"hello")])
PYEOF
expect_fail "TEXT input" 1 'byte [0-9]+: expected TOKENS records, got TEXT' cal-pack -l 4 "$T/text.cal"

# synthetic rows: uniform in [0, vocab), seeded, after the data rows; noise flagged
cal-pack -l 8 -n 0 --random-rows 40 --noise-rows 3 --seed 5 "$T/a.cal" >"$T/s1.cal"
cal-pack -l 8 -n 0 --random-rows 40 --noise-rows 3 --seed 5 "$T/a.cal" >"$T/s2.cal"
cal-pack -l 8 -n 0 --random-rows 40 --noise-rows 3 --seed 6 "$T/a.cal" >"$T/s3.cal"
same "random rows: same seed, same bytes" "$T/s1.cal" "$T/s2.cal"
if cmp -s "$T/s1.cal" "$T/s3.cal"; then not_ok "random rows: other seed differs"; else ok "random rows: other seed differs"; fi
out=$($PY - "$HERE" "$T/s1.cal" <<'PYEOF'
import sys; sys.path.insert(0, sys.argv[1]); import calstream as cs, packref as ref
m, r = cs.read(sys.argv[2])
rnd = [x for x in r if x["label"] == "random"]; noi = [x for x in r if x["label"] == "noise"]
rng = ref.Rng(5, "random-rows")
want = [[rng.below(50) for _ in range(8)] for _ in range(40)]
ok = [x["ids"] for x in rnd] == want and all(x["flags"] == 1 and x["ids"] == [0] * 8 for x in noi)
ok = ok and len(noi) == 3 and r[-1]["label"] == "noise" and len(set(i for x in rnd for i in x["ids"])) > 40
print("yes" if ok else "no")
PYEOF
)
eq "random rows uniform [0,vocab) by the documented RNG; noise rows flagged" "$out" yes

# stratify: equal draws per bucket, by the documented RNG, input order kept
$PY - "$HERE" "$T/st.cal" <<'PYEOF'
import sys, random; sys.path.insert(0, sys.argv[1]); import calstream as cs
r = random.Random(7)
docs = [[r.randrange(3, 90) for _ in range(r.choice([r.randrange(1, 9), r.randrange(9, 17), r.randrange(17, 60)]))] for _ in range(60)]
cs.write(sys.argv[2], [("eos", "2"), ("pad", "0")], [cs.tokens("s", i, d) for i, d in enumerate(docs)])
PYEOF
check "stratify runs" cal-pack -l 16 --mode doc --stratify 8,16,32 -n 10 --seed 3 "$T/st.cal" -o "$T/o.cal"
out=$($PY - "$HERE" "$T/st.cal" "$T/o.cal" <<'PYEOF'
import sys; sys.path.insert(0, sys.argv[1]); import calstream as cs, packref as ref
_, docs = cs.read(sys.argv[2]); _, rows = cs.read(sys.argv[3])
bounds, n = [8, 16, 32], 10
bk = lambda l: next((i for i, b in enumerate(bounds[:-1]) if l <= b), len(bounds) - 1)
quota = ref.largest_remainder(n, [1] * 3)
rng, take = ref.Rng(3, "stratify"), set()
for b in range(3):
    mem = [i for i, d in enumerate(docs) if bk(len(d["ids"])) == b]
    for i in range(quota[b]):
        j = i + rng.below(len(mem) - i)
        mem[i], mem[j] = mem[j], mem[i]
        take.add(mem[i])
want = [ref.doc_row("s", docs[i]["id"], docs[i]["ids"], 16, 0, n, None, None, "none", "none", "tail", "right", 0) for i in sorted(take)]
got = [(x["label"], x["id"], x["ids"], x["mask"], 0) for x in rows]
counts = [sum(1 for i in take if bk(len(docs[i]["ids"])) == b) for b in range(3)]
print("yes" if got == want and counts == [4, 3, 3] else "no %s %s" % (counts, len(got)))
PYEOF
)
eq "stratify: 4/3/3 draws per bucket, exact rows" "$out" yes

# determinism: same seed same bytes, other seed other bytes (window)
$PY - "$HERE" "$T/big.cal" <<'PYEOF'
import sys, random; sys.path.insert(0, sys.argv[1]); import calstream as cs
r = random.Random(9)
cs.write(sys.argv[2], [("vocab", "1000"), ("bos", "1"), ("eos", "2")],
         [cs.tokens("w", r.getrandbits(64), [r.randrange(3, 1000) for _ in range(r.randrange(1, 400))]) for _ in range(200)])
PYEOF
recs() { $PY - "$HERE" "$1" >"$2" <<'PYEOF'
import sys; sys.path.insert(0, sys.argv[1]); import calstream as cs
sys.stdout.write("".join(x["raw"].hex() + "\n" for x in cs.read(sys.argv[2])[1]))
PYEOF
}
cal-pack -l 128 -n 50 --mode window "$T/big.cal" -o "$T/w1.cal"
cal-pack -l 128 -n 50 --mode window "$T/big.cal" -o "$T/w1b.cal"
cal-pack -l 128 -n 50 --mode window --seed 0 "$T/big.cal" -o "$T/w2.cal"
cal-pack -l 128 -n 50 --mode window --seed 1 "$T/big.cal" -o "$T/w3.cal"
cat "$T/big.cal" | cal-pack -l 128 -n 50 --mode window >"$T/w4.cal"
for f in w1 w2 w3 w4; do recs "$T/$f.cal" "$T/$f.r"; done
same "window: same command, same bytes" "$T/w1.cal" "$T/w1b.cal"
same "window: default seed is 0, same records" "$T/w1.r" "$T/w2.r"
if cmp -s "$T/w1.r" "$T/w3.r"; then not_ok "window: seed 1 differs"; else ok "window: seed 1 differs"; fi
same "window: stdin same records as file" "$T/w1.r" "$T/w4.r"

# stage line with resolved defaults; metadata carried
out=$($PY - "$HERE" "$T/w1.cal" <<'PYEOF'
import sys; sys.path.insert(0, sys.argv[1]); import calstream as cs
m, _ = cs.read(sys.argv[2]); print(cs.meta_get(m, "vocab"), cs.meta_get(m, "stage"))
PYEOF
)
case "$out" in "1000 cal-pack "*"--seed 0"*) ok "metadata copied, stage with --seed 0" ;; *) not_ok "metadata copied, stage with --seed 0" "$out" ;; esac

# EXL2 wiki layout: 4 rows from articles, first 2 without the leading BOS
$PY - "$HERE" "$T/wiki.cal" <<'PYEOF'
import sys; sys.path.insert(0, sys.argv[1]); import calstream as cs
arts = [[10 + (i % 7)] * (3 + 5 * i % 11) for i in range(40)]
cs.write(sys.argv[2], [("bos", "1"), ("eos", "2")], [cs.tokens("wiki", i, a) for i, a in enumerate(arts)])
PYEOF
cal-pack -l 16 --mode article --bos half --eos doc -n 4 "$T/wiki.cal" -o "$T/o.cal"
out=$($PY - "$HERE" "$T/wiki.cal" "$T/o.cal" <<'PYEOF'
import sys; sys.path.insert(0, sys.argv[1]); import calstream as cs
_, arts = cs.read(sys.argv[2]); _, rows = cs.read(sys.argv[3])
# exllamav2 get_standard_calibration, transcribed: BOS+text+EOS per article,
# whole articles until >= ctx+1, rows r < rows//2 are row[1:ctx+1], else row[:ctx]
tok = [[1] + a["ids"] + [2] for a in arts]; ctx, idx, want = 16, 0, []
for r in range(4):
    length, idx0 = 0, idx
    while length < ctx + 1:
        length += len(tok[idx]); idx += 1
    row = sum(tok[idx0:idx], [])
    want.append(row[1:ctx + 1] if r < 2 else row[:ctx])
got = [x["ids"] for x in rows]
print("yes" if got == want and got[2][0] == 1 and got[0][0] != 1 else "no %s" % got)
PYEOF
)
eq "EXL2 wiki rows (transcribed loop)" "$out" yes

# EXL3 split_art: even rows wrap articles in BOS/EOS, odd rows not; articles
# appended until the row has LENGTH tokens, the rest of the last one dropped
cal-pack -l 16 --mode article --bos alt --eos alt -n 6 "$T/wiki.cal" -o "$T/o.cal"
out=$($PY - "$HERE" "$T/wiki.cal" "$T/o.cal" <<'PYEOF'
import sys; sys.path.insert(0, sys.argv[1]); import calstream as cs
_, arts = cs.read(sys.argv[2]); _, rows = cs.read(sys.argv[3])
# exllamav3 calibration_data.split_art, transcribed
t_rows, idx, t_row, columns = [], 0, [], 16
while len(t_rows) < 6:
    sp = len(t_rows) % 2 == 0
    t_row = (t_row + ([1] if sp else []) + arts[idx]["ids"] + ([2] if sp else []))[:columns]
    if len(t_row) == columns:
        t_rows.append(t_row); t_row = []
    idx += 1
print("yes" if [x["ids"] for x in rows] == t_rows else "no")
PYEOF
)
eq "EXL3 split_art rows (transcribed loop)" "$out" yes

# --max-tokens/--min-tokens filter documents in every mode, counted by -v
check "max-tokens concat" cal-pack -l 5 --max-tokens 10 -v "$T/a.cal" -o "$T/o.cal"
eq "max-tokens: rows from the 10- and 5-token documents" "$(dump "$T/o.cal" | cut -d' ' -f3- | tr '\n' '|')" \
  "10 11 12 13 14 |15 16 17 18 19 |20 21 22 23 24 |"
case "$(cat "$T/.err")" in *"1 documents dropped"*) ok "max-tokens: counted" ;; *) not_ok "max-tokens: counted" "$(cat "$T/.err")" ;; esac
cal-pack -l 5 --min-tokens 6 --sep eos "$T/a.cal" -o "$T/o.cal"
eq "min-tokens concat: first kept document has no separator before it" "$(dump "$T/o.cal" | head -1 | cut -d' ' -f3-)" "10 11 12 13 14 "

# streaming: -n stops reading, so an endless producer is no problem
$PY - "$HERE" >"$T/inf.py" <<'PYEOF'
import sys
print("import sys; sys.path.insert(0, %r); import calstream as cs" % sys.argv[1])
print("o = sys.stdout.buffer; o.write(cs.header([('vocab', '9')]))")
print("i = 0\nwhile True:\n    o.write(cs.tokens('x', i, [i % 9] * 7)); i += 1")
PYEOF
check "endless input, -n 3: ends" sh -c "$PY '$T/inf.py' 2>/dev/null | timeout 20 cal-pack -l 5 -n 3 -o '$T/o.cal'"
eq "endless input: 3 rows" "$(dump "$T/o.cal" | wc -l)" 3
# a stream with a header and no records
$PY - "$HERE" "$T/empty.cal" <<'PYEOF'
import sys; sys.path.insert(0, sys.argv[1]); import calstream as cs
cs.write(sys.argv[2], [("vocab", "9"), ("eos", "1")], [])
PYEOF
expect_fail "no records: no row is an error" 1 'empty.cal: input has 0 tokens in 0 documents; no row of 4 tokens is possible \(use --allow-short\)' cal-pack -l 4 "$T/empty.cal"
check "no records, --allow-short: no rows" cal-pack -l 4 --allow-short "$T/empty.cal" -o "$T/o.cal"
eq "no records, --allow-short: 0 rows" "$(dump "$T/o.cal" | wc -l)" 0
expect_fail "no records, -n 1" 1 'only 0 rows of 4 tokens, -n 1 asked' cal-pack -l 4 -n 1 --mode doc "$T/empty.cal"
check "no records: random rows still come" cal-pack -l 4 -n 0 --random-rows 2 "$T/empty.cal" -o "$T/o.cal"
eq "no records: 2 random rows" "$(dump "$T/o.cal" | wc -l)" 2
check "no records: shuffle" cal-shuffle "$T/empty.cal" -o "$T/o.cal"
eq "no records: shuffle writes the header only" "$(dump "$T/o.cal" | wc -l)" 0
check "no records: blend --grouped" cal-blend --grouped "$T/empty.cal" -o "$T/o.cal"
expect_fail "no records: blend rows=1 short" 1 'has only 0 records, 1 needed' cal-blend "$T/empty.cal:rows=1"
expect_fail "--pad outside doc mode" 2 '--truncate and --pad need --mode doc' cal-pack -l 4 --pad left "$T/a.cal"
expect_fail "--sep with --per-doc" 2 '--sep has no use with --per-doc' cal-pack -l 4 -n 1 --mode window --per-doc --sep eos "$T/a.cal"
expect_fail "--per-doc outside window" 2 '--per-doc needs --mode window' cal-pack -l 4 --per-doc "$T/a.cal"
expect_fail "--stratify outside doc" 2 '--stratify needs --mode doc' cal-pack -l 4 -n 2 --stratify 2,4 "$T/a.cal"
