#!/bin/sh
# fuzz_corpus.sh - every fuzz target (tests/fuzz/fuzz_*.c), built without
# libFuzzer (tests/fuzz/replay.c), over its kept corpus tests/fuzz/corpus/NAME:
# the inputs that once crashed or lied, and what the fuzzer found since. Runs
# in make check, so the sanitized suite replays them under ASan and UBSan.
. tests/lib.sh
for src in tests/fuzz/fuzz_*.c; do
  name=$(basename "$src" .c)
  short=${name#fuzz_}
  bin="$CAL_UNIT/$name"
  if [ ! -x "$bin" ]; then not_ok "$name" "$bin is not built"; continue; fi
  if [ ! -d "tests/fuzz/corpus/$short" ]; then skip "$name" "no corpus in tests/fuzz/corpus/$short"; continue; fi
  n=$(ls "tests/fuzz/corpus/$short" | wc -l | tr -d ' ')
  if "$bin" "tests/fuzz/corpus/$short" >"$T/out" 2>"$T/err"; then ok "$name replays its $n kept inputs"
  else not_ok "$name replays its $n kept inputs" "exit $?" "$(tail -5 "$T/err")"; fi
done
