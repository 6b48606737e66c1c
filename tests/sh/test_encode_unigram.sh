# test_encode_unigram.sh - calkit's SentencePiece unigram engine
# (lib/tok/spm_unigram.h) against libsentencepiece itself on 120 random
# models that reach every setting it replays (tests/ref/unigram_models.py:
# ties, float against double sums, user-defined, unused and byte pieces,
# byte_fallback, the four whitespace flags, with and without ALBERT's
# character map), each checked to be encoded by calkit's engine (it is
# cached; the library's is not); and a text the unigram search refuses for
# its size, said in one line. The real models (ALBERT's, the 50k code
# model) are in test_encode_exact.sh and test_encode_unicode.sh.
. tests/lib.sh
if ! sh scripts/fetch-tokenizers.sh >"$T/fetch.log" 2>&1; then
  not_ok "fetch tokenizers" "$(tail -3 "$T/fetch.log")"; exit 0
fi
$PY tests/ref/unigram_models.py "$T/models" 120 --charsmap build/tokenizers/albert-unigram.model ||
  not_ok "120 random unigram models against libsentencepiece (the reference script failed)"

# over the limit: 64 MiB normalized (here 6 MiB of U+FDFA, 39 bytes each under nmt_nfkc)
$PY -c "
import sys; sys.path.insert(0, 'examples'); import calstream
calstream.write_text('$T/long.cal', [(b'x', '\ufdfa'.encode() * (2 << 20))])"
expect_fail "a text whose normalized form is over 64 MiB is refused in one line" 1 \
  "^cal-encode: .*: byte 24: SentencePiece unigram: a text of 6291456 bytes normalizes to over 64 MiB; .*cal-read --max-chars" \
  cal-encode --no-cache -t build/tokenizers/albert-unigram.model "$T/long.cal" -o "$T/long.out"
