#!/usr/bin/python3
"""train.py - trains the bench's small causal LM (model.py) on CPU from the
pool's rows, deterministically: fixed seeds, torch.use_deterministic_algorithms,
one thread (a thread count changes float sums), batches drawn by a seeded
torch.Generator. The same inputs give the same model bytes on one machine
kind (other CPUs may pick other BLAS kernels).

    train.py --rows A.cal [B.cal ...] --vocab V -o model.pt [--d 128 --layers 4 ...]

Writes model.pt (torch.save of the module: loading it needs model.py on
sys.path) and model.pt.json (configuration, loss curve, CPU time).
AdamW, linear warm-up then cosine decay to a tenth, gradient clipping at 1."""
import argparse
import json
import math
import os
import sys
import time

# One BLAS thread: torch.set_num_threads does not reach OpenBLAS's own pool,
# whose idle threads spin (a third more CPU time here), and JOBS runs
# processes side by side anyway. Set before numpy or torch loads OpenBLAS.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from calio import read_rows  # noqa: E402
from model import QualityLM  # noqa: E402


def train(data, vocab, d=128, f=0, layers=4, heads=4, steps=300, batch=16, lr=3e-3, seed=0, log=None):
    """The trained QualityLM (eval mode) and its losses, from data (int64
    tensor [rows, length]): the same result for the same arguments."""
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(seed)
    f = f or -(-8 * d // 3 // 32) * 32
    model = QualityLM(vocab, d, f, layers, heads)
    decay = [p for p in model.parameters() if p.dim() == 2]
    other = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": other, "weight_decay": 0.0}],
                            lr=lr, betas=(0.9, 0.95))
    warm = max(1, steps // 20)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: (s + 1) / warm if s < warm else 0.1 + 0.45 * (1 + math.cos(math.pi * (s - warm) / max(1, steps - warm))))
    gen = torch.Generator().manual_seed(seed)
    t0, losses = time.process_time(), []
    for step in range(steps):
        x = data[torch.randint(0, len(data), (batch,), generator=gen)]
        logits = model(x[:, :-1])
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, vocab), x[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        losses.append(round(loss.item(), 4))
        if log and (step % 50 == 0 or step == steps - 1):
            log(f"train.py: step {step} loss {loss.item():.3f} ({time.process_time() - t0:.0f} s CPU)")
    return model.eval(), losses


def read_training_rows(paths, vocab):
    """The unpadded rows of the streams as one int64 tensor [rows, length]."""
    rows = []
    for p in paths:
        meta, r = read_rows(p)
        rows += [ids for _, ids, mask in r if mask is None]
    if not rows or len({len(r) for r in rows}) != 1:
        sys.exit("train.py: the training rows must be unpadded and of one length")
    data = torch.as_tensor(np.stack(rows))
    if int(data.max()) >= vocab:
        sys.exit(f"train.py: token id {int(data.max())} is outside --vocab {vocab}")
    return data


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", nargs="+", required=True, help="cal-streams of ROW records to train on")
    ap.add_argument("--vocab", type=int, required=True)
    ap.add_argument("--d", type=int, default=128)
    ap.add_argument("--f", type=int, default=0, help="MLP width (default: 8/3 d rounded up to 32)")
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    data = read_training_rows(a.rows, a.vocab)
    t0 = time.process_time()
    model, losses = train(data, a.vocab, a.d, a.f, a.layers, a.heads, a.steps, a.batch, a.lr, a.seed,
                          log=lambda m: print(m, file=sys.stderr))
    tmp = a.output + ".tmp"
    torch.save(model, tmp)
    os.replace(tmp, a.output)
    info = dict(model.config, steps=a.steps, batch=a.batch, lr=a.lr, seed=a.seed, rows=len(data),
                row_length=data.shape[1], tokens_seen=a.steps * a.batch * (data.shape[1] - 1),
                cpu_s=round(time.process_time() - t0, 1), loss=losses)
    with open(a.output + ".json", "w") as fh:
        json.dump(info, fh)


if __name__ == "__main__":
    main()
