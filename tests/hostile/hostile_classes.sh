#!/bin/sh
# hostile_classes.sh - round 3's classes of hostile surroundings (issue 29),
# generated as the cross product of every program (the Makefile's PROGS, so
# a new program is covered or this test fails until it has a recipe below)
# and every class:
#  - -o OUT under `ulimit -f 1` (SIGXFSZ at the first 512 bytes): a non-zero
#    exit that is no signal, one line saying why, no OUT and no OUT.tmp.*;
#  - each named input (and cal-encode's -t TOKENIZER) as a FIFO whose writer
#    closes at once, a socket, links to /dev/null and /dev/zero, a symbolic
#    link loop, a dangling link, a directory where a file is expected: one
#    line naming what the path is (or, for cal-read, which reads a FIFO, a
#    device and a folder as they are, an empty stream), never a hang (each
#    run under `timeout`) or a crash;
#  - cal-read's walk of a folder holding them all: the regular file read,
#    the others skipped with a counted notice (links that loop or dangle
#    are errors, tests/hostile/hostile_cli.sh).
. tests/lib.sh
TOK=$PWD/build/tokenizers/mistral/tokenizer.json
[ -f "$TOK" ] || sh scripts/fetch-tokenizers.sh >"$T/fetch.log" 2>&1
PROGS=$(printf 'calkit-print-progs:\n\t@echo $(notdir $(PROGS))\n' | env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s --no-print-directory -f Makefile -f - calkit-print-progs)
[ -n "$PROGS" ] || { not_ok "the Makefile's PROGS" "make printed none"; exit 0; }

# inputs: documents, their stream, tokens, vectors (each writes far more than 512 bytes)
$PY -c "
import sys
with open(sys.argv[1], 'w') as f:
    for i in range(200): f.write('{\"text\": \"document %d says something about the number %d and more.\"}\n' % (i, i * 7))" "$T/docs.jsonl"
cal-read "$T/docs.jsonl" -o "$T/text.cal" 2>/dev/null
cal-encode -t "$TOK" "$T/text.cal" -o "$T/tok.cal" 2>/dev/null
$PY - "$T/vec.cal" <<'EOF'
import sys
sys.path.insert(0, "examples")
import numpy as np, calstream as cs
with open(sys.argv[1], "wb") as f:
    w = cs.CalStreamWriter(f, {"stage": "x"})
    w.vectors("v", np.arange(32 * 64, dtype=np.float32).reshape(32, 64) / 1000)
    w.close()
EOF

# recipe PROG: sets IN (a good input), A (options before it), B (after it)
# X (the output's extension) and SPEC (how IN is named: "%s", or cal-blend's "%s:rows=5")
recipe() {
  A= B= SPEC=%s IN=$T/text.cal X=.cal
  case $1 in
  cal-read) IN=$T/docs.jsonl ;;
  cal-encode) A="-t $TOK" ;;
  cal-cat) ;;
  cal-pack) A="-l 1" IN=$T/tok.cal ;;
  cal-select) A="-n 50" ;;
  cal-shuffle) ;;
  cal-blend) SPEC=%s:rows=50 ;;
  cal-hessian) IN=$T/vec.cal X=.safetensors ;;
  *) return 1 ;;
  esac
}
# one NAME CMD...: no hang and no crash (status < 124); on failure exactly
# one stderr line; its status in $rc, its stderr in $T/.err
one() {
  n=$1; shift
  timeout 20 "$@" >"$T/.out" 2>"$T/.err"; rc=$?
  if [ "$rc" -ge 124 ]; then not_ok "$n: no hang, no crash" "status $rc:" "$(head -c 400 "$T/.err")"; return 1; fi
  if [ "$rc" != 0 ] && [ "$(wc -l <"$T/.err")" != 1 ]; then not_ok "$n: one line" "$(head -c 600 "$T/.err")"; return 1; fi
  return 0
}

# -- -o under ulimit -f: SIGXFSZ ---------------------------------------------
for p in $PROGS; do
  if ! recipe "$p"; then not_ok "$p has a recipe in hostile_classes.sh" "a new program: add one"; continue; fi
  mkdir "$T/o.$p" && o=$T/o.$p/out$X
  # shellcheck disable=SC2086
  one "$p -o under ulimit -f 1" sh -c 'ulimit -f 1; exec "$@"' sh $p $A "$(printf "$SPEC" "$IN")" $B -o "$o" || continue
  left=$(ls "$T/o.$p")
  if [ "$rc" = 1 ] && grep -Eq "^$p: .*(file size limit|ulimit -f)" "$T/.err" && [ -z "$left" ]; then ok "$p -o under ulimit -f 1: exit 1, one line, nothing left"
  else not_ok "$p -o under ulimit -f 1: exit 1, one line, nothing left" "status $rc, left: $left" "$(head -c 400 "$T/.err")"; fi
done

# -- named inputs that are no regular file -----------------------------------
mkdir "$T/c" && cd "$T/c" || exit 1
mkfifo fifo
$PY -c 'import socket; socket.socket(socket.AF_UNIX).bind("sock")'
ln -s /dev/null devnull && ln -s /dev/zero devzero && ln -s loop loop && ln -s /nonexistent dangling && mkdir dir
cd - >/dev/null || exit 1
# want CLASS SLOT: the pattern of the one line (empty: exit 0 allowed)
want() {
  case $1 in
  fifo | devnull) [ "$2" = cal-read ] && return; echo "empty input" ;;
  sock) echo "a socket" ;;
  devzero) [ "$2" = cal-read ] && echo "zero-filled" || echo "bad magic" ;;
  loop) echo "a symbolic link loop" ;;
  dangling) echo "a dangling symbolic link to /nonexistent" ;;
  dir) [ "$2" = cal-read ] && return; echo "[Ii]s a directory" ;;
  esac
}
# the tokenizer slot: what the path is, and a FIFO or device never read
wantt() {
  case $1 in
  fifo) echo "a FIFO" ;; sock) echo "a socket" ;; devnull | devzero) echo "a character device" ;;
  loop) echo "a symbolic link loop" ;; dangling) echo "a dangling symbolic link" ;; dir) echo "without tokenizer.json" ;;
  esac
}
for c in fifo sock devnull devzero loop dangling dir; do
  x=$T/c/$c
  for p in $PROGS; do
    recipe "$p" || continue
    wpid=
    if [ "$c" = fifo ]; then timeout 20 sh -c ': >"$1"' sh "$x" </dev/null >/dev/null 2>&1 & wpid=$!; fi
    # shellcheck disable=SC2086
    one "$p reads $c" $p $A "$(printf "$SPEC" "$x")" $B -o "$T/out$X" || continue
    pat=$(want "$c" "$p")
    if [ -z "$pat" ] && [ "$rc" = 0 ]; then ok "$p reads $c: an empty stream"
    elif [ -n "$pat" ] && [ "$rc" = 1 ] && grep -Eq "^$p: $x(:rows=50)?: .*$pat" "$T/.err"; then ok "$p reads $c: one line naming it"
    else not_ok "$p reads $c: one line naming it" "status $rc, want /$pat/:" "$(head -c 400 "$T/.err")"; fi
    [ -n "$wpid" ] && { kill "$wpid" 2>/dev/null; wait "$wpid" 2>/dev/null; } # a writer left by a program that did not open it
  done
  one "cal-encode -t $c" cal-encode -t "$x" "$T/text.cal" -o "$T/out" || continue
  if [ "$rc" = 1 ] && grep -Eq "^cal-encode: .*$(wantt "$c")" "$T/.err"; then ok "cal-encode -t $c: one line naming it"
  else not_ok "cal-encode -t $c: one line naming it" "status $rc, want /$(wantt "$c")/:" "$(head -c 400 "$T/.err")"; fi
done

# -- cal-read's walk: the regular file read, the others counted --------------
mkdir "$T/w" && cp "$T/docs.jsonl" "$T/w/a.jsonl" && mkfifo "$T/w/fifo" && ln -s /dev/null "$T/w/n" && ln -s /dev/zero "$T/w/z"
$PY -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$T/w/sock"
timeout 20 cal-read "$T/w" -o "$T/w.cal" 2>"$T/.err"; rc=$?
eq "cal-read walks a folder of every kind: status, and the counts of what it skipped" "$rc | $(sort "$T/.err" | tr '\n' '|')" \
  "0 | cal-read: 1 files skipped in folders as FIFOs (not regular files)|cal-read: 1 files skipped in folders as sockets (not regular files)|cal-read: 2 files skipped in folders as devices (not regular files)|"
eq "  the regular file is read whole" "$(cal-cat "$T/w.cal" | grep -c '^TEXT')" 200
