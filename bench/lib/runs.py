"""runs.py - timing and reporting for bench/*.sh.

measure() runs shell commands in turn, round after round (so that a machine
that drifts slows all of them alike) and gives each one's median CPU seconds
(user + sys of the command and its children: robust on a shared machine)
and median wall seconds. measure_stages() does the same for pipelines and
gives each stage's own CPU seconds too, so that a filter is compared with
the anchor in its place (`cat F | X > /dev/null` against `cat F | cat >
/dev/null`: X's CPU against the second cat's), not diluted by the stages
around it. ratio() prints a ratio with its target in the one format every
benchmark uses:
    cal-pack concat / cat (CPU): 0.91 (target >= 0.9)
"""
import os
import resource
import statistics
import subprocess
import time


def measure(cmds, reps=3, env=None):
    """cmds: {name: shell command}; returns {name: (cpu_s, wall_s)}."""
    cpu = {k: [] for k in cmds}
    wall = {k: [] for k in cmds}
    for _ in range(reps):
        for k, c in cmds.items():
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.monotonic()
            subprocess.run(c, shell=True, check=True, env=env)
            t1 = time.monotonic()
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[k].append(r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime)
            wall[k].append(t1 - t0)
    return {k: (statistics.median(cpu[k]), statistics.median(wall[k])) for k in cmds}


def ratio(name, value, target=None, note="", at_most=False):
    t = f" (target {'<=' if at_most else '>='} {target})" if target is not None else ""
    print(f"{name}: {value:.2f}{t}{'  ' + note if note else ''}", flush=True)


def _run_stages(stages, src=None):
    """stages: argv lists, piped in order, the last to /dev/null; src: the
    first stage's standard input (a path) or None. Returns ([cpu of each
    stage], wall)."""
    devnull = open(os.devnull, "wb")
    procs, prev = [], open(src, "rb") if src else None
    t0 = time.monotonic()
    for i, argv in enumerate(stages):
        last = i == len(stages) - 1
        p = subprocess.Popen(argv, stdin=prev, stdout=devnull if last else subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
        if prev is not None:
            prev.close()
        prev = p.stdout
        procs.append(p)
    cpu, left = {}, {p.pid: i for i, p in enumerate(procs)}
    while left:
        pid, status, ru = os.wait4(-1, 0)
        if pid in left:
            if status:
                raise SystemExit("bench: %s failed (status %d)" % (" ".join(stages[left[pid]]), status))
            cpu[left.pop(pid)] = ru.ru_utime + ru.ru_stime
    wall = time.monotonic() - t0
    devnull.close()
    return [cpu[i] for i in range(len(stages))], wall


def measure_stages(pipes, reps=5):
    """pipes: {name: (stages, src)} as for _run_stages; round after round,
    each round starting one further along the list (no pipeline always runs
    first). Returns {name: ([median CPU of each stage], median total CPU,
    median wall)}."""
    names = list(pipes)
    got = {k: [] for k in names}
    for r in range(reps):
        for k in names[r % len(names):] + names[:r % len(names)]:
            got[k].append(_run_stages(*pipes[k]))
    out = {}
    for k, runs in got.items():
        n = len(runs[0][0])
        out[k] = ([statistics.median(x[0][i] for x in runs) for i in range(n)],
                  statistics.median(sum(x[0]) for x in runs), statistics.median(x[1] for x in runs))
    return out
