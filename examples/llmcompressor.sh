#!/bin/sh
# llmcompressor.sh - llm-compressor's calibration rows, as llm-compressor
# 0.6 makes them from a text dataset (read at tag 0.6.0, commit
# c052d2ce58f2: transformers/finetune/data/base.py TextGenerationDataset,
# padding "max_length" as pad_to_max_length is on by default; the examples'
# load_dataset(split="train_sft[:ROWS]") then ds.shuffle(seed=42)): the
# first ROWS (512) texts of the dataset, in the order of
# Dataset.shuffle(seed=42) over those ROWS, each encoded with the
# tokenizer's special tokens, truncated to LENGTH (the example's
# MAX_SEQUENCE_LENGTH, 2048) and padded on the right to LENGTH with the pad
# id (else EOS), with the attention mask. (Before, this recipe shuffled the
# whole dataset and took its first ROWS: other texts than the example's.)
#
#   calkit: cal-read -n ROWS, cal-encode --add-special --parse-special,
#           cal-shuffle --rng numpy --seed 42, cal-pack --mode doc -n ROWS
#
# The corpus is a JSON Lines or Parquet file (-i FILE) or by default the
# built-in prose corpus (alias web).
# Remaining differences: llm-compressor then draws the rows through its
# own unseeded shuffle (utils.py format_calibration_data: shuffle(), then
# a RandomSampler): the same rows, in an order of its own; a tokenizer
# that adds EOS keeps it when truncated there, not here; the current
# example (0.13) tokenizes without special tokens and pads nothing;
# concatenate_data is cal-pack's concat mode.
#
# Defaults: -i web -t llama3 -n 512 -l 2048 -s 42 -o build/cal/llmcompressor (paths in the calkit tree)
#
# Usage: llmcompressor.sh [-t TOKENIZER] [-i FILE] [-o DIR] [-n ROWS] [-l LENGTH] [-s SEED]
. "$(dirname "$0")/common.sh"
OUT=$ROOT/build/cal/llmcompressor
IN=web
ROWS=512
SEED=42
peer_options "$@"
work_dir
tokens "$IN" "$WORK/hf.tok" -n "$ROWS" -- --add-special --parse-special
cal-shuffle --rng numpy --seed "$SEED" "$WORK/hf.tok" -o "$WORK/s.cal" || die "shuffling failed"
pack "$WORK/rows.cal" "$WORK/summary" cal-pack -l "$LENGTH" --mode doc -n "$ROWS" "$WORK/s.cal"
export_rows "$WORK/rows.cal" "$OUT"
echo "llm-compressor set: $ROWS rows of $LENGTH (truncated or padded) -> $OUT/cal_data.safetensors"
sed 's/^/  /' "$WORK/summary"
