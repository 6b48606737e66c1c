#!/bin/sh
# exl3-standard.sh - EXL3's default calibration set: ROWS (250) rows of
# LENGTH (2048) tokens allocated by weight as exllamav3 does
# (conversion/calibration_data.py): each source gets max(1, int(w/135*ROWS))
# rows, the random rows the rest.
#
#   source         weight  rule (exllamav3)                          calkit
#   web (c4)         20    lines shuffled (seed 0), split_art        cal-shuffle, cal-pack --mode
#   code             20    consecutive rows                           article --bos alt --eos alt
#   multilingual     10    lines shuffled (seed 0), split_art        cal-pack
#   technical        10    consecutive rows                          cal-pack
#   wiki             50    articles > 50 chars, split_art            cal-read --min-chars 51
#   stories (tiny)    5    split_art
#   random           20    the rest: uniform ids, seeded             cal-pack --random-rows
#
# split_art: articles appended until the row is full, the rest of the last
# dropped; the articles of even rows get BOS/EOS, of odd rows not.
# Differences: calkit shuffles documents (the built-in corpora have no one-
# document-per-line file) with its own documented generator.
#
# Usage: exl3-standard.sh [-t TOKENIZER] [-o DIR] [-l LENGTH] [-n ROWS] [-s SEED]
. "$(dirname "$0")/common.sh"
OUT=$ROOT/build/cal/exl3-standard
ROWS=250
rows_options "$@"
work_dir
cnt() { awk -v w="$1" -v r="$ROWS" 'BEGIN { n = int(w / 135 * r); print n < 1 ? 1 : n }'; }
c4=$(cnt 20) code=$(cnt 20) ml=$(cnt 10) tech=$(cnt 10) wiki=$(cnt 50) tiny=$(cnt 5)
rnd=$((ROWS - c4 - code - ml - tech - wiki - tiny))
[ "$rnd" -ge 1 ] || rnd=1

tokens web "$WORK/web.cal"
tokens code "$WORK/code.cal"
tokens multilingual "$WORK/multilingual.cal"
tokens technical "$WORK/technical.cal"
tokens wiki "$WORK/wiki.cal" --min-chars 51
tokens stories "$WORK/stories.cal"
L=$LENGTH
art="--mode article --bos alt --eos alt"
# shellcheck disable=SC2086
{ cal-shuffle --seed 0 "$WORK/web.cal" | cal-pack -l "$L" -n "$c4" $art -o "$WORK/1.cal" &&
  cal-pack -l "$L" -n "$code" "$WORK/code.cal" -o "$WORK/2.cal" &&
  cal-shuffle --seed 0 "$WORK/multilingual.cal" | cal-pack -l "$L" -n "$ml" $art -o "$WORK/3.cal" &&
  cal-pack -l "$L" -n "$tech" "$WORK/technical.cal" -o "$WORK/4.cal" &&
  cal-pack -l "$L" -n "$wiki" $art "$WORK/wiki.cal" -o "$WORK/5.cal" &&
  cal-pack -l "$L" -n "$tiny" $art "$WORK/stories.cal" -o "$WORK/6.cal" &&
  cal-pack -l "$L" -n 0 --random-rows "$rnd" --seed "$SEED" "$WORK/web.cal" -o "$WORK/7.cal" &&
  cal-blend --grouped "$WORK/1.cal:label=c4" "$WORK/2.cal" "$WORK/3.cal" "$WORK/4.cal" "$WORK/5.cal" \
    "$WORK/6.cal:label=tiny" "$WORK/7.cal" -o "$WORK/all.cal"; } || die "building the set failed"
export_rows "$WORK/all.cal" "$OUT"
echo "EXL3 standard calibration set: $ROWS rows of $LENGTH tokens -> $OUT/cal_data.safetensors"
echo "  c4 $c4, code $code, multilingual $ml, technical $tech, wiki $wiki, tiny $tiny, random $rnd"
