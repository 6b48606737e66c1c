#!/bin/sh
# cal-read selection options: --shard partitions exactly, --dedup and
# --sample are deterministic (and --sample independent of input order),
# --min-chars/--max-chars/-n, built-in corpus lookup and --list.
. tests/lib.sh
# D [--labels] [FILE]: the texts of a stream, one JSON string per line (via cal-cat --json)
D() { if [ "${1:-}" = --labels ]; then shift; cal-cat --json "$@" | $PY tests/read/texts.py --labels
      else cal-cat --json "$@" | $PY tests/read/texts.py; fi; }
$PY - "$T" <<'PYEOF'
import sys
t = sys.argv[1]
docs = ["document number %d %s" % (i % 700, "x" * (i % 13)) for i in range(1000)]   # with duplicates
open(t + "/docs.txt", "w").write("\n".join(docs) + "\n")
open(t + "/part1.txt", "w").write("\n".join(docs[:500]) + "\n")
open(t + "/part2.txt", "w").write("\n".join(docs[500:]) + "\n")
open(t + "/uniq.want", "w").write("".join(sorted(set('"%s"\n' % d for d in docs))))
PYEOF
cal-read -f lines "$T/docs.txt" | D --labels | cut -f2,3 | sort >"$T/all"
: >"$T/shards"
for i in 0 1 2; do cal-read -f lines --shard $i/3 "$T/docs.txt" | D --labels | cut -f2,3 >>"$T/shards"; done
sort "$T/shards" >"$T/shards.sorted"
same "3 shards together == unsharded (as a multiset)" "$T/shards.sorted" "$T/all"
n0=$(cal-read -f lines --shard 0/3 "$T/docs.txt" | D | wc -l)
[ "$n0" -gt 200 ] && [ "$n0" -lt 470 ] && ok "shard 0/3 holds about a third ($n0)" || not_ok "shard size" "$n0"
cal-read -f lines --shard 1/3 "$T/docs.txt" | D --labels | cut -f2 | sort -u >"$T/ids1"
cal-read -f lines --shard 2/3 "$T/docs.txt" | D --labels | cut -f2 | sort -u >"$T/ids2"
eq "no document id in two shards" "$(comm -12 "$T/ids1" "$T/ids2" | wc -l)" "0"
expect_fail "--shard I out of range" 2 "shard" cal-read --shard 3/3 "$T/docs.txt"

cal-read -f lines --dedup "$T/docs.txt" >"$T/d1"
cal-read -f lines --dedup "$T/docs.txt" >"$T/d1b"
same "--dedup is deterministic" "$T/d1" "$T/d1b"
cal-read -f lines --dedup "$T/part1.txt" "$T/part2.txt" | D >"$T/d2"
D "$T/d1" >"$T/d1.txt"
same "--dedup spans sources" "$T/d1.txt" "$T/d2"
D "$T/d1" | sort >"$T/d1.sorted"
same "--dedup keeps each distinct document once" "$T/d1.sorted" "$T/uniq.want"

cal-read -f lines --sample 50 --seed 9 -L x "$T/part1.txt" "$T/part2.txt" >"$T/s1"
cal-read -f lines --sample 50 --seed 9 -L x "$T/part1.txt" "$T/part2.txt" >"$T/s1b"
same "--sample is deterministic" "$T/s1" "$T/s1b"
cal-read -f lines --sample 50 --seed 9 -L x "$T/part2.txt" "$T/part1.txt" | D >"$T/s2"
D "$T/s1" >"$T/s1.txt"
same "--sample is independent of input order" "$T/s1.txt" "$T/s2"
eq "--sample size" "$(D "$T/s1" | wc -l)" "50"
cal-read -f lines --sample 50 --seed 10 "$T/docs.txt" >"$T/s3"
if cmp -s "$T/s1" "$T/s3"; then not_ok "--seed changes the sample"; else ok "--seed changes the sample"; fi
for i in 0 1; do cal-read -f lines --shard $i/2 "$T/docs.txt" >"$T/sh.$i"; done
cat "$T/sh.1" "$T/sh.0" | cal-read -f lines --sample 50 --seed 9 - >/dev/null 2>&1 && ok "sample reads stdin" || not_ok "sample reads stdin"
# a sample of the whole equals the sample of the union of the shards
D "$T/sh.1" >"$T/u.txt"; D "$T/sh.0" >>"$T/u.txt"
$PY -c "import json,sys;[print(json.loads(l)) for l in open(sys.argv[1])]" "$T/u.txt" >"$T/u.lines"
cal-read -f lines --sample 50 --seed 9 "$T/u.lines" | D >"$T/s4.txt"
same "--sample of reordered shards == --sample of the whole" "$T/s4.txt" "$T/s1.txt"

printf 'short\nlong enough line\n' >"$T/m.txt"
eq "--min-chars" "$(cal-read -f lines --min-chars 6 "$T/m.txt" | D)" '"long enough line"'
$PY -c "print('ü' * 25 + ' ' + 'word ' * 30)" >"$T/long.txt"
cal-read -f lines --max-chars 40 "$T/long.txt" | D >"$T/pieces"
$PY - "$T/pieces" "$T/long.txt" <<'PYEOF' && ok "--max-chars pieces <= 40 chars and rejoin to the input" || not_ok "--max-chars"
import json, sys
p = [json.loads(l) for l in open(sys.argv[1])]
orig = open(sys.argv[2]).read().rstrip("\n")
assert all(len(x) <= 40 for x in p), [len(x) for x in p]
assert "".join(p) == orig
assert len(p) >= 5
PYEOF
eq "-n" "$(cal-read -f lines -n 7 "$T/docs.txt" | D | wc -l)" "7"
expect_fail "--seed without --sample" 2 "seed" cal-read --seed 1 "$T/docs.txt"

# built-in corpora: $CAL_CORPORA, aliases, --list
mkdir -p "$T/corp"
printf '{"text": "a wiki article"}\n{"text": "another"}\n' | zstd -q >"$T/corp/wiki.jsonl.zst"
printf '{"text": "web page"}\n' | zstd -q >"$T/corp/web.jsonl.zst"
eq "corpus from \$CAL_CORPORA" "$(CAL_CORPORA="$T/corp" cal-read wiki | D --labels | cut -f1,3 | tr '\t' ' ')" "$(printf 'wiki "a wiki article"\nwiki "another"')"
eq "alias c4 -> web" "$(CAL_CORPORA="$T/corp" cal-read c4 | D)" '"web page"'
eq "names prose and pile -> web, foldoc -> wiki; the label is the name given" \
  "$(CAL_CORPORA="$T/corp" cal-read prose pile foldoc -n 3 | D --labels | cut -f1 | tr '\n' ' ')" "prose pile foldoc "
CAL_CORPORA="$T/corp" cal-read --list >"$T/list"
eq "--list: six corpora" "$(grep -cE '^(foldoc|prose|code|stories|multilingual|technical) ' "$T/list")" "6"
expect_fail "--list to a closed stdout fails" 1 "standard output: write error" sh -c 'cal-read --list >&-'
expect_fail "--list to a full device fails" 1 "standard output: write error" sh -c 'cal-read --list >/dev/full'
if [ -f build/corpora/wiki.jsonl.zst ]; then
  n=$(CAL_CORPORA= cal-read -v wiki 2>&1 >/dev/null | sed -n 's/.*: \([0-9]*\) documents, \([0-9]*\) bytes.*/\2/p')
  [ "${n:-0}" -ge 2000000 ] && ok "built wiki corpus >= 2 MB ($n)" || not_ok "built wiki corpus" "$n"
  for c in web code multilingual technical; do
    n=$(cal-read -v $c 2>&1 >/dev/null | sed -n 's/.*: \([0-9]*\) documents, \([0-9]*\) bytes.*/\2/p')
    [ "${n:-0}" -ge 1000000 ] && ok "built $c corpus >= 1 MB ($n)" || not_ok "built $c corpus" "$n"
  done
  # short stories: enough for EXL2's 10 and EXL3's 9 rows of 2048 tokens
  n=$(cal-read -v stories 2>&1 >/dev/null | sed -n 's/.*: \([0-9]*\) documents, \([0-9]*\) bytes.*/\2/p')
  [ "${n:-0}" -ge 300000 ] && ok "built stories corpus >= 300 kB ($n)" || not_ok "built stories corpus" "$n"
  cal-read multilingual | cal-cat --json | $PY -c '
import json, sys, unicodedata
docs = [json.loads(l)["text"] for l in sys.stdin if "\"TEXT\"" in l]
scripts = {}
for d in docs:
    for c in set(d):
        if c.isalpha():
            s = unicodedata.name(c, "?").split()[0]
            scripts.setdefault(s, set()).add(id(d))
need = ["LATIN", "CYRILLIC", "CJK", "ARABIC", "DEVANAGARI", "GREEK", "HEBREW", "HANGUL", "THAI", "ETHIOPIC"]
missing = [s for s in need if len(scripts.get(s, ())) == 0]
assert len(docs) >= 40 and not missing, (len(docs), missing)
' && ok "multilingual: >= 40 documents in Latin, Cyrillic, CJK, Arabic, Devanagari, ... scripts" || not_ok "multilingual scripts"
else
  skip "built corpora" "not built (make corpora)"
fi
check "--help" cal-read --help
check "--version" cal-read --version
