"""peers.py CORPORA TOKENIZER.json TOKNAME OUT - the peers' calibration
functions, written anew from their published source (each function names
the file and commit it follows; the recipes' headers name the same), against
the rows the recipes in examples/ wrote under OUT (see
tests/sh/test_recipes_peers.sh for the commands, OUT/params.json for their
parameters). A check runs where its recipe's output directory exists: the
small cut runs them all, the run at the recipes' defaults those it made.

Each peer function takes the corpus documents (the built-in corpus files in
CORPORA, read here with zstd and json) and an encoder, and returns rows as
the peer does: CPython's random, numpy's default_rng (datasets'
Dataset.shuffle), torch's CPU generator. Texts are encoded by the Rust
Hugging Face tokenizers (tests/ref/hf_encode.js): "plain" as exllamav2's
tokenizer.encode(text) (no special tokens, their text not parsed), "add" as
the transformers call tokenizer(text) (the tokenizer's BOS/EOS template,
special-token text parsed). All texts are collected first and encoded in one
node run. Prints TAP-like lines (tests/run.sh)."""
import json, os, random, subprocess, sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "examples"))
import calstream as cs  # noqa: E402

try:
    import torch
except ImportError:
    torch = None


def tap(ok, name, detail=""):
    print(("ok - " if ok else "not ok - ") + name)
    if not ok and detail:
        print("# " + detail[:600])


def corpus(dirname, name):
    raw = subprocess.run(["zstd", "-dc", os.path.join(dirname, name + ".jsonl.zst")], check=True,
                         stdout=subprocess.PIPE).stdout.decode()
    return [json.loads(l)["text"] for l in raw.split("\n") if l]


class Encoder:
    """Every text a peer may encode is named first (want), then all are
    encoded in one node run; a peer asking for another one is a test bug."""

    def __init__(self, tok, work):
        self.tok, self.work, self.want, self.got = tok, work, {}, None

    def add(self, mode, texts):
        for t in texts:
            self.want.setdefault(mode, {})[t] = None

    def __call__(self, mode, text):
        return self.got[mode][text]

    def run(self):
        args, order = [], {}
        for mode, texts in self.want.items():
            order[mode] = list(texts)
            src, dst = os.path.join(self.work, mode + ".cal"), os.path.join(self.work, mode + ".ids")
            cs.write_text(src, (("t", t.encode()) for t in order[mode]))
            args += ["add-parse" if mode == "add" else "plain", src, dst]
        subprocess.run(["node", os.path.join(ROOT, "tests/ref/hf_encode.js"), self.tok] + args, check=True)
        self.got = {}
        for mode, texts in order.items():
            b, i, out = open(os.path.join(self.work, mode + ".ids"), "rb").read(), 0, {}
            for t in texts:
                n = int.from_bytes(b[i:i + 4], "little")
                out[t] = list(np.frombuffer(b[i + 4:i + 4 + 4 * n], dtype="<u4").astype(int))
                i += 4 + 4 * n
            self.got[mode] = out


# ---- exllamav2 conversion/tokenize.py --------------------------------------
def exl2_standard(C, enc, length, measure, bos, eos):
    ctx = min(2048, length)
    n = dict(zip(["c4", "wiki", "code", "tiny", "ml", "mls", "tech"],
                 [2, 4, 3, 2, 3, 1, 2] if measure else [10, 48, 15, 10, 15, 5, 10]))
    rows = []

    def raw_rows(text):  # encode, cut to a multiple of ctx, rows of ctx
        t = enc("plain", text)
        t = t[:len(t) - len(t) % ctx]
        return [t[i:i + ctx] for i in range(0, len(t), ctx)]

    def articles_rows(arts, k):
        tok = [[bos] + enc("plain", a) + [eos] for a in arts]
        idx, out = 0, []
        for r in range(k):
            length, i0 = 0, idx
            while length < ctx + 1:
                length += len(tok[idx])
                idx += 1
            row = sum(tok[i0:idx], [])
            out.append(row[1:ctx + 1] if r < k // 2 else row[:ctx])
        return out

    # the built-in corpora as exllamav2's files: documents one after another
    lines = "\n".join(C["web"]).splitlines(keepends=True)  # f.readlines()
    rows += [("c4", r) for r in raw_rows("\n\n".join(lines))[:n["c4"]]]
    wiki_file = "".join('<doc id="%d">\n%s</doc>\n' % (i, d) for i, d in enumerate(C["wiki"]))
    arts = [a[a.find("\n") + 1:] for a in wiki_file.split("</doc>\n")]
    rows += [("wiki", r) for r in articles_rows(arts, n["wiki"])]
    rows += [("code", r) for r in raw_rows("\n".join(C["code"]))[:n["code"]]]
    arts = [a.strip() for a in "<|endoftext|>".join(C["stories"]).split("<|endoftext|>")]
    rows += [("tiny", r) for r in articles_rows(arts, n["tiny"])]
    ml = raw_rows("\n".join(C["multilingual"]))
    rows += [("multilingual", r) for r in ml[:n["ml"]]]
    seg = [x for r in ml for x in r]
    seg = [seg[i:i + 128] for i in range(0, len(seg), 128)]
    random.seed(69420)
    for _ in range(n["mls"]):
        row = []
        for _ in range(ctx // 128):
            row += seg[random.randint(0, len(seg) - 1)]
        rows.append(("multilingual-shuffled", row))
    rows.append(("random", None))  # unseeded torch.randint upstream: not compared
    rows.append(("random", None))
    rows += [("technical", r) for r in raw_rows("\n".join(C["technical"]))[:n["tech"]]]
    return rows


def exl2_custom(texts, enc, rows, length):
    """get_tokens: each row's text encoded, concatenated, the first rows*length."""
    allt = []
    for t in texts:
        allt += enc("plain", t)
        if len(allt) >= rows * length:
            break
    allt = allt[:rows * length]
    return [allt[i * length:(i + 1) * length] for i in range(rows)]


# ---- exllamav3 conversion/calibration_data.py -------------------------------
def exl3_standard(C, enc, rows, columns, bos, eos, vocab):
    def split_art(arts, k):
        out, idx, row = [], 0, []
        while len(out) < k:
            special = len(out) % 2 == 0
            row = (row + ([bos] if special else []) + enc("plain", arts[idx]) + ([eos] if special else []))[:columns]
            if len(row) == columns:
                out.append(row)
                row = []
            idx += 1
        return out

    def shuffle_lines(text, k):
        arts = [a for a in text.split("\n") if not a.isspace()]
        random.seed(0)
        random.shuffle(arts)
        return split_art(arts, k)

    def split_raw(text, k):
        t = enc("plain", text)
        return [t[i * columns:(i + 1) * columns] for i in range(k)]

    wiki_file = "".join('<doc id="%d">\n%s</doc>\n' % (i, d) for i, d in enumerate(C["wiki"]))
    files = [("c4", "\n".join(C["web"]), 20, shuffle_lines), ("code", "\n".join(C["code"]), 20, split_raw),
             ("multilingual", "\n".join(C["multilingual"]), 10, shuffle_lines),
             ("technical", "\n".join(C["technical"]), 10, split_raw),
             ("wiki", wiki_file, 50, lambda t, k: split_art([a for a in [x[x.find("\n") + 1:] for x in
                                                                           t.split("</doc>\n")] if len(a) > 50], k)),
             ("tiny", "<|endoftext|>".join(C["stories"]), 5,
              lambda t, k: split_art([a.strip() for a in t.split("<|endoftext|>")], k)),
             ("random", None, 20, None)]
    out = []
    for label, text, w, fn in files:
        k = max(1, int(w / 135 * rows))
        if text is None:
            k = max(1, rows - len(out))
            if torch is None:
                out += [(label, None)] * k
                continue
            torch.manual_seed(0)
            out += [(label, torch.randint(0, vocab, (1, columns), dtype=torch.long)[0].tolist()) for _ in range(k)]
        else:
            out += [(label, r) for r in fn(text, k)]
    return out


# ---- GPTQ datautils / optimum gptq/data.py / lmdeploy calib_dataloader -----
def wikitext2(peer, rows_text, enc, nsamples, seqlen, seed):
    if peer == "optimum":
        text = "".join([" \n" if s == "" else s for s in rows_text[:1000]])
    else:
        text = "\n\n".join(rows_text)
    ids = enc("add", text)
    random.seed(seed)
    out = []
    for _ in range(nsamples):
        i = random.randint(0, len(ids) - seqlen - (0 if peer == "lmdeploy" else 1))
        out.append(ids[i:i + seqlen])
    return out


def c4(peer, docs, enc, nsamples, seqlen, seed):
    random.seed(seed)
    out = []
    for _ in range(nsamples):
        while True:
            i = random.randint(0, len(docs) - 1)
            ids = enc("add", docs[i])
            if len(ids) >= seqlen:
                break
        i = random.randint(0, len(ids) - seqlen - (0 if peer == "lmdeploy" else 1))
        out.append(ids[i:i + seqlen])
    return out


def hf_shuffle(docs, seed):
    """datasets.Dataset.shuffle(seed=seed): row i is old row permutation[i]."""
    return [docs[k] for k in np.random.default_rng(seed).permutation(len(docs))]


# ---- AutoAWQ awq/utils/calib_data.py at 88e4c76b2075 (v0.2.9) ----------------
def autoawq(docs, enc, n_samples, max_seq_len):
    """get_calib_dataset("pileval"): since 0.2.6 (PR #516) encodings longer
    than max_seq_len, the row length, are skipped (before: 512)."""
    samples, n_run = [], 0
    for line in hf_shuffle(docs, 42):
        line = line.strip()
        e = enc("add", line)
        if len(e) > max_seq_len:
            continue
        if len(e) == 0:
            continue
        samples += e
        n_run += 1
        if n_run == n_samples:
            break
    return [samples[i * max_seq_len:(i + 1) * max_seq_len] for i in range(len(samples) // max_seq_len)]


# ---- auto-round calib_dataset.py at b9f3d0079d01 (0.15.0) ---------------------
def autoround(docs, enc, nsamples, seqlen, seed):
    """get_pile_dataset (shuffle(seed), tokenizer(text, truncation=True,
    max_length=seqlen)), then _get_dataset_impl's filter_func, then the first
    nsamples."""
    out = []
    for d in hf_shuffle(docs, seed):
        ids = enc("add", d)[:seqlen]  # truncation=True, max_length=seqlen (BOS-only templates)
        if len(ids) < seqlen or (len(ids) > 1 and seqlen > 2 and ids.count(ids[-1]) > seqlen // 2):
            continue
        out.append(ids)
        if len(out) == nsamples:
            break
    return out


# ---- GPTQModel prepare_calibration_dataset -----------------------------------
def gptqmodel(docs, enc, max_positions, min_length=10, sort="desc"):
    rows = [enc("add", d)[:max_positions] for d in docs]
    rows = [r for r in rows if len(r) > min_length]
    if sort == "desc":
        rows = sorted(rows, key=len, reverse=True)
    elif sort == "asc":
        rows = sorted(rows, key=len)
    return rows


# ---- llm-compressor 0.6.0 (c052d2ce58f2) TextGenerationDataset, pad_to_max_length
def llmcompressor(docs, enc, n, max_len, pad, seed=42):
    """The example's load_dataset(split="...[:n]").shuffle(seed=42): the
    first n texts in a shuffled order; each tokenized with truncation and
    padding to max_length."""
    out = []
    for d in hf_shuffle(docs[:n], seed):
        ids = enc("add", d)[:max_len]
        out.append((ids + [pad] * (max_len - len(ids)), [1] * len(ids) + [0] * (max_len - len(ids))))
    return out


# ---- the comparisons ---------------------------------------------------------
def got(out, name):
    meta, recs = cs.read(os.path.join(out, name, "cal_data.cal"))
    return meta, recs


def first_diff(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return "row %d differs" % i
    return "%d rows vs %d" % (len(a), len(b))


def main():
    cdir, tokfile, tokname, out = sys.argv[1:5]
    C = {n: corpus(cdir, n) for n in ["web", "wiki", "code", "stories", "multilingual", "technical"]}
    extra = json.load(open(os.path.join(out, "params.json")))
    has = lambda d: os.path.isdir(os.path.join(out, d))
    hf_path = os.path.join(out, "wikitext-rows.json")
    hf = json.load(open(hf_path)) if os.path.exists(hf_path) else None
    enc = Encoder(tokfile, out)
    web_file, wiki_file = "\n".join(C["web"]), "".join('<doc id="%d">\n%s</doc>\n' % (i, d) for i, d in enumerate(C["wiki"]))
    if has("exl2") or has("exl3"):
        enc.add("plain", ["\n\n".join(web_file.splitlines(keepends=True))] + web_file.split("\n") +
                "\n".join(C["multilingual"]).split("\n") + [a[a.find("\n") + 1:] for a in wiki_file.split("</doc>\n")] +
                [a.strip() for a in "<|endoftext|>".join(C["stories"]).split("<|endoftext|>")] +
                ["\n".join(C[n]) for n in ["code", "multilingual", "technical"]])
    if has("exl2custom"):
        enc.add("plain", C["wiki"])
    enc.add("add", C["web"] + [d.strip() for d in C["web"]])
    for rows in (C["wiki"], hf):
        if rows is not None:
            enc.add("add", ["\n\n".join(rows), "".join([" \n" if s == "" else s for s in rows[:1000]])])
    enc.run()
    checks = []
    m = None
    for d in ["exl2/quantization", "exl3", "c4-gptq", "awq", "autoround", "llmcompressor"]:
        if has(d):
            m = got(out, d)[0]
            break
    bos, eos = int(cs.meta_get(m, "bos")), int(cs.meta_get(m, "eos"))
    vocab, pad = int(cs.meta_get(m, "vocab")), cs.meta_get(m, "pad")
    pad = int(pad) if pad is not None else eos
    for p in ["measurement", "quantization"] if has("exl2") else []:
        L = extra["exl2_length"]
        want = exl2_standard(C, enc, L, p == "measurement", bos, eos)
        recs = got(out, "exl2/" + p)[1]
        g = [(r["label"], r["ids"] if r["label"] != "random" else None) for r in recs]
        checks.append(("EXL2 standard %s set (exllamav2 tokenize.py, ctx %d)" % (p, L), g == want,
                       first_diff(g, want)))
    for p, n in [("measurement", 16), ("quantization", extra.get("exl2_custom_rows"))] if has("exl2custom") else []:
        want = exl2_custom(C["wiki"], enc, n, extra["exl2_custom_length"])
        g = [r["ids"] for r in got(out, "exl2custom/" + p)[1]]
        checks.append(("EXL2 custom Parquet %s set (get_tokens)" % p, g == want, first_diff(g, want)))
    if has("exl3"):
        want = exl3_standard(C, enc, extra["exl3_rows"], extra["exl3_length"], bos, eos, vocab)
        g = [(r["label"], r["ids"]) for r in got(out, "exl3")[1]]
        if torch is None:
            g = [(a, None if a == "random" else b) for a, b in g]
        checks.append(("EXL3 default set (exllamav3 calibration_data.py)", g == want, first_diff(g, want)))
    for peer in ["gptq", "optimum", "lmdeploy"]:
        for src, rows_text in [("built-in wiki", C["wiki"]), ("HF rows", hf)]:
            d = "wt2-%s-%s" % (peer, "wiki" if src == "built-in wiki" else "hf")
            if not has(d):
                continue
            want = wikitext2(peer, rows_text, enc, extra["wt2_rows"], extra["wt2_length"], extra["seed"])
            g = [r["ids"] for r in got(out, d)[1]]
            checks.append(("%s wikitext2 (%s)" % (peer, src), g == want, first_diff(g, want)))
        if has("c4-" + peer):
            want = c4(peer, C["web"], enc, extra["c4_rows"], extra["c4_length"], extra["seed"])
            g = [r["ids"] for r in got(out, "c4-" + peer)[1]]
            checks.append(("%s c4" % peer, g == want and len(g) == extra["c4_rows"], first_diff(g, want)))
    if has("awq"):
        want = autoawq(C["web"], enc, extra["awq_docs"], extra["awq_length"])
        g = [r["ids"] for r in got(out, "awq")[1]]
        checks.append(("AutoAWQ pile-val (calib_data.py, skip > %d)" % extra["awq_length"], g == want and len(g) > 0,
                       first_diff(g, want)))
    if has("autoround"):
        want = autoround(C["web"], enc, extra["ar_rows"], extra["ar_length"], 42)
        g = [r["ids"] for r in got(out, "autoround")[1]]
        checks.append(("auto-round (shuffle 42, truncation, repetition filter)", g == want and len(g) == extra["ar_rows"],
                       first_diff(g, want)))
    if has("gptqmodel"):
        want = gptqmodel(C["web"][:extra["gm_docs"]], enc, extra["gm_length"])
        g = [[x for x, k in zip(r["ids"], r["mask"] or [1] * len(r["ids"])) if k] for r in got(out, "gptqmodel")[1]]
        checks.append(("GPTQModel (drop <= 10 tokens, sort desc)", g == want, first_diff(g, want)))
    if has("llmcompressor"):
        want = llmcompressor(C["web"], enc, extra["lc_rows"], extra["lc_length"], pad)
        g = [(r["ids"], r["mask"] or [1] * len(r["ids"])) for r in got(out, "llmcompressor")[1]]
        checks.append(("llm-compressor (first %d, shuffle 42, truncate, pad right, mask)" % extra["lc_rows"],
                       g == want and len(g) == extra["lc_rows"], first_diff(g, want)))
    for name, ok, detail in checks:
        tap(ok, extra.get("prefix", "") + name, detail)


if __name__ == "__main__":
    main()
