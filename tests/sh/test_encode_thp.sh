#!/bin/sh
# cal-encode runs itself again with glibc's malloc on transparent huge pages
# (lib/base/oshint.c cal_thp_malloc: the tokenizer's tables load in half the
# time): seen in /proc/PID/environ of a cal-encode waiting on a FIFO, with
# its arguments unchanged; a user's GLIBC_TUNABLES is kept (the knob
# appended), or left alone when it names the knob; same bytes either way,
# also when started through the dynamic loader (which it must not exec);
# --help and usage errors still answer (they come before the exec).
. tests/lib.sh
export CAL_CACHE=off # the tables built from the files: a prepared image needs no exec
if ! sh scripts/fetch-tokenizers.sh >"$T/fetch.log" 2>&1; then
  not_ok "fetch tokenizers" "$(tail -3 "$T/fetch.log")"; exit 0
fi
TK=build/tokenizers/llama3
mode=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || true)
glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | sed 's/^glibc //')
new_glibc=$(printf '%s\n' "$glibc" | awk -F. '{ print ($1 > 2 || ($1 == 2 && $2 >= 35)) ? 1 : 0 }')
printf 'Hello world\nit is 2024\n' | $PY examples/calstream.py text "$T/in.cal"

# envof CMD...: runs CMD FIFO and, once CMD has opened the FIFO (its
# tokenizer loaded), writes its GLIBC_TUNABLES and its AnonHugePages (kB)
# to $T/env, its arguments to $T/cmd; then feeds it the input.
envof() {
  rm -f "$T/fifo"; mkfifo "$T/fifo"
  "$@" "$T/fifo" >"$T/envof.out" 2>&1 &
  $PY - $! "$T" <<'PYEOF'
import os, re, signal, sys
pid, t = sys.argv[1], sys.argv[2]
signal.alarm(60)                      # never hang on a program that failed early
fd = os.open(f"{t}/fifo", os.O_WRONLY)  # returns once the program opened it
env = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
tun = [e.decode() for e in env if e.startswith(b"GLIBC_TUNABLES=")]
huge = re.search(r"AnonHugePages:\s+(\d+)", open(f"/proc/{pid}/smaps_rollup").read()).group(1)
open(f"{t}/env", "w").write(f"{tun[0] if tun else 'GLIBC_TUNABLES unset'}\nhuge {huge}\n")
open(f"{t}/cmd", "w").write(open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode())
os.write(fd, open(f"{t}/in.cal", "rb").read())
os.close(fd)
PYEOF
  wait $!
}
huge() { sed -n 's/^huge //p' "$T/env"; }

if [ "${CAL_SANITIZE:-}" = 1 ]; then
  skip "cal-encode on huge pages" "a sanitizer build has its own allocator (no exec)"
elif [ "$new_glibc" != 1 ] || ! printf %s "$mode" | grep -q '\[madvise\]'; then
  skip "cal-encode on huge pages" "glibc $glibc, transparent huge pages: $mode"
else
  envof env -u GLIBC_TUNABLES cal-encode -t $TK -o "$T/a.cal"
  eq "runs again with GLIBC_TUNABLES=glibc.malloc.hugetlb=1" "$(head -1 "$T/env")" "GLIBC_TUNABLES=glibc.malloc.hugetlb=1"
  eq "with the same arguments" "$(cat "$T/cmd")" "cal-encode -t $TK -o $T/a.cal $T/fifo "
  h=$(huge)
  if [ "${h:-0}" -gt 0 ]; then ok "its tables on huge pages ($h kB)"; else not_ok "its tables on huge pages" "AnonHugePages: $h kB"; fi
  # (glibc may rewrite the variable in the new process: the effect is checked)
  envof env GLIBC_TUNABLES=glibc.malloc.arena_max=2 cal-encode -t $TK -o "$T/b.cal"
  h=$(huge)
  if [ "${h:-0}" -gt 0 ] && grep -q 'glibc.malloc.arena_max=2' "$T/env"; then ok "a user's tunables are kept, the knob added"
  else not_ok "a user's tunables are kept, the knob added" "$(cat "$T/env")"; fi
  envof env GLIBC_TUNABLES=glibc.malloc.hugetlb=0 cal-encode -t $TK -o "$T/c.cal"
  eq "a user's own hugetlb setting is left alone" "$(cat "$T/env")" "GLIBC_TUNABLES=glibc.malloc.hugetlb=0
huge 0"
  same "the same bytes with and without huge pages" "$T/a.cal" "$T/c.cal"
  same "and with the user's tunables" "$T/a.cal" "$T/b.cal"
  # started through the dynamic loader, /proc/self/exe is the loader: no exec
  ldso=$(ldd "$CAL_BIN/cal-encode" | awk '$1 ~ /^\/.*ld-linux/ { print $1 }')
  if [ -n "$ldso" ]; then
    env -u GLIBC_TUNABLES "$ldso" "$CAL_BIN/cal-encode" -t $TK -o "$T/d.cal" "$T/in.cal" 2>"$T/d.err"
    env -u GLIBC_TUNABLES cal-encode -t $TK -o "$T/e.cal" "$T/in.cal"
    same "started through $ldso: the same bytes" "$T/e.cal" "$T/d.cal"
  fi
fi
check "--help" cal-encode --help
expect_fail "missing -t: a usage error, status 2" 2 "missing -t" cal-encode "$T/in.cal"
