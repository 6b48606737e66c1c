"""gptq.py - GPTQ (Frantar, Ashkboos, Hoefler, Alistarh, "GPTQ: Accurate
Post-Training Quantization for Generative Pre-trained Transformers", ICLR
2023, Algorithm 1), written anew in torch from the paper, for the quality
bench: the bench must quantize from Hessians that calkit computes, so it
takes H as a matrix rather than collecting it itself.

What it follows (the paper and the authors' defaults in IST-DASLab/gptq):
  - H = sum x x^T over the calibration tokens (any positive scale: the
    result does not depend on it); dead inputs (H_ii = 0) get H_ii = 1 and
    their weights set to 0; damping lambda = percdamp * mean(diag H) with
    percdamp 0.01 added to the diagonal;
  - the upper Cholesky factor U of H^-1 (H^-1 = U^T U): column i is
    quantized, its error e = (w_i - q_i) / U_ii spreads over the columns to
    its right within a block by e * U[i, i:], and over the columns right of
    the block in one lazy batch update, E @ U[block, rest];
  - blocks of 128 columns; columns in their natural order (act-order off) or,
    with act_order, by decreasing H_ii;
  - the quantizer: asymmetric min-max over each output row (per channel, the
    authors' LLaMA default: perchannel=True, sym=False, mse=False) or over
    groups of group_size columns (scale and zero taken, when a group starts,
    from W as the earlier blocks' lazy updates left it, as their code does),
    2^bits levels, zero point rounded to the grid.
Read at IST-DASLab/gptq 2d65066 (gptq.py fasterquant, quant.py Quantizer,
llama.py llama_sequential); no code taken from it. Unlike it, everything is
computed in float64 (the models are small), so the result is a function of
W, H and the options alone."""
import torch


def minmax_params(w, bits):
    """Scale and zero point per row of w [rows, cols] for an asymmetric
    min-max grid of 2^bits levels that always holds 0."""
    maxq = 2 ** bits - 1
    lo = torch.clamp(w.min(1).values, max=0)
    hi = torch.clamp(w.max(1).values, min=0)
    flat = (lo == 0) & (hi == 0)
    lo[flat], hi[flat] = -1, 1
    scale = (hi - lo) / maxq
    zero = torch.round(-lo / scale)
    return scale, zero


def quantize(w, scale, zero, bits):
    """w [rows] or [rows, k] onto the grid of (scale, zero): the dequantized values."""
    if w.dim() == 2:
        scale, zero = scale[:, None], zero[:, None]
    q = torch.clamp(torch.round(w / scale) + zero, 0, 2 ** bits - 1)
    return scale * (q - zero)


def rtn(W, bits, group_size=0):
    """Round to nearest on the same grid, the baseline GPTQ improves on."""
    W = W.double()
    g = group_size or W.shape[1]
    Q = torch.empty_like(W)
    for j in range(0, W.shape[1], g):
        s, z = minmax_params(W[:, j:j + g], bits)
        Q[:, j:j + g] = quantize(W[:, j:j + g], s, z, bits)
    return Q


def gptq(W, H, bits, percdamp=0.01, block=128, group_size=0, act_order=False):
    """The GPTQ-quantized (dequantized) weights of W [out, in] for the input
    Hessian H [in, in]; float64 [out, in]."""
    W = W.detach().double().clone()
    H = H.detach().double().clone()
    cols = W.shape[1]
    if not group_size:  # per channel: taken before dead inputs are zeroed, as the authors' code does
        scale, zero = minmax_params(W, bits)
    dead = torch.diag(H) == 0
    H[dead, dead] = 1
    W[:, dead] = 0
    perm = None
    if act_order:
        perm = torch.argsort(torch.diag(H), descending=True)
        W, H = W[:, perm], H[perm][:, perm]
    H += percdamp * torch.mean(torch.diag(H)) * torch.eye(cols, dtype=H.dtype)
    U = torch.linalg.cholesky(torch.cholesky_inverse(torch.linalg.cholesky(H)), upper=True)
    Q = torch.zeros_like(W)
    for i1 in range(0, cols, block):
        i2 = min(i1 + block, cols)
        W1, U1 = W[:, i1:i2].clone(), U[i1:i2, i1:i2]
        E1 = torch.zeros_like(W1)
        for i in range(i2 - i1):
            if group_size and (i1 + i) % group_size == 0:
                scale, zero = minmax_params(W[:, i1 + i:i1 + i + group_size], bits)
            w = W1[:, i]
            q = quantize(w, scale, zero, bits)
            Q[:, i1 + i] = q
            e = (w - q) / U1[i, i]
            W1[:, i:] -= e[:, None] * U1[i, i:][None, :]
            E1[:, i] = e
        W[:, i2:] -= E1 @ U[i1:i2, i2:]
    if perm is not None:
        Q = Q[:, torch.argsort(perm)]
    return Q


def objective(W, Q, H):
    """GPTQ's objective on inputs whose Hessian is H = X X^T:
    ||(W - Q) X||^2 / ||W X||^2 = tr(D H D^T) / tr(W H W^T), D = W - Q."""
    W, Q, H = W.double(), Q.double(), H.double()
    D = W - Q
    return float(((D @ H) * D).sum() / ((W @ H) * W).sum())
