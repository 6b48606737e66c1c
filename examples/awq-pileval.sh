#!/bin/sh
# awq-pileval.sh - AutoAWQ's calibration set, as AutoAWQ 0.2.6-0.2.9 makes
# it (awq/utils/calib_data.py get_calib_dataset, read at commit 88e4c76b2075,
# v0.2.9; quantizer defaults max_calib_samples=128, max_calib_seq_len=512):
# the dataset shuffled with datasets' Dataset.shuffle(seed=42); each row's
# text stripped (str.strip) and encoded with tokenizer.encode (the
# tokenizer's special tokens: BOS only where the tokenizer adds one);
# encodings longer than LENGTH (BOS included; since 0.2.6, PR #516, the row
# length, before it a fixed 512) and empty ones skipped; the first DOCS (128)
# kept ones concatenated and cut into LENGTH (512) token rows, the
# remainder dropped.
#
#   calkit: cal-read --strip, cal-encode --add-special --parse-special,
#           cal-shuffle --rng numpy --seed 42, cal-pack --max-tokens LENGTH
#           --min-tokens 1 --docs DOCS (concat)
# The skip is reported (AutoAWQ skips silently); -K keeps the long
# documents instead (split across rows).
#
# The corpus is a pile-val style JSON Lines file (-i val.jsonl.zst) or by
# default the built-in prose corpus (the stand-in for pile-val).
# Remaining differences: AutoAWQ shuffles only a dataset it loads by name
# (a list of texts passed as calib_data keeps its order; here the input is
# always shuffled as pile-val is). lmdeploy's get_pileval (read at commit
# 1263d5cd889b) differs: it skips encodings over 512 whatever the row length
# and takes as many documents as its average length needs for the rows.
#
# Defaults: -i web -t llama3 -n 128 -l 512 -o build/cal/awq-pileval (paths in the calkit tree)
#
# Usage: awq-pileval.sh [-t TOKENIZER] [-i FILE] [-o DIR] [-n DOCS] [-l LENGTH] [-K]
. "$(dirname "$0")/common.sh"
OUT=$ROOT/build/cal/awq-pileval
IN=web
DOCS=128
LENGTH=512
SKIP=1
while getopts t:i:o:n:l:Kh f; do
  case $f in
    t) TOK=$OPTARG ;; i) IN=$OPTARG ;; o) OUT=$OPTARG ;; n) DOCS=$OPTARG ;; l) LENGTH=$OPTARG ;; K) SKIP= ;;
    *) usage ;;
  esac
done
[ -n "$SKIP" ] && SKIP="--max-tokens $LENGTH"
work_dir
tokens "$IN" "$WORK/t.cal" --strip -- --add-special --parse-special
cal-shuffle --rng numpy --seed 42 "$WORK/t.cal" -o "$WORK/s.cal" || die "shuffling failed"
# shellcheck disable=SC2086
pack "$WORK/rows.cal" "$WORK/summary" cal-pack -l "$LENGTH" $SKIP --min-tokens 1 --docs "$DOCS" "$WORK/s.cal"
export_rows "$WORK/rows.cal" "$OUT"
echo "AutoAWQ pile-val set -> $OUT/cal_data.safetensors"
sed 's/^/  /' "$WORK/summary"
