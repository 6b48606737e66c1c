"""sequential.py - GPTQ over a whole model, block after block, as the GPTQ
authors' llama_sequential does with --true-sequential (IST-DASLab/gptq
2d65066, llama.py): the inputs of block 0 are caught once; in each block
the linear layers are quantized group by group in the order the forward
pass reaches them (q/k/v, which read one input, then o, then gate/up, then
down), each group's Hessian taken with the groups before it already
quantized; the block's outputs, through the quantized block, are the next
block's inputs. Linear layers outside the blocks (lm_head) come last, from
the quantized model's inputs to them. Every Hessian is calkit's
(hessians.cal_hessian: the layer's inputs through cal-hessian). One Hessian
serves a group (its modules read the same tensor), where GPTQ's code
collects one per module, equal to it."""
import torch
from torch import nn

from gptq import gptq, objective
from hessians import Stop, cal_hessian


def blocks_of(model):
    """(name, ModuleList) of the model's transformer blocks: the first
    ModuleList whose name ends in 'layers' (model.layers in transformers'
    Llama, Qwen, Mistral, Gemma)."""
    for name, mod in model.named_modules():
        if isinstance(mod, nn.ModuleList) and name.split(".")[-1] == "layers" and len(mod):
            return name, mod
    raise ValueError("no ModuleList named 'layers' in the model (transformers' model.layers)")


class _Catcher(nn.Module):
    def __init__(self, inner, store):
        super().__init__()
        self.inner, self.store = inner, store

    def forward(self, *args, **kwargs):
        self.store.append((args, kwargs))
        raise Stop


def forward(model, ids, mask):
    """The model's logits for ids [b, t] (numpy) with the bool mask [b, t]:
    given as attention_mask where forward takes one (transformers' models
    and the bench's), else left out."""
    import inspect
    try:
        takes_mask = "attention_mask" in inspect.signature(model.forward).parameters
    except (TypeError, ValueError):
        takes_mask = False
    x = torch.as_tensor(ids)
    out = model(x, attention_mask=torch.as_tensor(mask, dtype=torch.long)) if takes_mask else model(x)
    return getattr(out, "logits", out)  # transformers returns an output object


def run_model(model, batches, cur=None):
    """Runs the model over batches [(ids [b, t], mask bool [b, t])], setting
    cur["mask"]; a Stop raised by a hook ends that batch's pass."""
    for ids, mask in batches:
        if cur is not None:
            cur["mask"] = mask
        try:
            forward(model, ids, mask)
        except Stop:
            pass


def _linears(mod, prefix=""):
    return {f"{prefix}{n}": m for n, m in mod.named_modules() if isinstance(m, nn.Linear)}


def _groups(block, args, kwargs):
    """The block's linear modules in the order a forward pass reaches them,
    those that read one tensor grouped: [[name, ...], ...]."""
    seen, handles = [], []
    for name, m in _linears(block).items():
        handles.append(m.register_forward_hook(lambda m, i, o, name=name: seen.append((name, id(i[0]), i[0]))))
    with torch.no_grad():
        block(*args, **kwargs)
    for h in handles:
        h.remove()
    groups, last = [], None
    for name, key, _ in seen:
        if key == last and name not in groups[-1]:
            groups[-1].append(name)
        elif not any(name in g for g in groups):
            groups.append([name])
        last = key
    return groups


def _first(out):
    return out[0] if isinstance(out, (tuple, list)) else out


def quantize_model(model, batches, bits, **opts):
    """Quantizes every nn.Linear of model in place (weights replaced by their
    GPTQ-dequantized values) from the calibration batches [(ids, mask)].
    opts: percdamp, block, group_size, act_order (gptq.gptq). Returns
    {layer name: GPTQ's objective on the calibration set}."""
    bname, blocks = blocks_of(model)
    if getattr(getattr(model, "config", None), "use_cache", False):
        model.config.use_cache = False  # a transformers model would grow its KV cache at every pass
    store = []
    first = blocks[0]
    blocks[0] = _Catcher(first, store)
    try:
        run_model(model, batches)
    finally:
        blocks[0] = first
    masks = [m for _, m in batches]
    calib = {}

    def quantize(name, mod, H):
        W = mod.weight.detach()
        Q = gptq(W, torch.as_tensor(H), bits, **opts)
        calib[name] = objective(W, Q, torch.as_tensor(H))
        mod.weight.data = Q.to(W.dtype)

    for i, block in enumerate(blocks):
        prefix = f"{bname}.{i}."
        mods = _linears(block)
        for group in _groups(block, *store[0]):
            def feed(cur):
                for (args, kwargs), m in zip(store, masks):
                    cur["mask"] = m
                    try:
                        block(*args, **kwargs)
                    except Stop:
                        pass
            H = cal_hessian(feed, {prefix + group[0]: mods[group[0]]}, stop_after=prefix + group[0])
            for name in group:
                quantize(prefix + name, mods[name], H)
        with torch.no_grad():
            store = [((_first(block(*args, **kwargs)),) + tuple(args[1:]), kwargs) for args, kwargs in store]
    inside = {f"{bname}.{n}" for n, m in blocks.named_modules() if isinstance(m, nn.Linear)}
    rest = {n: m for n, m in _linears(model).items() if n not in inside}
    order = []
    hs = [m.register_forward_hook(lambda m, i, o, n=n: order.append(n)) for n, m in rest.items()]
    with torch.no_grad():
        run_model(model, batches[:1])
    for h in hs:
        h.remove()
    for name in dict.fromkeys(order):
        H = cal_hessian(lambda cur: run_model(model, batches, cur), {name: rest[name]}, stop_after=name)
        quantize(name, rest[name], H)
    return calib
