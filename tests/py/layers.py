"""layers.py OBJDIR - checks lib/README.md's layers: every '#include "LAYER/..."'
in lib/ and every symbol an object takes from another object go only to the
same layer or to a layer below it, and the objects' dependency graph has no
cycle. Prints TAP-like lines (see tests/run.sh)."""
import glob, os, re, subprocess, sys

BELOW = {  # layer -> layers it may use (besides itself)
    'base': set(), 'stream': {'base'}, 'io': {'base', 'stream'}, 'jinja': {'base'},
    'text': {'base', 'stream', 'io', 'jinja'}, 'tok': {'base', 'stream', 'io'},
    'rows': {'base', 'stream', 'io'}, 'stats': {'base', 'stream', 'io'},
}

def tap(ok, name, detail=()):
    print(('ok - ' if ok else 'not ok - ') + name)
    for d in ([] if ok else detail)[:20]:
        print('# ' + d)

def layer(path):
    return path.split('lib/')[-1].split('/')[0]

def main(objdir):
    srcs = sorted(glob.glob('lib/*/*.[ch]') + glob.glob('lib/*/*.cc'))
    dirs = {layer(s) for s in srcs}
    tap(dirs <= set(BELOW), 'lib/ holds only the layers of lib/README.md', sorted(dirs - set(BELOW)))
    readme = open('lib/README.md').read()
    tap(all('`%s/`' % l in readme for l in BELOW), 'lib/README.md names every layer')
    bad = []
    for s in srcs:
        for n, line in enumerate(open(s), 1):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if not m:
                continue
            inc = m.group(1)
            l = inc.split('/')[0] if '/' in inc else None
            if l is None or l not in BELOW:
                bad.append('%s:%d: #include "%s" does not name a layer' % (s, n, inc))
            elif l != layer(s) and l not in BELOW[layer(s)]:
                bad.append('%s:%d: %s includes %s' % (s, n, layer(s), inc))
            elif not os.path.exists('lib/' + inc):
                bad.append('%s:%d: %s does not exist' % (s, n, inc))
    tap(not bad, 'includes in lib/ go down the layers only (%d files)' % len(srcs), bad)

    objs = [os.path.join(objdir, 'lib', os.path.splitext(s[4:])[0] + '.o') for s in srcs if not s.endswith('.h')]
    missing = [o for o in objs if not os.path.exists(o)]
    tap(not missing, 'every lib/ source has its object in %s' % objdir, missing)
    objs = [o for o in objs if os.path.exists(o)]
    defs, und = {}, {}
    for o in objs:
        out = subprocess.run(['nm', '-P', o], capture_output=True, text=True, check=True).stdout
        und[o] = set()
        for line in out.splitlines():
            f = line.split()
            if len(f) < 2:
                continue
            if f[1] == 'U':
                und[o].add(f[0])
            elif f[1] in 'TDBRVWC':
                defs.setdefault(f[0], o)
    edges = {o: {} for o in objs}
    for o in objs:
        for sym in und[o]:
            d = defs.get(sym)
            if d and d != o:
                edges[o].setdefault(d, sym)
    bad = ['%s uses %s from %s' % (o.split('lib/')[1], sym, d.split('lib/')[1])
           for o in objs for d, sym in sorted(edges[o].items())
           if layer(d) != layer(o) and layer(d) not in BELOW[layer(o)]]
    tap(not bad, 'objects call down the layers only (%d objects)' % len(objs), bad)
    # cycles: depth-first search with colours
    colour, stack, cycles = {}, [], []
    def visit(o):
        colour[o] = 1
        stack.append(o)
        for d in sorted(edges[o]):
            if colour.get(d) == 1:
                cyc = stack[stack.index(d):] + [d]
                cycles.append(' -> '.join(c.split('lib/')[1] for c in cyc))
            elif not colour.get(d):
                visit(d)
        stack.pop()
        colour[o] = 2
    sys.setrecursionlimit(10000)
    for o in objs:
        if not colour.get(o):
            visit(o)
    tap(not cycles, 'no cycle among the objects of lib/', cycles)

main(sys.argv[1])
