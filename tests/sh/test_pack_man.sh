#!/bin/sh
# man pages of cal-pack, cal-shuffle, cal-blend name exactly the options of
# --help; --version works; unknown options are usage errors.
. tests/lib.sh
for p in cal-pack cal-shuffle cal-blend; do
  $p --help | grep -oE -- '--[a-z][a-z-]*' | sort -u >"$T/h"
  sed 's/\\-/-/g' "man/$p.1" | sed -n '/^\.SH OPTIONS/,/^\.SH EXIT/p' | grep -oE -- '--[a-z][a-z-]*' | sort -u >"$T/m"
  # man(7) lines must be groff-clean
  same "$p: man OPTIONS = --help options" "$T/h" "$T/m"
  w=$(man --warnings -l "man/$p.1" 2>&1 >/dev/null)
  eq "$p: man page renders without warnings" "$w" ""
  check "$p --version" $p --version
  expect_fail "$p: unknown option" 2 "^$p: unknown option '--bogus' \\(see --help\\)\$" $p --bogus
done
