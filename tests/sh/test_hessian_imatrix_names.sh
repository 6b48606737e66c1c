#!/bin/sh
# The imatrix that cal-hessian writes is found by llama-quantize (issue 25,
# item 5): entries under transformers' module names (by-label results merged
# without --gguf-names) are refused with a one-line error, since
# llama-quantize would ignore them in silence; imatrix.datasets names the
# text the rows came from (the stream's input lines, else its cal-read stage
# lines), not "stdin", when the data came through a pipe. Read back with the
# GGUF reader written from the spec (tests/py/gguf_spec.py).
. tests/lib.sh
export PYTHONPATH="$PWD/tests/sh:$PWD/tests/py"
$PY - "$T" <<'PYEOF' || not_ok "make fixtures"
import sys, numpy as np
from hessian_lib import CalStreamWriter
T = sys.argv[1]
X = np.random.default_rng(25).standard_normal((40, 16)).astype(np.float32)
with open(f"{T}/hf.cal", "wb") as f:  # activations labelled with the modules they feed
    w = CalStreamWriter(f, {"source": "x"})
    w.vectors("model.layers.0.self_attn.q_proj", X[:20]); w.vectors("model.layers.0.mlp.up_proj", X[20:]); w.close()
import json, struct  # an embedding table for llama3's ids, as safetensors
E = np.random.default_rng(1).standard_normal((128256, 8)).astype("<f4")
h = json.dumps({"model.embed_tokens.weight": {"dtype": "F32", "shape": [128256, 8], "data_offsets": [0, E.nbytes]}}).encode()
open(f"{T}/emb.safetensors", "wb").write(struct.pack("<Q", len(h)) + h + E.tobytes())
PYEOF
check "by-label result under transformers' names" cal-hessian --by-label "$T/hf.cal" -o "$T/hf.st"
expect_fail "--merge --imatrix without --gguf-names refuses transformers' names" 1 \
  "imatrix entry 'model.layers.0.self_attn.q_proj' has a transformers module name, which llama-quantize ignores: add --gguf-names to write llama.cpp's \(blk.0.attn_q.weight\)" \
  cal-hessian --merge --imatrix "$T/bad.gguf" "$T/hf.st"
[ -e "$T/bad.gguf" ] && not_ok "nothing written on refusal" || ok "nothing written on refusal"
expect_fail "--by-label --imatrix without --gguf-names refuses too" 1 "add --gguf-names" \
  cal-hessian --by-label --imatrix "$T/bad.gguf" "$T/hf.cal"
check "--merge --gguf-names writes llama.cpp's names" cal-hessian --merge --gguf-names --imatrix "$T/ok.gguf" "$T/hf.st"
names() { $PY -c "
import sys, gguf_spec as G
f = G.read(sys.argv[1])
print(' '.join(sorted(t for t in f.tensors if t.endswith('.in_sum2'))), '|', ' ; '.join(f.kv['imatrix.datasets'][2]))" "$1"; }
eq "entries named blk.N.*.weight" "$(names "$T/ok.gguf" | cut -d'|' -f1)" "blk.0.attn_q.weight.in_sum2 blk.0.ffn_up.weight.in_sum2 "

# datasets: the source the rows came from, through pipes
printf 'One line of text for the calibration set.\nAnother one, a little longer than the first.\n' >"$T/cal.txt"
cal-read "$T/cal.txt" -n 2 | cal-encode -t llama3 | cal-pack -l 4 2>/dev/null |
  cal-hessian --embed "$T/emb.safetensors" --imatrix-name blk.0.attn_q.weight --imatrix "$T/d.gguf"
got=$(names "$T/d.gguf" | cut -d'|' -f2)
case $got in
  " cal-read $T/cal.txt -n 2" | " $T/cal.txt") ok "imatrix.datasets names the text read upstream, not stdin:$got" ;;
  *) not_ok "imatrix.datasets through a pipe" "got:$got" ;;
esac
cal-read "$T/cal.txt" -n 2 | cal-encode -t llama3 | cal-pack -l 4 2>/dev/null >"$T/rows.cal"
cal-hessian --embed "$T/emb.safetensors" --imatrix-name blk.0.attn_q.weight --imatrix "$T/e.gguf" "$T/rows.cal"
got=$(names "$T/e.gguf" | cut -d'|' -f2)
case $got in
  " cal-read $T/cal.txt -n 2" | " $T/cal.txt") ok "... and from a file of rows the text it was made from:$got" ;;
  *) not_ok "imatrix.datasets from a file of rows" "got:$got" ;;
esac
