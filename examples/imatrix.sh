#!/bin/sh
# imatrix.sh - llama.cpp's importance matrix for every linear layer of a
# PyTorch model, in one run: text -> tokens -> rows -> the layers' inputs
# (examples/dump-activations.py --all-linear) -> one imatrix.gguf
# (cal-hessian --by-label --gguf-names), which llama-quantize --imatrix reads.
#
# The model is a torch.save()d module (or TorchScript) with transformers'
# module names (model.layers.N.self_attn.q_proj, ... lm_head); its vocabulary
# must cover the tokenizer's ids. The text is a built-in corpus (default
# wiki) or a file; rows of LENGTH tokens (default 512, llama-imatrix's chunk),
# ROWS of them (default 100), cut as cal-pack's concat mode does with SEED.
# With -H FILE the per-layer Hessians and statistics go to FILE too.
#
# Usage: imatrix.sh -m MODEL [-t TOKENIZER] [-i TEXT] [-o OUT.gguf] [-H FILE] [-n ROWS] [-l LENGTH] [-s SEED] [-b BATCH]
. "$(dirname "$0")/common.sh"
OUT=imatrix.gguf
IN=wiki
ROWS=100
LENGTH=512
BATCH=1
MODEL=
HESS=
while getopts m:t:i:o:H:n:l:s:b:h f; do
  case $f in
    m) MODEL=$OPTARG ;; t) TOK=$OPTARG ;; i) IN=$OPTARG ;; o) OUT=$OPTARG ;; H) HESS=$OPTARG ;;
    n) ROWS=$OPTARG ;; l) LENGTH=$OPTARG ;; s) SEED=$OPTARG ;; b) BATCH=$OPTARG ;;
    *) usage ;;
  esac
done
[ -n "$MODEL" ] || usage
[ -f "$MODEL" ] || die "$MODEL: no such model file"
MODEL=$(abs "$MODEL")
[ -n "$HESS" ] && HESS=$(abs "$HESS")
work_dir
tokens "$IN" "$WORK/t.cal"
cal-pack -l "$LENGTH" -n "$ROWS" --seed "$SEED" "$WORK/t.cal" -o "$WORK/rows.cal" || die "packing failed"
# A failing dump shows in its status, not only as a cut stream.
{ /usr/bin/python3 "$ROOT/examples/dump-activations.py" --model "$MODEL" --all-linear --rows "$WORK/rows.cal" \
    --batch "$BATCH"; echo $? >"$WORK/dump.status"; } |
  cal-hessian --by-label --gguf-names --imatrix "$OUT" ${HESS:+-o "$HESS"} || die "cal-hessian failed"
[ "$(cat "$WORK/dump.status")" = 0 ] || die "dump-activations.py failed"
echo "imatrix of every linear layer: $ROWS rows of $LENGTH tokens from $IN -> $OUT"
