#!/bin/sh
# cal-encode as a program: metadata written (fingerprint checked with
# python3-xxhash), labels/ids carried, -j N byte-identical, concatenated
# inputs and a header change mid-stream, errors (usage, tokenizer file,
# non-TEXT records), atomic -o, EPIPE, -t NAME lookup, invalid UTF-8.
. tests/lib.sh
if ! sh scripts/fetch-tokenizers.sh >"$T/fetch.log" 2>&1; then
  not_ok "fetch tokenizers" "$(tail -3 "$T/fetch.log")"; exit 0
fi
TK=build/tokenizers
w() { $PY examples/calstream.py text "$@"; }   # w OUT [k=v]... < one doc per line
dump() { $PY examples/calstream.py dump "$1"; }

printf '%s\n' 'Hello world' 'a<s>b' '' 'caf\xc3\xa9 \xe4\xb8\xad\xe6\x96\x87' "it's 2024" >"$T/docs"
w "$T/in.cal" source=test note=x <"$T/docs"

# --- metadata -----------------------------------------------------------------
check "encode with the Llama 2 .model" cal-encode -t $TK/llama2-spm.model -o "$T/o1.cal" "$T/in.cal"
dump "$T/o1.cal" >"$T/d1"
fp=$($PY -c "import sys; sys.path.insert(0, 'examples'); import calstream; print('%016x' % calstream.xxh3(open(sys.argv[1], 'rb').read()))" $TK/llama2-spm.model)
eq "header: input metadata kept, tokenizer keys added, stage without -o/-j/-v" "$(head -1 "$T/d1")" \
  "HEADER source=test note=x tokenizer=llama2-spm tokenizer_fp=$fp tokenizer_files=llama2-spm.model vocab=32000 bos=1 bos_from=model eos=2 eos_from=model add_special=<s> \$A add_special_from=LlamaTokenizer's add_bos_token default stage=cal-encode -t $TK/llama2-spm.model $T/in.cal"
want=$($PY - "$T/in.cal" <<'PYEOF'
import sys
sys.path.insert(0, "examples")
import calstream, sentencepiece
sp = sentencepiece.SentencePieceProcessor(model_file="build/tokenizers/llama2-spm.model")
for kind, lab, i, pay, _ in calstream.read_records(sys.argv[1])[1]:
    print(2, lab.decode(), "%016x" % i, *sp.encode(pay.decode("utf-8", "replace")))
PYEOF
)
eq "records: TOKENS with label and id kept, ids = python sentencepiece" "$(tail -n +2 "$T/d1")" "$want"
cal-encode -t $TK/albert-unigram.model "$T/in.cal" -o "$T/o2.cal"
eq "no BOS/EOS keys for a model without them; pad=0" \
  "$(dump "$T/o2.cal" | head -1 | grep -o ' vocab=[^ ]* bos=[^ ]*\| vocab=[^ ]* pad=[^ ]*\| vocab=[^ ]* eos=[^ ]*')" " vocab=30000 pad=0"
cal-encode -t $TK/llama3/tokenizer.json "$T/in.cal" -o "$T/o3.cal"
eq "tokenizer name of DIR/tokenizer.json is DIR" "$(dump "$T/o3.cal" | head -1 | grep -o ' tokenizer=[^ ]*')" " tokenizer=llama3"

# --- -j N and concatenation -------------------------------------------------------
$PY - "$T/big.cal" <<'PYEOF'
import sys, random
sys.path.insert(0, "examples")
import calstream
rnd = random.Random(5)
words = ["the", "quick", "Brown", "fox", "caf\u00e9", "\u4e2d\u6587", "\U0001F600", "123", "it's", "\n", "  "]
docs = [("d%d" % (i % 7), " ".join(rnd.choice(words) for _ in range(rnd.randint(0, 1000))).encode()) for i in range(1500)]
calstream.write_text(sys.argv[1], docs, [("source", "random")])
PYEOF
for tk in llama3 llama2-spm gemma3; do
  cal-encode -t $tk -j 1 "$T/big.cal" >"$T/j1.cal"
  cal-encode -t $tk -j 2 "$T/big.cal" >"$T/j2.cal"
  cal-encode -t $tk --threads=5 "$T/big.cal" >"$T/j5.cal"
  same "$tk: -j 2 output is byte-identical to -j 1" "$T/j1.cal" "$T/j2.cal"
  same "$tk: --threads=5 output is byte-identical to -j 1" "$T/j1.cal" "$T/j5.cal"
done
# (llama3 here: the native tokenizer is the quick one under ASan, and the
# stream logic does not depend on the tokenizer)
w "$T/second.cal" source=random extra=2 <"$T/docs"
cat "$T/big.cal" "$T/second.cal" >"$T/cat.cal"
cal-encode -t llama3 -j 1 "$T/cat.cal" >"$T/c1.cal"
cal-encode -t llama3 -j 2 "$T/cat.cal" >"$T/c2.cal"
cal-encode -t llama3 -j 2 "$T/big.cal" "$T/second.cal" >"$T/c3.cal"
same "concatenated input with a second header: -j 2 = -j 1" "$T/c1.cal" "$T/c2.cal"
# digest FILE: its headers as dump prints them, then the record count and the
# SHA-256 of every record's kind, label, id and ids (a dump of 1505 records
# of ids would take seconds)
digest() { $PY - "$1" <<'PYEOF'
import hashlib, sys
sys.path.insert(0, "examples")
import calstream
metas, recs = calstream.read_records(sys.argv[1])
for m in metas:
    print("HEADER " + " ".join("%s=%s" % kv for kv in m))
h = hashlib.sha256()
for kind, lab, i, pay, _ in recs:
    h.update(b"%d %s %d %d:" % (kind, lab, i, len(pay)) + pay)
print(len(recs), "records", h.hexdigest())
PYEOF
}
digest "$T/c1.cal" >"$T/dc1"
eq "a key new in the second header reaches the output from there on" \
  "$(grep '^HEADER' "$T/dc1" | sed -n 2p | grep -c 'source=random extra=2 tokenizer=llama3')" 1
eq "several FILEs = their concatenation (records)" "$(digest "$T/c3.cal" | grep -v ^HEADER)" "$(grep -v ^HEADER "$T/dc1")"
eq "several FILEs = their concatenation (headers too, at the same records; only the stage differs)" \
  "$(digest "$T/c3.cal" | sed 's/ stage=.*//')" "$(sed 's/ stage=.*//' "$T/dc1")"
eq "record count of the concatenation" "$(grep -v ^HEADER "$T/dc1" | cut -d' ' -f1)" 1505

# --- options that cannot change the records stay out of the output -----------------
cal-encode -t llama3 "$T/big.cal" "$T/second.cal" >"$T/plain.cal"
cal-encode -t llama3 -v --progress "$T/big.cal" "$T/second.cal" >"$T/vp.cal" 2>/dev/null
cal-encode -t llama3 "$T/big.cal" -j 1 "$T/second.cal" >"$T/j1.cal"
cal-encode -t llama3 --threads=2 "$T/big.cal" "$T/second.cal" >"$T/j2.cal"
cal-encode -vj2 -t llama3 -o "$T/o.cal" "$T/big.cal" "$T/second.cal" 2>/dev/null
cal-encode -t llama3 "$T/big.cal" "$T/second.cal" --output="$T/o2.cal"
for f in vp j1 j2 o o2; do same "same bytes with and without -v --progress / -j 1 / --threads=2 / -vj2 -o / --output= ($f)" "$T/plain.cal" "$T/$f.cal"; done
eq "the stage line keeps the words as written, without them" "$(dump "$T/o.cal" | grep -o 'stage=.*' | sort -u)" \
  "stage=cal-encode -t llama3 $T/big.cal $T/second.cal"

# --- special tokens and invalid UTF-8 ---------------------------------------------
printf 'x<s>y\n' | w "$T/sp.cal"
eq "--add-special with a .model: BOS first" "$(cal-encode -t llama2-spm --add-special "$T/sp.cal" | dump /dev/stdin | tail -1 | cut -d' ' -f4-)" \
  "1 $(cal-encode -t llama2-spm "$T/sp.cal" | dump /dev/stdin | tail -1 | cut -d' ' -f4-)"
eq "--parse-special: <s> becomes id 1" "$(cal-encode -t llama2-spm --parse-special "$T/sp.cal" | dump /dev/stdin | tail -1 | cut -d' ' -f4-)" \
  "$($PY -c "
import sentencepiece as s; p = s.SentencePieceProcessor(model_file='$TK/llama2-spm.model')
print(*(p.encode('x') + [1] + p.encode('y')))")"
printf 'a\\xffb\\xe2\\x82\n' | w "$T/bad.cal"
printf 'a\\xef\\xbf\\xbdb\\xef\\xbf\\xbd\n' | w "$T/fixed.cal"
for tk in llama3 gemma3 llama2-spm; do
  eq "$tk: invalid UTF-8 encodes as its U+FFFD repair" \
    "$(cal-encode -t $tk "$T/bad.cal" | dump /dev/stdin | tail -1 | cut -d' ' -f4-)" \
    "$(cal-encode -t $tk "$T/fixed.cal" | dump /dev/stdin | tail -1 | cut -d' ' -f4-)"
done

# --- errors -----------------------------------------------------------------------------
expect_fail "no -t: usage error" 2 "missing -t" cal-encode "$T/in.cal"
expect_fail "unknown option: the parser's one wording" 2 "^cal-encode: unknown option '--bogus' \\(see --help\\)$" cal-encode -t llama3 --bogus
expect_fail "-j 0 is a usage error" 2 "\-j" cal-encode -t llama3 -j 0 "$T/in.cal"
expect_fail "missing tokenizer file" 1 "^cal-encode: $T/none.json: No such file" cal-encode -t "$T/none.json" "$T/in.cal"
printf '{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a b"' >"$T/trunc.json"
expect_fail "truncated tokenizer.json: one line naming the file" 1 "^cal-encode: $T/trunc.json: .*" cal-encode -t "$T/trunc.json" "$T/in.cal"
printf '{"model": {"type": "WordPiece", "vocab": {"a": 0}}}' >"$T/wp.json"
expect_fail "unsupported model type is named" 1 "WordPiece" cal-encode -t "$T/wp.json" "$T/in.cal"
printf 'not a tokenizer' >"$T/junk"
expect_fail "neither JSON nor SentencePiece" 1 "neither JSON .* nor a SentencePiece model" cal-encode -t "$T/junk" "$T/in.cal"
off=$($PY -c "
import sys; sys.path.insert(0, 'examples'); import calstream
print(calstream.read_records('$T/o1.cal')[1][0][4])")
expect_fail "TOKENS input: error names the kind and the record offset" 1 \
  "^cal-encode: $T/o1.cal: byte $off: expected TEXT records, got TOKENS$" cal-encode -t llama2-spm "$T/o1.cal"
expect_fail "TOKENS input with -o: error" 1 "got TOKENS" cal-encode -t llama2-spm -o "$T/never.cal" "$T/o1.cal"
eq "no output file is left behind on error" "$(ls "$T" | grep -c never)" 0
head -c 100 "$T/in.cal" >"$T/short.cal"
expect_fail "truncated input stream" 1 "^cal-encode: $T/short.cal: byte [0-9]+: " cal-encode -t llama2-spm -j 2 "$T/short.cal"

# --- conveniences --------------------------------------------------------------------------
cal-encode -t $TK/llama2-spm.model "$T/in.cal" >"$T/full.cal"
(cd "$T" && mkdir -p tk/llama2-spm && cp "$OLDPWD/$TK/llama2-spm.model" tk/ && CAL_TOKENIZERS=tk cal-encode -t llama2-spm in.cal >named.cal)
eq "-t NAME finds \$CAL_TOKENIZERS/NAME.model (same records)" "$(dump "$T/named.cal" | grep -v ^HEADER)" "$(dump "$T/full.cal" | grep -v ^HEADER)"
(cd "$T" && env -u CAL_TOKENIZERS cal-encode -t llama2-spm in.cal >beside.cal)
eq "-t NAME from another directory: the tokenizers beside the program (bin/ or build/bin-san/)" \
  "$(dump "$T/beside.cal" | grep -v ^HEADER)" "$(dump "$T/full.cal" | grep -v ^HEADER)"
cal-encode -t llama3 -j 2 "$T/big.cal" 2>"$T/err" | head -c 100 >/dev/null
eq "EPIPE on stdout: quiet exit 0" "$?:$(cat "$T/err")" "0:"
cal-encode -t llama2-spm -v "$T/in.cal" -o "$T/v.cal" 2>"$T/v"
eq "-v: one summary line" "$(grep -c '^cal-encode: 5 docs, 37 bytes, [0-9]* tokens' "$T/v"):$(wc -l <"$T/v")" "1:1"
: | cal-encode -t llama2-spm >"$T/empty.cal" 2>"$T/err"
eq "empty stdin is an error of cal-read's kind, not a crash" "$(test -s "$T/err" && echo msg)" "msg"
w "$T/none.cal" k=v </dev/null
cal-encode -t llama2-spm "$T/none.cal" -o "$T/none-out.cal"
eq "a stream without records: header with tokenizer keys only" "$(dump "$T/none-out.cal" | grep -c 'HEADER k=v tokenizer=llama2-spm')" 1
eq "--version" "$(cal-encode --version)" "cal-encode (calkit) $(sed -n 's/^#define CAL_VERSION "\(.*\)"/\1/p' lib/base/err.h)"

# --- man page ---------------------------------------------------------------------------------
cal-encode --help | grep -oE -- '--[a-z][a-z-]*' | sort -u >"$T/h"
sed 's/\\-/-/g' man/cal-encode.1 | sed -n '/^\.SH OPTIONS/,/^\.SH OUTPUT/p' | grep -oE -- '--[a-z][a-z-]*' | sort -u >"$T/m"
same "man OPTIONS = --help options" "$T/h" "$T/m"
eq "man page renders without warnings" "$(man --warnings -l man/cal-encode.1 2>&1 >/dev/null)" ""
