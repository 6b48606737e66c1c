#!/bin/sh
# man/cal-read.1 names exactly the options of cal-read --help and renders
# without groff warnings; --version works; unknown options are usage errors.
. tests/lib.sh
cal-read --help | grep -oE -- '--[a-z][a-z-]*' | sort -u >"$T/h"
sed 's/\\-/-/g' man/cal-read.1 | sed -n '/^\.SH OPTIONS/,/^\.SH TEXT HYGIENE/p' | grep -oE -- '--[a-z][a-z-]*' | sort -u >"$T/m"
same "man OPTIONS = --help options" "$T/h" "$T/m"
eq "every format of --help is in the man page" \
  "$(for f in text lines paragraphs wikiextractor wikitext jsonl parquet; do grep -q "^\.B $f\$" man/cal-read.1 || echo "$f"; done)" ""
w=$(man --warnings -l man/cal-read.1 2>&1 >/dev/null)
eq "man page renders without warnings" "$w" ""
eq "--version" "$(cal-read --version)" "cal-read (calkit) $(sed -n 's/^#define CAL_VERSION "\(.*\)"/\1/p' lib/base/err.h)"
eq "-h is --help" "$(cal-read -h)" "$(cal-read --help)"
expect_fail "unknown option" 2 "unknown option" cal-read --bogus
expect_fail "no source" 2 "no SOURCE" cal-read
