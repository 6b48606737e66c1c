#!/bin/sh
# test_shards.sh - every program where shards meet checks them (issue 25):
# one stream or several files, cal-cat, cal-encode, cal-pack, cal-shuffle
# --by-id, cal-blend (shards split over its sources), cal-select, and
# cal-hessian --merge of result files; each names what is missing, doubled
# or different in one line and exits 1, and --allow-partial takes the set
# with a warning and a `partial` line that later stages honour. A shard's
# own pipeline (one shard, not merged) is never an error.
. tests/lib.sh
cd "$T" || exit 1
for i in 0 1 2 3; do cal-read stories --shard $i/4 -o t$i.cal; done
for i in 0 1 2 3; do cal-encode -t llama3 t$i.cal -o k$i.cal; done
miss="shards of 'cal-read stories --shard I/4': 3 of 4 present, missing 2 \(did a shard's run fail\?\) \(--allow-partial accepts them\)$"

check "a shard's own pipeline: read, encode, pack, summary" sh -c \
  'cal-read stories --shard 1/4 | cal-encode -t llama3 | cal-pack -l 64 | cal-cat --check'
check "all four shards, as one stream or as four files: no complaint" sh -c \
  'cat t0.cal t1.cal t2.cal t3.cal | cal-cat --check && cal-cat --check t0.cal t1.cal t2.cal t3.cal'
expect_fail "cal-cat, files: a missing shard" 1 "^cal-cat: input: $miss" cal-cat --check t0.cal t1.cal t3.cal
expect_fail "cal-cat, one stream: a missing shard" 1 "^cal-cat: stdin: $miss" \
  sh -c 'cat t0.cal t1.cal t3.cal | cal-cat >/dev/null'
expect_fail "cal-encode, files: a missing shard" 1 "^cal-encode: input: $miss" \
  sh -c 'cal-encode -t llama3 t0.cal t1.cal t3.cal >/dev/null'
expect_fail "cal-pack: a missing shard" 1 "^cal-pack: stdin: byte [0-9]+: $miss" \
  sh -c 'cat k0.cal k1.cal k3.cal | cal-pack -l 64 --mode doc >/dev/null'
expect_fail "cal-shuffle --by-id: one shard alone is a partial merge" 1 \
  "^cal-shuffle: stdin: byte [0-9]+: shards of 'cal-read stories --shard I/4': 1 of 4 present, missing 0, 2-3" \
  sh -c 'cal-shuffle --by-id <k1.cal >/dev/null'
expect_fail "cal-blend: shards split over its sources meet there" 1 "^cal-blend: input: $miss" \
  sh -c 'cal-blend --grouped k0.cal k1.cal k3.cal >/dev/null'
expect_fail "cal-select: a missing shard" 1 "^cal-select: input: $miss" \
  sh -c 'cat k0.cal k1.cal k3.cal | cal-select -n 4 --method random >/dev/null'

# --allow-partial: a warning, a partial line, and later stages accept it.
cat k0.cal k1.cal k3.cal | cal-shuffle --by-id --allow-partial 2>warn | cal-pack -l 64 --mode doc -o rows.cal 2>/dev/null
case "$(cat warn)" in
  "cal-shuffle: warning: stdin: shards of 'cal-read stories --shard I/4': 3 of 4 present, missing 2"*"; accepted (--allow-partial)")
    ok "--allow-partial: one warning line" ;;
  *) not_ok "--allow-partial: one warning line" "$(cat warn)" ;; esac
check "a stage after it accepts the set" cal-cat --check rows.cal
eq "the summary names the family as accepted" "$(cal-cat --summary rows.cal | sed -n '/^shards:/{n;p}')" \
  "  cal-read stories --shard I/4: 3 of 4 (accepted partial upstream)"

# cal-hessian --merge: result files of shards, one missing.
$PY "$OLDPWD/examples/make-tiny-model.py" --vocab 128256 --dim 16 -o m.safetensors
for i in 0 1 3; do cal-pack -l 64 k$i.cal 2>/dev/null | cal-hessian --embed m.safetensors -o h$i.safetensors; done
expect_fail "cal-hessian --merge: a missing shard among the results" 1 "^cal-hessian: --merge: $miss" \
  cal-hessian --merge h0.safetensors h1.safetensors h3.safetensors -o all.safetensors
check "cal-hessian --merge --allow-partial merges them" \
  cal-hessian --merge --allow-partial h0.safetensors h1.safetensors h3.safetensors -o all.safetensors
[ ! -e all.safetensors.tmp ] && ok "no temporary file left behind" || not_ok "no temporary file left behind"
