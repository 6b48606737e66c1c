#!/bin/sh
# cal-read on Parquet: fixtures written by DuckDB and hyparquet-writer (pinned
# npm packages, tests/read/npm.sh), each read back and compared with DuckDB's
# own read of the same file; unsupported codecs/columns and corrupt files give
# one-line errors, never a crash.
. tests/lib.sh
R=tests/read
# D [--labels] [FILE]: the texts of a stream, one JSON string per line (via cal-cat --json)
D() { if [ "${1:-}" = --labels ]; then shift; cal-cat --json "$@" | $PY tests/read/texts.py --labels
      else cal-cat --json "$@" | $PY tests/read/texts.py; fi; }
if ! NM=$(sh $R/npm.sh 2>"$T/npm.err"); then skip parquet "npm packages unavailable: $(cat "$T/npm.err")"; exit 0; fi
cp $R/parquet_fixtures.mjs "$NM/../parquet_fixtures.mjs"
if ! node "$NM/../parquet_fixtures.mjs" "$T" 2>"$T/gen.err"; then not_ok "fixtures" "$(tail -3 "$T/gen.err")"; exit 1; fi
same "duckdb reads back the generated rows" "$T/rows.want" "$T/duck_zstd_V1.want"

for f in "$T"/*.want; do
  n=$(basename "$f" .want)
  [ "$n" = rows ] && continue
  field=text; [ "$n" = duck_struct ] && field=doc.body
  if cal-read --field "$field" "$T/$n.parquet" >"$T/$n.cal" 2>"$T/$n.err"; then
    D "$T/$n.cal" >"$T/$n.got"
    same "parquet $n equals DuckDB's read" "$T/$n.got" "$f"
  else
    not_ok "parquet $n" "$(cat "$T/$n.err")"
  fi
done

# nulls are skipped and counted: 3000 rows, every 17th null
cal-read "$T/duck_snappy_V1.parquet" 2>"$T/v.err" >/dev/null
grep -qx "cal-read: 177 records skipped: the text field is null" "$T/v.err" && ok "nulls counted, said without -v" ||
  not_ok "nulls counted, said without -v" "$(cat "$T/v.err")"
eq "label is the file base name" "$(cal-read -n 1 "$T/hyp_plain.parquet" | D --labels | cut -f1)" "hyp_plain"
eq "format detected from the magic" "$(cp "$T/hyp_dba.parquet" "$T/noext"; cal-read "$T/noext" | D | wc -l)" "2823"

expect_fail "lz4 is a clear unsupported-codec error" 1 'duck_lz4.parquet: byte [0-9]+: unsupported codec LZ4' cal-read "$T/duck_lz4.parquet"
expect_fail "brotli is a clear unsupported-codec error" 1 'unsupported codec BROTLI' cal-read "$T/duck_brotli.parquet"
cal-read "$T/duck_list.parquet" | D >"$T/list.got"
same "a list<string> column: each row's strings (here one) as its document" "$T/list.got" "$T/rows.want"
expect_fail "non-string column" 1 "column 'n' is not a string" cal-read --field n "$T/duck_zstd_V1.parquet"
expect_fail "missing column" 1 "no column 'nope'" cal-read --field nope "$T/duck_zstd_V1.parquet"
expect_fail "parquet from a pipe" 1 'must be a file' sh -c "cat '$T/hyp_plain.parquet' | cal-read -f parquet -"

# corrupt files: one-line errors with the byte offset
$PY - "$T" <<'PYEOF'
import sys
t = sys.argv[1]
def put(name, b): open(f"{t}/{name}.parquet", "wb").write(b)
plain = open(f"{t}/hyp_plain.parquet", "rb").read()
snap = open(f"{t}/duck_snappy_V1.parquet", "rb").read()
zst = open(f"{t}/duck_zstd_V1.parquet", "rb").read()
put("bad_magic", b"XXXX" + plain[4:])
put("trunc_footer", plain[:-40] + plain[-8:])
put("trunc_file", plain[:len(plain) // 2])
unc = open(f"{t}/duck_uncompressed_V1.parquet", "rb").read()
put("bad_header", unc[:4] + b"\xff" * 24 + unc[28:])
def smash(b, at): return b[:at] + b"\xff" * 64 + b[at + 64:]
put("bad_snappy", smash(snap, 200))
put("bad_zstd", smash(zst, 200))
put("empty", b"")
PYEOF
expect_fail "bad magic" 1 'bad_magic.parquet: byte 0: not a Parquet file' cal-read "$T/bad_magic.parquet"
expect_fail "truncated footer" 1 'trunc_footer.parquet: byte [0-9]+: ' cal-read "$T/trunc_footer.parquet"
expect_fail "truncated file" 1 'trunc_file.parquet: byte [0-9]+: ' cal-read "$T/trunc_file.parquet"
expect_fail "damaged page header" 1 'bad_header.parquet: byte [0-9]+: ' cal-read "$T/bad_header.parquet"
expect_fail "damaged snappy block" 1 'bad_snappy.parquet: byte [0-9]+: ' cal-read "$T/bad_snappy.parquet"
expect_fail "damaged zstd block" 1 'bad_zstd.parquet: byte [0-9]+: ' cal-read "$T/bad_zstd.parquet"
expect_fail "empty parquet file" 1 'byte 0: not a Parquet file' cal-read -f parquet "$T/empty.parquet"

# random damage: every run ends with status 0 or 1, never a crash
$PY - "$T" <<'PYEOF'
import random, sys
t = sys.argv[1]
rnd = random.Random(7)
for name in ("hyp_dba", "duck_dict_V2", "duck_gzip_V2"):
    b = bytearray(open(f"{t}/{name}.parquet", "rb").read())
    for k in range(40):
        c = bytearray(b)
        for _ in range(rnd.randint(1, 4)):
            c[rnd.randrange(len(c))] = rnd.randrange(256)
        open(f"{t}/fz_{name}_{k}.pq", "wb").write(c)
PYEOF
# All 120 in one process (tests/helpers/pq_scan.c: cal-read's reader, a clean
# end or a one-line "byte OFF: ..." error for each), a few through cal-read.
"$CAL_UNIT/pq_scan" text "$T"/fz_*.pq >"$T/fz.out" 2>"$T/fz.err"; rc=$?
eq "randomly damaged files read in one process: a clean end or a one-line error each" \
  "$rc:$(grep -c ': [0-9]* values (\|: error: byte ' "$T/fz.out"):$(cat "$T/fz.err")" "0:120:"
bad=""
for f in "$T"/fz_hyp_dba_1.pq "$T"/fz_duck_dict_V2_2[0-2].pq "$T"/fz_duck_gzip_V2_3[0-1].pq; do
  cal-read -f parquet "$f" >/dev/null 2>"$T/fz.err"; rc=$?
  if [ $rc -gt 1 ] || [ "$(wc -l <"$T/fz.err")" -gt 1 ]; then bad="$bad $(basename "$f"):$rc"; fi
done
eq "randomly damaged files through cal-read: status 0/1 and at most one line" "$bad" ""

# the fixtures do cover every codec and encoding cal-read supports
miss=""
for c in UNCOMPRESSED SNAPPY GZIP ZSTD; do grep -q "^$c " "$T/coverage.txt" || miss="$miss $c"; done
for e in PLAIN PLAIN_DICTIONARY RLE_DICTIONARY DELTA_LENGTH_BYTE_ARRAY DELTA_BYTE_ARRAY; do
  grep -q " $e\$" "$T/coverage.txt" || miss="$miss $e"
done
eq "fixtures cover all codecs and encodings" "$miss" ""
