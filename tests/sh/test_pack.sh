#!/bin/sh
# cal-pack: every mode against the reference model in packref.py (exact ids,
# labels, row ids, masks, flags), on random inputs written by examples/calstream.py.
. tests/lib.sh
HERE=$(cd "$(dirname "$0")/../py" && pwd)
export PYTHONPATH="$PWD/examples"   # calstream.py (packref.py is in $HERE)
$PY - "$HERE" "$T" <<'PYEOF'
import os, random, subprocess, sys
sys.path.insert(0, sys.argv[1])
import calstream as cs, packref as ref
T = sys.argv[2]
fails = 0

def res(name, good, why=""):
    global fails
    print(("ok - " if good else "not ok - ") + name)
    if not good:
        fails += 1
        print("# " + why[:600])

def mkdocs(rng, n, maxlen, labels=("wiki", "code")):
    return [(rng.choice(labels), rng.getrandbits(64), [rng.randrange(0, 90) for _ in range(rng.randrange(1, maxlen))])
            for _ in range(n)]

META = [("tokenizer", "t"), ("tokenizer_fp", "0123456789abcdef"), ("vocab", "100"), ("bos", "97"), ("eos", "98"),
        ("pad", "99")]

def run(docs, args, meta=META):
    p = os.path.join(T, "in.cal")
    cs.write(p, meta, [cs.tokens(l, i, d) for l, i, d in docs])
    out = os.path.join(T, "out.cal")
    r = subprocess.run(["cal-pack"] + args + ["-o", out, p], capture_output=True)
    if r.returncode:
        return None, r
    m, recs = cs.read(out)
    return [(x["label"], x["id"], x["ids"], x["mask"], x["flags"] & 1) for x in recs], r

def compare(name, got, want, r):
    if got is None:
        return res(name, False, "exit %d: %s" % (r.returncode, r.stderr.decode()))
    if got == want:
        return res(name, True)
    for i, (a, b) in enumerate(zip(got, want)):
        if a != b:
            return res(name, False, "row %d: got %s want %s" % (i, a, b))
    res(name, False, "got %d rows, want %d" % (len(got), len(want)))

rng = random.Random(1234)
# concat: every policy, separator, tail, with and without -n
for k in range(24):
    docs = mkdocs(rng, rng.randrange(1, 12), 40)
    L = rng.randrange(3, 17)
    bp, ep = rng.choice(["none", "row", "doc", "alt"]), rng.choice(["none", "row", "doc", "alt"])
    sep, tail = rng.choice(["none", "eos", "bos"]), rng.choice(["drop", "pad"])
    total = sum(len(d[2]) for d in docs)
    n = rng.choice([None, 1, 2, max(1, total // (2 * L))])
    if k % 5 == 0:
        bp, n = "half", max(2, n or 2)
    args = ["-l", str(L), "--bos", bp, "--eos", ep, "--sep", sep, "--tail", tail, "--allow-short"]
    if n is not None: args += ["-n", str(n)]
    got, r = run(docs, args)
    want = ref.concat(docs, L, n, 97, 98, bp, ep, sep, tail, 99)
    compare("concat %d: %s" % (k, " ".join(args)), got, want, r)

# article: EXL2 wiki/tiny rules
for k in range(24):
    docs = mkdocs(rng, rng.randrange(1, 15), 30)
    L = rng.randrange(4, 40)
    bp, ep = rng.choice(["none", "doc", "half", "alt"]), rng.choice(["none", "doc", "alt"])
    tail = rng.choice(["drop", "pad"])
    n = rng.randrange(1, 6)
    args = ["-l", str(L), "--mode", "article", "--bos", bp, "--eos", ep, "--tail", tail, "-n", str(n), "--allow-short"]
    got, r = run(docs, args)
    want = ref.article(docs, L, n, 97, 98, bp, ep, tail, 99)
    compare("article %d: %s" % (k, " ".join(args)), got, want, r)

# doc: truncate/pad/mask/min-tokens
for k in range(16):
    docs = mkdocs(rng, rng.randrange(1, 10), 30)
    L = rng.randrange(3, 25)
    bp, ep = rng.choice(["none", "row", "doc", "half", "alt"]), rng.choice(["none", "row", "half", "alt"])
    tr, pd, mt = rng.choice(["tail", "head"]), rng.choice(["right", "left"]), rng.choice([0, 5, 12])
    n = rng.randrange(2, 8)
    args = ["-l", str(L), "--mode", "doc", "--bos", bp, "--eos", ep, "--truncate", tr, "--pad", pd,
            "--min-tokens", str(mt), "-n", str(n), "--allow-short"]
    if k % 3 == 0: args += ["--pad-id", "77"]
    got, r = run(docs, args)
    want = ref.doc(docs, L, n, 97, 98, bp, ep, tr, pd, 77 if k % 3 == 0 else 99, mt)
    compare("doc %d: %s" % (k, " ".join(args)), got, want, r)

# window: whole concatenation (wikitext2) and per document (c4), seeded
for k in range(16):
    per = k % 2 == 1
    docs = mkdocs(rng, rng.randrange(2, 10), 60)
    L = rng.randrange(2, 20)
    bp = rng.choice(["none", "row", "doc", "alt"])
    seed = rng.randrange(0, 1000)
    if per and not any(len(d[2]) + (bp == "doc") > L for d in docs):
        docs.append(("long", 5, list(range(L + 3))))
    n = rng.randrange(1, 9)
    args = ["-l", str(L), "--mode", "window", "-n", str(n), "--seed", str(seed), "--bos", bp]
    if per: args.append("--per-doc")
    else: args += ["--sep", "eos"]
    got, r = run(docs, args)
    want = ref.window(docs, L, n, seed, per, 97, 98, bp, "none", "none" if per else "eos")
    compare("window %d: %s" % (k, " ".join(args)), got, want, r)

# window start range: uniform in [0, L-len-1] inclusive (GPTQ randint): with
# L = len+2 only starts 0 and 1 are possible, and both occur
docs = [("w", 1, list(range(12)))]
got, r = run(docs, ["-l", "10", "--mode", "window", "-n", "200"])
firsts = sorted(set(g[2][0] for g in got)) if got else None
res("window start uniform in [0, L-len-1]", firsts == [0, 1], str(firsts))

sys.exit(0)
PYEOF
