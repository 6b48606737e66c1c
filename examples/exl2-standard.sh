#!/bin/sh
# exl2-standard.sh - EXL2's standard calibration sets from the built-in
# corpora: the measurement set (19 rows) and the quantization set (115 rows)
# of LENGTH (2048) tokens, with exllamav2's per-source row counts and row
# rules (conversion/tokenize.py), the random rows seeded (exllamav2's are
# not), each written as DIR/{measurement,quantization}/cal_data.safetensors
# (tensor input_ids, int64 [rows, LENGTH]), as exllamav2 writes them.
#
#   source             rows m/q  rule                                  calkit
#   web (c4)             2/10    consecutive rows                      cal-pack (concat)
#   wiki                 4/48    BOS+article+EOS packed, first half    cal-pack --mode article
#                                of the rows without the leading BOS    --bos half --eos doc
#   code                 3/15    consecutive rows                      cal-pack
#   stories (tiny)       2/10    as wiki                               cal-pack --mode article
#   multilingual         3/15    consecutive rows                      cal-pack
#   multilingual, shuf.  1/5     16 segments of 128 drawn with         cal-shuffle --segments 128
#                                replacement (seed 69420)
#   random               2/2     uniform ids in [0, vocab)             cal-pack --random-rows
#   technical            2/10    consecutive rows                      cal-pack
#   noise (-N)           5/30    rows of -1                            cal-pack --noise-rows
#
# Differences: corpus documents are encoded one by one and joined (exllamav2
# encodes a whole file at once); the random generator is calkit's, seeded.
#
# Usage: exl2-standard.sh [-t TOKENIZER] [-o DIR] [-l LENGTH] [-s SEED] [-N]
. "$(dirname "$0")/common.sh"
OUT=$ROOT/build/cal/exl2-standard
NOISE=0
while getopts t:o:l:s:Nh f; do
  case $f in
    t) TOK=$OPTARG ;; o) OUT=$OPTARG ;; l) LENGTH=$OPTARG ;; s) SEED=$OPTARG ;; N) NOISE=1 ;;
    *) usage ;;
  esac
done
work_dir
for c in web wiki code stories multilingual technical; do tokens "$c" "$WORK/$c.cal"; done

# build PASS web wiki code tiny ml ml_shuffled random technical noise
build() {
  p=$1 W=$WORK/$1
  L=$LENGTH
  cal-pack -l "$L" -n "$2" "$WORK/web.cal" -o "$W.web.cal" &&
  cal-pack -l "$L" -n "$3" --mode article --bos half --eos doc "$WORK/wiki.cal" -o "$W.wiki.cal" &&
  cal-pack -l "$L" -n "$4" "$WORK/code.cal" -o "$W.code.cal" &&
  cal-pack -l "$L" -n "$5" --mode article --bos half --eos doc "$WORK/stories.cal" -o "$W.tiny.cal" &&
  cal-pack -l "$L" -n "$6" "$WORK/multilingual.cal" -o "$W.ml.cal" &&
  cal-shuffle --segments 128 -n "$7" -l "$L" --seed 69420 "$WORK/multilingual.cal" -o "$W.mls.cal" &&
  cal-pack -l "$L" -n 0 --random-rows "$8" --seed "$SEED" "$WORK/multilingual.cal" -o "$W.random.cal" &&
  cal-pack -l "$L" -n "$9" "$WORK/technical.cal" -o "$W.tech.cal" &&
  cal-pack -l "$L" -n 0 --noise-rows "${10}" "$WORK/web.cal" -o "$W.noise.cal" &&
  cal-blend --grouped -v "$W.web.cal:label=c4" "$W.wiki.cal:label=wiki" "$W.code.cal:label=code" \
    "$W.tiny.cal:label=tiny" "$W.ml.cal:label=multilingual" "$W.mls.cal:label=multilingual-shuffled" \
    "$W.random.cal" "$W.tech.cal:label=technical" "$W.noise.cal" -o "$W.cal" 2>"$W.summary" ||
    die "building the $p set failed"
  export_rows "$W.cal" "$OUT/$p"
}
build measurement 2 4 3 2 3 1 2 2 $((NOISE * 5))
build quantization 10 48 15 10 15 5 2 10 $((NOISE * 30))

echo "EXL2 standard calibration sets, rows of $LENGTH tokens, tokenizer ${CAL_TOKENS_DIR:+(pre-encoded) }$TOK:"
for p in measurement quantization; do
  rows=$(sed -n 's/^cal-blend: \([0-9]*\) records:.*/\1/p' "$WORK/$p.summary")
  printf '  %-13s %4s rows  %s\n' "$p" "$rows" "$OUT/$p/cal_data.safetensors"
  sed -n 's/^cal-blend: [0-9]* records: \(.*\) (grouped.*/\1/p' "$WORK/$p.summary" |
    sed "s|$WORK/$p\.||g; s|\.cal||g; s/^/                per source: /"
done
