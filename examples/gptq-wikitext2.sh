#!/bin/sh
# gptq-wikitext2.sh - the wikitext2 calibration set of GPTQ (IST-DASLab
# gptq, datautils.py get_wikitext2), optimum 1.2x (optimum/gptq/data.py
# get_wikitext2) or lmdeploy 0.x (lite/utils/calib_dataloader.py
# get_wikitext2): ROWS (128) random windows of LENGTH (2048) tokens, seed 0.
#
#   -p gptq      "\n\n".join(rows), encoded once with the tokenizer's special
#                tokens; random.seed(seed); each window starts at
#                random.randint(0, L - LENGTH - 1)
#   -p lmdeploy  as gptq, the start random.randint(0, L - LENGTH)
#   -p optimum   the first 1000 rows, "" -> " \n", joined with ""; windows
#                as gptq
# calkit: cal-read --join (--empty, -n 1000), cal-encode --add-special
# --parse-special, cal-pack --mode window --rng python [--to-end].
# Read at: IST-DASLab/gptq 2d65066eeb06 (datautils.py), optimum 83c88b8fc51e
# (gptq/data.py), lmdeploy 1263d5cd889b (lite/utils/calib_dataloader.py).
#
# The rows are the dataset's "text" column: -i FILE is wikitext-2-raw-v1's
# train split as the Hugging Face hub ships it (Parquet, or JSON Lines of
# {"text": ...}: one row per line of the raw file, blank lines as ""), or
# the raw file itself (a name ending in .raw, e.g. wiki.train.raw from
# wikitext-2-raw-v1.zip): its lines become the rows exactly as the
# datasets loader makes them (each line with its newline, a line of only
# whitespace ""), so both forms give the same set; by default the built-in
# foldoc corpus (alias wiki), one row per article.
# Remaining differences: GPTQ loads the slow (sentencepiece) tokenizer where
# a model has one (use_fast=False); calkit encodes as the tokenizer.json or
# .model given.
#
# Defaults: -p gptq -i wiki -t llama3 -n 128 -l 2048 -s 0 -o build/cal/gptq-wikitext2 (paths in the calkit tree)
#
# Usage: gptq-wikitext2.sh [-p gptq|optimum|lmdeploy] [-t TOKENIZER] [-i FILE] [-o DIR] [-n ROWS] [-l LENGTH] [-s SEED]
. "$(dirname "$0")/common.sh"
OUT=$ROOT/build/cal/gptq-wikitext2
IN=wiki
ROWS=128
PEER=gptq
peer_options "$@"
END=$(window_end) || exit 1
work_dir
case $IN in
  *.raw)  # the raw file: the datasets loader's rows, as JSON Lines
    /usr/bin/python3 -c 'import json, sys
with open(sys.argv[1], encoding="utf-8") as f, open(sys.argv[2], "w", encoding="utf-8") as o:
    for row in f:
        o.write(json.dumps({"text": row if row.strip() else ""}, ensure_ascii=False) + "\n")' "$IN" "$WORK/rows.jsonl" ||
      die "$IN: cannot read it as wikitext's raw text"
    IN=$WORK/rows.jsonl ;;
esac
if [ "$PEER" = optimum ]; then
  tokens "$IN" "$WORK/t.cal" -n 1000 --join '' --empty ' \n' -- --add-special --parse-special
else
  tokens "$IN" "$WORK/t.cal" --join '\n\n' -- --add-special --parse-special
fi
# shellcheck disable=SC2086
pack "$WORK/rows.cal" "$WORK/summary" cal-pack -l "$LENGTH" --mode window -n "$ROWS" --rng python --seed "$SEED" \
  $END "$WORK/t.cal"
export_rows "$WORK/rows.cal" "$OUT"
echo "$PEER wikitext2 set: $ROWS windows of $LENGTH, seed $SEED -> $OUT/cal_data.safetensors"
