#!/usr/bin/python3
"""dump-activations.py - write the inputs of one layer of a PyTorch model as a
cal-stream of VECTORS records on stdout, for cal-hessian:

    cal-cat -o ids.npy rows.cal          # token rows -> int64 [rows, len]
    python3 dump-activations.py --model model.pt --layer layers.0.mlp.down_proj \\
        --input-ids ids.npy | cal-hessian -o h.safetensors

--model is a whole pickled model (torch.save(model)) or a TorchScript file;
--layer names a submodule (model.named_modules()). Each forward call of that
module writes one VECTORS record: its first input reshaped to [tokens, d].
With --attention-mask (a .npy of 0/1 the shape of the ids) padded positions
are dropped, so they do not enter the Hessian.

The hook itself is small; to use it from your own code:

    from calstream import CalStreamWriter
    w = CalStreamWriter(sys.stdout.buffer, {"source": "my model"})
    h = module.register_forward_hook(vectors_hook(w, "layer name"))
    ... run the model ...
    w.close()        # the END record

VECTORS payload (for other frameworks): u32 n, u32 d, u8 dtype (1 f32, 2 f16,
3 bf16), 3 zero bytes, u32 zero, then n*d little-endian values row after row;
see examples/calstream.py for the record framing and checksums.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from calstream import BF16, F16, F32, CalStreamWriter  # noqa: E402


def vectors_hook(writer, label, dtype="f32", keep=None):
    """A forward hook writing the module's first input as VECTORS records.
    keep: a callable returning a bool mask [batch, seq] of positions to keep
    for the current call, or None for all."""
    import torch

    def hook(module, inputs, output):
        x = inputs[0].detach()
        if keep is not None:
            m = keep()
            if m is not None:
                x = x[torch.as_tensor(m, dtype=torch.bool, device=x.device)]
        x = x.reshape(-1, x.shape[-1]).to("cpu")
        if dtype == "bf16":
            bits = x.to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)
            writer.vectors(label, bits, BF16)
        elif dtype == "f16":
            writer.vectors(label, x.to(torch.float16).numpy(), F16)
        else:
            writer.vectors(label, x.to(torch.float32).numpy(), F32)
    return hook


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True, help="torch.save()d model or TorchScript file")
    ap.add_argument("--layer", required=True, help="submodule name whose inputs are written")
    ap.add_argument("--input-ids", required=True, help=".npy int64 [rows, len] (cal-cat -o ids.npy)")
    ap.add_argument("--attention-mask", help=".npy of 0/1, same shape: padded positions are dropped")
    ap.add_argument("--batch", type=int, default=1, help="rows per forward call (default 1)")
    ap.add_argument("--dtype", choices=("f32", "f16", "bf16"), default="f32",
                    help="dtype of the written vectors (default f32)")
    a = ap.parse_args()
    import torch

    try:
        model = torch.jit.load(a.model)
    except RuntimeError:
        model = torch.load(a.model)
    model.eval()
    mods = dict(model.named_modules())
    if a.layer not in mods:
        close = [n for n in mods if a.layer.split(".")[-1] in n][:5]
        sys.exit(f"dump-activations.py: no layer '{a.layer}'; close names: {', '.join(close) or '(none)'}")
    ids = np.load(a.input_ids)
    mask = np.load(a.attention_mask) if a.attention_mask else None
    if ids.ndim != 2 or (mask is not None and mask.shape != ids.shape):
        sys.exit("dump-activations.py: --input-ids must be [rows, len] and the mask the same shape")
    w = CalStreamWriter(sys.stdout.buffer, {"source": os.path.basename(a.model), "layer": a.layer,
                                            "stage": " ".join(["dump-activations.py"] + sys.argv[1:])})
    cur = {}
    mods[a.layer].register_forward_hook(vectors_hook(w, a.layer, a.dtype, keep=lambda: cur.get("mask")))
    with torch.no_grad():
        for i in range(0, len(ids), a.batch):
            x = torch.as_tensor(ids[i:i + a.batch], dtype=torch.long)
            cur["mask"] = None if mask is None else mask[i:i + a.batch] != 0
            model(x)
    w.close()


if __name__ == "__main__":
    main()
