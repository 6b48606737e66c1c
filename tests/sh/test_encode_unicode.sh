# test_encode_unicode.sh - every code point U+0000..U+10FFFF (surrogates
# aside), assigned or not, alone, after a letter and in combining sequences,
# and the C0/C1 controls inside real text, in the four flag modes, against
# the reference tokenizers (issue 12, items 3 and 6): tests/ref/exact.py
# --unicode does the work; the references' ids are cached in build/exact.
. tests/lib.sh
if ! sh scripts/fetch-tokenizers.sh >"$T/fetch.log" 2>&1; then
  not_ok "fetch tokenizers and the reference" "$(tail -3 "$T/fetch.log")"
  exit 0
fi
reduced=
[ "${CAL_SANITIZE:-}" = 1 ] && reduced=--reduced
$PY tests/ref/exact.py --unicode $reduced
