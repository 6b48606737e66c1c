#!/bin/sh
# llmcompressor.sh - llm-compressor's calibration rows, as llm-compressor
# 0.4-0.6 makes them from a text dataset (transformers/finetune/data/base.py
# TextGenerationDataset.tokenize_and_process, with pad_to_max_length, and
# the examples' ds.shuffle(seed=42).select(range(ROWS))): the dataset
# shuffled with Dataset.shuffle(seed=42), the first ROWS (512) texts, each
# encoded with the tokenizer's special tokens, truncated to LENGTH (2048)
# and padded on the right to LENGTH with the pad id (else EOS), with the
# attention mask.
#
#   calkit: cal-encode --add-special --parse-special, cal-shuffle --rng numpy
#           --seed 42, cal-pack --mode doc -n ROWS
#
# The corpus is a JSON Lines or Parquet file (-i FILE) or by default the
# built-in web corpus.
# Remaining differences: llm-compressor then visits the rows through an
# unseeded RandomSampler (the same rows, in an order of its own); a
# tokenizer that adds EOS keeps it when truncated there, not here;
# concatenate_data is cal-pack's concat mode.
#
# Usage: llmcompressor.sh [-t TOKENIZER] [-i FILE] [-o DIR] [-n ROWS] [-l LENGTH] [-s SEED]
. "$(dirname "$0")/common.sh"
OUT=$ROOT/build/cal/llmcompressor
IN=web
ROWS=512
SEED=42
peer_options "$@"
work_dir
hf_shuffled "$IN" "$SEED" "$WORK/s.cal"
pack "$WORK/rows.cal" "$WORK/summary" cal-pack -l "$LENGTH" --mode doc -n "$ROWS" "$WORK/s.cal"
export_rows "$WORK/rows.cal" "$OUT"
echo "llm-compressor set: $ROWS rows of $LENGTH (truncated or padded) -> $OUT/cal_data.safetensors"
sed 's/^/  /' "$WORK/summary"
