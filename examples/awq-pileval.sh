#!/bin/sh
# awq-pileval.sh - AutoAWQ's calibration set, as AutoAWQ 0.2.x makes it
# (awq/utils/calib_data.py get_calib_dataset; lmdeploy's get_pileval is the
# same): the dataset shuffled with datasets' Dataset.shuffle(seed=42); each
# row's text stripped (str.strip) and encoded with tokenizer.encode (the
# tokenizer's special tokens: BOS only where the tokenizer adds one);
# encodings over 512 tokens (BOS included) and empty ones skipped; the first
# DOCS (128) kept ones concatenated and cut into LENGTH (512) token rows, the
# remainder dropped.
#
#   calkit: cal-read --strip, cal-encode --add-special --parse-special,
#           cal-shuffle --rng numpy --seed 42, cal-pack --max-tokens 512
#           --min-tokens 1 --docs DOCS (concat)
# The skip is reported (AutoAWQ skips silently); -K keeps the long
# documents instead (split across rows).
#
# The corpus is a pile-val style JSON Lines file (-i val.jsonl.zst) or by
# default the built-in web corpus.
# Remaining differences: none known for text the tokenizer encodes alike.
#
# Usage: awq-pileval.sh [-t TOKENIZER] [-i FILE] [-o DIR] [-n DOCS] [-l LENGTH] [-K]
. "$(dirname "$0")/common.sh"
OUT=$ROOT/build/cal/awq-pileval
IN=web
DOCS=128
LENGTH=512
SKIP="--max-tokens 512"
while getopts t:i:o:n:l:Kh f; do
  case $f in
    t) TOK=$OPTARG ;; i) IN=$OPTARG ;; o) OUT=$OPTARG ;; n) DOCS=$OPTARG ;; l) LENGTH=$OPTARG ;; K) SKIP= ;;
    *) usage ;;
  esac
done
work_dir
tokens "$IN" "$WORK/t.cal" --strip -- --add-special --parse-special
cal-shuffle --rng numpy --seed 42 "$WORK/t.cal" -o "$WORK/s.cal" || die "shuffling failed"
# shellcheck disable=SC2086
pack "$WORK/rows.cal" "$WORK/summary" cal-pack -l "$LENGTH" $SKIP --min-tokens 1 --docs "$DOCS" "$WORK/s.cal"
export_rows "$WORK/rows.cal" "$OUT"
echo "AutoAWQ pile-val set -> $OUT/cal_data.safetensors"
sed 's/^/  /' "$WORK/summary"
