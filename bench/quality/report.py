#!/usr/bin/python3
"""report.py - the bench's comparison from quality.py's results: for each
bit width, each selector (its seeds are the sets NAME.sSEED) against the
reference selector (the equal blend, else the first):

  - GPTQ's held-out objective, ||(W-Q)X||^2 / ||WX||^2 averaged over the
    model's linear layers, in percent: per domain (mean over seeds), the
    mean over domains (its spread: the standard deviation over seeds) and
    the worst domain;
  - each difference from the reference in percent, marked * where Welch's
    t-test over the seeds (scipy.stats.ttest_ind, unequal variances) puts
    it beyond seed noise, at a false discovery rate of 5% over all the
    table's tests (Benjamini-Hochberg). Unpaired: seed s of two selectors
    draws independently, so pairing them by seed would pair nothing;
  - KL divergence from the full-precision model and perplexity change,
    averaged over domains.

    report.py RESULTS.jsonl... --md report.md --svg plot.svg [--json stats.json] [--only SET...]
"""
import argparse
import json
import math
import os
import re
import sys
from collections import defaultdict

# One BLAS thread: torch.set_num_threads does not reach OpenBLAS's own pool,
# whose idle threads spin (a third more CPU time here), and JOBS runs
# processes side by side anyway. Set before numpy or torch loads OpenBLAS.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402


def load(paths):
    recs, fp = [], None
    for p in paths:
        for line in open(p):
            r = json.loads(line)
            if r["set"] == "fp":
                fp = r
            else:
                recs.append(r)
    return recs, fp


def selector_of(name):
    m = re.fullmatch(r"(.*)\.s(\d+)", name)
    return (m.group(1), int(m.group(2))) if m else (name, 0)


def fdr(pvals, q=0.05):
    """Which of pvals (a dict) Benjamini and Hochberg's procedure keeps at a
    false discovery rate q: the k smallest, k the largest rank with
    p_(k) <= q k / m."""
    order = sorted((p, k) for k, p in pvals.items() if p == p)
    m, keep = len(order), 0
    for i, (p, _) in enumerate(order, 1):
        if p <= q * i / m:
            keep = i
    return {k: True for _, k in order[:keep]}


METRICS = {"objective": ("objective_mean", 100.0), "kld": ("kld", 1000.0)}


def stats(recs, fp, ref_name=None):
    """{bits: {"domains", "ref", "rows": {selector: {...}}, "tests"}}: for
    each metric of METRICS (the held-out objective in %, KLD in 1e-3 nats)
    the cells per domain and their mean over domains, with the difference
    from the reference and its Welch test (Benjamini-Hochberg over each
    metric's table)."""
    from scipy.stats import ttest_ind

    by = defaultdict(lambda: defaultdict(dict))  # bits -> selector -> seed -> rec
    for r in recs:
        sel, seed = selector_of(r["set"])
        by[r["bits"]][sel][seed] = r
    out = {}
    for bits, sels in sorted(by.items()):
        doms = list(next(iter(next(iter(sels.values())).values()))["held"])
        ref = ref_name if ref_name in sels else ("blend" if "blend" in sels else next(iter(sels)))

        def series(sel, key, scale):
            rs = [sels[sel][s] for s in sorted(sels[sel])]
            per = {d: np.array([scale * r["held"][d].get(key, np.nan) for r in rs]) for d in doms}
            per["mean"] = np.mean([per[d] for d in doms], axis=0)
            return per

        rows, tests = {}, {}
        for metric, (key, scale) in METRICS.items():
            rser, pvals = series(ref, key, scale), {}
            for sel in sels:
                per, cell = series(sel, key, scale), {}
                for k in doms + ["mean"]:
                    v, rv = per[k], rser[k]
                    p = float("nan")
                    if sel != ref and len(v) > 1 and len(rv) > 1 and not np.isnan(v).any():
                        p = float(ttest_ind(v, rv, equal_var=False).pvalue)
                        pvals[(sel, k)] = p
                    cell[k] = {"mean": float(v.mean()), "sd": float(v.std(ddof=1)) if len(v) > 1 else 0.0,
                               "diff_pct": float(100 * (v.mean() / rv.mean() - 1)), "p": p}
                rows.setdefault(sel, {})[metric] = cell
            sig = fdr(pvals)
            for (sel, k) in pvals:
                rows[sel][metric][k]["significant"] = bool(sig.get((sel, k)))
            tests[metric] = len(pvals)
        for sel in sels:
            rs = [sels[sel][s] for s in sorted(sels[sel])]
            cell = rows[sel]["objective"]
            means = {d: cell[d]["mean"] for d in doms}
            worst = max(doms, key=lambda d: means[d])
            comp = defaultdict(float)
            for r in rs:
                for lab, n in r["labels"].items():
                    comp[lab] += n / len(rs)
            dppl = [np.mean([100 * (r["held"][d]["ppl"] / fp["ppl"][d] - 1) for d in doms])
                    for r in rs if fp and "ppl" in r["held"][doms[0]]]
            rows[sel].update({"seeds": len(rs), "worst": worst, "worst_value": means[worst],
                              "dppl_pct": float(np.mean(dppl)) if dppl else float("nan"),
                              "real_tokens": float(np.mean([r["real_tokens"] for r in rs])),
                              "tokens": float(np.mean([r["tokens"] for r in rs])), "labels": dict(comp)})
        out[bits] = {"domains": doms, "ref": ref, "rows": rows, "tests": tests}
    return out


def num(x):
    return f"{x:.3g}" if abs(x) < 100 else f"{x:.0f}"


def fmt_cell(c, ref):
    s = num(c["mean"])
    if not ref:
        s += f" ({c['diff_pct']:+.0f}%{'*' if c.get('significant') else ''})"
    return s


def markdown(st, fp):
    lines = []
    for bits, t in st.items():
        doms, ref = t["domains"], t["ref"]
        lines.append(f"**{bits}-bit GPTQ, held-out objective** ||(W-Q)X||^2 / ||WX||^2 in %, averaged over the "
                     f"linear layers (mean over seeds; in brackets the difference from `{ref}`, * beyond seed noise: "
                     f"Welch's test, false discovery rate 5% over the table's {t['tests']['objective']} tests)\n")
        lines.append("| selector | seeds | mean (sd) | worst domain | " + " | ".join(doms) + " | KLD mean | ppl |")
        lines.append("|---|---|---|---|" + "---|" * len(doms) + "---|---|")
        for sel, r in t["rows"].items():
            c = r["objective"]
            mean = f"{num(c['mean']['mean'])} ({num(c['mean']['sd'])})"
            if sel != ref:
                mean += f" {c['mean']['diff_pct']:+.1f}%{'*' if c['mean'].get('significant') else ''}"
            k = r["kld"]["mean"]
            kld = "-" if np.isnan(k["mean"]) else num(k["mean"]) + (
                "" if sel == ref else f" ({k['diff_pct']:+.0f}%{'*' if k.get('significant') else ''})")
            ppl = "-" if np.isnan(r["dppl_pct"]) else f"{r['dppl_pct']:+.2f}%"  # QUICK=1: none measured
            lines.append(f"| {sel} | {r['seeds']} | {mean} | {r['worst']} {num(r['worst_value'])} | "
                         + " | ".join(fmt_cell(c[d], sel == ref) for d in doms)
                         + f" | {kld} | {ppl} |")
        lines.append("")
        if any(not np.isnan(r["kld"]["mean"]["mean"]) for r in t["rows"].values()):
            lines.append(f"**{bits}-bit GPTQ, KL divergence** from the full-precision model per held-out token, "
                         f"in 1e-3 nats (the same marks, {t['tests']['kld']} tests)\n")
            lines.append("| selector | mean (sd) | " + " | ".join(doms) + " |")
            lines.append("|---|---|" + "---|" * len(doms))
            for sel, r in t["rows"].items():
                c = r["kld"]
                mean = f"{num(c['mean']['mean'])} ({num(c['mean']['sd'])})"
                if sel != ref:
                    mean += f" {c['mean']['diff_pct']:+.1f}%{'*' if c['mean'].get('significant') else ''}"
                lines.append(f"| {sel} | {mean} | " + " | ".join(fmt_cell(c[d], sel == ref) for d in doms) + " |")
            lines.append("")
    if fp:
        lines.append("Full-precision perplexity on the held-out rows: "
                     + ", ".join(f"{d} {p:.1f}" for d, p in fp["ppl"].items())
                     + "; the ppl column is the mean change over domains.\n")
    first = next(iter(st.values()))
    lines.append("Rows per domain in each set (mean over seeds), and real (unpadded) tokens:\n")
    doms = first["domains"]
    lines.append("| selector | " + " | ".join(doms) + " | other | real tokens |")
    lines.append("|---|" + "---|" * len(doms) + "---|---|")
    for sel, r in first["rows"].items():
        other = sum(n for lab, n in r["labels"].items() if lab not in doms)
        lines.append(f"| {sel} | " + " | ".join(f"{r['labels'].get(d, 0):.1f}" for d in doms)
                     + f" | {other:.1f} | {r['real_tokens']:.0f} of {r['tokens']:.0f} |")
    return "\n".join(lines) + "\n"


COLORS = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666"]


def svg(st):
    """One panel per bit width: a row per selector, its per-domain
    difference from the reference (colored dots) and the mean over domains
    (black diamond, bar: +-1 sd over seeds, as a difference)."""
    panels = list(st.items())
    sels = list(panels[0][1]["rows"])
    doms = panels[0][1]["domains"]
    vals = [c["diff_pct"] for _, t in panels for r in t["rows"].values() for c in r["objective"].values()]
    lo, hi = min(vals + [-5]), max(vals + [5])
    lo, hi = 10 * math.floor(lo / 10), 10 * math.ceil(hi / 10)
    left, pw, rh, top = 130, 330, 22, 50
    W, H = max(left + len(panels) * (pw + 30) + 10, 800), top + rh * len(sels) + 80
    o = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
         f'<rect width="{W}" height="{H}" fill="white"/>']
    for pi, (bits, t) in enumerate(panels):
        x0 = left + pi * (pw + 30)
        X = lambda v: x0 + (v - lo) / (hi - lo) * pw  # noqa: E731
        o.append(f'<text x="{x0 + pw / 2}" y="20" text-anchor="middle" font-weight="bold">{bits}-bit GPTQ: '
                 f'held-out objective vs {t["ref"]} (%)</text>')
        step = 10 if hi - lo <= 100 else 20 if hi - lo <= 200 else 50
        for v in range(int(lo), int(hi) + 1, step):
            o.append(f'<line x1="{X(v):.1f}" y1="{top - 8}" x2="{X(v):.1f}" y2="{top + rh * len(sels)}" '
                     f'stroke="{"#000" if v == 0 else "#ddd"}"/>')
            o.append(f'<text x="{X(v):.1f}" y="{top + rh * len(sels) + 14}" text-anchor="middle">{v:+d}</text>')
        for si, sel in enumerate(sels):
            y = top + rh * si + rh / 2
            if pi == 0:
                o.append(f'<text x="{left - 8}" y="{y + 4}" text-anchor="end">{sel}</text>')
            r = t["rows"].get(sel)
            if not r:
                continue
            for di, d in enumerate(doms):
                c = r["objective"][d]
                o.append(f'<circle cx="{X(c["diff_pct"]):.1f}" cy="{y:.1f}" r="{4 if c.get("significant") else 2.5}" '
                         f'fill="{COLORS[di % len(COLORS)]}" fill-opacity="0.85"/>')
            m, rm = r["objective"]["mean"], t["rows"][t["ref"]]["objective"]["mean"]["mean"]
            sd = 100 * m["sd"] / rm
            o.append(f'<line x1="{X(m["diff_pct"] - sd):.1f}" y1="{y:.1f}" x2="{X(m["diff_pct"] + sd):.1f}" '
                     f'y2="{y:.1f}" stroke="black"/>')
            xm = X(m["diff_pct"])
            o.append(f'<path d="M{xm - 5:.1f},{y:.1f} L{xm:.1f},{y - 5:.1f} L{xm + 5:.1f},{y:.1f} '
                     f'L{xm:.1f},{y + 5:.1f} Z" fill="black"/>')
    ly = top + rh * len(sels) + 40
    x = left
    for di, d in enumerate(doms):
        o.append(f'<circle cx="{x}" cy="{ly}" r="4" fill="{COLORS[di % len(COLORS)]}"/>'
                 f'<text x="{x + 8}" y="{ly + 4}">{d}</text>')
        x += 16 + 7 * len(d) + 14
    ly += 20
    o.append(f'<path d="M{left - 5},{ly} L{left},{ly - 5} L{left + 5},{ly} L{left},{ly + 5} Z" fill="black"/>'
             f'<text x="{left + 9}" y="{ly + 4}">mean over domains, bar: +-1 sd over seeds; big dot: beyond seed '
             f'noise (Welch, FDR 5%); right of 0 is worse</text>')
    o.append("</svg>")
    return "\n".join(o) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", nargs="+")
    ap.add_argument("--md")
    ap.add_argument("--svg")
    ap.add_argument("--json")
    ap.add_argument("--ref", help="the reference selector (default: blend, else the first)")
    ap.add_argument("--only", nargs="*", help="report these sets alone (the results may hold more)")
    a = ap.parse_args()
    recs, fp = load(a.results)
    if a.only is not None:
        keep = set(a.only)
        recs = [r for r in recs if r["set"] in keep]
    if not recs:
        sys.exit("report.py: no results")
    st = stats(recs, fp, a.ref)
    md = markdown(st, fp)
    if a.md:
        open(a.md, "w").write(md)
    if a.svg:
        open(a.svg, "w").write(svg(st))
    if a.json:
        json.dump({str(k): v for k, v in st.items()}, open(a.json, "w"), indent=1)
    sys.stdout.write(md)


if __name__ == "__main__":
    main()
