#!/bin/sh
# cal-read's decompression thread (lib/io/insrc.c; CAL_DECOMPRESS_THREAD=1
# forces it, 0 keeps it off): 3 MB of JSON Lines in zstd, gzip, xz and
# bzip2, from a file and from a pipe, give the same stream with and without
# it, and the texts CPython's json reads; a truncated and a damaged file give
# the same one-line error and the same documents before it either way; and
# -n 4000 stops at once when the rest of a pipe never comes (the thread
# waits in read(), and is cancelled there).
. tests/lib.sh
$PY - "$T/in.jsonl" <<'PYEOF'
import json, sys
docs = []
for i in range(6000): # escapes, raw UTF-8 and lengths of 0..1000 bytes: lines cross every buffer's edge
    words = ["w%d" % ((i * 7919 + k * 104729) % 50021) for k in range(i % 97)]
    docs.append("d%d " % i + " ".join(words) + "\n\t\"é中😀\\" * (i % 5) + "x" * (i % 13))
with open(sys.argv[1], "w") as f:
    for d in docs:
        f.write(json.dumps({"text": d, "n": len(d)}, ensure_ascii=i % 2 == 0) + "\n")
with open(sys.argv[1] + ".want", "w") as f:
    for l in open(sys.argv[1]):
        f.write(json.dumps(json.loads(l)["text"], ensure_ascii=False) + "\n")
PYEOF
zstd -q -3 -c "$T/in.jsonl" >"$T/in.jsonl.zst"
gzip -c "$T/in.jsonl" >"$T/in.jsonl.gz"
xz -0 -c "$T/in.jsonl" >"$T/in.jsonl.xz"
bzip2 -c "$T/in.jsonl" >"$T/in.jsonl.bz2"
CAL_DECOMPRESS_THREAD=yes cal-read -L in "$T/in.jsonl.zst" "$T/in.jsonl.gz" >/dev/null 2>"$T/ey"
eq "CAL_DECOMPRESS_THREAD=yes: said once, not ignored in silence" "$(cat "$T/ey")" \
  "cal-read: CAL_DECOMPRESS_THREAD=yes: takes 0 or 1; the load decides"
for z in zst gz xz bz2; do
  CAL_DECOMPRESS_THREAD=1 cal-read -L in "$T/in.jsonl.$z" >"$T/t1.$z" 2>"$T/e1"
  CAL_DECOMPRESS_THREAD=0 cal-read -L in "$T/in.jsonl.$z" >"$T/t0.$z" 2>"$T/e0"
  same "$z: the same stream with and without the thread" "$T/t1.$z" "$T/t0.$z"
  cal-cat --json "$T/t1.$z" | $PY tests/read/texts.py >"$T/got.$z"
  same "$z: CPython's texts" "$T/got.$z" "$T/in.jsonl.want"
  CAL_DECOMPRESS_THREAD=1 cal-read -L in - <"$T/in.jsonl.$z" >"$T/p1.$z"
  CAL_DECOMPRESS_THREAD=0 cal-read -L in - <"$T/in.jsonl.$z" >"$T/p0.$z"
  same "$z from a pipe: the same stream with and without the thread" "$T/p1.$z" "$T/p0.$z"
done
n=$(wc -c <"$T/in.jsonl.zst")
head -c $((n * 2 / 3)) "$T/in.jsonl.zst" >"$T/cut.zst"
$PY -c "import sys; b = bytearray(open(sys.argv[1], 'rb').read()); b[len(b) // 2:len(b) // 2 + 64] = b'\xff' * 64; open(sys.argv[2], 'wb').write(b)" "$T/in.jsonl.zst" "$T/bad.zst"
for f in cut bad; do
  expect_fail "$f.zst with the thread: one line" 1 "^cal-read: $T/$f.zst: byte [0-9]+: (truncated|corrupt) zstd data" \
    env CAL_DECOMPRESS_THREAD=1 cal-read "$T/$f.zst"
  cp "$T/.err" "$T/$f.e1"
  CAL_DECOMPRESS_THREAD=0 cal-read "$T/$f.zst" >/dev/null 2>"$T/$f.e0"
  same "$f.zst: the error the same with and without the thread" "$T/$f.e1" "$T/$f.e0"
done
# Cut and damaged at several points, in every codec: the documents written
# before the error (stdout) and the error the same with and without the
# thread. The thread fills 1 MiB buffers; a cut 10,000 bytes into a zstd file
# once wrote 1,687 documents with it and 3,360 without it.
for z in zst gz xz bz2; do
  n=$(wc -c <"$T/in.jsonl.$z")
  for k in 3 6 8 9 11; do
    at=$((n * k / 12))
    head -c $at "$T/in.jsonl.$z" >"$T/k.jsonl.$z"
    $PY -c "import sys; b = bytearray(open(sys.argv[1], 'rb').read()); b[$at:$at + 64] = b'\xff' * 64; open(sys.argv[2], 'wb').write(b)" "$T/in.jsonl.$z" "$T/d.jsonl.$z"
    for f in k d; do
      CAL_DECOMPRESS_THREAD=1 cal-read -L in "$T/$f.jsonl.$z" >"$T/o1" 2>"$T/e1"
      CAL_DECOMPRESS_THREAD=0 cal-read -L in "$T/$f.jsonl.$z" >"$T/o0" 2>"$T/e0"
      w=cut; [ $f = d ] && w=damaged
      if cmp -s "$T/o1" "$T/o0" && cmp -s "$T/e1" "$T/e0" && [ -s "$T/e0" ]; then ok "$z $w at $k/12: the same documents and error with and without the thread"
      else not_ok "$z $w at $k/12: the same documents and error with and without the thread" \
        "with: $(wc -c <"$T/o1") bytes, $(cat "$T/e1")" "without: $(wc -c <"$T/o0") bytes, $(cat "$T/e0")"; fi
    done
  done
done
mkfifo "$T/fifo"
(cat "$T/in.jsonl.zst"; sleep 20) >"$T/fifo" &
writer=$!
start=$(date +%s)
CAL_DECOMPRESS_THREAD=1 cal-read -n 4000 - <"$T/fifo" >"$T/n5" 2>"$T/n5.err"
rc=$? end=$(date +%s)
kill "$writer" 2>/dev/null
if [ "$rc" = 0 ] && [ $((end - start)) -lt 15 ]; then ok "-n 4000 (past the first two buffers) from a pipe that stays open: done at once"
else not_ok "-n 4000 (past the first two buffers) from a pipe that stays open: done at once" "status $rc after $((end - start)) s" "$(cat "$T/n5.err")"; fi
