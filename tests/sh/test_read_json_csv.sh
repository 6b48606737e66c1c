#!/bin/sh
# test_read_json_csv.sh - cal-read's JSON documents and CSV/TSV files against
# CPython's json and csv modules (tests/read/json_csv.py: the records, texts
# and order that auto-round's `local` loader and csv.DictReader give) over
# every shape: lists (pretty-printed, compact, compressed, from stdin), objects
# of records, lone records, records over several lines, JSON Lines in a .json
# file, every code point and escape; CSV and TSV from csv.writer with every
# quoting and line end, every ASCII character in a field, the non-strict cases;
# then the errors: one line naming the file, the byte and the record or line.
. tests/lib.sh
D() { cal-cat --json "$@" | $PY tests/read/texts.py; }
$PY tests/read/json_csv.py "$T" || { not_ok "json_csv.py"; exit 0; }
for f in "$T"/*.json "$T"/*.json.gz; do
  b=$(basename "$f"); n=${b%%.*}
  fld=text; [ "$n" = nested ] && fld=meta.body
  if cal-read --field "$fld" "$f" 2>"$T/err" | D >"$T/got"; then
    same "$b: the documents json.load gives, in order" "$T/got" "$T/$n.want"
  else
    not_ok "$b" "$(cat "$T/err")"
  fi
done
cal-read -f json - <"$T/indent2.json" | D >"$T/got"
same "-f json from stdin (a pipe streams too)" "$T/got" "$T/indent2.want"
cp "$T/indent2.json" "$T/noext"
cal-read "$T/noext" | D >"$T/got"
same "a file without a name extension: '[' starts a JSON document" "$T/got" "$T/indent2.want"
cp "$T/lone.json" "$T/noext2"
cal-read "$T/noext2" | D >"$T/got"
same "a record printed over several lines is told from JSON Lines by its first bytes" "$T/got" "$T/lone.want"
zstd -q -c "$T/indent2.json" >"$T/z.json.zst" 2>/dev/null && {
  cal-read "$T/z.json.zst" | D >"$T/got"
  same ".json.zst" "$T/got" "$T/indent2.want"
}
eq "labels drop .json, .csv and .tsv" "$(cal-read "$T/compact.json" "$T/csv_min_lf.csv" "$T/tsv_all_cr.tsv" | cal-cat --json | $PY tests/read/texts.py --labels | cut -f1 | uniq | tr '\n' ' ')" \
  "compact csv_min_lf tsv_all_cr "
empties=$($PY -c "import json, sys; print(sum(1 for r in json.load(open(sys.argv[1])) if isinstance(r, dict) and r.get('text') == ''))" "$T/indent2.json")
eq "nulls and empty texts are counted, without -v" "$(cal-read "$T/indent2.json" 2>&1 >/dev/null)" \
  "cal-read: 43 records skipped: the text field is null
cal-read: $empties documents skipped: empty (no text; --strip keeps them)"
n=0
for i in 0 1 2; do
  k=$(cal-read --shard $i/3 "$T/indent2.json" 2>&1 >/dev/null | sed -n 's/^cal-read: \([0-9]*\) documents skipped: empty .*/\1/p')
  n=$((n + ${k:-0}))
done
eq "empty texts are counted once over the shards of a fan-out" "$n" "$empties"
eq "--strip keeps empty texts (and those it empties), as records" "$(cal-read --strip "$T/indent2.json" 2>/dev/null | cal-cat --json | grep -c '"len":0,')" \
  "$($PY -c "import json, sys; print(sum(1 for r in json.load(open(sys.argv[1])) if isinstance(r, dict) and isinstance(r.get('text'), str) and not r['text'].strip()))" "$T/indent2.json")"

for f in "$T"/*.csv "$T"/*.tsv; do
  b=$(basename "$f"); n=${b%.*}
  for fld in text other b; do
    [ -f "$T/$n.$fld.want" ] || continue
    if cal-read --field "$fld" "$f" 2>"$T/err" | D >"$T/got"; then
      same "$b --field $fld: csv.DictReader's column, in order" "$T/got" "$T/$n.$fld.want"
    else
      not_ok "$b --field $fld" "$(cat "$T/err")"
    fi
  done
done
printf 'instruction,input,output\n"Say hi",,"Hi, ""you"""\nAdd,"1,2",3\n' >"$T/alpaca.csv"
eq "a CSV with a template of columns" "$(cal-read --field '{instruction}|{input}|{output}' "$T/alpaca.csv" | D | tr '\n' ' ')" \
  '"Say hi||Hi, \"you\"" "Add|1,2|3" '

# errors: one line, the file, the byte, and the record or line
printf '[{"text": "a"},\n {"text": "b"},\n]' >"$T/e1.json"
expect_fail "a trailing comma" 1 "^cal-read: .*e1.json: byte 32: a trailing ',' before '\]'" cal-read "$T/e1.json"
printf '[{"text": "a"} {"text": "b"}]' >"$T/e2.json"
expect_fail "no comma between records" 1 "e2.json: byte 15: '\{' after record 0 of the list \(expected ',' or '\]'\)" cal-read "$T/e2.json"
printf '[{"text": "a"},\n {"text": "b"}' >"$T/e3.json"
expect_fail "a list left open" 1 "e3.json: byte 0: the JSON list that starts here is not closed" cal-read "$T/e3.json"
printf '[{"text": "a"},\n {"text": "b\n' >"$T/e4.json"
expect_fail "a record left open" 1 "e4.json: byte 17: the JSON value that starts here is not closed" cal-read "$T/e4.json"
printf '[{"text": "a"},\n {"text": tru}]' >"$T/e5.json"
expect_fail "a bad value: the parser's byte inside the record" 1 "e5.json: byte (2[6-9]|3[0-1]): record 1: invalid JSON" cal-read "$T/e5.json"
printf '[{"text": "a"},\n {"body": "b"}]' >"$T/e6.json"
expect_fail "a record without the field" 1 "e6.json: byte 17: record 1: no field 'text'" cal-read "$T/e6.json"
printf '{"a": {"text": "x"}, "b": 3}' >"$T/e7.json"
expect_fail "an object that is neither a record nor an object of records" 1 "e7.json: byte 0: record 0: no field 'text'" cal-read "$T/e7.json"
printf '{"a": {"text": "x"}, "b": {"body": "y"}}' >"$T/e8.json"
expect_fail "an object of records: a member without the field" 1 "e8.json: byte 0: member 'b' of the object of records: no field 'text'" cal-read "$T/e8.json"
printf ', {"text": "x"}' >"$T/e9.json"
expect_fail "a stray comma" 1 "e9.json: byte 0: ',' where a JSON value should start" cal-read "$T/e9.json"
printf 'text,b\nx,1,2\n' >"$T/c1.csv"
expect_fail "a CSV row longer than the header" 1 "c1.csv: byte 7: line 2: 3 fields, the header has 2" cal-read "$T/c1.csv"
printf 'text,b\nx,1\n"open,2\n' >"$T/c2.csv"
expect_fail "a quoted field open at the end" 1 "c2.csv: byte 11: line 3: a quoted field still open at the end of the input" cal-read "$T/c2.csv"
printf 'a,b\nx,1\n' >"$T/c3.csv"
expect_fail "no such column" 1 "c3.csv: byte 0: line 1: no column 'text' \(the columns: 'a', 'b'; choose one with --field" cal-read "$T/c3.csv"
printf 'text,text\nx,1\n' >"$T/c4.csv"
expect_fail "a column named twice" 1 "c4.csv: byte 0: line 1: column 'text' appears twice" cal-read "$T/c4.csv"
printf 'text\n\377x\n' >"$T/c5.csv"
expect_fail "--strict: invalid UTF-8 in a CSV field" 1 "c5.csv: byte 5: line 2: invalid UTF-8" cal-read --strict "$T/c5.csv"
eq "invalid UTF-8 in a CSV field is replaced" "$(cal-read "$T/c5.csv" | D)" '"�x"'
expect_fail "-f names the new formats" 2 "unknown format 'xml'" cal-read -f xml "$T/c5.csv"
