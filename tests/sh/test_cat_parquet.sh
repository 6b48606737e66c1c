#!/bin/sh
# test_cat_parquet.sh - cal-cat -o FILE.parquet of TEXT records: one string
# column "text", read back by two independent readers (DuckDB and hyparquet,
# tests/read/parquet_texts.mjs) and by cal-read, row for row, over texts of
# every shape (every BMP code point outside the surrogates, astral ones, line
# ends, empty texts... enough for several data pages); the column as
# exllamav2's convert.py -c takes it (pandas + fastparquet: every row's
# columns joined with spaces, so one column gives each text as it is); the
# stream's metadata in the footer; the errors.
. tests/lib.sh
NM=$(sh tests/read/npm.sh 2>"$T/npm.err") || { skip "cat parquet" "npm: $(cat "$T/npm.err")"; exit 0; }
PYTHONPATH=examples $PY - "$T/t.cal" "$T/want.json" <<'PYEOF'
import json, sys
import calstream
cps = [c for c in range(1, 0x10000) if not 0xD800 <= c < 0xE000]
texts = ["".join(map(chr, cps[i:i + 300])) for i in range(0, len(cps), 300)]
texts += ["".join(map(chr, range(0x10000 + k, 0x110000, 7919))) for k in range(0, 400, 7)]
texts += ["", "a\r\nb\rc\n", " leading and trailing ", "\u0000nul", "x" * 2500000, "tab\tend"]
calstream.write_text(sys.argv[1], [("l%d" % (i % 3), t.encode("utf-8")) for i, t in enumerate(texts)], [("stage", "made by test_cat_parquet")])
json.dump(texts, open(sys.argv[2], "w"))
PYEOF
cal-cat -o "$T/t.parquet" "$T/t.cal" || { not_ok "cal-cat -o .parquet"; exit 0; }
node tests/read/parquet_texts.mjs "$T/t.parquet" "$T/got.json" 2>"$T/err" || { not_ok "readers" "$(tail -3 "$T/err")"; exit 0; }
if $PY - "$T/got.json" "$T/want.json" <<'PYEOF'
import json, sys
g, want = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert g["types"] == [["text", "VARCHAR"]], g["types"]
for who in ("duckdb", "hyparquet"):
    rows = [r[0] for r in g[who]]
    assert rows == want, "%s: %d rows, first difference at %r" % (who, len(rows), next((i for i, (a, b) in enumerate(zip(rows, want)) if a != b), None))
    # exllamav2: ' '.join(str(v) for v in row) over the row's columns: one column, the text itself
    assert [" ".join(str(v) for v in r) for r in g[who]] == want
assert g["kv"]["calkit.stream"].startswith("stage="), g["kv"]
PYEOF
then ok "DuckDB and hyparquet read every text back, one VARCHAR column, as exllamav2 joins it"
else not_ok "DuckDB and hyparquet read every text back"; fi
n=$(wc -c <"$T/t.parquet")
[ "$n" -gt 2700000 ] && ok "several data pages ($n bytes)" || not_ok "several data pages ($n bytes)"
cal-read "$T/t.parquet" | cal-cat --json | $PY tests/read/texts.py >"$T/back"
$PY -c 'import json, sys
for t in json.load(open(sys.argv[1])):
    if t: print(json.dumps(t, ensure_ascii=False))' "$T/want.json" >"$T/want.lines"
same "cal-read reads it back (empty texts skipped, as for any input)" "$T/back" "$T/want.lines"
cal-read "$T/t.parquet" | cal-encode -t llama3 | cal-pack -l 64 >"$T/rows.cal" 2>/dev/null
expect_fail "rows are not text" 1 "expected TEXT records to write Parquet, got ROW" cal-cat -o "$T/r.parquet" "$T/rows.cal"
check "no file is left after an error" sh -c "! test -e '$T/r.parquet'"
expect_fail "--batch is not for Parquet" 2 "--batch goes with" cal-cat --batch 2 -o "$T/b.parquet" "$T/t.cal"

# -o OUT.jsonl of TEXT records: {"text": ...} lines, read as auto-round's
# local loader reads a .jsonl (calib_dataset.get_local_dataset at commit
# b9f3d0079d014c73a1ff009800c597b9bc3f2a36: json.loads per line, a dict's
# "text"; its rstrip and shuffle come after), written anew
cal-cat -o "$T/t.jsonl" "$T/t.cal"
if $PY - "$T/t.jsonl" "$T/want.json" <<'PYEOF'
import json, sys
samples = []
for line in open(sys.argv[1]):
    data = json.loads(line)
    text = data["text"] if isinstance(data, dict) and "text" in data else data
    assert isinstance(text, str)
    samples.append(text)
assert samples == json.load(open(sys.argv[2]))
PYEOF
then ok "-o OUT.jsonl of TEXT records: one {\"text\"} line per record, as auto-round's local loader reads them"
else not_ok "-o OUT.jsonl of TEXT records"; fi
expect_fail "a .jsonl holds texts or rows, not both" 1 "expected TEXT records after TEXT records" \
  sh -c "cat '$T/t.cal' '$T/rows.cal' | cal-cat -o '$T/mix.jsonl'"
