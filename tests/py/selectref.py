"""selectref.py - cal-select written anew from its documented rules
(lib/stats/features.h, kmeans.h, kcenter.h, like.h, select.h, man/cal-select.1)
with numpy, scipy and scikit-learn, for tests/sh/test_select.sh:

  features   term buckets by XXH3 (libxxhash), the TF-IDF by scikit-learn's
             TfidfTransformer(sublinear_tf=True, smooth_idf=True, norm='l2'),
             the sparse projection drawn with calkit's generator (packref.Rng);
  kmeans     greedy k-means++ in numpy on the same draws; Lloyd is
             scikit-learn's KMeans(init=C0, n_init=1, algorithm='lloyd', tol=0);
  kcenter, like (greedy MMD), random, the allocation: numpy / Python."""
import math
import os
import re
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from packref import Rng, h, largest_remainder  # noqa: E402

TEXT, TOKENS = 1, 2
BUCKETS = 1 << 20
WORD = re.compile(rb"[A-Za-z0-9\x80-\xff]+")


# ---- features --------------------------------------------------------------

def doc_terms(kind, payload):
    """The document's terms as bytes, in order (features.h: terms)."""
    if kind == TOKENS:
        return [payload[i:i + 4] for i in range(0, len(payload), 4)]
    low = bytes(c | 0x20 if 65 <= c <= 90 else c for c in payload)
    return WORD.findall(low)


def bucket_counts(kind, payloads):
    """scipy CSR of term counts per bucket, one row per document; rows of
    documents without terms are left out: returns (matrix, kept indices)."""
    from scipy.sparse import csr_matrix
    cache, rows, cols, vals, kept = {}, [], [], [], []
    for i, p in enumerate(payloads):
        terms = doc_terms(kind, p)
        if not terms:
            continue
        c = {}
        for t in terms:
            b = cache.get(t)
            if b is None:
                b = cache[t] = h(t) & (BUCKETS - 1)
            c[b] = c.get(b, 0) + 1
        r = len(kept)
        kept.append(i)
        for b, n in c.items():
            rows.append(r), cols.append(b), vals.append(n)
    m = csr_matrix((np.array(vals, dtype=np.float64), (rows, cols)), shape=(len(kept), BUCKETS))
    return m, kept


def coords(b, dim, seed):
    """features.h: project: bucket b's K coordinates and signs."""
    key = seed ^ h(b"cal-select projection")
    r = Rng(h(struct.pack("<Q", b), key))
    out = []
    for _ in range(min(8, dim)):
        while True:
            o = r.below(dim)
            if o not in [c for c, _ in out]:
                break
        out.append((o, -1.0 if r.next() >> 63 else 1.0))
    return out


def project(W, width, dim, seed):
    """Rows of W (scipy sparse, documents x width) projected and l2-normalised."""
    from scipy.sparse import csr_matrix
    used = np.unique(W.nonzero()[1]) if W.nnz else np.array([], dtype=np.int64)
    rows, cols, vals = [], [], []
    for b in used.tolist():
        for o, s in coords(b, dim, seed):
            rows.append(b), cols.append(o), vals.append(s)
    P = csr_matrix((vals, (rows, cols)), shape=(width, dim))
    Y = np.asarray((W @ P).todense(), dtype=np.float64)
    n = np.sqrt((Y * Y).sum(axis=1))
    return (Y / n[:, None]).astype(np.float32)


def tfidf_features(kind, payloads, dim=256, seed=0, df_payloads=()):
    """(features float32 [kept, dim], kept): the documents of payloads; the
    document frequencies count payloads and df_payloads (a --like target)."""
    from sklearn.feature_extraction.text import TfidfTransformer
    m, kept = bucket_counts(kind, list(payloads) + list(df_payloads))
    t = TfidfTransformer(norm="l2", use_idf=True, smooth_idf=True, sublinear_tf=True).fit(m)
    npool = sum(1 for i in kept if i < len(payloads))
    W = t.transform(m)
    X = project(W, BUCKETS, dim, seed)
    return X[:npool], kept[:npool], X[npool:], [i - len(payloads) for i in kept[npool:]]


def embed_features(E, payloads, dim, seed):
    """Sum of E's rows (float64) per document, l2-normalised, projected unless
    dim is E's width."""
    from scipy.sparse import csr_matrix
    kept, rows = [], []
    for i, p in enumerate(payloads):
        ids = np.frombuffer(p, dtype="<u4")
        if not len(ids):
            continue
        kept.append(i)
        rows.append(E[ids].astype(np.float64).sum(axis=0))
    V = np.array(rows)
    V = V / np.sqrt((V * V).sum(axis=1))[:, None]
    if dim == E.shape[1]:
        return V.astype(np.float32), kept
    return project(csr_matrix(V), E.shape[1], dim, seed), kept


# ---- the choice --------------------------------------------------------------

def order_by_id(ids):
    return sorted(range(len(ids)), key=lambda i: (ids[i], i))


def dist2(X, C):
    """fmat.h: max(0, |x|^2 + |c|^2 - 2 x.c) in float64."""
    X = X.astype(np.float64)
    C = np.atleast_2d(C).astype(np.float64)
    d = (X * X).sum(axis=1)[:, None] + (C * C).sum(axis=1)[None, :] - 2 * X @ C.T
    return np.maximum(d, 0)


def kmeans_pp(X, k, seed):
    """kmeans.h: greedy k-means++ with the draws of (seed, "cal-select kmeans++")."""
    r = Rng(seed, "cal-select kmeans++")
    n, L = len(X), 2 + int(math.floor(math.log(k)))
    centers = [r.below(n)]
    closest = dist2(X, X[centers[0]])[:, 0]
    for _ in range(1, k):
        pot = closest.sum()
        cum = np.cumsum(closest)
        cand = []
        for _ in range(L):
            u = (r.next() >> 11) * 2.0 ** -53 * pot
            cand.append(min(int(np.searchsorted(cum, u, side="right")), n - 1))
        D = np.minimum(closest[:, None], dist2(X, X[cand]))
        best = int(np.argmin(D.sum(axis=0)))
        centers.append(cand[best])
        closest = D[:, best]
    return centers


def lloyd(X, C0, max_iter=300):
    """scikit-learn's Lloyd from C0: (labels, centers, n_iter)."""
    from sklearn.cluster import KMeans
    km = KMeans(n_clusters=len(C0), init=np.asarray(C0, dtype=np.float64), n_init=1, algorithm="lloyd", tol=0,
                max_iter=max_iter).fit(X.astype(np.float64))
    return km.labels_, km.cluster_centers_, km.n_iter_


def alloc_capped(total, w, cap):
    """alloc.h: cal_alloc_capped."""
    n, out, fixed, left, equal = len(w), [0] * len(w), [False] * len(w), total, False
    while left:
        wa = [0 if fixed[i] else 1 if equal else w[i] for i in range(n)]
        if not sum(wa) > 0:
            if equal:
                break
            equal = True
            continue
        part = largest_remainder(left, wa)
        over = [i for i in range(n) if not fixed[i] and part[i] > cap[i]]
        if not over:
            for i in range(n):
                if not fixed[i]:
                    out[i] = part[i]
                    left -= part[i]
            break
        for i in over:
            out[i], fixed[i] = cap[i], True
            left -= cap[i]
    return out


def nearest(labels, d2, want):
    """kmeans.h: the want[j] rows of each cluster nearest its centroid."""
    out = []
    for j in range(len(want)):
        rows = [i for i in range(len(labels)) if labels[i] == j]
        rows.sort(key=lambda i: (d2[i], i))
        out += rows[:want[j]]
    return out


def kcenter(X, k, seed):
    """kcenter.h: farthest-first from row below(n) of (seed, "cal-select kcenter")."""
    r = Rng(seed, "cal-select kcenter")
    n = len(X)
    near, owner, centers = np.full(n, np.inf), np.zeros(n, dtype=np.int64), []
    nxt = r.below(n)
    for j in range(k):
        centers.append(nxt)
        d = dist2(X, X[nxt])[:, 0]
        closer = d < near
        near[closer], owner[closer] = d[closer], j
        cand = near.copy()
        cand[centers] = -1
        nxt = int(np.argmax(cand))
    return centers, owner


def bandwidth(T):
    m = min(len(T), 1000)
    if m < 2:
        return 1.0
    D = dist2(T[:m], T[:m])
    hh = float(np.median(D[np.triu_indices(m, 1)]))
    return hh if hh > 0 else 1.0


def like(X, T, k):
    """like.h: greedy MMD (kernel herding) toward T."""
    hh = bandwidth(T)
    mu = np.exp(-dist2(X, T) / hh).mean(axis=1)
    acc, taken, chosen = np.zeros(len(X)), np.zeros(len(X), dtype=bool), []
    for j in range(k):
        v = (j + 1) * mu - acc
        v[taken] = -np.inf
        b = int(np.argmax(v))
        chosen.append(b)
        taken[b] = True
        acc += np.exp(-dist2(X, X[b])[:, 0] / hh)
    return chosen, hh


def random_choice(n, k, seed):
    """select.h: partial Fisher-Yates with (seed, "cal-select random")."""
    r, a = Rng(seed, "cal-select random"), list(range(n))
    for i in range(k):
        j = i + r.below(n - i)
        a[i], a[j] = a[j], a[i]
    return a[:k]


def select(recs, method="kmeans", n=32, k=16, alloc="size", seed=0, dim=256, target=()):
    """The whole of cal-select on records (calstream.read dicts): returns
    (chosen record indices in input order, {record index: cluster}, sizes)."""
    kind = recs[0]["kind"]
    pays = [r["raw"][16 + len(r["label"].encode()):-8] for r in recs]
    tp = [r["raw"][16 + len(r["label"].encode()):-8] for r in target]
    X, kept, T, tkept = tfidf_features(kind, pays, dim, seed, tp)
    ids = [recs[i]["id"] for i in kept]
    order = order_by_id(ids)
    X = X[order]
    pos = [kept[i] for i in order]
    n = min(n, len(X))
    cluster, sizes = {}, None
    if method == "random":
        rows = random_choice(len(X), n, seed)
    elif method == "kcenter":
        rows, owner = kcenter(X, n, seed)
        cluster = {pos[r]: j for j, r in enumerate(rows)}
        sizes = np.bincount(owner, minlength=n).tolist()
    elif method == "like":
        rows, _ = like(X, T[order_by_id([target[i]["id"] for i in tkept])], n)
    else:
        seeds = kmeans_pp(X, k, seed)
        labels, C, _ = lloyd(X, X[seeds])
        sizes = np.bincount(labels, minlength=k).tolist()
        want = alloc_capped(n, sizes if alloc == "size" else [1] * k, sizes)
        rows = nearest(labels, dist2(X, C)[np.arange(len(X)), labels], want)
        cluster = {pos[r]: int(labels[r]) for r in rows}
    return sorted(pos[r] for r in rows), cluster, sizes
