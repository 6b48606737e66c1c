#!/bin/sh
# exl3-standard.sh - EXL3's default calibration set as exllamav3 0.0.x makes
# it (conversion/calibration_data.py, get_default_calibration; read at
# commit 4f8ad0121f48, 1.4.1): ROWS (250)
# rows of LENGTH (2048) tokens allocated by weight, each source
# max(1, int(w/135*ROWS)) rows, the random rows the rest.
#
# exllamav3 reads its own text files; here each built-in corpus stands for
# the file of the same role, its documents one after another, each starting
# on a new line ("\n".join(documents)); the wiki file holds one article per
# document, the tiny file the stories separated by <|endoftext|>.
#
#   source        weight  exllamav3                                 calkit
#   c4 (web)        20    shuffle_lines: the file's lines (but      cal-read --lines --drop-blank,
#                         those of only blanks), random.seed(0),    cal-shuffle --rng python --seed 0,
#                         random.shuffle, split_art                 cal-pack --mode article
#   code            20    split_raw: the file encoded once, rows    cal-read --join '\n', cal-pack
#   multilingual    10    shuffle_lines                             as c4
#   technical       10    split_raw                                 as code
#   wiki            50    split_wiki: articles > 50 chars,          cal-read --min-chars 51,
#                         split_art                                 cal-pack --mode article
#   tiny             5    split_tiny: stripped stories, split_art   cal-read --strip, as wiki
#   random          20    the rest: torch.manual_seed(0), per row   cal-pack --random-rows
#                         torch.randint(0, vocab, (1, LENGTH))      --rng torch --seed SEED
#
# split_art: articles appended (with BOS and EOS in even rows, without in
# odd ones) until the row is full, the rest of the last one dropped:
# cal-pack --mode article --bos alt --eos alt. Encoding is the tokenizer's
# plain encode (no special tokens).
# Remaining differences: a corpus too short for its rows is an error
# (exllamav3 runs out of articles, or gives short rows in split_raw); the
# random rows use the stream's vocab (the tokenizer's id count; exllamav3
# takes the tokenizer's actual_vocab_size).
#
# Defaults: -t llama3 -n 250 -l 2048 -s 0 -o build/cal/exl3-standard (paths in the calkit tree)
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

tokens web "$WORK/web.cal" --lines --drop-blank
tokens code "$WORK/code.cal" --join '\n'
tokens multilingual "$WORK/multilingual.cal" --lines --drop-blank
tokens technical "$WORK/technical.cal" --join '\n'
tokens wiki "$WORK/wiki.cal" --min-chars 51
tokens stories "$WORK/stories.cal" --strip
L=$LENGTH
art="--mode article --bos alt --eos alt"
# shellcheck disable=SC2086
{ cal-shuffle --rng python --seed 0 "$WORK/web.cal" | cal-pack -l "$L" -n "$c4" $art -o "$WORK/1.cal" &&
  cal-pack -l "$L" -n "$code" "$WORK/code.cal" -o "$WORK/2.cal" &&
  cal-shuffle --rng python --seed 0 "$WORK/multilingual.cal" | cal-pack -l "$L" -n "$ml" $art -o "$WORK/3.cal" &&
  cal-pack -l "$L" -n "$tech" "$WORK/technical.cal" -o "$WORK/4.cal" &&
  cal-pack -l "$L" -n "$wiki" $art "$WORK/wiki.cal" -o "$WORK/5.cal" &&
  cal-pack -l "$L" -n "$tiny" $art "$WORK/stories.cal" -o "$WORK/6.cal" &&
  cal-pack -l "$L" -n 0 --random-rows "$rnd" --rng torch --seed "$SEED" "$WORK/web.cal" -o "$WORK/7.cal" &&
  cal-blend --grouped "$WORK/1.cal:label=c4" "$WORK/2.cal" "$WORK/3.cal" "$WORK/4.cal" "$WORK/5.cal" \
    "$WORK/6.cal:label=tiny" "$WORK/7.cal" -o "$WORK/all.cal"; } || die "building the set failed"
export_rows "$WORK/all.cal" "$OUT"
echo "EXL3 standard calibration set: $ROWS rows of $LENGTH tokens -> $OUT/cal_data.safetensors"
echo "  c4 $c4, code $code, multilingual $ml, technical $tech, wiki $wiki, tiny $tiny, random $rnd"
