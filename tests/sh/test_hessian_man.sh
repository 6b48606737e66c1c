#!/bin/sh
# man/cal-hessian.1 names exactly the options of cal-hessian --help and
# renders without warnings; --version; unknown options are usage errors.
. tests/lib.sh
cal-hessian --help | grep -E '^  +-' | grep -oE -- '^ +(-[a-z], )?--?[a-z][a-z-]*' | grep -oE -- '--?[a-z][a-z-]*' | sort -u >"$T/h"
sed 's/\\-/-/g' man/cal-hessian.1 | sed -n '/^\.SH OPTIONS/,/^\.SH ENVIRONMENT/p' | grep -E '^\.(B|BI|BR|TP)' |
  grep -oE -- '(^| |")--?[a-z][a-z-]*' | tr -d ' "' | sort -u >"$T/m"
same "man OPTIONS = --help options" "$T/h" "$T/m"
w=$(man --warnings -l man/cal-hessian.1 2>&1 >/dev/null)
eq "man page renders without warnings" "$w" ""
eq "--version" "$(cal-hessian --version)" "cal-hessian (calkit) $(sed -n 's/^#define CAL_VERSION "\(.*\)"/\1/p' lib/base/err.h)"
expect_fail "unknown option" 2 "unknown option" cal-hessian --bogus -o x.st
