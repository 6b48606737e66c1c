# test_corrupt.sh - damaged, truncated and foreign input: each gives the
# documented one-line error "cal-cat: FILE: byte OFFSET: ..." with status 1,
# never a crash (run under SANITIZE=1 too). Streams come from the independent
# writer examples/calstream.py (json mode).
. tests/lib.sh
W="$PY examples/calstream.py json"

cp tests/data/sample.jsonl "$T/s.jsonl"   # the stream of test_cat.sh
$W <"$T/s.jsonl" >"$T/s.cal"
# Record offsets (see test_cat.sh): header 0..104, records at 105 223 291 347 400 459,
# the END record at 502, end 534.
eq "the test stream has the expected layout" "$(wc -c <"$T/s.cal" | tr -d ' ')" 534

# patch FILE OFFSET HEXBYTE: copy of s.cal with one byte replaced.
patch() {
  cp "$T/s.cal" "$T/$1"
  printf "\\$(printf %o "0x$3")" | dd of="$T/$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
F="$T/x.cal"
patch x.cal 1 00;   expect_fail "bad magic" 1 "^cal-cat: $F: byte 0: not a cal-stream \(bad magic\)$" cal-cat --check "$F"
patch x.cal 30 41;  expect_fail "a flipped metadata byte breaks the header checksum" 1 "^cal-cat: $F: byte 97: stream header checksum mismatch$" cal-cat "$F"
patch x.cal 10 02;  expect_fail "unknown header flags" 1 "^cal-cat: $F: byte 10: unknown stream header flags" cal-cat "$F"
patch x.cal 10 01;  expect_fail "a stream cannot start with a continuation header" 1 \
  "^cal-cat: $F: byte 10: the stream starts with a continuation header" cal-cat "$F"
patch x.cal 243 09; expect_fail "a flipped payload byte" 1 "^cal-cat: $F: byte 223: TOKENS record checksum mismatch$" cal-cat --check "$F"
patch x.cal 340 00; expect_fail "a flipped checksum byte" 1 "^cal-cat: $F: byte 291: ROW record checksum mismatch$" cal-cat --pass "$F"
patch x.cal 223 07; expect_fail "an unknown record kind" 1 "^cal-cat: $F: byte 223: bad record kind 0x07" cal-cat --json "$F"
patch x.cal 224 01; expect_fail "unknown record flags" 1 "^cal-cat: $F: byte 224: unknown record flags 0x01$" cal-cat "$F"
patch x.cal 230 7f; expect_fail "a payload length over the limit" 1 "^cal-cat: $F: byte 227: payload length [0-9]+ exceeds" cal-cat "$F"

# Every one-byte flip and every truncation is checked in memory by
# tests/unit/test_corrupt.c (1,068 cases); here a few of them as a process:
# status 1 and the one-line message with the program's name.
$PY -c "import sys; b = bytearray(open(sys.argv[1], 'rb').read()); b[520] ^= 0x20; open(sys.argv[2], 'wb').write(b)" "$T/s.cal" "$F"
expect_fail "a flip in the END record" 1 "^cal-cat: $F: byte 502: END record checksum mismatch$" cal-cat --check "$F"
head -c 50 "$T/s.cal" >"$T/t.cal"
expect_fail "a stream cut inside its header" 1 "^cal-cat: $T/t.cal: byte 50: truncated stream header \(50 of 105 bytes\)$" cal-cat --check "$T/t.cal"
head -c 300 "$T/s.cal" >"$T/t.cal"
expect_fail "a stream cut inside a record" 1 "^cal-cat: $T/t.cal: byte 300: truncated record header \(9 of 16 bytes\)$" cal-cat --check "$T/t.cal"
head -c 250 "$T/s.cal" >"$T/t.cal"
expect_fail "a stream cut inside a payload, without --check" 1 "^cal-cat: $T/t.cal: byte 250: truncated TOKENS record \(27 of 68 bytes\)$" cal-cat "$T/t.cal"
head -c 347 "$T/s.cal" >"$T/t.cal"
expect_fail "a stream cut at a record boundary (a failed producer) is an error" 1 \
  "^cal-cat: $T/t.cal: byte 347: truncated stream: no end record after 3 records \(did the producer fail\?\)$" cal-cat --check "$T/t.cal"

: >"$T/empty.cal"
expect_fail "an empty file" 1 "^cal-cat: $T/empty.cal: byte 0: empty input: not a cal-stream$" cal-cat "$T/empty.cal"
expect_fail "empty standard input" 1 "^cal-cat: stdin: byte 0: empty input: not a cal-stream$" sh -c 'cal-cat </dev/null'
printf 'Once upon a time\nthere was a text file.\n' >"$T/text.txt"
expect_fail "a text file" 1 "^cal-cat: $T/text.txt: byte 0: not a cal-stream \(looks like text; read it with cal-read\)$" cal-cat "$T/text.txt"
head -c 300 /dev/urandom | tr '\211' x >"$T/rand.bin"
expect_fail "random bytes" 1 "^cal-cat: $T/rand.bin: byte 0: not a cal-stream" cal-cat "$T/rand.bin"
sed '1s/"header"/"version": 2, "header"/' "$T/s.jsonl" | $W >"$T/v2.cal"
expect_fail "a stream of version 2" 1 "^cal-cat: $T/v2.cal: byte 8: unsupported cal-stream version 2 \(this program reads version 1\)$" cal-cat "$T/v2.cal"
sed 's/00000000000000aa/00000000000000bb/' "$T/s.jsonl" | $W >"$T/bb.cal"
cat "$T/s.cal" "$T/bb.cal" >"$T/mix.cal"
expect_fail "a second header with another tokenizer_fp" 1 \
  "^cal-cat: $T/mix.cal: byte 534: tokenizer_fp mismatch between concatenated streams: 00000000000000aa vs 00000000000000bb$" \
  cal-cat --check "$T/mix.cal"
expect_fail "the same through a pipe" 1 "^cal-cat: stdin: byte 534: tokenizer_fp mismatch" sh -c "cat '$T/mix.cal' | cal-cat --pass >/dev/null"
sed 's/"vocab","32000"/"vocab","32001"/' "$T/s.jsonl" | $W >"$T/voc.cal"
cat "$T/s.cal" "$T/voc.cal" >"$T/mix.cal"
expect_fail "a second header with another vocab" 1 "byte 534: vocab mismatch between concatenated streams: 32000 vs 32001$" cal-cat "$T/mix.cal"
printf 'garbage' >>"$T/x2.cal"; cat "$T/s.cal" "$T/x2.cal" >"$T/tail.cal"
expect_fail "garbage after a valid stream" 1 "^cal-cat: $T/tail.cal: byte 534: bad record kind 0x67" cal-cat --check "$T/tail.cal"

# Records that are well framed and checksummed but invalid inside.
bad_rec() { printf '%s\n%s\n' "$(head -1 "$T/s.jsonl")" "$2" | $W >"$T/$1.cal"; }
bad_rec mask '{"kind":"ROW","label":"w","id":1,"ids":[1,2],"mask":[1,2]}'
expect_fail "a ROW mask value of 2" 1 "mask.cal: byte 139: ROW mask value 2 is not 0 or 1$" cal-cat "$T/mask.cal"
bad_rec ctl '{"kind":"TEXT","label":"a\u0001b","id":1,"text":"x"}'
expect_fail "a label with a control character" 1 "ctl.cal: byte 122: label has a control character$" cal-cat "$T/ctl.cal"
$PY - "$T/len.cal" "$T/s.cal" <<'EOF'
import sys, struct
sys.path.insert(0, "examples")
import calstream as c
hdr = open(sys.argv[2], "rb").read()[:105]
def rec(kind, payload):
    h = struct.pack("<BBHIQ", kind, 0, 1, len(payload), 7) + b"x" + payload
    return h + struct.pack("<Q", c.xxh3(h))
out = hdr + rec(3, struct.pack("<II", 5, 0) + bytes(8))        # ROW says 5 ids, has 2
out += rec(2, b"abc")                                            # TOKENS not a multiple of 4
out += rec(4, struct.pack("<IIB3xI", 1, 1, 9, 0) + bytes(4))     # unknown dtype 9
open(sys.argv[1], "wb").write(out)
open(sys.argv[1] + ".2", "wb").write(hdr + out[105 + 41:])
open(sys.argv[1] + ".3", "wb").write(hdr + out[105 + 41 + 28:])
EOF
expect_fail "a ROW whose length disagrees with its payload" 1 "len.cal: byte 122: ROW of length 5 needs 28 payload bytes, has 16$" cal-cat "$T/len.cal"
expect_fail "a TOKENS payload that is not whole ids" 1 "len.cal.2: byte 122: TOKENS payload of 3 bytes is not a multiple of 4$" cal-cat "$T/len.cal.2"
expect_fail "a VECTORS record of unknown dtype" 1 "len.cal.3: byte 130: unknown VECTORS dtype 9$" cal-cat "$T/len.cal.3"
