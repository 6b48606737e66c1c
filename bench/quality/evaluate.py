"""evaluate.py - how well a quantized model does on held-out rows of each
domain, against the full-precision model:
  - GPTQ's objective out of sample: for every linear layer,
    ||(W - Q) X||^2 / ||W X||^2 = tr(D H D^T) / tr(W H W^T) (D = W - Q),
    where X holds the layer's inputs in the full-precision model on the
    domain's held-out rows and H = X X^T is calkit's Hessian of them (one
    cal-hessian --by-label run per domain, kept); the same X for every set,
    so every selector is measured on one yardstick;
  - perplexity on the held-out rows (next-token, unpadded positions);
  - the mean KL divergence per token from the full-precision model's
    next-token distribution (llama.cpp's KLD), which moves before
    perplexity does."""
import math
import os

import numpy as np
import torch

from hessians import cal_hessian, read_by_label
from sequential import forward, run_model


def batches_of(rows, size=8):
    """[(ids int64 [b, t], mask bool [b, t])] of consecutive rows of one length."""
    out, i = [], 0
    while i < len(rows):
        j = i
        while j < len(rows) and j - i < size and len(rows[j][1]) == len(rows[i][1]):
            j += 1
        part = rows[i:j]
        out.append((np.stack([r[1] for r in part]),
                    np.stack([np.ones(len(r[1]), bool) if r[2] is None else r[2] for r in part])))
        i = j
    return out


class Reference:
    """The full-precision model's yardstick on one domain's held-out rows:
    its layers' Hessians (cached in hess_path) and next-token log-probs."""

    def __init__(self, model, rows, hess_path):
        self.batches = batches_of(rows)
        names = {n: m for n, m in model.named_modules() if isinstance(m, torch.nn.Linear)}
        if os.path.exists(hess_path):
            self.H = read_by_label(hess_path)
        else:
            tmp = f"{hess_path}.{os.getpid()}.tmp"  # side-by-side jobs may make it at once
            self.H = cal_hessian(lambda cur: run_model(model, self.batches, cur), names, by_label=True, out=tmp)
            os.replace(tmp, hess_path)
        self.H = {n: torch.as_tensor(h) for n, h in self.H.items()}
        self.W = {n: m.weight.detach().double().clone() for n, m in names.items()}
        self.WHW = {n: float(((self.W[n] @ self.H[n]) * self.W[n]).sum()) for n in names}
        self.logp = self.logprobs(model)

    def logprobs(self, model):
        out = []
        with torch.no_grad():
            for ids, mask in self.batches:
                lg = forward(model, ids, mask)
                out.append(torch.log_softmax(lg[:, :-1].float(), -1))
        return out

    def score(self, model, quick=False):
        """{"objective": {layer: ratio}, "objective_mean", "ppl", "kld"}."""
        obj = {}
        for n, m in model.named_modules():
            if n in self.W:
                D = self.W[n] - m.weight.detach().double()
                obj[n] = float(((D @ self.H[n]) * D).sum()) / self.WHW[n]
        res = {"objective": obj, "objective_mean": float(np.mean(list(obj.values())))}
        if quick:
            return res
        nll = kl = count = 0.0
        qlp = self.logprobs(model)
        for (ids, mask), p, q in zip(self.batches, self.logp, qlp):
            tgt = torch.as_tensor(ids[:, 1:])
            keep = torch.as_tensor(mask[:, 1:] & mask[:, :-1])
            nll -= float(q.gather(-1, tgt[..., None])[..., 0][keep].sum())
            kl += float((p.exp() * (p - q)).sum(-1)[keep].sum())
            count += float(keep.sum())
        res["ppl"] = math.exp(nll / count)
        res["kld"] = kl / count
        return res

    def fp_ppl(self):
        nll = count = 0.0
        for (ids, mask), p in zip(self.batches, self.logp):
            tgt = torch.as_tensor(ids[:, 1:])
            keep = torch.as_tensor(mask[:, 1:] & mask[:, :-1])
            nll -= float(p.gather(-1, tgt[..., None])[..., 0][keep].sum())
            count += float(keep.sum())
        return math.exp(nll / count)

