#!/bin/sh
# prepare.sh - the bench's data, made once into $Q (run.sh sets the
# variables; remove $Q/data to redo):
#   - each built-in corpus split by document id (cal-read --shard I/8, which
#     does not depend on order): shard 0 is held out for the evaluation,
#     shard 1 is the "target sample" that --like selects toward (a user's own
#     prompts, in a deployment), shards 2-7 are the pool that every selector
#     chooses from and that the model is trained on;
#   - the tokenizer: a SentencePiece BPE of $VOCAB pieces (byte fallback)
#     trained on the pool's text with spm_train (one thread, fixed seed: the
#     same model file every time), or $TOKENIZER when given (a user's model);
#   - per domain: the pool's documents (TOKENS), the pool cut into
#     $LENGTH-token rows (cal-pack, documents joined with EOS), the same rows
#     as TOKENS records ("chunks": cal-select chooses among documents), the
#     target sample's chunks, and $HELD held-out rows from shuffled held-out
#     documents.
# The shards are partial families on purpose (the pool is shards 2-7 of 8):
# every program that reads them says so (--allow-partial), into $Q/data/log.
set -eu
: "${Q:?}" "${LENGTH:?}" "${VOCAB:?}" "${HELD:?}" "${DOMAINS:?}"
HERE=$(cd "$(dirname "$0")" && pwd)
# A tokenizer file given by a relative path, before moving: everything runs
# in $Q on relative paths, so that the files (their stage lines, the
# tokenizer's bytes) do not depend on where $Q is.
case ${TOKENIZER:-} in '' | /*) ;; *) [ -e "$TOKENIZER" ] && TOKENIZER=$(pwd)/$TOKENIZER ;; esac
mkdir -p "$Q"
cd "$Q"
D=data
# SAMPLE=N, POOL_SHARDS (the small run of make check): N documents of each
# shard, the pool from those shards alone.
sample=${SAMPLE:+--sample $SAMPLE}
# What the data depends on: when it changes, everything is made again.
tokid=${TOKENIZER:-spm vocab=$VOCAB coverage=${COVERAGE:-0.9995}}
[ -f "${TOKENIZER:-/}" ] && tokid="$tokid $(sha256sum <"$TOKENIZER" | cut -c1-16)"
conf="domains=$DOMAINS sample=${SAMPLE:-all} pool=${POOL_SHARDS:-2-7} tokenizer=$tokid length=$LENGTH held=$HELD"
if [ "$(cat data.conf 2>/dev/null)" != "$conf" ]; then
  rm -rf "$D" tok.model
  mkdir -p "$D"
  echo "$conf" >data.conf
fi

if [ ! -f "$D/text.done" ]; then
  for d in $DOMAINS; do
    # shellcheck disable=SC2086
    cal-read "$d" --shard 0/8 $sample -o "$D/held.$d.txt.cal"
    # shellcheck disable=SC2086
    cal-read "$d" --shard 1/8 $sample -o "$D/target.$d.txt.cal"
    for k in ${POOL_SHARDS:-2 3 4 5 6 7}; do
      # shellcheck disable=SC2086
      cal-read "$d" --shard $k/8 $sample
    done >"$D/pool.$d.txt.cal"
  done
  touch "$D/text.done"
fi

if [ -n "${TOKENIZER:-}" ]; then
  TOK=$TOKENIZER
else
  TOK=./tok.model
  if [ ! -f "$TOK" ]; then
    # One sentence a line for spm_train; blank lines carry nothing.
    for d in $DOMAINS; do cal-cat --allow-partial --text "$D/pool.$d.txt.cal" 2>>"$D/log"; done |
      grep -v '^[[:space:]]*$' >"$D/spm.txt"
    spm_train --input="$D/spm.txt" --model_prefix=tok.tmp --vocab_size="$VOCAB" --model_type=bpe \
      --byte_fallback=true --character_coverage="${COVERAGE:-0.9995}" --num_threads=1 --random_seed=1 \
      --input_sentence_size=200000 --shuffle_input_sentence=true --max_sentence_length=8192 \
      --minloglevel=2 >"$D/spm.log" 2>&1 || { cat "$D/spm.log" >&2; exit 1; }
    mv tok.tmp.model "$TOK"
    rm -f tok.tmp.vocab "$D/spm.txt"
  fi
fi

if [ ! -f "$D/tokens.done" ]; then
  for d in $DOMAINS; do
    for s in pool target held; do
      cal-encode --allow-partial -t "$TOK" "$D/$s.$d.txt.cal" -o "$D/$s.$d.tok.cal" 2>>"$D/log"
    done
    cal-pack --allow-partial -l "$LENGTH" --sep eos "$D/pool.$d.tok.cal" -o "$D/pool.$d.rows.cal" 2>>"$D/log"
    /usr/bin/python3 "$HERE/rows2docs.py" "$D/pool.$d.rows.cal" "$D/pool.$d.chunks.cal"
    cal-pack --allow-partial -l "$LENGTH" --sep eos "$D/target.$d.tok.cal" 2>>"$D/log" |
      /usr/bin/python3 "$HERE/rows2docs.py" - "$D/target.$d.chunks.cal"
    cal-shuffle --allow-partial --seed 0 "$D/held.$d.tok.cal" 2>>"$D/log" |
      cal-pack --allow-partial -l "$LENGTH" --sep eos -n "$HELD" -o "$D/held.$d.rows.cal" 2>>"$D/log"
  done
  cat "$D"/pool.*.chunks.cal >"$D/pool.chunks.cal"
  cat "$D"/pool.*.tok.cal >"$D/pool.tok.cal"
  touch "$D/tokens.done"
fi
