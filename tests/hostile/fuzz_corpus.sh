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

# A tokenizer.json seed the loader refuses only ever reaches its error path
# (the kept bytelevel.json mixed two merge forms for a round): every one must
# load, and encode a short text as the Rust HF tokenizers do (special-token
# text cut out, so that the added tokens match).
printf 'Hello  world 12345 Hell caf\303\251 \344\270\255 <s> He\n' >"$T/seedtext"
cal-read "$T/seedtext" -o "$T/seedtext.cal" 2>/dev/null
for f in tests/fuzz/corpus/tokjson/*.json "$T"/seeds/tokjson/*.json; do
  case $f in tests/*) where=kept ;; *) where=seed ;; esac
  name="tokjson $where seed $(basename "$f")"
  if ! cal-encode -t "$f" --parse-special "$T/seedtext.cal" -o "$T/seed.cal" 2>"$T/err"; then
    not_ok "$name loads" "$(cat "$T/err")"; continue
  fi
  got=$($PY -c "
import sys; sys.path.insert(0, 'examples'); import calstream
print(' '.join(','.join(map(str, calstream.ids_of(r[3]))) for r in calstream.read_records(sys.argv[1])[1]))" "$T/seed.cal")
  node tests/ref/hf_encode.js "$f" parse "$T/seedtext.cal" "$T/seed.ids" 2>"$T/err" || { not_ok "$name loads in the Rust tokenizers" "$(tail -2 "$T/err")"; continue; }
  want=$($PY -c "
import struct, sys; sys.path.insert(0, 'tests/ref'); import exact
print(' '.join(','.join(map(str, struct.unpack('<%dI' % (len(x) // 4), x))) for x in exact.read_ids_file(sys.argv[1])))" "$T/seed.ids")
  eq "$name loads and encodes as the Rust tokenizers do" "$got" "$want"
done
