#!/bin/sh
# cal-read on text layouts, JSON Lines, compression and text hygiene. Every
# expectation is exact (written out here or computed by Python).
. tests/lib.sh
# D [--labels] [FILE]: the texts of a stream, one JSON string per line (via cal-cat --json)
D() { if [ "${1:-}" = --labels ]; then shift; cal-cat --json "$@" | $PY tests/read/texts.py --labels
      else cal-cat --json "$@" | $PY tests/read/texts.py; fi; }
got() { cal-read "$@" 2>"$T/err" | D; }

printf 'first line\n\nsecond  para\nstill second\n\n\n third\n' >"$T/a.txt"
eq "whole file is one document" "$(got "$T/a.txt")" '"first line\n\nsecond  para\nstill second\n\n\n third\n"'
eq "lines" "$(got -f lines "$T/a.txt")" "$(printf '"first line"\n"second  para"\n"still second"\n" third"')"
eq "paragraphs" "$(got -f paragraphs "$T/a.txt")" "$(printf '"first line"\n"second  para\\nstill second"\n"third"')"
printf 'one story<|endoftext|>\ntwo story\n<|endoftext|><|endoftext|>three' >"$T/s.txt"
eq "--sep" "$(got --sep '<|endoftext|>' "$T/s.txt")" "$(printf '"one story"\n"two story"\n"three"')"
printf '<doc id="1" url="u" title="A">\nA\n\nAlpha text.\n</doc>\n<doc id="2" url="v" title="B">\nB\n\nBeta.\n</doc>\n' >"$T/wiki_00"
eq "WikiExtractor detected" "$(got "$T/wiki_00")" "$(printf '"A\\n\\nAlpha text."\n"B\\n\\nBeta."')"
printf ' \n = Valkyria = \n \n Senjō no Valkyria . \n = = Gameplay = = \n Text . \n = Tower = \n Built . \n' >"$T/wiki.train.raw"
eq "wikitext-2 articles" "$(got "$T/wiki.train.raw")" "$(printf '"= Valkyria = \\n \\n Senjō no Valkyria . \\n = = Gameplay = = \\n Text ."\n"= Tower = \\n Built ."')"

# JSON Lines: field, dotted path, nulls, chat flattening with templates
cat >"$T/j.jsonl" <<'J'
{"text": "plain \u00e9 \ud83d\ude00", "meta": {"body": "nested"}}

{"text": null, "meta": {"body": "n2"}}
{"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}, {"role": "assistant", "content": [{"type": "text", "text": "Hello"}]}]}
J
eq "jsonl text field" "$(got -n 1 "$T/j.jsonl")" '"plain é 😀"'
eq "jsonl dotted field" "$(got --field meta.body "$T/j.jsonl" | head -2)" "$(printf '"nested"\n"n2"')"
eq "chat plain" "$(got "$T/j.jsonl" | tail -1)" '"System: Be brief.\n\nUser: Hi\n\nAssistant: Hello"'
eq "chat chatml" "$(got --template chatml "$T/j.jsonl" | tail -1)" '"<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello<|im_end|>\n"'
eq "chat llama3" "$(got --template llama3 "$T/j.jsonl" | tail -1)" '"<|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\nHello<|eot_id|>"'
printf '{"text": "ok"}\n{"text": "broken\n' >"$T/bad.jsonl"
expect_fail "invalid JSON names file and byte" 1 'bad.jsonl: byte 31: invalid JSON' cal-read "$T/bad.jsonl"
printf '{"body": "x"}\n' >"$T/nofield.jsonl"
expect_fail "missing field" 1 "nofield.jsonl: byte 0: no field 'text'" cal-read "$T/nofield.jsonl"
printf '{"text": "ok"}\n{"messages":"hi"}\n' >"$T/chatstr.jsonl"
expect_fail '{"messages":"hi"} is an error, not the document "hi"' 1 "chatstr.jsonl: byte 15: no field 'text', and 'messages' is not a chat list" cal-read "$T/chatstr.jsonl"

printf '{"text": "bad \377 byte", "n": 1}\n' >"$T/u8.jsonl"
eq "invalid UTF-8 inside a JSON string is replaced" "$(got "$T/u8.jsonl")" '"bad � byte"'
expect_fail "--strict on JSONL names the line" 1 'u8.jsonl: byte 0: invalid UTF-8' cal-read --strict "$T/u8.jsonl"

# compression: gzip (several members), zstd, C4-style .json.gz
$PY - "$T" <<'PYEOF'
import gzip, json, sys
t = sys.argv[1]
docs = [{"text": "C4 doc %d: caf\u00e9 " % i * (1 + i % 7), "timestamp": "2019-04-25T12:57:54Z", "url": "https://x/%d" % i} for i in range(2000)]
data = "".join(json.dumps(d) + "\n" for d in docs).encode()
open(t + "/c4.json", "wb").write(data)
half = len(data) // 2
half = data.rfind(b"\n", 0, half) + 1
open(t + "/c4-train.00000-of-01024.json.gz", "wb").write(gzip.compress(data[:half]) + gzip.compress(data[half:]))
open(t + "/c4.want", "w").write("".join(json.dumps(d["text"], ensure_ascii=False) + "\n" for d in docs))
PYEOF
got "$T/c4-train.00000-of-01024.json.gz" >"$T/c4.got"
same "C4 .json.gz (two gzip members)" "$T/c4.got" "$T/c4.want"
eq "C4 label" "$(cal-read -n 1 "$T/c4-train.00000-of-01024.json.gz" | D --labels | cut -f1)" "c4-train.00000-of-01024"
zstd -q -c "$T/c4.json" >"$T/c4z"
got "$T/c4z" >"$T/c4z.got"
same "zstd detected by magic" "$T/c4z.got" "$T/c4.want"
got - <"$T/c4z" >"$T/c4s.got"
same "stdin" "$T/c4s.got" "$T/c4.want"
head -c 3000 "$T/c4z" >"$T/trunc.zst"
expect_fail "truncated zstd" 1 'trunc.zst: byte [0-9]+: truncated zstd data' cal-read "$T/trunc.zst"
gzip -c "$T/a.txt" >"$T/bad.gz"; printf 'garbage!!' | dd of="$T/bad.gz" bs=1 seek=12 conv=notrunc 2>/dev/null
expect_fail "corrupt gzip" 1 'bad.gz: byte [0-9]+: (corrupt|truncated) gzip data' cal-read "$T/bad.gz"

# hygiene
printf '\357\273\277bom\n' >"$T/bom.txt"
eq "BOM removed" "$(got -f lines "$T/bom.txt")" '"bom"'
eq "BOM removed (whole file)" "$(got "$T/bom.txt")" '"bom\n"'
printf '\357\273\277{"text": "j"}\n' >"$T/bom.jsonl"
eq "BOM removed (JSONL)" "$(got "$T/bom.jsonl")" '"j"'
printf 'ok \377 bad \300\257 x\000y \340\240!\n' >"$T/u.txt"
eq "invalid UTF-8 replaced (one U+FFFD per maximal subpart), NUL kept" "$(got -f lines -v "$T/u.txt")" '"ok � bad �� x\u0000y �!"'
grep -qx 'cal-read: 4 sequences of invalid UTF-8 replaced by U+FFFD (--strict refuses them)' "$T/err" &&
  ok "replacements counted" || not_ok "replacements counted" "$(cat "$T/err")"
expect_fail "--strict names the byte" 1 'u.txt: byte 3: invalid UTF-8' cal-read --strict -f lines "$T/u.txt"
printf 'abc\000\001\n' >"$T/n.txt"
eq "--strict keeps NUL and controls" "$(got --strict "$T/n.txt")" '"abc\u0000\u0001\n"'
printf 'a\r\nb\r\n' >"$T/crlf.txt"
eq "CRLF kept" "$(got "$T/crlf.txt")" '"a\r\nb\r\n"'
eq "--crlf" "$(got --crlf "$T/crlf.txt")" '"a\nb\n"'
printf 'e\314\201 A\314\212\n' >"$T/nfd.txt"
eq "--nfc" "$(got --nfc -f lines "$T/nfd.txt")" "$($PY -c 'import json,unicodedata;print(json.dumps(unicodedata.normalize("NFC","e\u0301 A\u030a"),ensure_ascii=False))')"
: >"$T/empty.txt"
eq "empty file: no records" "$(got "$T/empty.txt" | wc -l)" "0"
check "empty file: exit 0" cal-read "$T/empty.txt"

# directories in sorted order, labels
mkdir -p "$T/dir/sub"; echo b >"$T/dir/b.txt"; echo a >"$T/dir/a.txt"; echo c >"$T/dir/sub/c.txt"; echo h >"$T/dir/.hidden"
eq "directory walked in sorted order" "$(got "$T/dir" | tr -d '\n')" '"a\n""b\n""c\n"'
eq "directory label" "$(cal-read "$T/dir" | D --labels | cut -f1 | sort -u)" "dir"
eq "-L label" "$(cal-read -L mine "$T/a.txt" | D --labels | cut -f1)" "mine"
expect_fail "missing file" 1 'nothere.txt: No such file' cal-read "$T/nothere.txt"
expect_fail "unknown corpus" 1 "wikki: no such file, and not a built-in corpus" cal-read wikki
expect_fail "unknown option" 2 "unknown option" cal-read --bogus x
expect_fail "bad format" 2 "unknown format" cal-read -f yaml x

# a 100 MB single line
$PY -c "import sys; sys.stdout.write('0123456789' * 10_000_000 + '\n')" >"$T/big.txt"
cal-read -f lines -v "$T/big.txt" 2>"$T/err" >"$T/big.cal"
grep -q '1 documents, 100000000 bytes' "$T/err" && ok "100 MB single line" || not_ok "100 MB single line" "$(cat "$T/err")"
rm -f "$T/big.txt" "$T/big.cal"
