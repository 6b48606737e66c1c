# test_encode_unicode.sh - every code point U+0000..U+10FFFF (surrogates
# aside), assigned or not, alone, after a letter and in combining sequences,
# and the C0/C1 controls inside real text, in the four flag modes, against
# the reference tokenizers (issue 12, items 3 and 6): tests/ref/exact.py
# --unicode does the work (the flag modes: tests/ref/flag_modes.py); the
# references' ids are cached in build/exact.
EXACT_SUITE=--unicode
. tests/sh/test_encode_exact.sh
