#!/bin/sh
# test_read_binary.sh - what cal-read refuses and what it now reads (issue
# 25): every kind of file people hand it by mistake is refused with one line
# naming what it looks like, unless -f says how to read it; text in any
# encoding-damaged form is still text; .xz and .bz2 (several streams, as
# pxz/pbzip2 write them) read as xz -dc and bzip2 -dc give them, damage and
# truncation are one-line errors; data is never looked up in the current
# directory.
. tests/lib.sh
ROOT=$PWD
cd "$T" || exit 1
text() { cal-read "$@" | cal-cat --text; }

# Magic numbers: the file kind in the message (exit 1, one line).
$PY - <<'EOF'
import struct
files = {
    "x.png": b"\x89PNG\r\n\x1a\n" + bytes(64), "x.jpg": b"\xff\xd8\xff\xe0" + bytes(64), "x.gif": b"GIF89a" + bytes(64),
    "x.pdf": b"%PDF-1.7\n" + bytes(64), "x.zip": b"PK\x03\x04" + bytes(64), "x.elf": b"\x7fELF\x02\x01" + bytes(64),
    "x.gguf": b"GGUF\x03\x00\x00\x00" + bytes(64), "x.npy": b"\x93NUMPY\x01\x00" + bytes(64),
    "x.db": b"SQLite format 3\x00" + bytes(64), "x.7z": b"7z\xbc\xaf\x27\x1c" + bytes(64),
    "x.rar": b"Rar!\x1a\x07\x00" + bytes(64), "x.lz4": b"\x04\x22\x4d\x18" + bytes(64),
    "x.wav": b"RIFF" + bytes(64), "x.tar": b"a.txt".ljust(257, b"\0") + b"ustar" + bytes(300),
    "x.u16": "caf\u00e9 au lait\n".encode("utf-16"),
    "x.st": struct.pack("<Q", 30) + b'{"__metadata__":{},"a":{}}    ' + bytes(16),
    "x.rnd": bytes((i * 1103515245 + 12345) >> 16 & 255 for i in range(3000)),
    "x.nul": bytes(8192),
}
for n, b in files.items(): open(n, "wb").write(b)
# text that is still text: Latin-1, control characters, NUL bytes, a lone bad byte
open("latin1.txt", "wb").write("Caf\u00e9, na\u00efve, r\u00e9sum\u00e9: Latin-1 text with a byte per accent, "
                               "written long enough to be sampled.\n".encode("latin-1") * 3)
open("ctrl.txt", "wb").write(b"tab\there\x01\x02\x1b[0m escape and \x00 NUL bytes are text a tokenizer takes\n" * 4)
open("bad.txt", "wb").write(b"mostly good UTF-8 text with one \xff bad byte in it, long enough to count\n" * 4)
EOF
for f in png:"a PNG image" jpg:"a JPEG image" gif:"a GIF image" pdf:"a PDF document" zip:"a ZIP archive" \
         elf:"an ELF executable" gguf:"a GGUF model file" npy:"a numpy .npy file" db:"an SQLite database" \
         7z:"a 7-Zip archive" rar:"a RAR archive" lz4:"LZ4-compressed data" wav:"a RIFF file" tar:"a tar archive" \
         u16:"UTF-16 text" st:"a safetensors file" rnd:"binary data" nul:"zero-filled"; do
  ext=${f%%:*} what=${f#*:}
  expect_fail "refused: x.$ext is $what" 1 "^cal-read: x\.$ext: $what.*, not text \(-f text reads it anyway\)$" cal-read "x.$ext"
done
cal-read wiki -n 3 >s.cal
expect_fail "refused: a cal-stream, pointing at cal-cat" 1 "^cal-read: s\.cal: a cal-stream \(read it with cal-cat" cal-read s.cal
gzip -c x.png >x.png.gz
expect_fail "refused inside compression: an image inside gzip" 1 "^cal-read: x\.png\.gz: a PNG image inside gzip, not text" \
  cal-read x.png.gz
check "-f text reads random bytes anyway" sh -c 'cal-read -f text x.rnd | cal-cat --check'
expect_fail "refused at once: /dev/zero is zero-filled (not 1 GiB read first)" 1 "^cal-read: /dev/zero: zero-filled" \
  timeout 10 cal-read /dev/zero
check "-f text reads a zero-filled file anyway" sh -c 'cal-read -f text x.nul | cal-cat --check'
for f in latin1 ctrl bad; do
  check "still text: $f.txt" sh -c "cal-read $f.txt | cal-cat --check"
done

# xz and bzip2: the same documents as the plain file, several streams too.
cal-read wiki -n 200 | cal-cat --text >plain.txt
printf '{"text": %s}\n' '"one"' '"two"' >two.jsonl
for c in xz bzip2; do
  command -v $c >/dev/null 2>&1 || { skip "$c input" "$c is not installed"; continue; }
  ext=$([ $c = xz ] && echo xz || echo bz2)
  $c -c plain.txt >p.txt.$ext
  text -f lines p.txt.$ext >got.txt && sed '/^$/d' plain.txt >want.txt && sed '/^$/d' got.txt >g.txt
  same "$c: the lines of a .$ext file = $c -dc's" g.txt want.txt
  $c -c two.jsonl >a.jsonl.$ext && cat a.jsonl.$ext a.jsonl.$ext >aa.jsonl.$ext
  eq "$c: two concatenated streams are read one after the other" "$(text aa.jsonl.$ext | tr '\n' ' ')" "one two one two "
  eq "$c: the label drops .jsonl.$ext" "$(cal-read a.jsonl.$ext | cal-cat | sed -n 's/^TEXT \([^ ]*\) .*/\1/p' | head -1)" a
  size=$(wc -c <p.txt.$ext)
  head -c $((size / 2)) p.txt.$ext >cut.txt.$ext
  expect_fail "$c: a truncated file is one line naming it" 1 "^cal-read: cut\.txt\.$ext: byte [0-9]+: (truncated|corrupt) " \
    cal-read -f lines cut.txt.$ext
  $PY -c "
import sys; b = bytearray(open('p.txt.$ext','rb').read()); b[len(b)//2] ^= 0x55; open('dmg.txt.$ext','wb').write(b)"
  expect_fail "$c: a damaged byte is one line naming the file" 1 "^cal-read: dmg\.txt\.$ext: byte [0-9]+: (corrupt|truncated) " \
    cal-read -f lines dmg.txt.$ext
done

# Never the current directory: a planted build/corpora or build/tokenizers
# here is not what `wiki` or `-t llama3` means.
mkdir -p build/corpora build/tokenizers/llama3
printf '{"text":"planted"}\n' | zstd -q -o build/corpora/wiki.jsonl.zst
printf 'wiki\t1\t8\tplanted\n' >build/corpora/index.tsv
printf '{"model":{"type":"BPE","vocab":{},"merges":[]}}' >build/tokenizers/llama3/tokenizer.json
case "$(text wiki -n 1)" in planted) not_ok "a ./build/corpora in the current directory is not read" ;;
  *) ok "a ./build/corpora in the current directory is not read" ;; esac
eq "-t llama3 is the fetched tokenizer, not ./build/tokenizers/llama3" \
  "$(printf 'Hello\n' | cal-read - | cal-encode -t llama3 | cal-cat | sed -n 's/^#   tokenizer_fp=//p' | head -1)" \
  "$(cd "$ROOT" && printf 'Hello\n' | cal-read - | cal-encode -t llama3 | cal-cat | sed -n 's/^#   tokenizer_fp=//p' | head -1)"
