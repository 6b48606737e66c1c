#!/bin/sh
# run.sh - build every tests/fuzz/fuzz_*.c as a libFuzzer binary (clang,
# -fsanitize=fuzzer,address,undefined) against the lib/ sources, seed its
# corpus with make-seeds.sh, and run it for FUZZ_SECONDS (default 60) each.
# The corpus of fuzz_NAME.c lives in build/fuzz/corpus/NAME (it grows across
# runs), seeded as well from the kept corpus tests/fuzz/corpus/NAME: inputs
# that once crashed or lied, replayed by make check (tests/hostile/
# fuzz_corpus.sh). Crashes are written to build/fuzz/crash-NAME-*: fix the
# bug, then copy the input into tests/fuzz/corpus/NAME. Fails when any
# target finds a problem. tests/fuzz/NAME.dict, where there is one, is its
# -dict= (keywords, JSON keys, magic bytes that random bytes rarely spell).
set -eu
cd "$(dirname "$0")/../.."
CC=${CC:-clang}
CXX=${CXX:-clang++}
SECS=${FUZZ_SECONDS:-60}
OUT=build/fuzz
mkdir -p "$OUT/obj"
FLAGS="-g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer"
PKGS="libutf8proc sentencepiece libzstd libxxhash zlib snappy libpcre2-8 openblas jansson liblzma gmp"
PCF=$(pkg-config --cflags $PKGS)
PLIBS=$(pkg-config --libs $PKGS)
objs=""
jobs=$(nproc 2>/dev/null || echo 2)
running=0
make -s build/gen/unidata.c build/gen/entities.c  # generated tables (lib/tok/unicode.h, lib/jinja's HTML entities)
for src in lib/*/*.c lib/*/*.cc build/gen/unidata.c build/gen/entities.c; do
  [ -e "$src" ] || continue
  o="$OUT/obj/$(echo "$src" | tr / _).o"
  if [ ! -e "$o" ] || [ "$src" -nt "$o" ] || [ -n "$(find lib -name '*.h' -newer "$o")" ]; then
    case "$src" in
      *.cc) $CXX -std=c++17 $FLAGS -Ilib $PCF -c -o "$o" "$src" & ;;
      *) $CC -std=c11 $FLAGS -Ilib -D_POSIX_C_SOURCE=200809L $PCF -c -o "$o" "$src" & ;;
    esac
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then wait; running=0; fi
  fi
  objs="$objs $o"
done
wait
for o in $objs; do [ -e "$o" ] || { echo "fuzz: $o did not build" >&2; exit 1; }; done
sh tests/fuzz/make-seeds.sh "$OUT/corpus"
fail=0 passed=0
for t in tests/fuzz/fuzz_*.c; do
  [ -e "$t" ] || continue
  name=$(basename "$t" .c)
  short=${name#fuzz_}
  $CC -std=c11 $FLAGS -Ilib -D_POSIX_C_SOURCE=200809L $PCF -c -o "$OUT/obj/$name.o" "$t"
  # Linked by the C++ driver: the SentencePiece shim needs UBSan's C++ runtime.
  $CXX -fsanitize=fuzzer,address,undefined -o "$OUT/$name" "$OUT/obj/$name.o" $objs $PLIBS -lbz2 -lm -lpthread
  mkdir -p "$OUT/corpus/$short"
  echo "fuzz: $name for ${SECS}s (corpus $OUT/corpus/$short)"
  kept=""; [ -d "tests/fuzz/corpus/$short" ] && kept="tests/fuzz/corpus/$short"
  dict=""; [ -f "tests/fuzz/$short.dict" ] && dict="-dict=tests/fuzz/$short.dict"  # keywords, keys, magic bytes
  if ! "$OUT/$name" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 $dict \
       -artifact_prefix="$OUT/crash-$short-" -print_final_stats=1 "$OUT/corpus/$short" $kept \
       >"$OUT/$name.log" 2>&1; then
    echo "fuzz: $name FAILED; see $OUT/$name.log and $OUT/crash-$short-*"
    grep -E 'ERROR|SUMMARY|runtime error' "$OUT/$name.log" | head -5
    fail=$((fail + 1))
  else
    passed=$((passed + 1))
    grep -E '^stat::number_of_executed_units|^stat::new_units_added' "$OUT/$name.log" | tr '\n' ' '
    echo
  fi
done
echo "$passed passed, $fail failed"
[ "$fail" = 0 ]
