"""exact.py - the exactness suite of cal-encode (issue 4): the ids of
cal-encode against the reference implementations on the same documents,
for the seven tokenizer.json files and the Unigram and WordPiece ones made
from the .model files (unigram_fixture.py) (Rust HF tokenizers through node,
tests/ref/hf_encode.js) and the three .model files (python3-sentencepiece,
tests/ref/spm_encode.py).

    /usr/bin/python3 tests/ref/exact.py [--reduced] [--only NAME,...] [--unicode]

Inputs: the built-in corpora (cal-read NAME for each domain) when they are
built, else a local stand-in (licenses, Python sources, translated man
pages; said in a skip line); plus the generated groups of gen_cases.py.
Modes: plain (default flags) on everything; --parse-special on the small
generated groups; --add-special with and without --parse-special on a few.
--unicode runs instead the code point suite of issue 12 (gen_cases.unicode_groups:
every code point alone, after a letter and in combining sequences, and the
controls inside real text) in all four modes: cal-encode encodes every code
point in each; the reference all in plain mode and a sample in the others,
the rest being covered by what each flag can change, asserted document by
document (flag_modes.py); --reduced takes every 13th code point. It runs
also a tokenizer.json whose patterns name scripts (script_fixture.py).
Reference outputs are cached in build/exact/ref keyed by the SHA-256 of the
input, the tokenizer file, the mode and the harness, so re-runs are fast.
Prints one "ok"/"not ok" line per tokenizer and mode with documents, tokens
and % identical; a mismatch prints the document (truncated) and the first
differing position with the tokens around it.
"""
import gzip
import hashlib
import json
import os
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples"))
import calstream  # noqa: E402
import flag_modes  # noqa: E402
import gen_cases  # noqa: E402
import script_fixture  # noqa: E402
import unigram_fixture  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WORK = os.path.join(ROOT, "build", "exact")
TOK = os.path.join(ROOT, "build", "tokenizers")
HF = ["llama3", "qwen3", "gemma3", "mistral", "gpt4o", "deepseek_v3", "gptoss"]
SPM = ["llama2-spm", "albert-unigram", "smart-unigram"]
HF_UG = list(unigram_fixture.NAMES)  # Unigram and WordPiece tokenizer.json files made from the .model files
DOMAINS = ["wiki", "web", "code", "stories", "multilingual", "technical"]
SMALL = ["whitespace", "digits", "contractions", "emoji", "combining", "rtl", "specials", "invalid-utf8"]
MODES = {  # mode -> (cal-encode flags, groups; None = all)
    "plain": ([], None),
    "parse": (["--parse-special"], SMALL),
    "add": (["--add-special"], ["specials", "contractions", "whitespace"]),
    "add-parse": (["--add-special", "--parse-special"], ["specials", "contractions", "whitespace"]),
}


def sha(b):
    return hashlib.sha256(b).hexdigest()


def file_sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def tok_path(name):
    if name == "scripts":
        return script_fixture.path(WORK)
    if name in HF_UG:
        return unigram_fixture.path(WORK, name)
    return os.path.join(TOK, name + ".model") if name in SPM else os.path.join(TOK, name, "tokenizer.json")


def special_strings():
    """Every added token of the seven tokenizer.json files, and the control
    pieces of the .model files (cached: the JSON files take seconds to parse)."""
    key = sha(open(os.path.join(ROOT, "scripts", "tokenizers.sha256"), "rb").read())[:16]
    cache = os.path.join(WORK, "specials-%s.json" % key)
    if os.path.exists(cache):
        return set(json.load(open(cache, encoding="utf-8")))
    out = set()
    for n in HF:
        j = json.load(open(tok_path(n), encoding="utf-8"))
        out.update(t["content"] for t in j.get("added_tokens", []))
    out.update(["<s>", "</s>", "<unk>", "<pad>", "[CLS]", "[SEP]", "[MASK]"])
    json.dump(sorted(out), open(cache + ".tmp", "w", encoding="utf-8"))
    os.replace(cache + ".tmp", cache)
    return out


def corpora(reduced, notes):
    """{label: [bytes docs]} from cal-read, or the local stand-in."""
    cap = 256 << 10 if reduced else None
    got = {}
    for d in DOMAINS:
        try:
            r = subprocess.run(["cal-read", d], capture_output=True, timeout=600)
        except (OSError, subprocess.TimeoutExpired):
            break
        if r.returncode != 0:
            continue
        path = os.path.join(WORK, "corpus.tmp")
        open(path, "wb").write(r.stdout)
        docs, size = [], 0
        for rec in calstream.read_records(path)[1]:
            if cap and size >= cap:
                break
            docs.append(rec[3])
            size += len(rec[3])
        got["corpus-" + d] = docs
    if got:
        return got
    notes.append("built-in corpora not built (make corpora); using local text instead: "
                 "/usr/share/common-licenses, /usr/lib/python3.11/*.py, /usr/share/man/*/man1 (roff)")
    cap = cap or (1 << 20)
    local = {"local-licenses": [], "local-python": [], "local-man": []}
    lic = "/usr/share/common-licenses"
    for f in sorted(os.listdir(lic)) if os.path.isdir(lic) else []:
        p = os.path.join(lic, f)
        if os.path.isfile(p):
            local["local-licenses"].append(open(p, "rb").read())
    pyd = "/usr/lib/python3.11"
    size = 0
    for f in sorted(os.listdir(pyd)) if os.path.isdir(pyd) else []:
        if f.endswith(".py") and size < cap:
            b = open(os.path.join(pyd, f), "rb").read()
            local["local-python"].append(b)
            size += len(b)
    man = "/usr/share/man"
    for lang in sorted(os.listdir(man)) if os.path.isdir(man) else []:
        d = os.path.join(man, lang, "man1")
        if lang.startswith("man") or not os.path.isdir(d):
            continue
        size = 0
        for f in sorted(os.listdir(d)):
            if f.endswith(".gz") and size < cap // 8:
                try:
                    b = gzip.open(os.path.join(d, f)).read()
                except OSError:
                    continue
                local["local-man"].append(b)
                size += len(b)
    return {k: v for k, v in local.items() if v}


def build_inputs(reduced, notes, unicode_suite=False):
    """Writes one TEXT stream per mode (reused while the generators, the
    tokenizers and the corpora are unchanged); returns {mode: path}."""
    corp = {} if unicode_suite else corpora(reduced, notes)
    h = hashlib.sha256()
    for f in ("tests/ref/gen_cases.py", "tests/ref/exact.py", "tests/ref/flag_modes.py", "examples/calstream.py"):
        h.update(open(os.path.join(ROOT, f), "rb").read())
    h.update(open(os.path.join(ROOT, "scripts", "tokenizers.sha256"), "rb").read())
    h.update(b"reduced" if reduced else b"full")
    h.update(b"unicode" if unicode_suite else b"")
    for label in sorted(corp):
        h.update(label.encode())
        for d in corp[label]:
            h.update(hashlib.sha256(d).digest())
    stamp = h.hexdigest()[:16]
    kinds = ["full", "sample"] if unicode_suite else MODES
    paths = {m: os.path.join(WORK, "input-%s%s-%s.cal" % ("unicode-" if unicode_suite else "", m, stamp)) for m in kinds}
    if all(os.path.exists(p) for p in paths.values()):
        for p in paths.values():
            os.utime(p)  # in use: the cleanup below spares inputs used within the hour
        return paths
    for f in os.listdir(WORK):  # stale inputs (not those of a concurrent run)
        p = os.path.join(WORK, f)
        try:
            if f.startswith("input-") and time.time() - os.path.getmtime(p) > 3600:
                os.remove(p)
        except OSError:  # removed by a concurrent run meanwhile
            pass
    if unicode_suite:
        groups = gen_cases.unicode_groups(13 if reduced else 1)
        docs = [(g, d) for g in groups for d in groups[g]]
        texts = set()
        for name in HF + SPM:
            texts.update(flag_modes.special_texts(name, tok_path(name), name in SPM, WORK) or [])
        idx = flag_modes.sample([g.encode() for g, _ in docs], [d for _, d in docs], texts)
        for kind, part in (("full", docs), ("sample", [docs[k] for k in idx])):
            calstream.write_text(paths[kind] + ".tmp", part)
            os.replace(paths[kind] + ".tmp", paths[kind])
        return paths
    groups = gen_cases.groups(reduced, special_strings())
    for mode, (_, want) in MODES.items():
        groups.update(corp)
        names = [g for g in groups if want is None or g in want]
        calstream.write_text(paths[mode] + ".tmp", ((g, d) for g in names for d in groups[g]))
        os.replace(paths[mode] + ".tmp", paths[mode])
    return paths


def read_ids_file(path):
    """Per document, its ids as little-endian u32 bytes (a TOKENS payload)."""
    data = open(path, "rb").read()
    out, i = [], 0
    while i < len(data):
        n = struct.unpack_from("<I", data, i)[0]
        out.append(data[i + 4:i + 4 + 4 * n])
        i += 4 + 4 * n
    return out


def ref_path(name, mode, inp_sha):
    harness = "spm_encode.py" if name in SPM else "hf_encode.js"
    hsha = file_sha(os.path.join(ROOT, "tests", "ref", harness))
    key = sha(("%s %s %s %s" % (inp_sha, file_sha(tok_path(name)), mode, hsha)).encode())[:32]
    return os.path.join(WORK, "ref", key + ".ids")


def run_reference(name, jobs):
    """jobs: [(mode, input, output)] not cached yet: one harness run for all,
    so that the tokenizer is loaded once."""
    if not jobs:
        return None
    harness = os.path.join(ROOT, "tests", "ref", "spm_encode.py" if name in SPM else "hf_encode.js")
    cmd = (["/usr/bin/python3", harness] if name in SPM else ["node", harness]) + [tok_path(name)]
    for mode, inp, out in jobs:
        os.makedirs(os.path.dirname(out), exist_ok=True)
        cmd += [mode, inp, out + ".tmp"]
    r = subprocess.run(cmd, capture_output=True)
    if r.returncode != 0:
        return "reference failed: %s" % r.stderr.decode(errors="replace")[-400:]
    for _, _, out in jobs:
        os.replace(out + ".tmp", out)
    return None


def cached_reference(name, jobs, title):
    """Runs the reference for the jobs [(mode, input, output)] whose output
    is not cached; returns (its seconds, None when all were cached; ok)."""
    jobs = [j for j in jobs if not os.path.exists(j[2])]
    t0 = time.time()
    err = run_reference(name, jobs)
    if err:
        print("not ok - %s %s: %s" % (title, name, err))
        return None, False
    return (time.time() - t0 if jobs else None), True


def vocab_strings(name):
    if name in SPM:
        import sentencepiece
        sp = sentencepiece.SentencePieceProcessor(model_file=tok_path(name))
        return lambda i: repr(sp.id_to_piece(i)) if 0 <= i < sp.get_piece_size() else "?"
    j = json.load(open(tok_path(name), encoding="utf-8"))
    inv = {v: k for k, v in j["model"]["vocab"].items()} if isinstance(j["model"]["vocab"], dict) else {}
    for t in j.get("added_tokens", []):
        inv[t["id"]] = t["content"]
    return lambda i: repr(inv.get(i, "?"))


def describe(name, doc, ours, ref, piece):
    i = next((k for k in range(min(len(ours), len(ref))) if ours[k] != ref[k]), min(len(ours), len(ref)))
    text = doc.decode("utf-8", "replace")
    lo = max(0, i - 3)
    fmt = lambda ids: " ".join("%d%s" % (x, piece(x)) for x in ids[lo:i + 5])
    return ["document (%d bytes): %r%s" % (len(doc), text[:160], " ..." if len(text) > 160 else ""),
            "first difference at token %d of %d (ours) / %d (reference)" % (i, len(ours), len(ref)),
            "ours [%d:]: %s" % (lo, fmt(ours)), "ref  [%d:]: %s" % (lo, fmt(ref))]


def run_one(name, mode, inp, ref_file, t_ref, docs, labels, ids, keep=None):
    """Compares cal-encode's ids in mode with the reference's (ref_file None:
    only encodes); keep, a dict, receives our payloads under mode."""
    flags = MODES[mode][0]
    out = os.path.join(WORK, "ours-%s-%s-%d.cal" % (name, mode, os.getpid()))
    t0 = time.time()
    r = subprocess.run(["cal-encode", "-t", tok_path(name), "-j", "2"] + flags + [inp, "-o", out],
                       capture_output=True)
    t_ours = time.time() - t0
    title = "%s %s %s" % ("every code point:" if "--unicode" in sys.argv else "exact", name, mode)
    if r.returncode != 0:
        print("not ok - %s: cal-encode exit %d" % (title, r.returncode))
        print("# " + r.stderr.decode(errors="replace")[-400:].replace("\n", "\n# "))
        return False
    metas, recs = calstream.read_records(out)
    os.remove(out)
    if keep is not None:
        keep[mode] = [r[3] for r in recs]
    if ref_file is None:
        if len(recs) != len(docs):
            print("not ok - %s: %d records for %d documents" % (title, len(recs), len(docs)))
            return False
        return True
    ref = read_ids_file(ref_file)
    problems, same, ntok, bad_groups = [], 0, 0, {}
    if len(recs) != len(docs) or len(ref) != len(docs):
        problems.append("record counts: input %d, cal-encode %d, reference %d" % (len(docs), len(recs), len(ref)))
    piece = None
    for k in range(min(len(recs), len(ref), len(docs))):
        kind, lab, did, pay, _ = recs[k]
        ntok += len(ref[k]) // 4
        if kind != calstream.TOKENS or lab != labels[k] or did != ids[k]:
            problems.append("record %d: kind/label/id not carried over" % k)
        if pay == ref[k]:
            same += 1
            continue
        ours = calstream.ids_of(pay)
        g = labels[k].decode()
        bad_groups[g] = bad_groups.get(g, 0) + 1
        if bad_groups[g] <= 2 and len(problems) < 12:
            piece = piece or vocab_strings(name)
            problems += ["[%s] " % labels[k].decode() + line
                         for line in describe(name, docs[k], ours, calstream.ids_of(ref[k]), piece)]
    pct = 100.0 * same / len(docs) if docs else 100.0
    summary = "%s: %d docs, %d tokens, %.4f%% identical ids; cal-encode %.1fs%s" % (
        title, len(docs), ntok, pct, t_ours, "" if t_ref is None else ", reference (all modes) %.1fs" % t_ref)
    if problems or same != len(docs):
        print("not ok - " + summary)
        if bad_groups:
            print("# mismatching documents per group: %s" % ", ".join("%s %d" % kv for kv in sorted(bad_groups.items())))
        for p in problems:
            print("# " + p)
        return False
    print("ok - " + summary)
    return True


def unicode_main(paths, only):
    """The code point suite: plain against the reference on everything, the
    flag modes on the sample and by flag_modes' argument on the rest."""
    full = calstream.read_records(paths["full"], verify=False)[1]
    docs, labels, ids = [r[3] for r in full], [r[1] for r in full], [r[2] for r in full]
    sampled = calstream.read_records(paths["sample"], verify=False)[1]
    where = {}
    for k, r in enumerate(full):
        where.setdefault((r[1], r[3]), k)
    idx = [where[(r[1], r[3])] for r in sampled]
    shas = {"full": file_sha(paths["full"]), "sample": file_sha(paths["sample"])}
    ok = True
    for name in HF + HF_UG + SPM + ["scripts"]:  # scripts: script_fixture.py
        if only and name not in only:
            continue
        refs = {m: ref_path(name, m, shas["full" if m == "plain" else "sample"]) for m in MODES}
        t_ref, good = cached_reference(name, [(m, paths["full" if m == "plain" else "sample"], refs[m]) for m in MODES],
                                       "every code point:")
        if not good:
            ok = False
            continue
        ours = {}
        ok &= run_one(name, "plain", paths["full"], refs["plain"], t_ref, docs, labels, ids, ours)
        for m in ("parse", "add", "add-parse"):
            ok &= run_one(name, m, paths["full"], None, None, docs, labels, ids, ours)
        if len(ours) != len(MODES):
            continue
        texts = flag_modes.special_texts(name, tok_path(name), name in SPM, WORK)
        good, lines = flag_modes.check(name, texts, docs, idx, ours, read_ids_file(refs["plain"]),
                                       {m: read_ids_file(refs[m]) for m in ("parse", "add", "add-parse")})
        ok &= good
        print("\n".join(lines))
        sys.stdout.flush()
    return 0 if ok else 1


def main():
    reduced = "--reduced" in sys.argv
    only = None
    if "--only" in sys.argv:
        only = sys.argv[sys.argv.index("--only") + 1].split(",")
    os.makedirs(WORK, exist_ok=True)
    notes = []
    unicode_suite = "--unicode" in sys.argv
    paths = build_inputs(reduced, notes, unicode_suite)
    for n in notes:
        print("skip - exact corpora: %s" % n)
    if unicode_suite and reduced:
        print("skip - every code point: SANITIZE=1 takes every 13th; the plain build takes all")
    if unicode_suite:
        return unicode_main(paths, only)
    if reduced:
        print("skip - exact full inputs: SANITIZE=1 runs a reduced set (every 13th code point, 64 KB words, "
              "256 KB per corpus); the plain build runs everything")
    inputs = {}
    for mode, path in paths.items():
        _, recs = calstream.read_records(path, verify=False)
        inputs[mode] = ([r[3] for r in recs], [r[1] for r in recs], [r[2] for r in recs], file_sha(path))
    ok = True
    for name in HF + HF_UG + SPM:
        if only and name not in only:
            continue
        refs = {m: ref_path(name, m, inputs[m][3]) for m in paths}
        t_ref, good = cached_reference(name, [(m, paths[m], refs[m]) for m in paths], "exact")
        if not good:
            ok = False
            continue
        for mode in paths:
            docs, labels, ids, _ = inputs[mode]
            ok &= run_one(name, mode, paths[mode], refs[mode], t_ref if mode == "plain" else None, docs, labels, ids)
            sys.stdout.flush()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
