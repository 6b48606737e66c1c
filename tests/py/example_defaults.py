"""example_defaults.py EXAMPLES WORK - every recipe's "# Defaults:" line
against the script itself: the header (what -h prints) states the default of
every option that has one, and each stated value is the one the script's
variable holds when no option is given.

The values are not read from the source by pattern: the script's own lines,
from the top through its option parsing (its getopts loop, or the
rows_options/peer_options call of common.sh) and the plain assignments just
after it, run in sh with no arguments, then print the variable each option
sets (found in its case arm: `n) ROWS=$OPTARG`). Paths under the calkit tree
are compared relative to it. Also: every option the Usage line shows is one
getopts takes. Prints TAP-like lines (tests/run.sh)."""
import os
import re
import shutil
import subprocess
import sys

EX, WORK = sys.argv[1], sys.argv[2]
COMMON = open(os.path.join(EX, "common.sh")).read()


def tap(ok, name, detail=""):
    print(("ok - " if ok else "not ok - ") + name)
    if not ok and detail:
        print("# " + detail[:600])


def helper(name):
    """The body of a common.sh function: its getopts string and case arms."""
    m = re.search(r"^%s\(\) \{\n(.*?)^\}" % name, COMMON, re.M | re.S)
    return m.group(1)


def defaults_line(header):
    """The options of the '# Defaults:' line and its indented continuation
    lines: -X VALUE pairs up to the first word that is no option."""
    m = re.search(r"^# Defaults: (.*(?:\n#   .*)*)", header, re.M)
    if not m:
        return None
    words = re.sub(r"\n#\s+", " ", m.group(1)).split()
    out = {}
    while len(words) >= 2 and re.fullmatch(r"-[A-Za-z]", words[0]):
        out[words[0][1]] = words[1]
        words = words[2:]
    return out


def check(script):
    name = "examples/" + script
    lines = open(os.path.join(EX, script)).read().split("\n")
    usage_at = next(i for i, l in enumerate(lines) if l.startswith("# Usage"))
    header = "\n".join(lines[1:usage_at + 1])   # common.sh's usage() prints these
    stated = defaults_line(header)
    if stated is None:
        tap(False, name + ": a '# Defaults:' line in the header")
        return
    usage = " ".join(l for l in lines[usage_at:] if l.startswith("#") and script in l)
    shown = set(re.findall(r"(?<![\w-])-([A-Za-z])\b", usage))
    # the option parsing: the script's own loop or a common.sh helper
    end = parse = None
    for i, l in enumerate(lines):
        m = re.match(r"(rows_options|peer_options) \"\$@\"$", l)
        if m:
            end, parse = i, helper(m.group(1))
            break
        if l.startswith("while getopts "):
            end = next(j for j in range(i, len(lines)) if lines[j] == "done")
            parse = "\n".join(lines[i:end + 1])
            break
    optstring = re.search(r"getopts (\S+) ", parse).group(1)
    takes = {c for c, n in zip(optstring, optstring[1:] + " ") if c.isalpha() and n == ":"}
    flags = {c for c, n in zip(optstring, optstring[1:] + " ") if c.isalpha() and n != ":"} - {"h"}
    var = dict(re.findall(r"(?<![\w])([A-Za-z])\) ([A-Z_]+)=", parse))
    while end + 1 < len(lines) and re.match(r"[A-Z_]+=", lines[end + 1]):
        end += 1
    # run the prologue where ROOT (common.sh: the examples' parent) is known
    root = os.path.join(WORK, script + ".tree")
    os.makedirs(os.path.join(root, "examples"), exist_ok=True)
    shutil.copy(os.path.join(EX, "common.sh"), os.path.join(root, "examples"))
    probe = lines[:end + 1] + ['echo "%s=$%s"' % (c, var[c]) for c in sorted(takes) if c in var]
    path = os.path.join(root, "examples", script)
    open(path, "w").write("\n".join(probe) + "\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CAL_")}
    r = subprocess.run(["sh", path], capture_output=True, text=True, env=env)
    got = {}
    for l in r.stdout.splitlines():
        c, v = l.split("=", 1)
        got[c] = v.replace(root + "/", "")
    bad = []
    if r.returncode != 0 or r.stderr:
        bad.append("the prologue failed: %r" % r.stderr)
    bad += ["-%s is in the Usage line but not taken by getopts" % c for c in sorted(shown - takes - flags)]
    for c, v in sorted(stated.items()):
        if c not in takes:
            bad.append("-%s %s stated, but -%s takes no value" % (c, v, c))
        elif c not in shown:
            bad.append("-%s %s stated, but the Usage line has no -%s" % (c, v, c))
        elif c not in var:
            bad.append("-%s: no variable set by its case arm" % c)
        elif got.get(c) != v:
            bad.append("-%s: the header says %r, the script uses %r (%s)" % (c, v, got.get(c), var[c]))
    for c in sorted(takes):
        if c in var and got.get(c) and c not in stated and c in shown:
            bad.append("-%s: default %r (%s) not stated" % (c, got[c], var[c]))
    tap(not bad, "%s: the header's Defaults (%s) are the script's" %
        (name, " ".join("-%s %s" % kv for kv in stated.items())), "; ".join(bad))


for s in sorted(os.listdir(EX)):
    if s.endswith(".sh") and s != "common.sh":
        check(s)
