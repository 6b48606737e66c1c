"""packref.py - reference models of cal-pack, cal-shuffle and cal-blend for
the tests, written from the documented rules (man/cal-pack.1 etc.), with the
documented RNG (xoshiro256** seeded by SplitMix64, Lemire bounded draws;
man/cal-stream.5). The tests compare the C programs with these."""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples"))
from calstream import xxh3  # noqa: E402

M64 = (1 << 64) - 1


def h(b, seed=0):
    return xxh3(b, seed)


class Rng:
    def __init__(self, seed, purpose=None):
        if purpose is not None:
            seed ^= h(purpose.encode())
        x, self.s = seed & M64, []
        for _ in range(4):
            x = (x + 0x9E3779B97F4A7C15) & M64
            z = x
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
            self.s.append(z ^ (z >> 31))

    def next(self):
        s = self.s
        rotl = lambda x, k: ((x << k) | (x >> (64 - k))) & M64
        r = (rotl((s[1] * 5) & M64, 7) * 9) & M64
        t = (s[1] << 17) & M64
        s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t
        s[3] = rotl(s[3], 45)
        return r

    def below(self, n):
        m = self.next() * n
        if (m & M64) < n:
            thr = (-n) % (1 << 64) % n
            while (m & M64) < thr:
                m = self.next() * n
        return m >> 64


def row_id(src, off, length):
    return h(struct.pack("<QQ", src, off), length)


def largest_remainder(total, w):
    s = sum(w)
    q = [total * (x / s) for x in w]
    out = [int(x // 1) for x in q]
    rem = [x - int(x // 1) for x in q]
    order = sorted(range(len(w)), key=lambda i: (-rem[i], i))
    for i in order[:total - sum(out)]:
        out[i] += 1
    return out


# Each model returns a list of (label, id, ids, mask-or-None, flags).
def concat(docs, L, n=None, bos=None, eos=None, bos_pol="none", eos_pol="none", sep="none", tail="drop", pad=None):
    stream = []  # (token, doc index, offset within the wrapped doc)
    for d, (label, did, ids) in enumerate(docs):
        t = []
        if d and sep == "eos": t.append(eos)
        if d and sep == "bos": t.append(bos)
        if bos_pol == "doc": t.append(bos)
        t += ids
        if eos_pol == "doc": t.append(eos)
        stream += [(x, d, i) for i, x in enumerate(t)]
    rows, i = [], 0
    while n is None or len(rows) < n:
        r = len(rows)
        b = bos_pol == "row" or (bos_pol == "half" and r >= n // 2) or (bos_pol == "alt" and r % 2 == 0)
        e = eos_pol == "row" or (eos_pol == "half" and r >= n // 2) or (eos_pol == "alt" and r % 2 == 0)
        c = L - b - e
        chunk = stream[i:i + c]
        if not chunk:
            break
        d, off = chunk[0][1], chunk[0][2]
        ids = ([bos] if b else []) + [x[0] for x in chunk]
        if len(chunk) < c:
            if tail != "pad":
                break
            ids += [eos] if e else []
            mask = [1] * len(ids) + [0] * (L - len(ids))
            rows.append((docs[d][0], row_id(docs[d][1], off, L), ids + [pad] * (L - len(ids)), mask, 0))
            break
        ids += [eos] if e else []
        rows.append((docs[d][0], row_id(docs[d][1], off, L), ids, None, 0))
        i += c
    return rows


def article(docs, L, n=None, bos=None, eos=None, bos_pol="none", eos_pol="none", tail="drop", pad=None):
    rows, buf, first = [], [], None
    for label, did, ids in docs:
        if n is not None and len(rows) >= n:
            break
        if not buf:
            first = (label, did)
        even = len(rows) % 2 == 0
        buf += ([bos] if bos_pol in ("doc", "half") or (bos_pol == "alt" and even) else []) + ids
        buf += [eos] if eos_pol == "doc" or (eos_pol == "alt" and even) else []
        if len(buf) >= L + (bos_pol == "half"):
            s = 1 if bos_pol == "half" and len(rows) < n // 2 else 0
            rows.append((first[0], row_id(first[1], 0, L), buf[s:s + L], None, 0))
            buf = []
    if buf and tail == "pad" and (n is None or len(rows) < n):
        s = 1 if bos_pol == "half" and len(rows) < n // 2 else 0
        real = buf[s:s + L]
        rows.append((first[0], row_id(first[1], 0, L), real + [pad] * (L - len(real)),
                     [1] * len(real) + [0] * (L - len(real)), 0))
    return rows


def doc_row(label, did, ids, L, r, n, bos, eos, bos_pol, eos_pol, trunc, padside, pad):
    has = lambda p: p in ("row", "doc") or (p == "half" and r >= n // 2) or (p == "alt" and r % 2 == 0)
    b, e = has(bos_pol), has(eos_pol)
    room, skip = L - b - e, 0
    if len(ids) > room:
        skip = len(ids) - room if trunc == "head" else 0
        ids = ids[skip:skip + room]
    real = ([bos] if b else []) + ids + ([eos] if e else [])
    p = L - len(real)
    if padside == "left":
        out, mask = [pad] * p + real, [0] * p + [1] * len(real)
    else:
        out, mask = real + [pad] * p, [1] * len(real) + [0] * p
    return (label, row_id(did, skip, L), out, mask if p else None, 0)


def doc(docs, L, n=None, bos=None, eos=None, bos_pol="none", eos_pol="none", trunc="tail", padside="right",
        pad=None, min_tokens=0):
    rows = []
    for label, did, ids in docs:
        if n is not None and len(rows) >= n:
            break
        if len(ids) < min_tokens:
            continue
        rows.append(doc_row(label, did, ids, L, len(rows), n, bos, eos, bos_pol, eos_pol, trunc, padside, pad))
    return rows


def window(docs, L, n, seed=0, per_doc=False, bos=None, eos=None, bos_pol="none", eos_pol="none", sep="none"):
    rng = Rng(seed, "window")
    cat, starts = [], []
    for d, (label, did, ids) in enumerate(docs):
        t = []
        if d and not per_doc and sep == "eos": t.append(eos)
        if d and not per_doc and sep == "bos": t.append(bos)
        if bos_pol == "doc": t.append(bos)
        t += ids
        if eos_pol == "doc": t.append(eos)
        starts.append((len(cat), len(t)))
        cat += t
    rows = []
    for r in range(n):
        b = bos_pol == "row" or (bos_pol == "half" and r >= n // 2) or (bos_pol == "alt" and r % 2 == 0)
        e = eos_pol == "row" or (eos_pol == "half" and r >= n // 2) or (eos_pol == "alt" and r % 2 == 0)
        c = L - b - e
        if per_doc:
            el = [i for i, (s, l) in enumerate(starts) if l >= c + 1]
            d = el[rng.below(len(el))]
            st = starts[d][0] + rng.below(starts[d][1] - c)
        else:
            st = rng.below(len(cat) - c)
            d = max(i for i, (s, l) in enumerate(starts) if s <= st)
        ids = ([bos] if b else []) + cat[st:st + c] + ([eos] if e else [])
        rows.append((docs[d][0], row_id(docs[d][1], st - starts[d][0], L), ids, None, 0))
    return rows


def shuffle_order(nrec, seed):
    keys = [(h(struct.pack("<Q", i), seed), i) for i in range(nrec)]
    return [i for _, i in sorted(keys)]


def blend_schedule(counts, seed):
    rng, left, out = Rng(seed, "blend"), list(counts), []
    for rem in range(sum(counts), 0, -1):
        x, i = rng.below(rem), 0
        while x >= left[i]:
            x -= left[i]
            i += 1
        left[i] -= 1
        out.append(i)
    return out
