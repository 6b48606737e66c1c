#!/bin/sh
# The README pipeline on a tiny random model:
#   cal-read | cal-encode -t TOKENIZER | cal-pack -l L -n N | cal-hessian --embed model.safetensors
# checked against numpy on the packed rows (cal-cat -o rows.npy). Skipped
# until cal-read, cal-encode, cal-pack and the fetched mistral tokenizer
# (make tokenizers) are present.
. tests/lib.sh
export PYTHONPATH="$PWD/tests/sh"
TOK=build/tokenizers/mistral/tokenizer.json
for p in cal-read cal-encode cal-pack cal-cat; do
  command -v $p >/dev/null 2>&1 || { skip "README pipeline" "$p is not built yet"; exit 0; }
done
[ -f "$TOK" ] || { skip "README pipeline" "$TOK missing (make tokenizers)"; exit 0; }
$PY - "$T" <<'PYEOF' || not_ok "make corpus"
import json, sys
T = sys.argv[1]
text = open("/usr/share/common-licenses/GPL-3").read()
with open(f"{T}/docs.jsonl", "w") as f:
    for k, para in enumerate(text.split("\n\n")):
        if para.strip():
            f.write(json.dumps({"text": para}) + "\n")
PYEOF
check "tiny model" $PY examples/make-tiny-model.py --vocab 32000 --dim 64 -o "$T/model.safetensors"
check "pipeline" sh -c "cal-read '$T/docs.jsonl' | cal-encode -t '$TOK' | cal-pack -l 256 -n 16 > '$T/rows.cal' &&
  cal-hessian --embed '$T/model.safetensors' --rmsnorm model.layers.0.input_layernorm.weight --eps 1e-5 \
    --dtype f64 -o '$T/h.safetensors' < '$T/rows.cal'"
check "rows as npy" cal-cat -o "$T/rows.npy" "$T/rows.cal"
$PY - "$T" <<'PYEOF'
import sys, numpy as np
from hessian_lib import *
T = sys.argv[1]
t, meta = st_read(f"{T}/h.safetensors")
m, _ = st_read(f"{T}/model.safetensors")
ids = np.load(f"{T}/rows.npy")
X = rmsnorm(m["model.embed_tokens.weight"].astype(np.float64)[ids.reshape(-1)],
            m["model.layers.0.input_layernorm.weight"].astype(np.float64), 1e-5)
report("pipeline rows counted", int(t["rows"][0]) == ids.shape[0] and int(t["tokens"][0]) == ids.size,
       (t["rows"], t["tokens"], ids.shape))
close("pipeline H = numpy", t["hessian"], X.T @ X, 1e-9)
report("pipeline metadata has every stage", all(s in meta.get("stage", "") for s in ("cal-encode", "cal-pack", "cal-hessian")), meta)
PYEOF
