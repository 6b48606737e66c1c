#!/bin/sh
# cal-cat -t: decoding TOKENS records. For the byte-level tokenizers,
# encode-then-decode returns the input text exactly; every tokenizer's
# decoded previews and --json text agree; a foreign fingerprint warns; the
# Unigram and WordPiece tokenizer.json files decode as the reference does.
. tests/lib.sh
if ! sh scripts/fetch-tokenizers.sh >"$T/fetch.log" 2>&1; then
  not_ok "fetch tokenizers" "$(tail -3 "$T/fetch.log")"; exit 0
fi
# Documents: license texts (English prose, code-like lines) and NFC text in
# several scripts (Qwen's NFC normalizer must leave them unchanged).
mkdir -p "$T/docs"
cp /usr/share/common-licenses/GPL-3 /usr/share/common-licenses/Apache-2.0 "$T/docs/" 2>/dev/null
printf 'caf\303\251 \344\270\255\346\226\207 \320\277\321\200\320\270\320\262\320\265\321\202 \330\247\331\204\330\271\330\261\330\250\331\212\330\251 \360\237\230\200\n\n  tabs\tand   spaces  \r\n' >"$T/docs/mixed.txt"
cal-read "$T/docs" >"$T/in.cal"
cal-cat --text "$T/in.cal" >"$T/want.txt"
for tk in llama3 qwen3 gpt4o deepseek_v3 gptoss; do
  cal-encode -t $tk "$T/in.cal" | cal-cat -t $tk --text >"$T/got.txt"
  same "$tk: cal-encode | cal-cat -t --text returns the text" "$T/got.txt" "$T/want.txt"
done
for tk in gemma3 llama2 llama2-spm; do
  cal-encode -t $tk "$T/in.cal" | cal-cat -t $tk --text >"$T/got.txt"
  eq "$tk: decoded text has the input's words" "$(tr -s ' \n\t\r' '\n' <"$T/got.txt" | sort -u | head -200 | md5sum)" \
    "$(tr -s ' \n\t\r' '\n' <"$T/want.txt" | sort -u | head -200 | md5sum)"
done
cal-encode -t llama3 "$T/in.cal" >"$T/l3.cal"
eq "preview shows the decoded start of the document" \
  "$(cal-cat -t llama3 "$T/l3.cal" | grep -c '^TOKENS .* text="caf\(é\|\\\\u00e9\) ')" 1
eq "--json gets a text member" "$(cal-cat -t llama3 --json "$T/l3.cal" | grep -c '"text":"')" 3
cal-cat -t qwen3 "$T/l3.cal" >/dev/null 2>"$T/err"
eq "decoding with another tokenizer warns once" "$(grep -c 'encoded with tokenizer_fp' "$T/err")" 1
expect_fail "-t with --check is a usage error" 2 "-t decodes for printing" cal-cat -t llama3 --check "$T/l3.cal"
expect_fail "-t with a missing tokenizer" 1 "^cal-cat: $T/none.json: No such file" cal-cat -t "$T/none.json" "$T/l3.cal"

# Unigram and WordPiece tokenizer.json files (tests/ref/unigram_fixture.py):
# cal-cat -t's text of each record is the reference's decode of its ids
# (tests/ref/hf_decode.js), special tokens kept.
for tk in albert-unigram-hf smart-unigram-hf bert-wordpiece-hf; do
  j=$($PY -c "import sys; sys.path.insert(0, 'tests/ref'); import unigram_fixture; print(unigram_fixture.path('build/exact', '$tk'))")
  cal-encode -t "$j" --add-special "$T/in.cal" | cal-cat -t "$j" --json >"$T/dec.jsonl"
  $PY -c "
import json, sys
recs = [json.loads(l) for l in open('$T/dec.jsonl') if '\"kind\":\"TOKENS\"' in l]
open('$T/ids.jsonl', 'w').write(''.join(json.dumps(r['ids']) + '\n' for r in recs))
open('$T/ours.txt', 'w', encoding='utf-8').write(''.join(json.dumps(r['text'], ensure_ascii=False) + '\n' for r in recs))"
  node tests/ref/hf_decode.js "$j" "$T/ids.jsonl" >"$T/ref.txt"
  same "$tk: cal-cat -t decodes every record as the reference does" "$T/ours.txt" "$T/ref.txt"
done
