#!/bin/sh
# run.sh - the calibration-quality bench (make quality; see README.md here):
# prepares the data (prepare.sh), trains the small model once (train.py) or
# takes MODEL, makes the selectors' sets (sets.sh), quantizes the model with
# GPTQ from each set at each of BITS (quality.py, Hessians by cal-hessian),
# and writes the comparison (report.py) to $Q/report.md and $Q/quality.svg.
# Everything is kept in $Q and reused: a rerun does only what changed.
#
# Variables (make quality VAR=value ...; defaults in brackets):
#   SETS       your own candidate sets (ROW streams, the model's tokenizer);
#              files named NAME.sN.cal count as seeds of NAME. With SETS the
#              built-in selectors run only when SELECTORS is given.
#   MODEL      your model (torch.save()d module or TorchScript with
#              transformers' module names, forward(input_ids, attention_mask));
#              needs TOKENIZER, the tokenizer its ids come from
#   SELECTORS  [wiki random stratify blend kmeans kmeans-embed kcenter like-DOMAIN...]
#   SEEDS [0 1 2 3 4]  BITS [3 4]  ROWS [48]  LENGTH [256]  HELD [16]
#   VOCAB [4096]  DIM [128]  LAYERS [4]  HEADS [4]  STEPS [300]  BATCH [16]
#   JOBS [1]   quality.py processes side by side
#   QUICK      1: the held-out objective only (no perplexity, no KLD)
#   QUALITY_DIR [build/quality, build/quality-tiny]   SIZE=tiny: the make check configuration
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$ROOT/bench/quality
PATH="${CAL_BIN:-$ROOT/bin}:$PATH"
export PATH
PY=/usr/bin/python3
DOMAINS="web wiki code multilingual technical stories"
if [ -n "${SETS:-}" ]; then : "${SELECTORS=}"; fi
if [ "${SIZE:-}" = tiny ]; then  # seconds: the harness's own test
  : "${VOCAB:=512}" "${COVERAGE:=0.98}" "${DIM:=32}" "${LAYERS:=2}" "${HEADS:=2}" "${STEPS:=100}" "${BATCH:=8}"
  : "${LENGTH:=64}" "${ROWS:=12}" "${HELD:=4}" "${SEEDS:=0}" "${SAMPLE:=3}"
  : "${SELECTORS=code stories blend}" "${BITS:=3}" "${POOL_SHARDS:=2 3}"
fi
: "${VOCAB:=4096}" "${DIM:=128}" "${LAYERS:=4}" "${HEADS:=4}" "${STEPS:=300}" "${BATCH:=16}"
: "${LENGTH:=256}" "${ROWS:=48}" "${HELD:=16}" "${SEEDS:=0 1 2 3 4}" "${BITS:=3 4}" "${JOBS:=1}"
likes=$(for d in $DOMAINS; do printf ' like-%s' "$d"; done)
: "${SELECTORS=wiki random stratify blend kmeans kmeans-embed kcenter$likes}"
Q=${QUALITY_DIR:-$ROOT/build/quality${SIZE:+-$SIZE}}
mkdir -p "$Q"
Q=$(cd "$Q" && pwd)
export Q VOCAB LENGTH HELD DOMAINS ROWS SEEDS SELECTORS
[ -n "${POOL_SHARDS:-}" ] && export POOL_SHARDS
[ -n "${SAMPLE:-}" ] && export SAMPLE
[ -n "${COVERAGE:-}" ] && export COVERAGE
if [ -n "${MODEL:-}" ]; then
  [ -n "${TOKENIZER:-}" ] || { echo "run.sh: MODEL needs TOKENIZER (the tokenizer its ids come from)" >&2; exit 2; }
  [ -f "$MODEL" ] || { echo "run.sh: $MODEL: no such model file" >&2; exit 2; }
  export TOKENIZER
fi

sh "$HERE/prepare.sh"
if [ -n "${MODEL:-}" ]; then
  model=$MODEL
else
  model=$Q/model.pt
  conf="d=$DIM layers=$LAYERS heads=$HEADS steps=$STEPS batch=$BATCH; $(cat "$Q/data.conf")"
  if [ ! -f "$model" ] || [ "$(cat "$Q/model.conf" 2>/dev/null)" != "$conf" ]; then
    $PY "$HERE/train.py" --rows "$Q"/data/pool.*.rows.cal --vocab "$VOCAB" --d "$DIM" --layers "$LAYERS" \
      --heads "$HEADS" --steps "$STEPS" --batch "$BATCH" -o "$model"
    echo "$conf" >"$Q/model.conf"
  fi
fi
# The model's embedding table for kmeans-embed; its sets go with the model.
mdig=$(sha256sum "$model" | cut -c1-16)
case " $SELECTORS " in
  *" kmeans-embed "*)
    if [ "$(cat "$Q/embed.digest" 2>/dev/null)" != "$mdig" ]; then
      $PY "$HERE/embed.py" "$model" "$Q/embed.safetensors"
      rm -f "$Q"/sets/kmeans-embed.*
      echo "$mdig" >"$Q/embed.digest"
    fi ;;
esac
[ -n "$SELECTORS" ] && sh "$HERE/sets.sh"

held='' sets=''
for d in $DOMAINS; do held="$held $d=$Q/data/held.$d.rows.cal"; done
for sel in $SELECTORS; do
  for s in $SEEDS; do [ -f "$Q/sets/$sel.s$s.cal" ] && sets="$sets $sel.s$s=$Q/sets/$sel.s$s.cal"; done
done
for f in ${SETS:-}; do
  [ -f "$f" ] || { echo "run.sh: $f: no such set" >&2; exit 2; }
  n=$(basename "$f"); sets="$sets ${n%.cal}=$f"
done
[ -n "$sets" ] || { echo "run.sh: no sets to compare" >&2; exit 2; }

# Results are kept per model and held-out rows: new ones start a new folder.
# shellcheck disable=SC2086
hdig=$(for x in $held; do cat "${x#*=}"; done | sha256sum | cut -c1-8)
res=$Q/results/$mdig-$hdig
mkdir -p "$res"
i=0 pids=
while [ $i -lt "$JOBS" ]; do
  # shellcheck disable=SC2086
  $PY "$HERE/quality.py" --model "$model" --held $held --set $sets --bits $BITS --cache "$res/cache" \
    --job $i/"$JOBS" ${QUICK:+--quick} --out "$res/results.$i.jsonl" &
  pids="$pids $!"
  i=$((i + 1))
done
st=0
for p in $pids; do wait "$p" || st=1; done
[ $st = 0 ] || { echo "run.sh: quality.py failed" >&2; exit 1; }
names=$(for x in $sets; do printf '%s\n' "${x%%=*}"; done)
# shellcheck disable=SC2086
$PY "$HERE/report.py" "$res"/results.*.jsonl --md "$Q/report.md" --svg "$Q/quality.svg" --json "$Q/report.json" \
  --only $names  # one name a word
echo "run.sh: the comparison is in $Q/report.md and $Q/quality.svg"
