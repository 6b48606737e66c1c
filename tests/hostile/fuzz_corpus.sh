#!/bin/sh
# fuzz_corpus.sh - every fuzz target (tests/fuzz/fuzz_*.c), built without
# libFuzzer (tests/fuzz/replay.c), over its kept corpus tests/fuzz/corpus/NAME:
# the inputs that once crashed or lied, and what the fuzzer found since, and
# over its generated seeds (tests/fuzz/make-seeds.sh: valid GGUF imatrix
# files, real chat templates, round 3's classes of #29). Runs in make
# check, so the sanitized suite replays them under ASan and UBSan.
. tests/lib.sh
sh tests/fuzz/make-seeds.sh "$T/seeds" >/dev/null 2>"$T/seeds.err" || not_ok "make-seeds.sh" "$(tail -3 "$T/seeds.err")"
for src in tests/fuzz/fuzz_*.c; do
  name=$(basename "$src" .c)
  short=${name#fuzz_}
  bin="$CAL_UNIT/$name"
  if [ ! -x "$bin" ]; then not_ok "$name" "$bin is not built"; continue; fi
  # Both, where both exist: the seeds reach the classes a target must survive.
  dirs="" n=0
  for dir in "tests/fuzz/corpus/$short" "$T/seeds/$short"; do
    [ -d "$dir" ] || continue
    dirs="$dirs $dir" n=$((n + $(ls "$dir" | wc -l)))
  done
  if [ -z "$dirs" ]; then not_ok "$name" "no corpus in tests/fuzz/corpus/$short and no seeds"; continue; fi
  if "$bin" $dirs >"$T/out" 2>"$T/err"; then ok "$name replays its $n kept and seed inputs"
  else not_ok "$name replays its $n kept and seed inputs" "exit $?" "$(tail -5 "$T/err")"; fi
done
