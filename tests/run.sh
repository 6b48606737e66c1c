#!/bin/sh
# run.sh - runs every unit test binary ($CAL_UNIT/test_*) and shell test
# (tests/sh/*.sh), CAL_JOBS at a time (default: the number of processors).
# Each prints TAP-like lines "ok - NAME", "not ok - NAME", "skip - NAME: why".
# A test program that exits non-zero without a "not ok" line counts as one
# failure. As each test ends, one line for it (and its failure details) is
# printed whole; the slowest tests start first, by the times of the last run
# (kept in $CAL_UNIT/../test-times). The wall time comes next, and the last
# line is "N passed, N failed" (", N skipped" when any).
# TESTS="pattern" runs only the tests whose file name holds the pattern.
cd "$(dirname "$0")/.." || exit 2
: "${CAL_BIN:?}" "${CAL_UNIT:?}"
export CAL_BIN CAL_UNIT CAL_SANITIZE
export PATH="$CAL_BIN:$PATH"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=99"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=98"
jobs=${CAL_JOBS:-$(nproc 2>/dev/null || echo 2)}
case "$jobs" in '' | *[!0-9]* | 0) echo "run.sh: CAL_JOBS must be a positive number, not '$jobs'" >&2; exit 2 ;; esac
times=${CAL_UNIT%/*}/test-times
log=$(mktemp -d "${TMPDIR:-/tmp}/calcheck.XXXXXX") || exit 2
trap 'rm -rf "$log"' EXIT
# Prepared tokenizers (cal-encode(1), CACHE) in a cache of this run's own:
# nothing written to the home folder, and the first test to load a
# tokenizer makes the image that the later ones map.
export CAL_CACHE="$log/cache"
trap 'exit 130' INT TERM

# now: milliseconds since the epoch.
now() { t=$(date +%s%N); case "$t" in *N) echo $(( $(date +%s) * 1000 )) ;; *) echo $((t / 1000000)) ;; esac; }
start=$(now)

# The tests, slowest first: wall milliseconds of the last run, or else a
# guess.
# CAL_EXTRA_TESTS: more test files (make check-llama: tests/llama/*.sh)
for t in "$CAL_UNIT"/test_* tests/sh/*.sh tests/hostile/*.sh ${CAL_EXTRA_TESTS:-}; do
  case "$t" in *.d | *.o) continue ;; esac
  [ -f "$t" ] || continue
  case "$t" in *.sh) ;; *) [ -x "$t" ] || continue ;; esac
  name=${t##*/}
  case "$name" in *${TESTS:-}*) ;; *) continue ;; esac
  ms=$(awk -v n="$name" '$2 == n { print $1; exit }' "$times" 2>/dev/null)
  case "$name" in  # the slowest of a cold run; then the others (new ones may be slow)
    test_encode_exact.sh) guess=900000 ;; test_encode_cli.sh) guess=800000 ;;
    test_readme.sh) guess=700000 ;; test_pack_examples.sh) guess=600000 ;;
    test_encode_decode.sh | test_hessian_torch.sh | test_read_parquet.sh) guess=500000 ;;
    *) guess=20000 ;;
  esac
  printf '%s %s\n' "${ms:-$guess}" "$t"
done | sort -k1,1nr -k2 | cut -d' ' -f2- >"$log/order"

# run_one TEST: runs it into $log/NAME.{out,err}, then says "NAME RC MS CPU"
# on fd 9 (the FIFO; the test itself does not get it): status, wall and CPU
# milliseconds (user + system of all its processes, from this subshell's
# `times`; unlike the wall time it does not grow when the machine is busy).
run_one() {
  name=${1##*/} t0=$(now)
  case "$1" in
    *.sh) sh "$1" >"$log/$name.out" 2>"$log/$name.err" </dev/null 9>&- ;;
    *) "$1" >"$log/$name.out" 2>"$log/$name.err" </dev/null 9>&- ;;
  esac
  rc=$? el=$(( $(now) - t0 ))
  times >"$log/$name.times"  # in this shell: a subshell would count nothing
  cpu=$(awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%d", (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 1000 }' "$log/$name.times")
  echo "$name $rc $el ${cpu:-0}" >&9
}

# report NAME RC MS CPU: the test's line and details; adds to the totals.
pass=0 fail=0 skip=0
report() {
  out=$log/$1.out
  p=$(grep -c '^ok ' "$out") f=$(grep -c '^not ok ' "$out") s=$(grep -c '^skip ' "$out")
  if [ "$2" != 0 ] && [ "$f" = 0 ]; then f=1; echo "not ok - $1 exited with status $2" >>"$out"; fi
  pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
  printf '%-28s %4d passed %3d failed %3d skipped %6.1fs %6.1fs cpu\n' "$1" "$p" "$f" "$s" \
    "$(echo "$3" | awk '{ print $1 / 1000 }')" "$(echo "$4" | awk '{ print $1 / 1000 }')"
  if [ "$f" != 0 ]; then
    grep -E '^(not ok|#)' "$out" | head -40 | sed 's/^/    /'
    tail -20 "$log/$1.err" | sed 's/^/    stderr: /'
  fi
  grep '^skip ' "$out" | sed 's/^/    /'
  echo "$3 $1" >>"$log/times"
}

# A pool of $jobs: each test says on the FIFO when it ends; this shell alone
# prints, so the blocks of two tests never interleave.
mkfifo "$log/done" || exit 2
exec 9<>"$log/done"
running=0
while read -r t; do
  if [ "$running" -ge "$jobs" ]; then
    read -r n rc ms cpu <&9
    report "$n" "$rc" "$ms" "$cpu"
    running=$((running - 1))
  fi
  run_one "$t" &
  running=$((running + 1))
done <"$log/order"
while [ "$running" -gt 0 ]; do
  read -r n rc ms cpu <&9
  report "$n" "$rc" "$ms" "$cpu"
  running=$((running - 1))
done
wait

# Keep the times of this run, and the last ones of the tests not run.
if [ -s "$log/times" ] && mkdir -p "${times%/*}" 2>/dev/null; then
  { cat "$log/times"; awk 'NR == FNR { seen[$2] = 1; next } !($2 in seen)' "$log/times" "$times" 2>/dev/null; } \
    >"$log/times.new" && mv -f "$log/times.new" "$times"
fi
el=$(( $(now) - start ))
printf 'wall time %d:%02d (%d jobs)\n' $((el / 60000)) $((el / 1000 % 60)) "$jobs"
if [ "$skip" != 0 ]; then echo "$pass passed, $fail failed, $skip skipped"; else echo "$pass passed, $fail failed"; fi
[ "$fail" = 0 ]
