#!/bin/sh
# examples/dump-activations.py | cal-hessian on a tiny PyTorch model (needs
# Debian's python3-torch; skipped without it).
. tests/lib.sh
export PYTHONPATH="$PWD/tests/sh"
if ! $PY -c "import torch" 2>/dev/null; then
  skip "dump-activations.py" "python3-torch is not installed"
  exit 0
fi
$PY - "$T" <<'PYEOF' || not_ok "make model"
import sys, numpy as np, torch
from hessian_lib import tiny_torch_model
T = sys.argv[1]
m, ids = tiny_torch_model(f"{T}/m.pt")
mask = np.ones_like(ids); mask[0, :7] = 0
np.save(f"{T}/ids.npy", ids); np.save(f"{T}/mask.npy", mask)
# The reference runs the same batches (4 rows, then 2) as the script, so the
# float32 activations are bit-identical and only the accumulation differs.
with torch.no_grad():
    X = np.concatenate([m[:3](torch.as_tensor(ids[i:i + 4]))[torch.as_tensor(mask[i:i + 4] != 0)].double().numpy()
                        for i in (0, 4)])
np.save(f"{T}/X.npy", X)
PYEOF
check "dump | cal-hessian" sh -c "$PY examples/dump-activations.py --model '$T/m.pt' --layer 3 --input-ids '$T/ids.npy' \
  --attention-mask '$T/mask.npy' --batch 4 | cal-hessian --dtype f64 -o '$T/h.st'"
$PY - "$T" <<'PYEOF'
import sys, numpy as np
from hessian_lib import *
T = sys.argv[1]
X = np.load(f"{T}/X.npy"); t, meta = st_read(f"{T}/h.st")
close("layer inputs' H = numpy", t["hessian"], X.T @ X, 1e-9)
report("padded positions dropped; one record per row of a batch", int(t["tokens"][0]) == 293 and int(t["rows"][0]) == 6, (t["tokens"], t["rows"]))
report("stream metadata carried", meta.get("layer") == "3", meta)
PYEOF
expect_fail "unknown layer" 1 "no layer 'nope'" $PY examples/dump-activations.py --model "$T/m.pt" --layer nope --input-ids "$T/ids.npy"
