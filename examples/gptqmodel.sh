#!/bin/sh
# gptqmodel.sh - GPTQModel's calibration rows, as GPTQModel 4.x-7.3
# prepares a list of texts (utils/calibration.py prepare_calibration_dataset,
# quantize(calibration_sort="desc", calibration_data_min_length=10), read at
# commit f4c327a17eb3, 7.3.4): the first DOCS (1024) texts,
# each encoded with the tokenizer's special tokens and trimmed to LENGTH
# (the model's max_position_embeddings, default 2048); rows of 10 tokens or
# fewer dropped (GPTQModel warns, here they are counted); the rest sorted by
# length, longest first, equal lengths in input order.
#
#   calkit: cal-read -n DOCS, cal-encode --add-special --parse-special,
#           cal-pack --mode doc --min-tokens 11 --sort desc
#
# GPTQModel's rows have their own lengths (batch size 1); here each row is
# padded to LENGTH with the pad id (else EOS) and carries the attention mask,
# which excludes the padding as GPTQModel does.
# The corpus is a JSON Lines or Parquet file (-i FILE; GPTQModel's example
# takes C4's en/c4-train.00001-of-01024) or by default the built-in prose
# corpus (alias web).
# Remaining differences: -S asc|input for the other orders (GPTQModel's
# "shuffle" draws from an unseeded generator); concatenation into fixed rows
# (calibration_dataset_concat_size) is cal-pack's concat mode.
#
# Defaults: -i web -t llama3 -n 1024 -l 2048 -S desc -o build/cal/gptqmodel (paths in the calkit tree)
#
# Usage: gptqmodel.sh [-t TOKENIZER] [-i FILE] [-o DIR] [-n DOCS] [-l LENGTH] [-S desc|asc|input]
. "$(dirname "$0")/common.sh"
OUT=$ROOT/build/cal/gptqmodel
IN=web
DOCS=1024
SORT=desc
while getopts t:i:o:n:l:S:h f; do
  case $f in
    t) TOK=$OPTARG ;; i) IN=$OPTARG ;; o) OUT=$OPTARG ;; n) DOCS=$OPTARG ;; l) LENGTH=$OPTARG ;; S) SORT=$OPTARG ;;
    *) usage ;;
  esac
done
work_dir
tokens "$IN" "$WORK/t.cal" -n "$DOCS" -- --add-special --parse-special
pack "$WORK/rows.cal" "$WORK/summary" cal-pack -l "$LENGTH" --mode doc --min-tokens 11 --sort "$SORT" "$WORK/t.cal"
export_rows "$WORK/rows.cal" "$OUT"
echo "GPTQModel rows (at most $LENGTH tokens, sorted $SORT) -> $OUT/cal_data.safetensors"
sed 's/^/  /' "$WORK/summary"
