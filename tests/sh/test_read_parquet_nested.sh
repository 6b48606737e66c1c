#!/bin/sh
# Parquet list and struct columns (io/parquet_rec.c): fixtures written by
# DuckDB and hyparquet-writer (tests/read/parquet_nested.mjs: chat
# `messages: list<struct<role, content>>`, list<string>, structs, nulls at
# every level, empty lists, many pages, row groups, PLAIN and dictionary
# encodings). Every row as cal-read assembles it equals DuckDB's reading of
# the file; cal-read on the Parquet file writes what it writes for the same
# records as JSON Lines; damaged files give one-line errors, never a crash.
. tests/lib.sh
R=tests/read
D() { cal-cat --json "$@" | $PY $R/texts.py; }
if ! NM=$(sh $R/npm.sh 2>"$T/npm.err"); then skip parquet "npm packages unavailable: $(cat "$T/npm.err")"; exit 0; fi
cp $R/parquet_nested.mjs "$NM/../parquet_nested.mjs"
if ! node "$NM/../parquet_nested.mjs" "$T" 2>"$T/gen.err"; then not_ok "fixtures" "$(tail -3 "$T/gen.err")"; exit 1; fi
COLS=messages,tags,meta,instruction,input,output
# jsoneq A B: the same JSON value on every line
jsoneq() { $PY -c 'import json,sys
a=[json.loads(l) for l in open(sys.argv[1])]; b=[json.loads(l) for l in open(sys.argv[2])]
bad=[i for i,(x,y) in enumerate(zip(a,b)) if x!=y]
sys.exit(print(len(a),len(b),"first differing row",bad[:1]) if len(a)!=len(b) or bad else 0)' "$1" "$2"; }
$PY -c 'import json,sys
for l in open(sys.argv[1]):
    r=json.loads(l); print(json.dumps({k:r[k] for k in sys.argv[2].split(",")}))' "$T/rows.jsonl" $COLS >"$T/rows.want"
if jsoneq "$T/nduck_snappy_V1.want" "$T/rows.want" >"$T/cmp" 2>&1; then ok "DuckDB reads back the rows written"
else not_ok "DuckDB reads back the rows written" "$(cat "$T/cmp")"; fi

files=$(cd "$T" && ls *.parquet | sed 's/\.parquet$//')
for n in $files; do
  if "$CAL_UNIT/pq_rows" $COLS "$T/$n.parquet" >"$T/$n.got" 2>"$T/$n.err" && jsoneq "$T/$n.got" "$T/$n.want" >"$T/cmp" 2>&1
  then ok "$n: rows equal DuckDB's read"
  else not_ok "$n: rows equal DuckDB's read" "$(cat "$T/$n.err" "$T/cmp" | head -3)"; fi
done

# cal-read: a Parquet row is read as the same record in JSON Lines would be
for n in nduck_zstd_V2 nhyp_pages; do
  for args in "--template chatml" "--template llama3" "--chat qwen3 --date 2025-01-01 --skip-bad" "--field messages" "--field tags" \
              "--missing empty --field {instruction}\n\n{input}\n\n{output}" "--missing empty --field {meta.lang}:{output}"; do
    # shellcheck disable=SC2086
    cal-read $args "$T/$n.parquet" >"$T/p.cal" 2>"$T/p.err"; a=$?
    # shellcheck disable=SC2086
    cal-read $args "$T/rows.jsonl" >"$T/j.cal" 2>"$T/j.err"; b=$?
    D "$T/p.cal" >"$T/p.txt" 2>/dev/null; D "$T/j.cal" >"$T/j.txt" 2>/dev/null
    if [ $a = 0 ] && [ $b = 0 ] && [ -s "$T/p.txt" ] && cmp -s "$T/p.txt" "$T/j.txt"; then ok "$n $args: as JSON Lines"
    else not_ok "$n $args: as JSON Lines" "status $a/$b $(cat "$T/p.err" "$T/j.err" | head -2)"; fi
  done
done
# the list<string> column against Python: strings joined by a blank line
$PY -c 'import json,sys
for l in open(sys.argv[1]):
    t=[x for x in (json.loads(l)["tags"] or []) if x is not None]
    if t: print(json.dumps("\n\n".join(t), ensure_ascii=False))' "$T/rows.jsonl" >"$T/tags.want"
cal-read --field tags "$T/nhyp_plain.parquet" | D >"$T/tags.got"
same "list<string>: the strings joined by a blank line (Python)" "$T/tags.got" "$T/tags.want"
n=$(cal-read "$T/nduck_gzip_1rg.parquet" 2>&1 >/dev/null | sed -n 's/^cal-read: \([0-9]*\) records skipped: the text field is null$/\1/p')
eq "messages is the chat column without --field (null lists counted)" "$n" \
  "$($PY -c 'import json,sys; print(sum(json.loads(l)["messages"] is None for l in open(sys.argv[1])))' "$T/rows.jsonl")"
expect_fail "a missing template field names the file, page byte and row" 1 \
  "nhyp_plain.parquet: byte [0-9]+: row 0: null field 'input'" cal-read --field '{instruction}{input}' "$T/nhyp_plain.parquet"
expect_fail "a list column in a template is refused" 1 "row 1: field 'tags' is a list" \
  cal-read --missing empty --field '{tags}' "$T/nduck_snappy_V1.parquet"
expect_fail "no such column" 1 "nduck_snappy_V1.parquet: byte [0-9]+: no column 'nope'" \
  cal-read --field '{nope}' "$T/nduck_snappy_V1.parquet"

# what the fixtures cover (DuckDB's reading of their metadata)
miss=""
for w in "enc PLAIN" "enc RLE_DICTIONARY" "enc PLAIN_DICTIONARY" "row groups nduck_snappy_V1.parquet" \
         "row groups nhyp_pages.parquet" "row groups nhyp_plain.parquet"; do
  grep -qx "$w" "$T/coverage.txt" || miss="$miss [$w]"
done
eq "fixtures cover PLAIN and dictionary encodings and several row groups" "$miss" ""

# damaged files: truncations, smashed level bytes, random damage; each a
# clean end or one line "byte OFF: ..." (pq_rows -c), a few through cal-read
mkdir "$T/small"
node "$NM/../parquet_nested.mjs" "$T/small" 40 2>"$T/gen.err" || not_ok "small fixtures" "$(tail -3 "$T/gen.err")"
$PY - "$T" <<'PYEOF'
import random, sys
t = sys.argv[1]
rnd = random.Random(11)
k = 0
for name in ("nduck_snappy_V1", "nduck_zstd_V2", "nhyp_pages", "nhyp_plain", "nduck_gzip_1rg", "nduck_unc_V1"):
    b = open(f"{t}/small/{name}.parquet", "rb").read()
    for cut in range(8, len(b), max(1, len(b) // 25)):  # truncations, footer kept
        open(f"{t}/fz_{k}.pq", "wb").write(b[:cut] + b[-8:]); k += 1
    for _ in range(120 if "unc" in name else 40):  # random damage (levels, lengths, headers, values)
        c = bytearray(b)
        for _ in range(rnd.randint(1, 3)):
            c[rnd.randrange(4, len(c) - 8)] = rnd.randrange(256)
        open(f"{t}/fz_{k}.pq", "wb").write(c); k += 1
    for _ in range(10):  # runs of 0xff: level runs far above their maximum
        c = bytearray(b); at = rnd.randrange(4, len(c) - 40)
        c[at:at + 6] = b"\xff" * 6
        open(f"{t}/fz_{k}.pq", "wb").write(c); k += 1
open(f"{t}/fz.count", "w").write(str(k))
PYEOF
"$CAL_UNIT/pq_rows" -c $COLS "$T"/fz_*.pq >"$T/fz.out" 2>"$T/fz.err"; rc=$?
eq "damaged nested files: a clean end or a one-line error each" \
  "$rc:$(grep -c ': [0-9]* rows$\|: error: byte ' "$T/fz.out"):$(cat "$T/fz.err")" "0:$(cat "$T/fz.count"):"
lv=$(grep -c "level" "$T/fz.out")
[ "$lv" -ge 5 ] && ok "damaged levels are found ($lv errors name the levels)" || not_ok "damaged levels found" "$lv: $(head -5 "$T/fz.out")"
bad=""
for f in "$T"/fz_3.pq "$T"/fz_40.pq "$T"/fz_77.pq "$T"/fz_150.pq "$T"/fz_260.pq; do
  cal-read --template chatml "$f" >/dev/null 2>"$T/c.err"; rc=$?
  if [ $rc -gt 1 ] || [ "$(wc -l <"$T/c.err")" -gt 1 ]; then bad="$bad $(basename "$f"):$rc"; fi
done
eq "damaged nested files through cal-read: status 0/1 and at most one line" "$bad" ""
