#!/bin/sh
# A regex engine limit never changes the ids (issue 12, item 4): a Replace or
# Split pattern that overflows PCRE2's JIT stack is finished by the
# interpreter and gives the reference's ids (the Rust HF tokenizers via node);
# one that exhausts PCRE2's match limit fails with one line naming the input
# record, the tokenizer file and the pattern. Never a silent "no match".
. tests/lib.sh
if ! sh scripts/fetch-tokenizers.sh >"$T/fetch.log" 2>&1; then
  not_ok "fetch tokenizers and the reference" "$(tail -3 "$T/fetch.log")"; exit 0
fi
tokjson() { # tokjson NORMALIZER PRE_TOKENIZER: a tokenizer.json over the vocabulary a b c d X
  printf '{"version":"1.0","truncation":null,"padding":null,"added_tokens":[],"normalizer":%s,"pre_tokenizer":%s,' "$1" "$2"
  printf '"post_processor":null,"decoder":null,"model":{"type":"BPE","vocab":{"a":0,"b":1,"c":2,"d":3,"X":4},"merges":[]}}\n'
}
tokjson '{"type":"Replace","pattern":{"Regex":"(?:ab|cd)+"},"content":"X"}' null >"$T/replace.json"
tokjson null '{"type":"Split","pattern":{"Regex":"(?:ab|cd)+"},"behavior":"Removed","invert":false}' >"$T/split.json"
tokjson null '{"type":"Split","pattern":{"Regex":"(a+)+$"},"behavior":"Isolated","invert":false}' >"$T/hopeless.json"
$PY - "$T/in.cal" <<'EOF'
import sys
sys.path.insert(0, "examples")
import calstream
calstream.write_text(sys.argv[1], [(b"long", b"ab" * 20000), (b"mixed", b"x" + b"abcd" * 9000 + b"c"), (b"short", b"abcd")])
EOF
ids() { $PY -c "
import sys; sys.path.insert(0, 'examples'); import calstream
print(' '.join(str(len(calstream.ids_of(r[3]))) for r in calstream.read_records(sys.argv[1])[1]))" "$1"; }
refids() { $PY -c "
import sys; sys.path.insert(0, 'tests/ref'); import exact
print(' '.join(str(len(x) // 4) for x in exact.read_ids_file(sys.argv[1])))" "$1"; }
for k in replace split; do
  cal-encode -t "$T/$k.json" "$T/in.cal" -o "$T/$k.cal" 2>"$T/err" || not_ok "$k: cal-encode" "$(cat "$T/err")"
  node tests/ref/hf_encode.js "$T/$k.json" plain "$T/in.cal" "$T/$k.ids"
  cal-encode -t "$T/$k.json" "$T/in.cal" | cmp -s - "$T/$k.cal" || not_ok "$k: same bytes twice"
  eq "$k: (?:ab|cd)+ over 40000 bytes overflows the JIT stack; the ids are the reference's" \
    "$(ids "$T/$k.cal")" "$(refids "$T/$k.ids")"
done
eq "the Replace case: one X (and c; x is not in the vocabulary)" "$(ids "$T/replace.cal")" "1 2 1"
printf 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaac\n' | $PY examples/calstream.py text "$T/bad.cal"
expect_fail "a pattern past PCRE2's match limit: one line naming the record, the tokenizer file and the pattern" 1 \
  "^cal-encode: $T/bad.cal: byte [0-9]+: $T/hopeless.json: pre_tokenizer.pattern '\(a\+\)\+\\$': .*match limit" \
  cal-encode -t "$T/hopeless.json" "$T/bad.cal"
# A record that fails amid many, at -j 1, 2 and 3: the same one-line error
# naming it, and the same bytes written before it (whole buffers of the
# records before it, 3 MB of ids; the main thread encodes batches too at
# -j 2 and 3).
$PY - "$T/many.cal" <<'PYEOF'
import sys
sys.path.insert(0, "examples")
import calstream
docs = [(b"d", b"b" * (1 + i % 500)) for i in range(5000)]
docs[4000] = (b"d", b"a" * 40 + b"c")
calstream.write_text(sys.argv[1], docs)
PYEOF
off=$($PY -c "
import sys; sys.path.insert(0, 'examples'); import calstream
print(calstream.read_records(sys.argv[1])[1][4000][4])" "$T/many.cal")
for j in 1 2 3; do
  cal-encode -t "$T/hopeless.json" -j $j "$T/many.cal" >"$T/part$j.cal" 2>"$T/err$j"
  echo "rc=$?" >>"$T/err$j"
done
eq "-j 1: the failing record is named by its offset, exit 1, after 3 MB" \
  "$(sed -n 's/^cal-encode: [^:]*: byte \([0-9]*\): .*match limit.*/\1/p' "$T/err1") $(tail -1 "$T/err1") $(($(wc -c <"$T/part1.cal") >> 20))" \
  "$off rc=1 3"
for j in 2 3; do
  same "-j $j: the same error as -j 1" "$T/err1" "$T/err$j"
  same "-j $j: the same bytes written before it as -j 1" "$T/part1.cal" "$T/part$j.cal"
done
