"""rng_peers.py DRIVER - base/anyrng's peer generators against the real
CPython `random`, numpy's default_rng and torch's CPU generator.

DRIVER is build/obj/tests/test_base_rng_peers; its "dump" mode reads the
commands written here (see its header) and prints one line per command. The
same commands run here on the peers themselves; every line must be equal.
Prints TAP-like lines (see tests/run.sh): one per kind and family of calls."""
import random, struct, subprocess, sys

import numpy as np
try:
    import torch
except ImportError:
    torch = None

SEEDS = [0, 1, 42, 69420, 2**32 - 1, 2**32, 2**63 - 1, 2**64 - 1,
         0x9E3779B97F4A7C15, 123456789012345, 987654321, 2718281828]
BIG_SEEDS = [2**64, 2**64 + 5, 2**100 + 12345, 2**200 - 1]  # python and numpy take any int
RANGES = [1, 2, 3, 7, 10, 1000, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**32 + 1,
          2**53 + 1, 2**62, 2**63 - 1]
WIDE = [2**63, 2**64 - 1]  # beyond int64: python, and numpy's uint64 dtype
MIXED = ['b:3', 'b:4294967296', 'b:7', 'b:1', 'b:2147483648', 'b:5*3', 'b:9007199254740993',
         'b:1*2', 'b:4294967295', 'b:6']  # 32- and 64-bit draws interleaved
RANDINT = ['ri:0:1000*5', 'ri:-5:5*5', 'ri:10:10*3', 'ri:0:4294967296*3', 'ri:7:8*4',
           'i:-1000:1000*5', 'i:0:9007199254740993*3', 'i:5:6*2', 'i:-4294967296:4294967296*3']
PERMS = [0, 1, 2, 10, 1000]
SHUFFLES = [0, 1, 5, 100]
SAMPLES = [(10, 0), (10, 3), (10, 10), (21, 5), (22, 5), (85, 6), (86, 6), (1000, 5),
           (1000, 50), (10**6, 20), (10**12, 7)]  # both of CPython's methods, either side of the switch
BITS = ['g:0', 'g:1', 'g:31', 'g:32', 'g:33', 'g:63', 'g:64', 'g:65', 'g:100', 'g:128', 'g:200', 'r*3']


def tap(ok, name, detail=()):
    print(('ok - ' if ok else 'not ok - ') + name)
    for d in ([] if ok else detail)[:8]:
        print('# ' + d[:600])


def dbits(x):
    return struct.unpack('<Q', struct.pack('<d', x))[0]


def tokens(toks):
    for t in toks:
        t, _, c = t.partition('*')
        yield t, int(c or 1)


class Python:
    name = 'python'
    def __init__(self, seed): self.r = random.Random(seed)
    def seq(self, toks):
        r, out = self.r, []
        for t, c in tokens(toks):
            for _ in range(c):
                f = t.split(':')
                if f[0] == 'b': out.append(r.randrange(int(f[1])))
                elif f[0] == 'ri': out.append(r.randint(int(f[1]), int(f[2])))
                elif f[0] == 'i': out.append(r.randrange(int(f[1]), int(f[2])))
                elif f[0] == 'r': out.append(dbits(r.random()))
                elif f[0] == 'g': out.append(format(r.getrandbits(int(f[1])), 'x'))
        return out
    def perm(self, n):
        x = list(range(n)); self.r.shuffle(x); return x
    def shuffle(self, n):
        x = ['s%d' % i for i in range(n)]; self.r.shuffle(x); return [int(s[1:]) for s in x]
    def sample(self, n, k):
        return self.r.sample(range(n), k)


class Numpy:
    name = 'numpy'
    def __init__(self, seed): self.seed = seed; self.g = np.random.default_rng(seed)
    def seq(self, toks):
        g, out = self.g, []
        for t, c in tokens(toks):
            f = t.split(':')
            if f[0] == 'r':
                out += [dbits(g.random()) for _ in range(c)]
                continue
            lo, hi, kw = (0, int(f[1]), {}) if f[0] == 'b' else (int(f[1]), int(f[2]), {})
            if f[0] == 'ri':  # randint(a, b) is integers(a, b, endpoint=True)
                kw['endpoint'] = True
            if hi > 2**63 - (f[0] == 'ri'):
                kw['dtype'] = np.uint64
            # one array call for a repeated token: the same draws as one at a time
            out += [int(v) for v in g.integers(lo, hi, size=c, **kw)] if c > 1 else [int(g.integers(lo, hi, **kw))]
        return out
    def perm(self, n): return self.g.permutation(n).tolist()
    def shuffle(self, n):
        x = ['s%d' % i for i in range(n)]; self.g.shuffle(x); return [int(s[1:]) for s in x]
    def state(self, n): return np.random.SeedSequence(self.seed).generate_state(n).tolist()


class Torch:
    name = 'torch'
    def __init__(self, seed): torch.manual_seed(seed)
    def seq(self, toks):
        out = []
        for t, c in tokens(toks):
            f = t.split(':')
            lo, hi = (0, int(f[1])) if f[0] == 'b' else (int(f[1]), int(f[2]) + (f[0] == 'ri'))
            out += torch.randint(lo, hi, (c,)).tolist()  # int64, CPU, filled in order
        return out
    def perm(self, n): return torch.randperm(n).tolist()
    def shuffle(self, n):
        x = ['s%d' % i for i in range(n)]; return [int(x[i][1:]) for i in torch.randperm(n).tolist()]


def plan(peer):
    """(family, seed, command words, reference function) for one peer."""
    seeds = SEEDS + (BIG_SEEDS if peer is not Torch else [])
    ranges = RANGES + (WIDE if peer is not Torch else [])
    for s in seeds:
        fam = 'seeds beyond 64 bits' if s >= 2**64 else None
        for n in ranges:
            yield fam or 'below(n) for n = 1 .. 2^63', s, ['seq', 'b:%d*40' % n], lambda p, n=n: p.seq(['b:%d*40' % n])
        yield fam or 'interleaved 32- and 64-bit ranges', s, ['seq'] + MIXED, lambda p: p.seq(MIXED)
        yield fam or 'randint(a, b) and the exclusive call', s, ['seq'] + RANDINT, lambda p: p.seq(RANDINT)
        for n in PERMS:
            yield fam or 'permutation(n), n = 0 .. 1000', s, ['perm', str(n)], lambda p, n=n: p.perm(n)
        for n in SHUFFLES:
            yield fam or 'shuffle of a list', s, ['shuffle', str(n)], lambda p, n=n: p.shuffle(n)
        if peer is Python:
            yield fam or 'getrandbits(k), k = 0 .. 200, and random()', s, ['seq'] + BITS, lambda p: p.seq(BITS)
            for n, k in SAMPLES:
                yield fam or 'sample(range(n), k), both methods', s, ['sample', str(n), str(k)], lambda p, n=n, k=k: p.sample(n, k)
        if peer is Numpy:
            yield fam or 'random() between integers', s, ['seq', 'b:10', 'r', 'b:10', 'r*2', 'b:3'], \
                lambda p: p.seq(['b:10', 'r', 'b:10', 'r*2', 'b:3'])
            for n in (1, 4, 8, 13):
                yield fam or 'SeedSequence.generate_state', s, ['state', str(n)], lambda p, n=n: p.state(n)


def main(driver):
    peers = [Python, Numpy] + ([Torch] if torch is not None else [])
    if torch is None:
        print('skip - torch: python3-torch is not installed (apt-get install python3-torch)')
    else:
        torch.set_num_threads(1)
    jobs = [(peer, fam, s, words, ref) for peer in peers for fam, s, words, ref in plan(peer)]
    cmds = ''.join('%s %x %s\n' % (peer.name, s, ' '.join(words)) for peer, fam, s, words, ref in jobs)
    got = subprocess.run([driver, 'dump'], input=cmds, capture_output=True, text=True)
    lines = got.stdout.split('\n')
    tap(got.returncode == 0 and len(lines) == len(jobs) + 1, 'the driver answers every command',
        [got.stderr, 'lines: %d for %d commands' % (len(lines) - 1, len(jobs))])
    groups = {}
    for (peer, fam, s, words, ref), line in zip(jobs, lines):
        want = ' '.join(map(str, ref(peer(s))))
        g = groups.setdefault((peer.name, fam), [0, []])
        g[0] += 1
        if line != want:
            g[1] += ['seed %d: %s' % (s, ' '.join(words)), '  calkit: ' + line[:250], '  %s: %s' % (peer.name, want[:250])]
    for (name, fam), (n, bad) in groups.items():
        tap(not bad, '%s: %s (%d commands)' % (name, fam, n), bad)


if __name__ == '__main__':
    main(sys.argv[1])
