"""select_check.py DIR HELPER - cal-select against its references
(selectref.py: numpy, scipy, scikit-learn, calkit's generator in Python).
DIR holds the inputs test_select.sh made: mix.tok (TOKENS of four corpora),
mix.txt (the same documents as TEXT), tgt.tok (a target sample). HELPER is
tests/helpers/select_lib. Prints TAP-like lines (tests/run.sh)."""
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples"))
import calstream as cs  # noqa: E402
import selectref as ref  # noqa: E402

D, HELPER = sys.argv[1], sys.argv[2]
SAN = os.environ.get("CAL_SANITIZE") == "1"


def tap(ok, name, *detail):
    print(("ok - " if ok else "not ok - ") + name)
    if not ok:
        for d in detail:
            print("# " + str(d)[:600])
    sys.stdout.flush()


def run(*args, check=True):
    p = subprocess.run([str(a) for a in args], capture_output=True)
    if check and p.returncode:
        raise SystemExit("not ok - %s exited %d: %s" % (" ".join(map(str, args)), p.returncode, p.stderr.decode()[:500]))
    return p


def payload(r):
    return r["raw"][16 + len(r["label"].encode()):-8]


def load_npy(path):
    return np.load(path)


def helper(*args):
    out = run(HELPER, *args).stdout.decode().split("\n")
    return {l.split()[0]: l.split()[1:] for l in out if l}


# ---- features ---------------------------------------------------------------
_, mix = cs.read(D + "/mix.tok")
_, txt = cs.read(D + "/mix.txt")
for name, recs, path, dim, seed in (("TOKENS", mix, "mix.tok", 256, 0), ("TEXT", txt, "mix.txt", 256, 0),
                                   ("TOKENS --dim 48 --seed 7", mix, "mix.tok", 48, 7)):
    kind = recs[0]["kind"]
    run("cal-select", "-n", 8, "--method", "random", "--dim", dim, "--seed", seed, "--save-features",
        D + "/f.npy", D + "/" + path, "-o", "/dev/null")
    got = load_npy(D + "/f.npy")
    want, kept, _, _ = ref.tfidf_features(kind, [payload(r) for r in recs], dim, seed)
    err = float(np.abs(got.astype(np.float64) - want).max()) if got.shape == want.shape else None
    tap(err is not None and err < 2e-6, "%s features = TfidfTransformer + the documented projection (max |diff| %s, %d x %d)"
        % (name, err, *want.shape), got.shape, want.shape)

# the features cal-select saved for the TOKENS mix, the matrix the rest runs on
run("cal-select", "-n", 8, "--method", "random", "--save-features", D + "/X.npy", D + "/mix.tok", "-o", "/dev/null")
X = load_npy(D + "/X.npy")
ids = [r["id"] for r in mix if len(r["raw"]) > 16 + len(r["label"].encode()) + 8]
X = X[ref.order_by_id(ids)]  # cal-select's rows are in the order of the ids
X.astype("<f4").tofile(D + "/X.f32")
n, d = X.shape

# ---- k-means++ ----------------------------------------------------------------
for k, seed in ((16, 0), (5, 3), (1, 9)):
    want = ref.kmeans_pp(X, k, seed)
    got = [[int(v) for v in helper("pp", D + "/X.f32", n, d, k, seed, j)["centers"]] for j in (1, 3)]
    tap(got[0] == want and got[1] == want, "k-means++ k=%d seed %d: the numpy re-implementation's centres, -j 1 and 3" % (k, seed),
        got, want)


# ---- Lloyd against scikit-learn ------------------------------------------------
def lloyd_case(name, Xc, C0, max_iter=300):
    Xc.astype("<f4").tofile(D + "/L.f32")
    np.asarray(C0, dtype="<f8").tofile(D + "/C0.f64")
    nn, dd = Xc.shape
    outs = []
    for j in (1, 2, 3):
        h = helper("lloyd", D + "/L.f32", nn, dd, D + "/C0.f64", len(C0), max_iter, j, D + "/L%d" % j)
        outs.append((h, open(D + "/L%d.labels" % j, "rb").read() + open(D + "/L%d.centers" % j, "rb").read()))
    same = outs[0][1] == outs[1][1] == outs[2][1]
    h = outs[0][0]
    labels = np.fromfile(D + "/L1.labels", dtype="<u4")
    C = np.fromfile(D + "/L1.centers", dtype="<f8").reshape(len(C0), dd)
    wl, wc, wn = ref.lloyd(Xc, C0, max_iter)
    tap(np.array_equal(labels, wl), "%s: the assignments of scikit-learn's Lloyd from the same centroids" % name,
        "differ at %d rows" % int((labels != wl).sum()))
    tap(int(h["iter"][0]) == wn, "%s: %s iterations, as scikit-learn's n_iter_ %d" % (name, h["iter"][0], wn))
    err = float(np.abs(C - wc).max())
    tap(err < 1e-9, "%s: centroids within 1e-9 of scikit-learn's (max |diff| %.2g)" % (name, err))
    tap(same, "%s: the same bits with -j 1, 2, 3" % name)
    return h


seeds = ref.kmeans_pp(X, 16, 0)
lloyd_case("corpora, k=16", X, X[seeds].astype(np.float64))
far = X[seeds[:7]].astype(np.float64)
far = np.vstack([far, np.full((1, d), 3.0)])  # a centroid no row is nearest: emptied, refilled
h = lloyd_case("an empty cluster refilled", X, far)
tap(int(h["iter"][4]) >= 1, "  ... and it was refilled (%s relocations)" % h["iter"][4])
rng = np.random.default_rng(4)
blobs = np.vstack([rng.normal(c, 1.0, size=(150, 12)) for c in rng.normal(0, 3, size=(6, 12))]).astype(np.float32)
lloyd_case("gaussian blobs, k=6 from random rows", blobs, blobs[rng.choice(len(blobs), 6, replace=False)].astype(np.float64))
lloyd_case("stopped by --max-iter 2", X, X[seeds].astype(np.float64), 2)

# ---- k-center, --like, the allocation, random ----------------------------------
for k, seed in ((24, 0), (40, 5)):
    wc, wo = ref.kcenter(X, k, seed)
    h = helper("kcenter", D + "/X.f32", n, d, k, seed, 2)
    tap([int(v) for v in h["centers"]] == wc and [int(v) for v in h["owner"]] == wo.tolist(),
        "k-center k=%d seed %d: the numpy greedy's centres and owners" % (k, seed), h["centers"][:10], wc[:10])
_, tgt = cs.read(D + "/tgt.tok")
T, tk, _, _ = ref.tfidf_features(2, [payload(r) for r in tgt], 256, 0)
T = T[ref.order_by_id([tgt[i]["id"] for i in tk])]
T.astype("<f4").tofile(D + "/T.f32")
wc, wh = ref.like(X, T, 20)
h = helper("like", D + "/X.f32", n, d, D + "/T.f32", len(T), 20, 3)
tap(abs(float(h["bandwidth"][0]) - wh) < 1e-9 * wh, "like: the bandwidth is the median of the target's pairwise d2 (%s)" % wh)
tap([int(v) for v in h["chosen"]] == wc, "like: the numpy greedy MMD's choice", h["chosen"][:10], wc[:10])
cases = []
for sz in ([a, b, c, e] for a in range(5) for b in range(5) for c in range(5) for e in range(5)):
    for total in range(sum(sz) + 1):
        cases += [(total, "size", sz), (total, "equal", sz)]
inp = "".join("%d %s %s\n" % (t, m, " ".join(map(str, sz))) for t, m, sz in cases)
outl = subprocess.run([HELPER, "alloc"], input=inp.encode(), capture_output=True).stdout.decode().split("\n")
bad = []
for (total, mode, sz), line in zip(cases, outl):
    got = [int(v) for v in line.split()[1:]]
    want = ref.alloc_capped(total, sz if mode == "size" else [1] * 4, sz)
    if got != want or sum(got) != total or any(g > c for g, c in zip(got, sz)):
        bad.append((total, mode, sz, got, want))
tap(not bad and len(outl) > len(cases), "allocation with caps: all %d cases of 4 clusters of 0-4 documents, every total, "
    "size and equal, = the reference" % len(cases), *bad[:5])
for nn, k, seed in ((10, 10, 0), (1000, 33, 6), (5, 0, 1)):
    got = [int(v) for v in helper("random", nn, k, seed)["chosen"]]
    tap(got == ref.random_choice(nn, k, seed), "random: %d of %d, seed %d: the partial Fisher-Yates of the manual" % (k, nn, seed))


# ---- the whole program -----------------------------------------------------------
def chosen_of(path):
    meta, recs = cs.read(path)
    return meta, recs


inraw = {r["raw"]: i for i, r in enumerate(mix)}
for args, kw in ((["--method", "kmeans"], dict(method="kmeans", n=32, k=16)),
                 (["--method", "kmeans", "-k", "7", "--alloc", "equal"], dict(method="kmeans", n=30, k=7, alloc="equal")),
                 (["--method", "kcenter"], dict(method="kcenter", n=32)),
                 (["--method", "random", "--seed", "3"], dict(method="random", n=32, seed=3)),
                 (["--like", D + "/tgt.tok"], dict(method="like", n=32, target=tgt))):
    nsel = kw["n"]
    run("cal-select", "-n", nsel, *args, D + "/mix.tok", "-o", D + "/out.cal")
    meta, out = chosen_of(D + "/out.cal")
    got = [inraw.get(r["raw"]) for r in out]
    want, cluster, sizes = ref.select(mix, **kw)
    name = "cal-select -n %d %s" % (nsel, " ".join(a.replace(D + "/", "") for a in args))
    tap(got == want, name + ": the reference's documents, records unchanged, in input order", got[:8], want[:8])
    if cluster:
        keys = {k: v for k, v in meta if k.startswith("select.cluster.")}
        wantm = {}
        for j in range(len(sizes)):
            mine = [mix[i]["id"] for i in want if cluster[i] == j]
            wantm["select.cluster.%d" % j] = " ".join([str(sizes[j]), str(len(mine))] + ["%016x" % v for v in mine])
        tap(keys == wantm, name + ": select.cluster.J = the reference's size, count and ids per cluster",
            sorted(keys.items())[:3], sorted(wantm.items())[:3])
