# test_encode_exact.sh - cal-encode's ids against the reference tokenizers
# (Rust HF tokenizers via node; python3-sentencepiece) on the built-in corpora
# and the generated cases of issue 4: tests/ref/exact.py does the work
# (test_encode_unicode.sh runs its code point suite through this file).
. tests/lib.sh
if ! sh scripts/fetch-tokenizers.sh >"$T/fetch.log" 2>&1; then
  not_ok "fetch tokenizers and the reference" "$(tail -3 "$T/fetch.log")"
  exit 0
fi
reduced=
[ "${CAL_SANITIZE:-}" = 1 ] && reduced=--reduced
$PY tests/ref/exact.py $reduced ${EXACT_SUITE:-}
