#!/bin/sh
# autoround.sh - auto-round's default calibration set, as auto-round 0.4-0.15
# makes it (auto_round/calib_dataset.py get_pile_dataset and the filter of
# get_dataset, read at commit b9f3d0079d01, 0.15.0; AutoRound's defaults
# nsamples=128, seqlen=2048): the dataset (NeelNanda/pile-10k) shuffled with
# Dataset.shuffle(seed=42); each text encoded with the tokenizer's special
# tokens and truncated to LENGTH (2048); texts shorter than LENGTH dropped,
# and those whose last token occurs more than LENGTH/2 times in the row
# (repetitive text); the first ROWS (128) kept.
#
#   calkit: cal-encode --add-special --parse-special, cal-shuffle --rng numpy
#           --seed 42, cal-pack --mode doc --min-tokens LENGTH
#           --max-repeat LENGTH/2 -n ROWS
#
# The corpus is a pile-10k style JSON Lines or Parquet file (-i FILE) or by
# default the built-in prose corpus (alias web, the stand-in for pile-10k).
# Remaining differences: too few rows is an error (auto-round gives fewer);
# a tokenizer that adds EOS keeps it when auto-round truncates, and loses it
# here; the mixing syntax (dsA:num=256,dsB) and chat templates are not
# reproduced (use cal-blend and cal-read --template).
#
# Defaults: -i web -t llama3 -n 128 -l 2048 -s 42 -o build/cal/autoround (paths in the calkit tree)
#
# Usage: autoround.sh [-t TOKENIZER] [-i FILE] [-o DIR] [-n ROWS] [-l LENGTH] [-s SEED]
. "$(dirname "$0")/common.sh"
OUT=$ROOT/build/cal/autoround
IN=web
ROWS=128
SEED=42
peer_options "$@"
work_dir
hf_shuffled "$IN" "$SEED" "$WORK/s.cal"
pack "$WORK/rows.cal" "$WORK/summary" cal-pack -l "$LENGTH" --mode doc --min-tokens "$LENGTH" \
  --max-repeat $((LENGTH / 2)) -n "$ROWS" "$WORK/s.cal"
export_rows "$WORK/rows.cal" "$OUT"
echo "auto-round set: $ROWS rows of $LENGTH, seed $SEED -> $OUT/cal_data.safetensors"
sed 's/^/  /' "$WORK/summary"
