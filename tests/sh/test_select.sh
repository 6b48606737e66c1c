#!/bin/sh
# cal-select against independent references (tests/py/select_check.py:
# TF-IDF by scikit-learn's TfidfTransformer and the projection drawn again
# in Python, k-means++ in numpy, Lloyd by scikit-learn's KMeans from the same
# centroids, k-center and greedy MMD in numpy, the allocation, the whole
# choice), determinism over -j and input order, and its errors.
. tests/lib.sh
$PY -c 'import sklearn, scipy' 2>/dev/null || { skip "cal-select references" "python3-sklearn missing (make deps)"; exit 0; }
[ -f build/tokenizers/llama3/tokenizer.json ] || { skip "cal-select" "llama3 missing (make tokenizers)"; exit 0; }
# Inputs: documents of four corpora, as TOKENS (llama3) and as TEXT; a
# target sample from other documents of two of them.
for c in wiki:160 web:160 code:80 multilingual:40; do
  cal-read "${c%:*}" -n "${c#*:}" >>"$T/mix.txt" || not_ok "cal-read ${c%:*}"
done
cal-encode -t llama3 "$T/mix.txt" -o "$T/mix.tok"
cal-read web -n 220 --shard 1/3 | cal-encode -t llama3 -o "$T/tgt.tok"
$PY tests/py/select_check.py "$T" "$CAL_UNIT/select_lib"
