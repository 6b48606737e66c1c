"""runs.py - timing and reporting for bench/*.sh.

measure() runs shell commands in turn, round after round (so that a machine
that drifts slows all of them alike) and gives each one's median CPU seconds
(user + sys of the command and its children: robust on a shared machine)
and median wall seconds. ratio() prints a ratio with its target in the one
format every benchmark uses:
    cal-pack concat / cat (CPU): 0.91 (target >= 0.9)
"""
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
