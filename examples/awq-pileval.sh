#!/bin/sh
# awq-pileval.sh - AutoAWQ's calibration set: 128 documents, each with BOS,
# concatenated and cut into 512-token rows, the remainder dropped
# (awq/utils/calib_data.py). AutoAWQ silently skips documents longer than
# 512 tokens; here they are kept and split across rows, and -v's summary
# counts documents, tokens and the unused tail. Pass -S to skip them as
# AutoAWQ does (cal-pack --max-tokens: the summary counts them; the DOCS
# documents are taken before the skip, AutoAWQ takes DOCS after it).
#
# The corpus is a pile-val style JSON Lines file (-i val.jsonl.zst) or by
# default the built-in web corpus.
#
# Usage: awq-pileval.sh [-t TOKENIZER] [-i FILE] [-o DIR] [-n DOCS] [-l LENGTH] [-S]
. "$(dirname "$0")/common.sh"
OUT=$ROOT/build/cal/awq-pileval
IN=web
DOCS=128
LENGTH=512
SKIP=0
while getopts t:i:o:n:l:Sh f; do
  case $f in
    t) TOK=$OPTARG ;; i) IN=$OPTARG ;; o) OUT=$OPTARG ;; n) DOCS=$OPTARG ;; l) LENGTH=$OPTARG ;; S) SKIP=1 ;;
    *) usage ;;
  esac
done
work_dir
tokens "$IN" "$WORK/t.cal" -n "$DOCS"
MAX=
[ "$SKIP" = 1 ] && MAX="--max-tokens $LENGTH"
# shellcheck disable=SC2086
cal-pack -l "$LENGTH" --bos doc $MAX -v "$WORK/t.cal" -o "$WORK/rows.cal" 2>"$WORK/summary" || die "packing failed"
export_rows "$WORK/rows.cal" "$OUT"
echo "AutoAWQ pile-val style set -> $OUT/cal_data.safetensors"
sed 's/^/  /' "$WORK/summary"
