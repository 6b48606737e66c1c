#!/bin/sh
# run.sh - runs every unit test binary ($CAL_UNIT/test_*) and shell test
# (tests/sh/*.sh). Each prints TAP-like lines "ok - NAME", "not ok - NAME",
# "skip - NAME: why". A test program that exits non-zero without a "not ok"
# line counts as one failure. The last line is "N passed, N failed".
# TESTS="pattern" runs only the tests whose file name matches.
cd "$(dirname "$0")/.." || exit 2
: "${CAL_BIN:?}" "${CAL_UNIT:?}"
export CAL_BIN CAL_UNIT CAL_SANITIZE
export PATH="$CAL_BIN:$PATH"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=99"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=98"
log=$(mktemp -d "${TMPDIR:-/tmp}/calcheck.XXXXXX")
trap 'rm -rf "$log"' EXIT
pass=0 fail=0 skip=0
for t in "$CAL_UNIT"/test_* tests/sh/*.sh tests/hostile/*.sh; do
  [ -e "$t" ] || continue
  case "$t" in *.sh) ;; *) [ -x "$t" ] && [ "${t%.d}" = "$t" ] || continue ;; esac
  name=$(basename "$t")
  case "$name" in *${TESTS:-}*) ;; *) continue ;; esac
  start=$(date +%s)
  case "$t" in
    *.sh) sh "$t" >"$log/out" 2>"$log/err" ;;
    *) "$t" >"$log/out" 2>"$log/err" ;;
  esac
  rc=$?
  p=$(grep -c '^ok ' "$log/out")
  f=$(grep -c '^not ok ' "$log/out")
  s=$(grep -c '^skip ' "$log/out")
  if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; echo "not ok - $name exited with status $rc" >>"$log/out"; fi
  pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
  el=$(( $(date +%s) - start ))
  printf '%-28s %4d passed %3d failed %3d skipped %4ds\n' "$name" "$p" "$f" "$s" "$el"
  if [ "$f" != 0 ]; then
    grep -E '^(not ok|#)' "$log/out" | head -40 | sed 's/^/    /'
    tail -20 "$log/err" | sed 's/^/    stderr: /'
  fi
  grep '^skip ' "$log/out" | sed 's/^/    /'
done
if [ "$skip" != 0 ]; then echo "$pass passed, $fail failed, $skip skipped"; else echo "$pass passed, $fail failed"; fi
[ "$fail" = 0 ]
