#!/bin/sh
# imatrix.sh - llama.cpp's importance matrix, two ways.
#
# llama.cpp route (-T FILE.txt): calkit writes the calibration text that
# `llama-imatrix -f FILE.txt` reads: the sources (-i, repeatable: built-in
# corpora or files; -D drops exact duplicates, -S N keeps a seeded sample
# of N documents, seed -s) joined by a blank line ("\n\n": llama-imatrix
# reads the file as one text, so documents need a plain-text separator; a
# special token such as <|endoftext|> is only parsed with its
# --parse-special), ending in one newline, which llama-imatrix's -f
# removes. It then prints the llama-imatrix command for rows of LENGTH.
#
# calkit route (-m MODEL): the same text -> tokens -> llama-imatrix's chunks
# (cal-pack --mode llama: the whole text with BOS first, rows of LENGTH,
# default 512 as llama-imatrix's -c, whose first token becomes BOS; -K skips
# K chunks as its --chunk, -n ROWS caps them as its --chunks) -> the inputs
# of every linear layer (examples/dump-activations.py --all-linear) -> one
# imatrix.gguf (cal-hessian --by-label --gguf-names; OUT.dat: the legacy
# format), which llama-quantize --imatrix reads. As llama-imatrix,
# output.weight (lm_head) is left out unless -P (its --process-output).
# The model is a torch.save()d module (the pickled object, as
# torch.save(model) writes it) with transformers' module names
# (model.layers.N.self_attn.q_proj, ... lm_head) whose vocabulary covers
# the tokenizer's ids; a TorchScript file is refused (its layers take no
# forward hooks). With -H FILE the per-layer Hessians and statistics go to
# FILE too.
#
# Defaults: -i wiki -t llama3 -n 100 -l 512 -K 0 -b 1 -s 0 -o imatrix.gguf (in the current directory)
# tests/sh/test_examples_defaults.sh runs the calkit route at these with a
# tiny random model (tests/py/tiny_llama.py: no position limit, an embedding
# over Llama 3's ids), against llama-imatrix's chunks through the model.
#
# Usage: imatrix.sh -m MODEL [-i SOURCE]... [-t TOKENIZER] [-o OUT.gguf] [-H FILE] [-n ROWS] [-l LENGTH] [-K SKIP] [-b BATCH] [-P] [-D] [-S N] [-s SEED]
#        imatrix.sh -T FILE.txt [-i SOURCE]... [-n ROWS] [-l LENGTH] [-D] [-S N] [-s SEED]
. "$(dirname "$0")/common.sh"
OUT=imatrix.gguf
IN=
ROWS=100
LENGTH=512
BATCH=1
MODEL= HESS= TEXT= SKIP=0 OUTPUT_W= DEDUP= SAMPLE=
while getopts m:t:i:o:H:n:l:s:b:T:K:PDS:h f; do
  case $f in
    m) MODEL=$OPTARG ;; t) TOK=$OPTARG ;; i) IN="$IN $OPTARG" ;; o) OUT=$OPTARG ;; H) HESS=$OPTARG ;;
    n) ROWS=$OPTARG ;; l) LENGTH=$OPTARG ;; s) SEED=$OPTARG ;; b) BATCH=$OPTARG ;; T) TEXT=$OPTARG ;;
    K) SKIP=$OPTARG ;; P) OUTPUT_W=--process-output ;; D) DEDUP=--dedup ;; S) SAMPLE=$OPTARG ;;
    *) usage ;;
  esac
done
IN=$(echo ${IN:-wiki})
[ -n "$MODEL" ] || [ -n "$TEXT" ] || usage
[ -z "$MODEL" ] || [ -f "$MODEL" ] || die "$MODEL: no such model file"
# the cal-read options of the text (the same for both routes)
READ="$DEDUP${SAMPLE:+ --sample $SAMPLE --seed $SEED} --join \\n\\n"

if [ -n "$TEXT" ]; then  # the llama.cpp route: the text file only
  # shellcheck disable=SC2086
  cal-read $READ $IN | cal-cat --text >"$TEXT.tmp" && mv "$TEXT.tmp" "$TEXT" ||
    { rm -f "$TEXT.tmp"; die "writing $TEXT failed"; }
  echo "calibration text for llama-imatrix ($(wc -c <"$TEXT") bytes from $IN) -> $TEXT"
  [ "$SKIP" = 0 ] && SKIP=
  echo "  llama-imatrix -m MODEL.gguf -f $TEXT -c $LENGTH --chunks $ROWS${SKIP:+ --chunk $SKIP} -o imatrix.gguf"
  exit 0
fi

MODEL=$(abs "$MODEL")
[ -n "$HESS" ] && HESS=$(abs "$HESS")
ABS=
for s in $IN; do if [ -e "$s" ]; then ABS="$ABS $(abs "$s")"; else ABS="$ABS $s"; fi; done
work_dir
# shellcheck disable=SC2086
set -- $ABS  # tokens reads its CORPUS last: the other sources go first, in order
eval "LAST=\${$#}"
[ $# -gt 1 ] && OTHERS=$(echo $ABS | sed 's/ [^ ]*$//') || OTHERS=
# shellcheck disable=SC2086
tokens "$LAST" "$WORK/t.cal" $READ $OTHERS
cal-pack -l "$LENGTH" --mode llama --skip-chunks "$SKIP" -n "$ROWS" --allow-short -v "$WORK/t.cal" \
  -o "$WORK/rows.cal" 2>"$WORK/pack.err" || die "cutting the text into rows failed: $(tail -1 "$WORK/pack.err")"
rows=$(sed -n 's/.* -> \([0-9]*\) rows of .*/\1/p' "$WORK/pack.err")
# Each step's failure is its own: a dump that fails leaves cal-hessian a cut
# stream, so the dump's status is looked at first.
{ /usr/bin/python3 "$ROOT/examples/dump-activations.py" --model "$MODEL" --all-linear $OUTPUT_W --rows "$WORK/rows.cal" \
    --batch "$BATCH" 2>"$WORK/dump.err"; echo $? >"$WORK/dump.status"; } |
  cal-hessian --by-label --gguf-names --imatrix "$OUT" ${HESS:+-o "$HESS"} 2>"$WORK/hessian.err"
hs=$?
[ "$(cat "$WORK/dump.status")" = 0 ] || die "dump-activations.py failed: $(tail -1 "$WORK/dump.err")"
[ "$hs" = 0 ] || die "cal-hessian failed: $(tail -1 "$WORK/hessian.err")"
echo "imatrix of every linear layer: $rows rows of $LENGTH tokens (llama-imatrix's chunks) from $IN -> $OUT"
