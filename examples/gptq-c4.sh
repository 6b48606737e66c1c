#!/bin/sh
# gptq-c4.sh - the c4 calibration set of GPTQ (IST-DASLab gptq, datautils.py
# get_c4), optimum 1.2x (optimum/gptq/data.py get_c4) or lmdeploy 0.x
# (lite/utils/calib_dataloader.py get_c4): ROWS (128) windows of LENGTH
# (2048) tokens, seed 0. random.seed(seed); for each row a document index
# random.randint(0, D - 1), drawn again until the document, encoded with the
# tokenizer's special tokens, has at least LENGTH tokens, then a window
# start random.randint(0, len - LENGTH - 1) (lmdeploy: len - LENGTH).
# calkit: cal-encode --add-special --parse-special, cal-pack --mode window
# --per-doc --rng python [--to-end].
# Read at: IST-DASLab/gptq 2d65066eeb06 (datautils.py), optimum 83c88b8fc51e
# (gptq/data.py; get_dataset seeds random with 0), lmdeploy 1263d5cd889b
# (lite/utils/calib_dataloader.py).
#
# -i FILE is a C4 shard (c4-train.00000-of-01024.json.gz, JSON Lines); by
# default the built-in prose corpus (alias web, the stand-in for C4: 313 of
# its 1,064 documents have 2,048 Llama 3 tokens or more).
# Remaining differences: a document of exactly LENGTH tokens makes GPTQ and
# optimum fail (randint(0, -1)); calkit draws another document instead.
#
# Defaults: -p gptq -i web -t llama3 -n 128 -l 2048 -s 0 -o build/cal/gptq-c4 (paths in the calkit tree)
#
# Usage: gptq-c4.sh [-p gptq|optimum|lmdeploy] [-t TOKENIZER] [-i FILE] [-o DIR] [-n ROWS] [-l LENGTH] [-s SEED]
. "$(dirname "$0")/common.sh"
OUT=$ROOT/build/cal/gptq-c4
IN=web
ROWS=128
PEER=gptq
peer_options "$@"
END=$(window_end) || exit 1
work_dir
tokens "$IN" "$WORK/t.cal" -- --add-special --parse-special
# shellcheck disable=SC2086
pack "$WORK/rows.cal" "$WORK/summary" cal-pack -l "$LENGTH" --mode window --per-doc -n "$ROWS" --rng python \
  --seed "$SEED" $END "$WORK/t.cal"
export_rows "$WORK/rows.cal" "$OUT"
echo "$PEER c4 set: $ROWS windows of $LENGTH inside documents, seed $SEED -> $OUT/cal_data.safetensors"
