#!/bin/sh
# exl2-standard.sh - EXL2's standard calibration sets from the built-in
# corpora, as exllamav2 0.2.x makes them (conversion/tokenize.py,
# get_standard_calibration; read at commit b9c025b4b1ee, 0.2.7): the
# measurement set (19 rows) and the
# quantization set (115 rows) of ctx = min(2048, LENGTH) tokens, each written
# as DIR/{measurement,quantization}/cal_data.safetensors (tensor input_ids,
# int64 [rows, ctx]), as exllamav2 writes them. With -i FILE.parquet, its
# custom-dataset set instead (get_tokens): DIR/cal_data.safetensors of ROWS
# (100) x LENGTH (2048).
#
# exllamav2 reads its own text files; here each built-in corpus stands for
# the file of the same role, its documents one after another, each starting
# on a new line ("\n".join(documents)); the wiki file holds one article per
# document, the tiny file the stories separated by <|endoftext|>. Encoding is
# the tokenizer's plain encode (no special tokens), BOS/EOS added by the rule.
#
#   source             rows m/q  exllamav2                          calkit
#   c4 (web)             2/10    its lines joined with "\n\n",      cal-read --lines --join '\n\n\n'
#                                encoded once, consecutive rows     cal-pack (concat)
#   wiki                 4/48    BOS+article+EOS packed; the first  cal-pack --mode article
#                                half of the rows drop the BOS      --bos half --eos doc
#   code                 3/15    the file encoded once, rows        cal-read --join '\n', cal-pack
#   tiny (stories)       2/10    stripped stories, as wiki          cal-read --strip, as wiki
#   multilingual         3/15    as code                            as code
#   multilingual, shuf.  1/5     the stream cut to whole rows, 128- cal-shuffle --segments 128 --whole-rows
#                                token segments, random.seed(69420) --rng python --seed 69420
#                                randint per segment
#   random               2/2     torch.randint, unseeded            cal-pack --random-rows (seeded)
#   technical            2/10    as code                            as code
#   noise (-N)           5/30    rows of -1                         cal-pack --noise-rows
#   custom Parquet (-i)  16/100  each row's text encoded, concat-   cal-read --field, cal-pack -n ROWS
#                                enated, the first ROWS x LENGTH
#
# Remaining differences: the random rows come from calkit's generator with
# -s SEED (exllamav2's are unseeded); a corpus too short for its rows is an
# error (exllamav2 silently gives fewer or shorter rows); LENGTH must be a
# multiple of 128 for the shuffled rows (exllamav2 fails otherwise); a custom Parquet file gives one column (--field, default text), where
# exllamav2 joins all columns of a row with spaces.
#
# Defaults: -t llama3 -l 2048 -s 0 -f text -n 100 -o build/cal/exl2-standard (paths in the
#   calkit tree; -f and -n apply with -i)
#
# Usage: exl2-standard.sh [-t TOKENIZER] [-o DIR] [-l LENGTH] [-s SEED] [-N] [-i FILE.parquet [-f FIELD] [-n ROWS]]
. "$(dirname "$0")/common.sh"
OUT=$ROOT/build/cal/exl2-standard
NOISE=0 IN= FIELD=text ROWS=100
while getopts t:o:l:s:Ni:f:n:h f; do
  case $f in
    t) TOK=$OPTARG ;; o) OUT=$OPTARG ;; l) LENGTH=$OPTARG ;; s) SEED=$OPTARG ;; N) NOISE=1 ;;
    i) IN=$OPTARG ;; f) FIELD=$OPTARG ;; n) ROWS=$OPTARG ;;
    *) usage ;;
  esac
done
work_dir

if [ -n "$IN" ]; then  # get_tokens(rows, length, file): measurement 16 rows, quantization ROWS
  tokens "$IN" "$WORK/custom.cal" --field "$FIELD"
  for p in measurement quantization; do
    n=$ROWS; [ $p = measurement ] && n=16
    pack "$WORK/$p.cal" "$WORK/$p.summary" cal-pack -l "$LENGTH" -n "$n" "$WORK/custom.cal"
    export_rows "$WORK/$p.cal" "$OUT/$p"
    echo "EXL2 custom-dataset $p set: $n rows of $LENGTH tokens -> $OUT/$p/cal_data.safetensors"
  done
  exit 0
fi

CTX=$LENGTH
[ "$CTX" -gt 2048 ] && CTX=2048
tokens web "$WORK/web.cal" --lines --join '\n\n\n'
tokens wiki "$WORK/wiki.cal"
tokens code "$WORK/code.cal" --join '\n'
tokens stories "$WORK/stories.cal" --strip
tokens multilingual "$WORK/multilingual.cal" --join '\n'
tokens technical "$WORK/technical.cal" --join '\n'

# build PASS web wiki code tiny ml ml_shuffled random technical noise
build() {
  p=$1 W=$WORK/$1 L=$CTX
  cal-pack -l "$L" -n "$2" "$WORK/web.cal" -o "$W.web.cal" &&
  cal-pack -l "$L" -n "$3" --mode article --bos half --eos doc "$WORK/wiki.cal" -o "$W.wiki.cal" &&
  cal-pack -l "$L" -n "$4" "$WORK/code.cal" -o "$W.code.cal" &&
  cal-pack -l "$L" -n "$5" --mode article --bos half --eos doc "$WORK/stories.cal" -o "$W.tiny.cal" &&
  cal-pack -l "$L" -n "$6" "$WORK/multilingual.cal" -o "$W.ml.cal" &&
  cal-shuffle --segments 128 --whole-rows -n "$7" -l "$L" --rng python --seed 69420 "$WORK/multilingual.cal" \
    -o "$W.mls.cal" &&
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

echo "EXL2 standard calibration sets, rows of $CTX tokens, tokenizer ${CAL_TOKENS_DIR:+(pre-encoded) }$TOK:"
for p in measurement quantization; do
  rows=$(sed -n 's/^cal-blend: \([0-9]*\) records:.*/\1/p' "$WORK/$p.summary")
  printf '  %-13s %4s rows  %s\n' "$p" "$rows" "$OUT/$p/cal_data.safetensors"
  sed -n 's/^cal-blend: [0-9]* records: \(.*\) (grouped.*/\1/p' "$WORK/$p.summary" |
    sed "s|$WORK/$p\.||g; s|\.cal||g; s/^/                per source: /"
done
