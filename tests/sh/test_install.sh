#!/bin/sh
# make install into a scratch prefix: the programs, man pages, corpora and
# tokenizers land under PREFIX, and the installed programs run by name from a
# clean PATH and environment, away from the source tree, finding their data
# under that PREFIX. A new PREFIX rebuilds lib/base/datadir.o and nothing
# else. The build goes to a scratch OBJ/BIN, seeded with this build's library
# objects (their times kept, built for another PREFIX), so only what PREFIX
# touches is compiled.
. tests/lib.sh
[ -f build/tokenizers/llama3/tokenizer.json ] || { skip "make install" "llama3 missing (make tokenizers)"; exit 0; }
[ -f build/corpora/wiki.jsonl.zst ] || { skip "make install" "corpora missing (make corpora)"; exit 0; }
OBJ=${CAL_UNIT%/tests}
ROOT=$PWD
mkdir -p "$T/obj" "$T/work"
cp -pR "$OBJ/lib" "$OBJ/libcal.a" "$T/obj/" || { not_ok "seed the scratch build" "no $OBJ/lib"; exit 0; }
ls "$OBJ"/prefix.*.stamp >/dev/null 2>&1 && cp -p "$OBJ"/prefix.*.stamp "$T/obj/"
# the build id of prepared tokenizer images (lib/tok/cache.o), as the build's
ls "$OBJ"/tokid.*.stamp >/dev/null 2>&1 && cp -p "$OBJ"/tokid.*.stamp "$T/obj/"
san=; [ "${CAL_SANITIZE:-}" = 1 ] && san=SANITIZE=1
# inst PREFIX: make install into PREFIX (output in $T/make.log).
inst() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$ROOT" -s $san OBJ="$T/obj" BIN="$T/bin" PREFIX="$1" DESTDIR= install >"$T/make.log" 2>&1; }
# objtimes: the objects and their modification times.
objtimes() { (cd "$T/obj" && find lib -name '*.o' -exec ls -l --time-style=+%s.%N {} + | awk '{ print $6, $7 }' | sort -k2); }
# run PREFIX CMD: CMD in a clean environment, in a directory outside the tree.
run() { p=$1; shift; (cd "$T/work" && env -i PATH="$p/bin:/usr/bin:/bin" HOME="$T/work" \
  ASAN_OPTIONS="${ASAN_OPTIONS:-}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" sh -c "$*"); }

p=$T/prefix
objtimes >"$T/before"
if ! inst "$p"; then not_ok "make install PREFIX=$p" "$(tail -5 "$T/make.log")"; exit 0; fi
ok "make install PREFIX=$p"
objtimes >"$T/after"
eq "the new PREFIX rebuilt lib/base/datadir.o and no other object" \
  "$(diff "$T/before" "$T/after" | sed -n 's/^> [^ ]* //p')" "lib/base/datadir.o"
eq "every program installed" "$(ls "$p/bin")" "$(ls filters | sed -n 's/\.c$//p')"
eq "the man pages installed" "$(cd "$p/share/man" && ls man1 man5)" "$(printf 'man1:\n'; ls man | grep '\.1$'; printf '\nman5:\n'; ls man | grep '\.5$')"
eq "the corpora installed" "$(ls "$p/share/calkit/corpora")" "$(ls build/corpora | grep -E '\.zst$|^index\.tsv$')"
check "the tokenizers installed" diff -r build/tokenizers/ "$p/share/calkit/tokenizers"
got=$(run "$p" 'cal-read wiki | cal-encode -t llama3 | cal-pack -l 64 -n 2 | tee rows.cal | cal-cat --check' 2>&1)
eq "the installed programs run by name from a clean PATH, finding corpus and tokenizer under PREFIX" "$got" \
  "stdin: ok: 2 headers, 2 records (TEXT 0, TOKENS 0, ROW 2, VECTORS 0), $(wc -c <"$T/work/rows.cal") bytes"
# Without the data under PREFIX nothing else is found.
rm -rf "$p/share/calkit"
expect_fail "without PREFIX/share/calkit the corpus is not found" 1 "corpus 'wiki' is not built \\(looked in .*, $p/share/calkit/corpora\\)" \
  run "$p" 'cal-read wiki'
