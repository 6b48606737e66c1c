#!/bin/sh
# test_layers.sh - lib/ keeps the layers of lib/README.md (includes, symbols,
# no cycles) and every filter stays an option table plus flow.
. tests/lib.sh
obj=${CAL_UNIT%/tests}
$PY tests/py/layers.py "$obj"
# A seeded violation must be caught: a base object that calls up into stats.
mkdir -p "$T/lib/base" "$T/lib/stats" "$T/obj/lib/base" "$T/obj/lib/stats"
printf '%s\n' '#include "stats/x.h"' 'int up(void);' 'int f(void) { return up(); }' >"$T/lib/base/f.c"
printf '%s\n' 'int f(void);' 'int up(void) { return 1; }' 'int g(void) { return f(); }' >"$T/lib/stats/x.c"
: >"$T/lib/stats/x.h"
cp lib/README.md "$T/lib/"
cc -c -o "$T/obj/lib/base/f.o" "$T/lib/base/f.c" -I"$T/lib" && cc -c -o "$T/obj/lib/stats/x.o" "$T/lib/stats/x.c"
out=$(cd "$T" && $PY "$OLDPWD/tests/py/layers.py" obj)
for want in "not ok - includes in lib/ go down" "not ok - objects call down" "not ok - no cycle"; do
  case "$out" in *"$want"*) ok "the check catches: ${want#not ok - }" ;; *) not_ok "the check catches: ${want#not ok - }" "$out" ;; esac
done
