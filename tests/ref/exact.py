"""exact.py - the exactness suite of cal-encode (issue 4): the ids of
cal-encode's tokenizers against the reference implementations on the same
documents, for the seven tokenizer.json files (Rust HF tokenizers through
node, tests/ref/hf_encode.js) and the two .model files
(python3-sentencepiece, tests/ref/spm_encode.py).

    /usr/bin/python3 tests/ref/exact.py [--reduced] [--only NAME,...]

The C side is tests/helpers/exact_encode.c ($CAL_UNIT/exact_encode, default
build/obj/tests): one process per tokenizer loads it once and encodes every
mode's input through cal_tok_encode, the call cal-encode makes per record,
into the references' file format, so a whole file compares byte for byte.
CAL_JOBS tokenizers (default: the processors) run at a time, slowest first.

Inputs: the built-in corpora (cal-read NAME for each domain) when they are
built, else a local stand-in (licenses, Python sources, translated man
pages; said in a skip line); plus the generated groups of gen_cases.py.
Modes: plain (default flags) on everything; --parse-special on the small
generated groups; --add-special with and without --parse-special on a few.
The inputs are rebuilt only when cal-read's output of the corpora, the
generators or the tokenizers change; reference outputs are cached in
build/exact/ref keyed by the SHA-256 of the input, the tokenizer file, the
mode and the harness, so re-runs are fast.
Prints one "ok"/"not ok" line per tokenizer and mode with documents, tokens
and % identical; a mismatch prints the document (truncated) and the first
differing position with the tokens around it.
"""
import functools
import gzip
import hashlib
import json
import os
import struct
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples"))
import calstream  # noqa: E402
import gen_cases  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WORK = os.path.join(ROOT, "build", "exact")
TOK = os.path.join(ROOT, "build", "tokenizers")
HF = ["llama3", "qwen3", "gemma3", "llama2", "gpt4o", "deepseek_v3", "gptoss"]
SPM = ["llama2-spm", "albert-unigram"]
SLOWEST_FIRST = SPM + ["gemma3", "gpt4o", "gptoss"]  # libsentencepiece is the slowest by far
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


@functools.lru_cache(maxsize=None)
def file_sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def tok_path(name):
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


def read_corpora():
    """cal-read's stream of the built-in corpora (one process), or None."""
    try:
        r = subprocess.run(["cal-read"] + DOMAINS, capture_output=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return r.stdout if r.returncode == 0 else None


def corpora(stream, reduced, tmp, notes):
    """{label: [bytes docs]} from cal-read's stream, or the local stand-in."""
    cap = 256 << 10 if reduced else None
    got = {}
    if stream is not None:
        path = os.path.join(tmp, "corpora.cal")
        open(path, "wb").write(stream)
        size = {}
        for rec in calstream.read_records(path)[1]:
            label = "corpus-" + rec[1].decode()
            if cap and size.get(label, 0) >= cap:
                continue
            got.setdefault(label, []).append(rec[3])
            size[label] = size.get(label, 0) + len(rec[3])
        os.remove(path)
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


def build_inputs(reduced, tmp, notes):
    """Writes one TEXT stream per mode, reused while cal-read's output of the
    corpora, the generators and the tokenizers are unchanged. Returns
    ({mode: path}, {mode: documents})."""
    stream = read_corpora()
    h = hashlib.sha256()
    for f in ("tests/ref/gen_cases.py", "tests/ref/exact.py", "examples/calstream.py"):
        h.update(open(os.path.join(ROOT, f), "rb").read())
    h.update(open(os.path.join(ROOT, "scripts", "tokenizers.sha256"), "rb").read())
    h.update(b"reduced" if reduced else b"full")
    h.update(hashlib.sha256(stream).digest() if stream is not None else b"local")
    stamp = h.hexdigest()[:16]
    paths = {m: os.path.join(WORK, "input-%s-%s.cal" % (m, stamp)) for m in MODES}
    counts_file = os.path.join(WORK, "input-%s.json" % stamp)
    if all(os.path.exists(p) for p in paths.values()) and os.path.exists(counts_file):
        got = json.load(open(counts_file))
        for n in got["notes"]:
            notes.append(n)
        return paths, got["docs"]
    for f in os.listdir(WORK):  # stale inputs (not those of a concurrent run)
        p = os.path.join(WORK, f)
        if f.startswith("input-") and time.time() - os.path.getmtime(p) > 3600:
            os.remove(p)
    mine = []
    groups = gen_cases.groups(reduced, special_strings())
    groups.update(corpora(stream, reduced, tmp, mine))
    docs = {}
    for mode, (_, want) in MODES.items():
        names = [g for g in groups if want is None or g in want]
        docs[mode] = sum(len(groups[g]) for g in names)
        tmp_path = "%s.tmp.%d" % (paths[mode], os.getpid())
        calstream.write_text(tmp_path, ((g, d) for g in names for d in groups[g]))
        os.replace(tmp_path, paths[mode])
    tmp_path = "%s.tmp.%d" % (counts_file, os.getpid())
    json.dump({"docs": docs, "notes": mine}, open(tmp_path, "w"))
    os.replace(tmp_path, counts_file)
    notes += mine
    return paths, docs


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
    tmp = ".tmp.%d" % os.getpid()  # a concurrent run may write the same reference
    for mode, inp, out in jobs:
        os.makedirs(os.path.dirname(out), exist_ok=True)
        cmd += [mode, inp, out + tmp]
    r = subprocess.run(cmd, capture_output=True)
    if r.returncode != 0:
        return "reference failed: %s" % r.stderr.decode(errors="replace")[-400:]
    for _, _, out in jobs:
        os.replace(out + tmp, out)
    return None


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


def compare(name, mode, inp, ndocs, ours_file, ref_file, t_ours, t_ref):
    """The result lines of one tokenizer and mode: the whole files are equal,
    or else the documents that differ, shown."""
    title = "exact %s %s" % (name, mode)
    ours, ref = open(ours_file, "rb").read(), open(ref_file, "rb").read()
    times = "; ours (all modes) %.1fs%s" % (t_ours, "" if t_ref is None else ", reference (all modes) %.1fs" % t_ref)
    if ours == ref:
        ntok = (len(ref) - 4 * ndocs) // 4
        return True, ["ok - %s: %d docs, %d tokens, 100.0000%% identical ids%s" % (title, ndocs, ntok, times)]
    _, recs = calstream.read_records(inp, verify=False)
    docs, labels = [r[3] for r in recs], [r[1] for r in recs]
    ours, ref = read_ids_file(ours_file), read_ids_file(ref_file)
    problems, same, ntok, bad_groups = [], 0, 0, {}
    if len(ours) != len(docs) or len(ref) != len(docs):
        problems.append("record counts: input %d, ours %d, reference %d" % (len(docs), len(ours), len(ref)))
    piece = None
    for k in range(min(len(ours), len(ref), len(docs))):
        ntok += len(ref[k]) // 4
        if ours[k] == ref[k]:
            same += 1
            continue
        g = labels[k].decode()
        bad_groups[g] = bad_groups.get(g, 0) + 1
        if bad_groups[g] <= 2 and len(problems) < 12:
            piece = piece or vocab_strings(name)
            problems += ["[%s] " % g + line
                         for line in describe(name, docs[k], calstream.ids_of(ours[k]), calstream.ids_of(ref[k]), piece)]
    pct = 100.0 * same / len(docs) if docs else 100.0
    out = ["not ok - %s: %d docs, %d tokens, %.4f%% identical ids%s" % (title, len(docs), ntok, pct, times)]
    if bad_groups:
        out.append("# mismatching documents per group: %s" % ", ".join("%s %d" % kv for kv in sorted(bad_groups.items())))
    return False, out + ["# " + p for p in problems]


def run_tokenizer(name, paths, counts, input_sha, encoder, tmp):
    """References (when not cached), then one exact_encode process for every
    mode; returns (ok, result lines)."""
    refs = {m: ref_path(name, m, input_sha[m]) for m in paths}
    missing = [(m, paths[m], refs[m]) for m in paths if not os.path.exists(refs[m])]
    t0 = time.time()
    err = run_reference(name, missing)
    if err:
        return False, ["not ok - exact %s: %s" % (name, err)]
    t_ref = time.time() - t0 if missing else None
    ours = {m: os.path.join(tmp, "ours-%s-%s.ids" % (name, m)) for m in paths}
    cmd = [encoder, tok_path(name)]
    for m in paths:
        cmd += [",".join(f.lstrip("-") for f in MODES[m][0]) or "plain", paths[m], ours[m]]
    t0 = time.time()
    r = subprocess.run(cmd, capture_output=True)
    t_ours = time.time() - t0
    if r.returncode != 0:
        return False, ["not ok - exact %s: exact_encode exit %d" % (name, r.returncode),
                       "# " + r.stderr.decode(errors="replace")[-400:].replace("\n", "\n# ")]
    ok, lines = True, []
    for m in paths:
        good, out = compare(name, m, paths[m], counts[m], ours[m], refs[m], t_ours, t_ref if m == "plain" else None)
        ok &= good
        lines += out
        os.remove(ours[m])
    return ok, lines


def main():
    reduced = "--reduced" in sys.argv
    only = None
    if "--only" in sys.argv:
        only = sys.argv[sys.argv.index("--only") + 1].split(",")
    unit = os.environ.get("CAL_UNIT") or os.path.join(ROOT, "build", "obj", "tests")
    encoder = os.path.join(unit, "exact_encode")
    if not os.access(encoder, os.X_OK):
        print("not ok - exact: %s is not built (make %s)" % (encoder, os.path.relpath(encoder, ROOT)))
        return 1
    jobs = int(os.environ.get("CAL_JOBS") or os.cpu_count() or 2)
    os.makedirs(WORK, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="run-", dir=WORK)
    try:
        notes = []
        paths, counts = build_inputs(reduced, tmp, notes)
        for n in notes:
            print("skip - exact corpora: %s" % n)
        if reduced:
            print("skip - exact full inputs: SANITIZE=1 runs a reduced set (every 13th code point, 64 KB words, "
                  "256 KB per corpus); the plain build runs everything")
        sys.stdout.flush()
        input_sha = {m: file_sha(p) for m, p in paths.items()}
        names = [n for n in HF + SPM if not only or n in only]
        order = sorted(names, key=lambda n: SLOWEST_FIRST.index(n) if n in SLOWEST_FIRST else len(SLOWEST_FIRST))
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            futures = {n: pool.submit(run_tokenizer, n, paths, counts, input_sha, encoder, tmp) for n in order}
            ok = True
            for n in names:  # results in a fixed order
                good, lines = futures[n].result()
                ok &= good
                print("\n".join(lines))
                sys.stdout.flush()
    finally:
        for f in os.listdir(tmp):
            os.remove(os.path.join(tmp, f))
        os.rmdir(tmp)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
