# test_encode_startup.sh - what a process of a fan-out pays at start
# (issue 30 item 1), and that it stays exact and safe:
#  - libsentencepiece (and, outside SANITIZE=1, libstdc++) is loaded
#    (libcal-spm.so, dlopen'ed) only by a .model parsed afresh or decoded:
#    not by --version, not by a tokenizer.json, not by a .model restored
#    from its cached image (LD_DEBUG=files lists what the linker loads);
#  - a char model (trained here by spm_train), which only libsentencepiece
#    encodes, gives python3-sentencepiece's ids through the shim;
#  - programs copied without the shim: a .model that needs it is one line
#    naming libcal-spm.so (exit 1); a tokenizer.json and a cached .model
#    still encode; decoding a .model is one line naming it (exit 1);
#  - the cache's trust in an image's identity: once an image is over 2 s
#    old, a verified load records its identity and the next load skips
#    the body checksum ("cache: hit"); a byte flipped in place (its
#    modification time put back), a copy renamed over it and a truncation
#    each give a new identity: the damage is found, the image rebuilt and
#    the output unchanged.
. tests/lib.sh
if ! sh scripts/fetch-tokenizers.sh >"$T/fetch.log" 2>&1; then
  not_ok "fetch tokenizers" "$(tail -3 "$T/fetch.log")"; exit 0
fi
TK=build/tokenizers
export CAL_CACHE="$T/c"
w() { $PY examples/calstream.py text "$@"; }
ids() { $PY examples/calstream.py dump "$1" | tail -n +2 | cut -d' ' -f4-; }
note() { sed -n 's/.*(.*cache: \(.*\))$/\1/p' "$1"; }
printf 'Hello world, calibration data.\nGrüße 日本語 <s> x\n' | w "$T/in.cal"
printf '' | w "$T/empty.cal"
loads() { LD_DEBUG=files "$@" 2>&1 >/dev/null | grep -c 'calling init: .*\(libcal-spm\|libsentencepiece\)'; }

# --- what is loaded --------------------------------------------------------------
eq "cal-encode --version loads neither libsentencepiece nor the shim" "$(loads cal-encode --version)" "0"
if [ "${CAL_SANITIZE:-}" = 1 ]; then skip "--version loads no libstdc++" "the sanitizers' runtime brings it"
else eq "--version loads no libstdc++" "$(LD_DEBUG=files cal-encode --version 2>&1 >/dev/null | grep -c 'calling init: .*libstdc++')" "0"; fi
eq "cal-cat --version neither" "$(loads cal-cat --version)" "0"
cal-encode -t $TK/llama3 "$T/empty.cal" -o /dev/null
eq "a tokenizer.json (llama3) loads none of them" "$(loads cal-encode -t $TK/llama3 "$T/in.cal" -o /dev/null)" "0"
cal-encode -t $TK/llama2-spm.model "$T/in.cal" -o "$T/spm-made.cal"
eq "a BPE .model restored from its image loads none of them" \
  "$(loads cal-encode -t $TK/llama2-spm.model "$T/in.cal" -o "$T/spm-hit.cal")" "0"
same "and gives the ids of the first load" "$T/spm-hit.cal" "$T/spm-made.cal"
n=$(loads cal-encode -t $TK/llama2-spm.model --no-cache "$T/in.cal" -o "$T/spm-off.cal")
case $n in 0) not_ok "a .model parsed afresh loads the shim and libsentencepiece" "$n libraries" ;; *) ok "a .model parsed afresh loads the shim and libsentencepiece" ;; esac
same "and gives the same ids" "$T/spm-off.cal" "$T/spm-made.cal"
case $(loads cal-cat --text -t $TK/llama2-spm.model "$T/spm-hit.cal") in
  0) not_ok "decoding a .model loads them (on first use)" ;; *) ok "decoding a .model loads them (on first use)" ;; esac

# --- a char model: libsentencepiece's own encoding through the shim -----------------
if command -v spm_train >/dev/null && $PY -c 'import sentencepiece' 2>/dev/null; then
  $PY - "$T/corpus.txt" <<'PYEOF'
import sys
words = "the quick brown fox jumps over a lazy dog while calibration data flows through pipes".split()
with open(sys.argv[1], "w") as f:
    for i in range(400):
        f.write(" ".join(words[(i * 7 + k * 3) % len(words)] for k in range(9)) + "\n")
PYEOF
  spm_train --input="$T/corpus.txt" --model_prefix="$T/char" --model_type=char --vocab_size=30 \
    --minloglevel=2 >"$T/train.log" 2>&1
  printf 'the lazy fox\nxyz quick, dog!\n' | w "$T/c.cal"
  cal-encode -t "$T/char.model" -v "$T/c.cal" -o "$T/c.out" 2>"$T/c.err"
  got=$(ids "$T/c.out" | tr '\n' '|')
  want=$($PY -c "
import sentencepiece as s; p = s.SentencePieceProcessor(model_file='$T/char.model')
print('|'.join(' '.join(map(str, p.encode(t))) for t in ['the lazy fox', 'xyz quick, dog!']) + '|')")
  eq "a char model: python3-sentencepiece's ids through libcal-spm.so" "$got" "$want"
  case $(cat "$T/c.err") in *"libsentencepiece"*) ok "-v says libsentencepiece encoded it" ;; *) not_ok "-v says libsentencepiece encoded it" "$(cat "$T/c.err")" ;; esac
else
  skip "a char model through the shim" "spm_train or python3-sentencepiece is missing"
fi

# --- programs without the shim ---------------------------------------------------
mkdir "$T/lone"
cp "$(command -v cal-encode)" "$(command -v cal-cat)" "$T/lone/"
expect_fail "without libcal-spm.so, a .model parsed afresh: one line naming it" 1 \
  "^cal-encode: .*llama2-spm.model: a SentencePiece model, but libsentencepiece, which it needs, is reached through calkit's libcal-spm.so: no $T/lone/libcal-spm.so" \
  "$T/lone/cal-encode" -t $TK/llama2-spm.model --no-cache "$T/in.cal" -o "$T/x.cal"
check "without it, a tokenizer.json encodes" "$T/lone/cal-encode" -t $TK/llama3 "$T/in.cal" -o "$T/x.cal"
"$T/lone/cal-encode" -t $TK/llama2-spm.model "$T/in.cal" -o "$T/lone.cal"
same "without it, a .model restored from its image encodes the same" "$T/lone.cal" "$T/spm-made.cal"
expect_fail "without it, decoding a .model: one line naming it, exit 1 (no text of U+FFFD)" 1 \
  "^cal-cat: .*llama2-spm.model: cannot decode \\(.*libcal-spm.so" \
  "$T/lone/cal-cat" --text -t $TK/llama2-spm.model "$T/spm-hit.cal"
expect_fail "without it, a file that is no model says what it is not" 1 "neither JSON \\(tokenizer.json\\) nor a SentencePiece model" \
  "$T/lone/cal-encode" -t "$T/corpus.txt" --no-cache "$T/in.cal" -o "$T/x.cal"

# --- the image's identity ----------------------------------------------------------
rm -rf "$T/c"
cal-encode -t $TK/mistral "$T/in.cal" -o "$T/want.cal"
img=$(ls "$T"/c/tokenizers/*.tok)
run() { cal-encode -t $TK/mistral -v "$T/in.cal" -o "$T/got.cal" 2>"$T/run.err"; note "$T/run.err"; }
sleep 3
eq "an image over 2 s old: verified once, then trusted by its identity" "$(run) / $(run)" "hit (image hashed) / hit"
same "with the same ids" "$T/got.cal" "$T/want.cal"
settle() { # damage NAME: the image was spoilt: rebuilt, then verified and trusted again
  case $(run) in rebuilt:*made*) ok "$1: found and rebuilt" ;; *) not_ok "$1: found and rebuilt" "$(cat "$T/run.err")" ;; esac
  same "$1: the same ids" "$T/got.cal" "$T/want.cal"
  sleep 3
  eq "$1: the new image verified, then trusted" "$(run) / $(run)" "hit (image hashed) / hit"
}
size=$(wc -c <"$img")
$PY - "$img" $((size / 2 + 5)) <<'PYEOF'
import os, sys
p, off = sys.argv[1], int(sys.argv[2])
st = os.stat(p)
with open(p, "r+b") as f:  # in place: same inode and size
    f.seek(off); b = f.read(1); f.seek(off); f.write(bytes([b[0] ^ 0x55]))
os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))  # the modification time put back
PYEOF
settle "a byte flipped in place, its mtime put back"
img=$(ls "$T"/c/tokenizers/*.tok)
cp "$img" "$T/copy.tok"
printf '\125' | dd of="$T/copy.tok" bs=1 seek=$((size / 3)) conv=notrunc 2>/dev/null
touch -r "$img" "$T/copy.tok"
mv "$T/copy.tok" "$img"
settle "a damaged copy renamed over it"
img=$(ls "$T"/c/tokenizers/*.tok)
truncate -s $((size - 64)) "$img"
settle "cut short"
