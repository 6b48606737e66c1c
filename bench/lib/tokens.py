"""tokens.py OUT MB SEED [LABELS] - a cal-stream of TOKENS records for the
benchmarks: distinct documents of 64 to 4095 ids drawn uniformly below
128256 (numpy's default_rng(SEED)), MB megabytes, one header, no block
repeated (a repeated block would flatter whatever caches or compresses).
LABELS: comma-separated labels taken in turn (default "bench")."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples"))
import calstream as cs  # noqa: E402

out, mb, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
labels = (sys.argv[4] if len(sys.argv) > 4 else "bench").split(",")
r = np.random.default_rng(seed)
n = cnt = 0
with open(out, "wb") as f:
    f.write(cs.header([("tokenizer", "bench"), ("vocab", "128256"), ("bos", "1"), ("eos", "2")]))
    while n < mb << 20:
        ids = r.integers(0, 128256, int(r.integers(64, 4096)), dtype="<u4")
        rec = cs.record(cs.TOKENS, labels[cnt % len(labels)], int(r.integers(0, 2**63)), ids.tobytes())
        f.write(rec)
        n, cnt = n + len(rec), cnt + 1
    f.write(cs.end(cnt))
print(cnt)
