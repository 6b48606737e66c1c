#!/bin/sh
# gptq-wikitext2.sh - GPTQ / optimum / lmdeploy's wikitext2 set: 128 random
# windows of 2048 tokens, seed 0, over the whole corpus encoded and joined.
# Each window starts at randint(0, L - 2048 - 1), uniform and inclusive, as
# GPTQ draws it (cal-pack --mode window; see cal-pack(1)).
#
# The corpus is a wikitext-2 raw file (-i wiki.train.raw, articles at
# " = Title = " lines) or by default the built-in wiki corpus.
# Differences: the documents are encoded one by one and joined with EOS
# (GPTQ joins the text with "\n\n" and encodes it once); the windows come
# from calkit's documented generator, not Python's random.
#
# Usage: gptq-wikitext2.sh [-t TOKENIZER] [-i FILE] [-o DIR] [-n ROWS] [-l LENGTH] [-s SEED]
. "$(dirname "$0")/common.sh"
OUT=$ROOT/build/cal/gptq-wikitext2
IN=wiki
ROWS=128
while getopts t:i:o:n:l:s:h f; do
  case $f in
    t) TOK=$OPTARG ;; i) IN=$OPTARG ;; o) OUT=$OPTARG ;; n) ROWS=$OPTARG ;; l) LENGTH=$OPTARG ;; s) SEED=$OPTARG ;;
    *) usage ;;
  esac
done
work_dir
if [ "$IN" = wiki ]; then tokens wiki "$WORK/t.cal"; else tokens "$IN" "$WORK/t.cal" -f wikitext; fi
cal-pack -l "$LENGTH" --mode window -n "$ROWS" --seed "$SEED" --sep eos -v "$WORK/t.cal" -o "$WORK/rows.cal" ||
  die "packing failed"
export_rows "$WORK/rows.cal" "$OUT"
echo "GPTQ wikitext2-style set: $ROWS windows of $LENGTH, seed $SEED -> $OUT/cal_data.safetensors"
