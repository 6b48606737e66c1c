#!/usr/bin/python3
"""dump-activations.py - write the inputs of the linear layers of a PyTorch
model as a cal-stream of VECTORS records on stdout, for cal-hessian:

    python3 dump-activations.py --model model.pt --all-linear --rows rows.cal |
        cal-hessian --by-label --gguf-names -o h.safetensors --imatrix imatrix.gguf
    python3 dump-activations.py --model model.pt --layer model.layers.0.mlp.down_proj \\
        --input-ids ids.npy | cal-hessian -o h.safetensors

--model is a whole pickled model (torch.save(model)); a TorchScript file is
refused: its layers are no torch.nn.Linear and take no forward hooks.
--all-linear hooks every torch.nn.Linear (in a transformers Llama, Qwen,
Gemma or Mistral model: model.layers.N.self_attn.{q,k,v,o}_proj,
model.layers.N.mlp.{gate,up,down}_proj, MoE experts) but lm_head, which
llama-imatrix leaves out too unless --process-output; --layer names one
submodule (model.named_modules()) and may be repeated. Each forward call
of a hooked module writes one VECTORS record per row of the batch (an
imatrix chunk), labelled with the module's name
(cal-hessian --by-label accumulates per label, --gguf-names maps the names to
llama.cpp's): its first input reshaped to [tokens, d], padded positions
dropped so they do not enter the Hessian (from inputs laid out [batch, seq,
d] or [batch*seq, d]; a MoE expert's routed tokens cannot be told apart, so
there padded tokens stay, with a warning). An expert that no token reaches
writes nothing.

The rows come from a calkit stream of ROW records (--rows FILE, - for stdin:
their masks are used, noise rows are skipped) or from .npy files (--input-ids,
--attention-mask). Consecutive rows of one length are run --batch at a time;
a model whose forward takes attention_mask gets the rows' mask.

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
import inspect
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from calstream import BF16, F16, F32, CalStreamWriter  # noqa: E402


def keep_rows(x, m):
    """x's token vectors [tokens, d], one tensor per row of the batch, at the
    positions m (bool [batch, seq]) keeps. An input laid out [batch, seq, d]
    or flattened to [batch*seq, d] is split and masked; another (a MoE
    expert's routed tokens) is kept whole, as one tensor, and the second
    value is None to say so."""
    import torch

    m = torch.as_tensor(m, dtype=torch.bool, device=x.device)
    if x.dim() == 2 and x.shape[0] == m.numel():
        x = x.reshape(*m.shape, x.shape[-1])
    if tuple(x.shape[:-1]) == tuple(m.shape):
        return [x[i][m[i]] for i in range(m.shape[0])], True
    return [x.reshape(-1, x.shape[-1])], None


def vectors_hook(writer, label, dtype="f32", keep=None):
    """A forward hook writing the module's first input as VECTORS records,
    one per row of the batch (a row is a chunk of llama.cpp's imatrix).
    keep: a callable returning a bool mask [batch, seq] of positions to keep
    for the current call, or None for all."""
    import torch
    warned = []

    def hook(module, inputs, output):
        x = inputs[0].detach()
        m = keep() if keep is not None else None
        if m is None:
            m = torch.ones(x.shape[:-1] if x.dim() > 2 else (1, x.shape[0]), dtype=torch.bool)
        parts, ok = keep_rows(x, m)
        if ok is None and not m.all() and not warned:
            warned.append(1)
            print(f"dump-activations.py: {label}: its input ({x.shape[0]} tokens) is not laid out as "
                  "the batch, so its padded positions are kept", file=sys.stderr)
        for x in parts:
            x = x.to("cpu")
            if dtype == "bf16":
                bits = x.to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)
                writer.vectors(label, bits, BF16)
            elif dtype == "f16":
                writer.vectors(label, x.to(torch.float16).numpy(), F16)
            else:
                writer.vectors(label, x.to(torch.float32).numpy(), F32)
    return hook


def hook_layers(model, writer, names, dtype="f32", keep=None):
    """Registers vectors_hook on each named submodule (label = its name);
    names None: every torch.nn.Linear. Returns the names hooked."""
    import torch

    mods = dict(model.named_modules())
    if names is None:
        names = [n for n, m in mods.items() if isinstance(m, torch.nn.Linear)]
        if not names:
            sys.exit("dump-activations.py: the model has no torch.nn.Linear modules")
    for n in names:
        if n not in mods:
            close = [m for m in mods if n.split(".")[-1] in m][:5]
            sys.exit(f"dump-activations.py: no layer '{n}'; close names: {', '.join(close) or '(none)'}")
        mods[n].register_forward_hook(vectors_hook(writer, n, dtype, keep))
    return names


def stream_rows(path):
    """(ids, mask or None) of each ROW record of a calkit stream; noise rows
    (no token ids: exllamav2 feeds them random embeddings) are skipped."""
    from calstream import NOISE, ROW, read

    meta, recs = read("/dev/stdin" if path == "-" else path)
    rows, noise = [], 0
    for r in recs:
        if r["kind"] != ROW:
            sys.exit(f"dump-activations.py: {path}: expected ROW records, got kind {r['kind']}")
        if r["flags"] & NOISE:
            noise += 1
            continue
        rows.append((np.array(r["ids"], np.int64), None if r["mask"] is None else np.array(r["mask"]) != 0))
    if noise:
        print(f"dump-activations.py: skipped {noise} noise rows", file=sys.stderr)
    return rows


def batches(rows, size):
    """Consecutive rows of one length, up to size at a time: (ids, mask)."""
    i = 0
    while i < len(rows):
        j = i + 1
        while j < len(rows) and j - i < size and len(rows[j][0]) == len(rows[i][0]):
            j += 1
        part = rows[i:j]
        ids = np.stack([r[0] for r in part])
        mask = None if all(r[1] is None for r in part) else \
            np.stack([np.ones(len(r[0]), bool) if r[1] is None else r[1] for r in part])
        yield ids, mask
        i = j


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True, help="torch.save()d model or TorchScript file")
    ap.add_argument("--layer", action="append", help="submodule whose inputs are written (repeatable)")
    ap.add_argument("--all-linear", action="store_true", help="hook every torch.nn.Linear but lm_head")
    ap.add_argument("--process-output", action="store_true",
                    help="--all-linear: lm_head too (output.weight; llama-imatrix --process-output)")
    ap.add_argument("--rows", help="a calkit stream of ROW records (- for stdin)")
    ap.add_argument("--input-ids", help=".npy int64 [rows, len] (cal-cat -o ids.npy)")
    ap.add_argument("--attention-mask", help=".npy of 0/1, same shape: padded positions are dropped")
    ap.add_argument("--batch", type=int, default=1, help="rows per forward call (default 1)")
    ap.add_argument("--dtype", choices=("f32", "f16", "bf16"), default="f32",
                    help="dtype of the written vectors (default f32)")
    a = ap.parse_args()
    if bool(a.layer) == a.all_linear:
        ap.error("give --layer NAME (one or more) or --all-linear")
    if bool(a.rows) == bool(a.input_ids):
        ap.error("give --rows FILE or --input-ids FILE")
    import torch

    try:
        torch.jit.load(a.model)
        sys.exit(f"dump-activations.py: {a.model} is TorchScript, whose layers take no forward hooks: "
                 "save the model itself with torch.save(model)")
    except RuntimeError:
        model = torch.load(a.model)
    model.eval()
    if a.rows:
        rows = stream_rows(a.rows)
    else:
        ids = np.load(a.input_ids)
        mask = np.load(a.attention_mask) if a.attention_mask else None
        if ids.ndim != 2 or (mask is not None and mask.shape != ids.shape):
            sys.exit("dump-activations.py: --input-ids must be [rows, len] and the mask the same shape")
        rows = [(ids[i], None if mask is None else mask[i] != 0) for i in range(len(ids))]
    meta = {"source": os.path.basename(a.model), "stage": " ".join(["dump-activations.py"] + sys.argv[1:])}
    if a.layer and len(a.layer) == 1:
        meta = {"source": meta["source"], "layer": a.layer[0], "stage": meta["stage"]}
    w = CalStreamWriter(sys.stdout.buffer, meta)
    cur = {}
    names = a.layer
    if a.all_linear:
        names = [n for n, m in model.named_modules() if isinstance(m, torch.nn.Linear)
                 and (a.process_output or n.split(".")[-1] != "lm_head")]
        if not names:
            sys.exit("dump-activations.py: the model has no torch.nn.Linear modules")
    hook_layers(model, w, names, a.dtype, keep=lambda: cur.get("mask"))
    try:
        takes_mask = "attention_mask" in inspect.signature(model.forward).parameters
    except (TypeError, ValueError):
        takes_mask = False
    with torch.no_grad():
        for ids, mask in batches(rows, a.batch):
            cur["mask"] = np.ones(ids.shape, bool) if mask is None else mask
            x = torch.as_tensor(ids, dtype=torch.long)
            if takes_mask and mask is not None:
                model(x, attention_mask=torch.as_tensor(mask, dtype=torch.long))
            else:
                model(x)
    w.close()


if __name__ == "__main__":
    main()
