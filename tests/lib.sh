# lib.sh - helpers for shell tests; source it first: . tests/lib.sh
# Prints TAP-like lines read by tests/run.sh. Each test works in $T (a fresh
# temp dir removed at exit). Programs come from $CAL_BIN (on PATH).
set -u
T=$(mktemp -d "${TMPDIR:-/tmp}/caltest.XXXXXX")
trap 'rm -rf "$T"' EXIT
PY=/usr/bin/python3
ok() { echo "ok - $1"; }
not_ok() { echo "not ok - $1"; shift; for l in "$@"; do echo "# $l"; done; }
skip() { echo "skip - $1: $2"; }
# check NAME CMD...: passes when CMD exits 0.
check() {
  n=$1; shift
  if "$@" >"$T/.out" 2>"$T/.err"; then ok "$n"; else not_ok "$n" "exit $?: $*" "$(head -c 600 "$T/.err")"; fi
}
# expect_fail NAME STATUS PATTERN CMD...: CMD exits STATUS and its stderr
# is one line matching the grep -E PATTERN.
expect_fail() {
  n=$1 want=$2 pat=$3; shift 3
  "$@" >"$T/.out" 2>"$T/.err"; rc=$?
  lines=$(wc -l <"$T/.err")
  if [ "$rc" = "$want" ] && grep -Eq -- "$pat" "$T/.err" && [ "$lines" -le 2 ]; then ok "$n"
  else not_ok "$n" "want status $want and /$pat/, got $rc:" "$(head -c 600 "$T/.err")"; fi
}
# same NAME FILE1 FILE2: byte-identical files.
same() {
  if cmp -s "$2" "$3"; then ok "$1"; else not_ok "$1" "$2 and $3 differ: $(cmp "$2" "$3" 2>&1 | head -1)"; fi
}
# eq NAME GOT WANT: string equality.
eq() {
  if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "got:  $(printf %s "$2" | head -c 400)" "want: $(printf %s "$3" | head -c 400)"; fi
}
