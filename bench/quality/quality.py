#!/usr/bin/python3
"""quality.py - quantizes a model with GPTQ from each calibration set and
scores it on every domain's held-out rows (evaluate.py); one JSON line per
(set, bits) in --out, appended as each is done, so that a long run resumes
where it stopped (a line is reused while its set file is unchanged).

    quality.py --model model.pt --held web=held.web.rows.cal ... \\
        --set blend.s0=sets/blend.s0.cal ... --bits 3 4 --out results.jsonl

A set is a cal-stream of ROW records (cal-pack's output) encoded with the
model's tokenizer: a set whose tokenizer fingerprint differs from the
held-out rows', or with an id past the model's vocabulary, is refused with
one line naming it (status 1) before any work. --job I/N does every N-th
(set, bits) from the I-th, for N processes side by side."""
import argparse
import copy
import glob
import hashlib
import json
import os
import sys
import time

# One BLAS thread: torch.set_num_threads does not reach OpenBLAS's own pool,
# whose idle threads spin (a third more CPU time here), and JOBS runs
# processes side by side anyway. Set before numpy or torch loads OpenBLAS.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from calio import SetError, check_vocab, read_rows, st_write  # noqa: E402


def pairs(items, what):
    out = {}
    for it in items:
        k, sep, v = it.partition("=")
        if not sep or not k or not v:
            sys.exit(f"quality.py: {what} '{it}': want NAME=FILE")
        out[k] = v
    return out


def digest(*paths, extra=""):
    h = hashlib.sha256(extra.encode())
    for p in paths:
        with open(p, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:16]


def composition(rows):
    labels = {}
    for lab, _, _ in rows:
        labels[lab] = labels.get(lab, 0) + 1
    tokens = sum(len(ids) for _, ids, _ in rows)
    real = sum(len(ids) if m is None else int(m.sum()) for _, ids, m in rows)
    return {"rows": len(rows), "tokens": tokens, "real_tokens": real, "labels": labels}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--held", nargs="+", required=True, help="DOMAIN=ROWS.cal")
    ap.add_argument("--set", nargs="*", default=[], help="NAME=ROWS.cal")
    ap.add_argument("--bits", nargs="+", type=int, default=[3, 4])
    ap.add_argument("--group-size", type=int, default=0)
    ap.add_argument("--act-order", action="store_true")
    ap.add_argument("--quick", action="store_true", help="the objective only (no perplexity or KLD)")
    ap.add_argument("--cache", required=True, help="directory for the held-out Hessians")
    ap.add_argument("--save", help="directory: each quantized model's linear weights as NAME.bBITS.safetensors")
    ap.add_argument("--job", default="0/1")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    ji, jn = (int(x) for x in a.job.split("/"))
    held, sets = pairs(a.held, "--held"), pairs(a.set, "--set")
    hrows, fp = {}, None
    for d, p in held.items():
        meta, hrows[d] = read_rows(p)
        fp = fp or meta.get("tokenizer_fp")
    loaded = {}
    try:  # the tokenizers first: torch and the model take a while to load
        for name, p in sets.items():
            meta, loaded[name] = read_rows(p)
            check_vocab(p, meta, loaded[name], None, fp)
        import torch
        from evaluate import Reference, batches_of
        from hessians import load_model
        from sequential import quantize_model
        torch.set_num_threads(1)
        torch.use_deterministic_algorithms(True)
        model = load_model(a.model)
        vocab = next(m for m in model.modules() if isinstance(m, torch.nn.Embedding)).num_embeddings
        for name, p in sets.items():
            check_vocab(p, {}, loaded[name], vocab)
    except SetError as e:
        sys.exit(f"quality.py: {e}")
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    done = {}  # what this or an earlier run (any --job) has written beside --out
    for p in glob.glob(os.path.join(os.path.dirname(os.path.abspath(a.out)), "*.jsonl")):
        for line in open(p):
            r = json.loads(line)
            done[(r["set"], r["bits"], r["digest"])] = r
    # A result stands for its set, the held-out rows and the options.
    same = [held[d] for d in sorted(held)]
    opts = f"group_size={a.group_size} act_order={a.act_order} quick={a.quick}"
    todo = [(n, b, digest(sets[n], *same, extra=opts)) for k, (n, b) in enumerate((n, b) for n in sets for b in a.bits)
            if k % jn == ji]
    # A full result covers a --quick one: a quick run after a full one
    # adds nothing (its record, lacking KLD and perplexity, would replace it).
    full = f"group_size={a.group_size} act_order={a.act_order} quick=False"
    todo = [(n, b, dg) for n, b, dg in todo
            if (n, b, dg) not in done and not (a.quick and (n, b, digest(sets[n], *same, extra=full)) in done)]
    fp_done = ji != 0 or any(k[0] == "fp" for k in done)
    if not todo and fp_done:
        return
    os.makedirs(a.cache, exist_ok=True)
    refs = {d: Reference(model, r, os.path.join(a.cache, f"held.{d}.{digest(held[d])}.hessian.safetensors"))
            for d, r in hrows.items()}
    with open(a.out, "a") as out:
        if not fp_done:
            out.write(json.dumps({"set": "fp", "bits": 0, "digest": "",
                                  "ppl": {d: r.fp_ppl() for d, r in refs.items()}}) + "\n")
        for name, bits, dg in todo:
            t0 = time.process_time()
            q = copy.deepcopy(model)
            calib = quantize_model(q, batches_of(loaded[name]), bits, group_size=a.group_size, act_order=a.act_order)
            scores = {d: r.score(q, a.quick) for d, r in refs.items()}
            rec = {"set": name, "file": sets[name], "digest": dg, "bits": bits, **composition(loaded[name]),
                   "calib_objective": calib, "held": scores, "cpu_s": round(time.process_time() - t0, 2)}
            out.write(json.dumps(rec) + "\n")
            out.flush()
            if a.save:
                os.makedirs(a.save, exist_ok=True)
                st_write(os.path.join(a.save, f"{name}.b{bits}.safetensors"),
                         {n: m.weight.detach().numpy() for n, m in q.named_modules() if isinstance(m, torch.nn.Linear)})
            print(f"quality.py: {name} {bits}-bit: held-out objective "
                  + " ".join(f"{d} {s['objective_mean']:.4f}" for d, s in scores.items())
                  + f" ({rec['cpu_s']:.0f} s CPU)", file=sys.stderr)


if __name__ == "__main__":
    main()
