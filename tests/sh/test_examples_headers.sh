#!/bin/sh
# test_examples_headers.sh - every examples/*.sh header states its defaults
# on a "# Defaults:" line, and each is the value the script uses when the
# option is not given; every option the Usage line shows is taken
# (tests/py/example_defaults.py runs each script's option parsing). -h
# prints the line.
. tests/lib.sh
$PY tests/py/example_defaults.py "$PWD/examples" "$T" || not_ok "example_defaults.py ran" "status $?"
missing=
for s in examples/*.sh; do
  [ "$s" = examples/common.sh ] && continue
  sh "$s" -h 2>/dev/null | grep -q "^Defaults: -" || missing="$missing $s"
done
eq "every recipe's -h prints its Defaults line" "$missing" ""
