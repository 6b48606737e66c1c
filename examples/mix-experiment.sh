#!/bin/sh
# mix-experiment.sh - three domain mixes of the same size side by side, for a
# quick experiment on how the calibration domain mix changes a quantized
# model: quantize once per mix and compare perplexities.
#
#   prose      web 2, wiki 2, stories 1
#   code       code 3, technical 1, web 1
#   broad      web 1, wiki 1, code 1, stories 1, multilingual 1, technical 1
#
# Each corpus is cut into consecutive rows once (cal-pack); each mix takes
# ROWS rows by weight with largest-remainder rounding (cal-blend -n), so the
# counts add up exactly, interleaved by a seeded schedule.
# Output: DIR/MIX/cal_data.safetensors for each mix.
#
# Defaults: -t llama3 -n 128 -l 2048 -s 0 -o build/cal/mix-experiment (paths in the calkit tree)
# tests/sh/test_examples_defaults.sh runs it at these, against the texts
# encoded by the Rust HF tokenizers, cut, counted and interleaved in Python.
#
# Usage: mix-experiment.sh [-t TOKENIZER] [-o DIR] [-n ROWS] [-l LENGTH] [-s SEED]
. "$(dirname "$0")/common.sh"
OUT=$ROOT/build/cal/mix-experiment
ROWS=128
rows_options "$@"
work_dir
for c in web wiki code stories multilingual technical; do
  tokens "$c" "$WORK/$c.tok"
  cal-pack -l "$LENGTH" "$WORK/$c.tok" -o "$WORK/$c.cal" || die "packing $c failed"
done
R=$WORK
mix() {
  name=$1
  shift
  cal-blend -n "$ROWS" --seed "$SEED" -v "$@" -o "$WORK/$name.mix" 2>"$WORK/$name.summary" ||
    die "mix $name: $(cat "$WORK/$name.summary")"
  export_rows "$WORK/$name.mix" "$OUT/$name"
  printf '  %-6s %s\n         %s\n' "$name" "$OUT/$name/cal_data.safetensors" \
    "$(sed -n 's|^cal-blend: \([0-9]* records\): \(.*\) (interleaved.*|\1: \2|p' "$WORK/$name.summary" |
      sed "s|$WORK/||g; s|\.cal||g")"
}
echo "Three mixes of $ROWS rows of $LENGTH tokens, seed $SEED:"
mix prose "$R/web.cal:weight=2" "$R/wiki.cal:weight=2" "$R/stories.cal:weight=1"
mix code "$R/code.cal:weight=3" "$R/technical.cal:weight=1" "$R/web.cal:weight=1"
mix broad "$R/web.cal" "$R/wiki.cal" "$R/code.cal" "$R/stories.cal" "$R/multilingual.cal" "$R/technical.cal"
