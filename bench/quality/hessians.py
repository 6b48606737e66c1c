"""hessians.py - layer inputs of a torch model into cal-hessian and back:
the hooks of examples/dump-activations.py write the inputs of the hooked
modules as VECTORS records (padded positions left out, by the rows' masks)
into a cal-hessian process, whose exact float64 H = sum x x^T the bench then
reads. This is the path calkit users take (examples/imatrix.sh), so the
bench measures calibration sets through calkit's own Hessians."""
import importlib.util
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

from calio import st_read

_ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
_spec = importlib.util.spec_from_file_location("dump_activations", os.path.join(_ROOT, "examples", "dump-activations.py"))
dump = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(dump)
from calstream import CalStreamWriter  # noqa: E402  (dump-activations put examples/ on sys.path)


class Stop(Exception):
    """Raised by a hook once it has what it needs: the rest of the forward
    pass is not computed."""


def cal_hessian(feed, modules, by_label=False, out=None, stop_after=None, meta=None):
    """Runs feed(cur) (which runs forward passes, setting cur["mask"] to the
    bool [batch, seq] mask of each batch before its pass) with every module
    of `modules` (name -> nn.Module) writing its first input into one
    cal-hessian. Returns {name: H float64 [d, d]} (by_label) or H. With
    stop_after (a name), that module's hook raises Stop after writing, which
    feed must catch. out: keep cal-hessian's file there (else a temporary)."""
    tmpdir = None
    if out is None:
        tmpdir = tempfile.TemporaryDirectory(prefix="quality.")
        out = os.path.join(tmpdir.name, "h.safetensors")
    cmd = ["cal-hessian", "--dtype", "f64", "--threads", "1", "-o", out] + (["--by-label"] if by_label else [])
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stderr=subprocess.PIPE)
    w = CalStreamWriter(proc.stdin, meta or {"source": "bench/quality"})
    cur, handles = {}, []
    for name, mod in modules.items():
        hook = dump.vectors_hook(w, name, keep=lambda: cur.get("mask"))
        if name == stop_after:
            def stopping(m, i, o, hook=hook):
                hook(m, i, o)
                raise Stop
            handles.append(mod.register_forward_hook(stopping))
        else:
            handles.append(mod.register_forward_hook(hook))
    try:
        with torch.no_grad():
            feed(cur)
        w.close()
    finally:
        for h in handles:
            h.remove()
        proc.stdin.close()
        err = proc.stderr.read().decode()
        rc = proc.wait()
    if rc != 0:
        raise RuntimeError(f"cal-hessian failed (status {rc}): {err.strip()}")
    t, _ = st_read(out)
    if tmpdir:
        tmpdir.cleanup()
    if by_label:
        return {n: np.array(t[f"{n}.hessian"]) for n in modules if f"{n}.hessian" in t}
    return np.array(t["hessian"])


def read_by_label(path):
    """{label: H} of a cal-hessian --by-label file."""
    t, _ = st_read(path)
    return {k[:-len(".hessian")]: np.array(v) for k, v in t.items() if k.endswith(".hessian")}


def load_model(path):
    """A torch.save()d module or TorchScript file, in eval mode, one thread."""
    torch.set_num_threads(1)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # model.py for the bench's own model
    try:
        m = torch.jit.load(path)
    except RuntimeError:
        m = torch.load(path)
    return m.eval()
