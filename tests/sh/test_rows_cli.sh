#!/bin/sh
# cal-pack, cal-shuffle, cal-blend: the one option parser (-h, --help,
# --version, --opt=value, one wording for a bad option), stage lines
# byte-identical to the getopt-era programs (literal lines recorded from
# them) and the same output bytes with and without -v, --progress, -S and
# -o; every drop reported in one line without -v; too little data a
# one-line error; cal-shuffle under a small ulimit -n; cal-blend's reader
# errors printed once by the main thread.
. tests/lib.sh
HERE=$(cd "$(dirname "$0")/../py" && pwd)
export PYTHONPATH="$PWD/examples"
$PY - "$T" <<'PYEOF'
import sys, random, calstream as cs
r = random.Random(3)
meta = [("tokenizer", "t"), ("tokenizer_fp", "00000000000000aa"), ("vocab", "500"), ("bos", "1"), ("eos", "2"), ("pad", "0")]
docs = [cs.tokens(r.choice(["wiki", "code"]), r.getrandbits(64), [r.randrange(3, 500) for _ in range(r.randrange(1, 300))])
        for _ in range(200)]
cs.write(sys.argv[1] + "/in.cal", meta, docs)
cs.write(sys.argv[1] + "/b.cal", meta, docs[:50])
cs.write(sys.argv[1] + "/t306.cal", meta, [cs.tokens("x", i, [5] * 102) for i in range(3)])
cs.write(sys.argv[1] + "/t64.cal", meta, [cs.tokens("x", 1, list(range(3, 67)))])
PYEOF
stage() { $PY -c 'import sys, calstream as cs; m, _ = cs.read(sys.argv[1]); print(cs.meta_get(m, "stage"))' "$1"; }
cd "$T" || exit 1

for p in cal-pack cal-shuffle cal-blend; do
  $p -h >h1 2>&1; r1=$?; $p --help >h2 2>&1; r2=$?
  if [ $r1 = 0 ] && [ $r2 = 0 ] && cmp -s h1 h2 && grep -q "^Usage: $p" h1 && grep -q -- '-h, --help' h1; then
    ok "$p: -h = --help, usage from the table"; else not_ok "$p: -h/--help" "$(head -3 h1)"; fi
  eq "$p --version" "$($p --version)" "$p (calkit) 0.1.0"
  expect_fail "$p: unknown long option" 2 "^$p: unknown option '--nope' \\(see --help\\)\$" $p --nope
  expect_fail "$p: unknown short option" 2 "^$p: unknown option '-q' \\(see --help\\)\$" $p -q
  expect_fail "$p: value missing" 2 "^$p: option '--seed' needs a value \\(S\\) \\(see --help\\)\$" $p --seed
done

# stage lines: the words as written (options first, as getopt_long left
# them), plus the resolved defaults, exactly as before the parser
chk_stage() { # NAME WANT CMD...
  n=$1 want=$2; shift 2
  "$@" >o.cal 2>/dev/null || { not_ok "$n" "exit $?"; return; }
  eq "$n" "$(stage o.cal)" "$want"
}
chk_stage "pack: operand first, --opt=value, resolved pad id" "cal-pack -l 64 -n 3 --seed=4 -m doc in.cal --pad-id 0" \
  cal-pack in.cal -l 64 -n 3 --seed=4 -m doc
chk_stage "pack: -l64 --mode=doc, defaults appended" \
  "cal-pack -l64 --mode=doc --bos row --truncate head in.cal --seed 0 --bos-id 1 --pad-id 0" \
  cal-pack -l64 --mode=doc --bos row --truncate head in.cal
chk_stage "pack: window" "cal-pack --length 32 --mode window -n 20 --per-doc --bos row in.cal --seed 0 --bos-id 1" \
  cal-pack --length 32 --mode window -n 20 --per-doc --bos row in.cal
chk_stage "shuffle: segments, -n5" "cal-shuffle --segments=16 -n5 -l 64 in.cal --seed 0" \
  cal-shuffle in.cal --segments=16 -n5 -l 64
chk_stage "shuffle: --by-id" "cal-shuffle --by-id in.cal --seed 0" cal-shuffle --by-id in.cal
chk_stage "blend: options before the SPECs" "cal-blend --seed 0 in.cal:rows=20 b.cal:rows=10" \
  cal-blend in.cal:rows=20 b.cal:rows=10 --seed 0
chk_stage "blend: '--' before the SPECs" "cal-blend --grouped -- in.cal:rows=3 b.cal:rows=1" \
  cal-blend --grouped in.cal:rows=3 -- b.cal:rows=1
chk_stage "blend: the resolved seed" "cal-blend in.cal:rows=2 b.cal:rows=1 --seed 0" cal-blend in.cal:rows=2 b.cal:rows=1

# the same bytes with and without the options that cannot change the records
same_bytes() { # NAME CMD... (with the extra options appended, and -o)
  n=$1; shift
  "$@" >plain.cal 2>/dev/null
  "$@" -v --progress -o withv.cal 2>/dev/null
  "$@" --verbose --progress --output=long.cal 2>/dev/null
  if [ -s plain.cal ] && cmp -s plain.cal withv.cal && cmp -s plain.cal long.cal; then ok "$n"
  else not_ok "$n" "$(cmp plain.cal withv.cal 2>&1) $(cmp plain.cal long.cal 2>&1)"; fi
}
same_bytes "pack: -v --progress -o change no byte" cal-pack -l 64 -n 5 --mode window --seed 3 in.cal
same_bytes "pack doc: -v --progress -o change no byte" cal-pack -l 64 --mode doc in.cal
same_bytes "blend: -v --progress -o change no byte" cal-blend -n 30 in.cal:weight=2 b.cal --seed 4
same_bytes "shuffle: -v --progress -o change no byte" cal-shuffle --seed 2 in.cal
same_bytes "shuffle --segments: -v --progress -o change no byte" cal-shuffle --segments 16 -n 5 -l 64 in.cal
cal-shuffle --seed 2 in.cal >plain.cal
cal-shuffle --seed 2 -S 4K -o s4k.cal in.cal
cal-shuffle --seed 2 --buffer-size=8K -v in.cal >s8k.cal 2>/dev/null
cal-shuffle --window 5 in.cal >w.cal; cal-shuffle -S8K --window 5 in.cal >w2.cal
if cmp -s plain.cal s4k.cal && cmp -s plain.cal s8k.cal && cmp -s w.cal w2.cal; then ok "shuffle: -S changes no byte (stage line included)"
else not_ok "shuffle: -S changes no byte"; fi

# drops: a line per cause on stderr without -v, naming the option; -v adds
# its summary line first; the stream's trailer carries them
cal-pack -l 64 --min-tokens 20 --max-tokens 200 in.cal >o.cal 2>e
drops="cal-pack: 13 documents dropped by --min-tokens 20 (124 tokens)
cal-pack: 62 documents dropped by --max-tokens 200 (15116 tokens)
cal-pack: 23 tokens dropped as the last partial row (--tail drop)"
eq "pack: drops reported without -v, a line per cause" "$(cat e)" "$drops"
cal-pack -l 64 --min-tokens 20 --max-tokens 200 -v in.cal >o.cal 2>e
eq "pack -v: the summary, then the causes" "$(cat e)" \
  "cal-pack: 200 documents (29215 tokens) -> 218 rows of 64 (+0 random, +0 noise); 75 documents dropped, 15263 tokens unused
$drops"
eq "pack: the drops travel in the stream's trailer" "$(cal-cat o.cal | sed -n 's/^#   drop=[0-9a-f]* //p')" \
  "cal-pack 13 documents 124 tokens dropped by --min-tokens 20
cal-pack 62 documents 15116 tokens dropped by --max-tokens 200
cal-pack 23 tokens 0 - dropped as the last partial row (--tail drop)"
cal-pack -l 64 -n 3 in.cal >o.cal 2>e
eq "pack: nothing dropped, nothing said" "$(cat e)" ""
cal-pack -l 16 --mode doc --truncate head in.cal >o.cal 2>e
case "$(head -1 e)" in "cal-pack: "*" documents truncated by --truncate head ("*" tokens dropped)") ok "pack doc: cut documents and tokens reported" ;; *) not_ok "pack doc: cut tokens reported" "$(cat e)" ;; esac
case "$(sed -n 2p e)" in "cal-pack: "*" rows padded to -l 16 ("*" tokens)") ok "pack doc: padding reported" ;; *) not_ok "pack doc: padding reported" "$(cat e)" ;; esac
cal-shuffle --segments 16 -n 2 -l 64 in.cal >o.cal 2>e
eq "shuffle: the partial last segment reported" "$(cat e)" "cal-shuffle: 15 tokens dropped as the partial last segment (--segments 16)"

# too little data: one line, exit 1 (issue 14)
expect_fail "pack -l 512 on 306 tokens" 1 \
  '^cal-pack: t306.cal: input has 306 tokens in 3 documents; no row of 512 tokens is possible \(use --allow-short\)$' \
  cal-pack -l 512 t306.cal
check "pack -l 512 --allow-short: 0 rows allowed" cal-pack -l 512 --allow-short t306.cal -o o.cal
expect_fail "pack: every document filtered" 1 \
  'input has 306 tokens in 3 documents \(3 documents dropped by --min-tokens 200 \(306 tokens\)\); no row of 8 tokens' \
  cal-pack -l 8 --min-tokens 200 t306.cal
expect_fail "shuffle --segments 32 -n 3 -l 256 on 64 tokens" 1 \
  '^cal-shuffle: t64.cal: 64 tokens make 2 segments of 32; a row of 256 needs 8 \(0 rows possible\)$' \
  cal-shuffle --segments 32 -n 3 -l 256 t64.cal

# many spilled runs under a small ulimit -n (issue 16): the same bytes
$PY - big.cal <<'PYEOF'
import sys, random, calstream as cs
r = random.Random(8)
cs.write(sys.argv[1], [("vocab", "1000")], [cs.tokens("x", i, [r.randrange(1000) for _ in range(r.randrange(0, 12))]) for i in range(60000)])
PYEOF
cal-shuffle --seed 5 big.cal >mem.cal
sh -c 'ulimit -n 24 && cal-shuffle --seed 5 -S 4K -v big.cal >lim.cal 2>err'; rc=$?
runs=$(sed -n 's/.* \([0-9]*\) runs spilled$/\1/p' err)
if [ $rc = 0 ] && [ "${runs:-0}" -gt 1000 ] && cmp -s mem.cal lim.cal; then ok "ulimit -n 24, $runs runs spilled: multi-pass merge, same bytes as in memory"
else not_ok "ulimit -n 24: multi-pass merge" "rc $rc: $(cat err)"; fi

# cal-blend: a reader thread's error reaches the main thread, printed once
off=$($PY - <<'PYEOF'
import calstream as cs
raw = open("in.cal", "rb").read()
_, recs = cs.read("in.cal")
want = b"".join(x["raw"] for x in recs[30:31])
at = raw.index(want)
b = bytearray(raw); b[at + 20] ^= 1; open("bad1.cal", "wb").write(b)
want2 = b"".join(x["raw"] for x in recs[40:41]); at2 = raw.index(want2)
b = bytearray(raw); b[at2 + 20] ^= 1; open("bad2.cal", "wb").write(b)
print(at)
PYEOF
)
expect_fail "blend: a bad record in a source: one line with file and byte offset" 1 \
  "^cal-blend: bad1.cal: byte $off: TOKENS record checksum mismatch\$" cal-blend --grouped in.cal:rows=10 bad1.cal
i=0; good=0
while [ $i -lt 10 ]; do
  cal-blend --grouped bad1.cal bad2.cal in.cal bad2.cal bad1.cal >/dev/null 2>e; rc=$?
  [ $rc = 1 ] && [ "$(wc -l <e)" = 1 ] && grep -Eq '^cal-blend: bad[12]\.cal: byte [0-9]+: TOKENS record checksum mismatch$' e && good=$((good + 1))
  i=$((i + 1))
done
eq "blend: four failing reader threads, 10 runs: one line, exit 1, every time" "$good" 10
expect_fail "blend: a missing source" 1 "^cal-blend: nope.cal: No such file or directory\$" cal-blend in.cal:rows=1 nope.cal:rows=1
expect_fail "blend: label= with a control character" 2 "label .a.\\tb. has a control character at byte 1" cal-blend "in.cal:rows=1:label=$(printf 'a\tb')"
