#!/bin/sh
# test_drops_travel.sh - nothing lost in silence (issue 25): every stage
# says on stderr, without -v, what it dropped, truncated, padded, skipped or
# refused, one line per cause; the same counts travel in the stream
# (trailers) to the end of the pipeline, through stages that stop reading
# early (a file's trailer is read from its end; a pipe's is said unknown).
. tests/lib.sh
export PYTHONPATH="$PWD/examples"
cd "$T" || exit 1
drops() { cal-cat --summary --json "$1" | $PY -c '
import json, sys
for d in json.load(sys.stdin)["drops"]:
    print(d["stage"], d["count"], d["what"], d["why"])'; }

# cal-read: --min-chars, --drop-blank, --dedup, without -v.
printf '{"text": "%s"}\n' 'a long enough line of text here' 'short' '   ' 'a long enough line of text here' >in.jsonl
cal-read --min-chars 10 --drop-blank --dedup in.jsonl -o r.cal 2>err
eq "cal-read: a line per cause, without -v" "$(cat err)" "cal-read: 1 documents dropped by --min-chars 10 (5 bytes)
cal-read: 1 documents dropped by --drop-blank (only whitespace) (3 bytes)
cal-read: 1 documents dropped by --dedup (exact duplicates) (31 bytes)"

# cal-encode --skip-bad: a document past the regex engine's limits is
# skipped, the first one's error said, the count at the end; same for -j.
tok='{"version":"1.0","truncation":null,"padding":null,"added_tokens":[],"normalizer":null,"pre_tokenizer":{"type":"Split","pattern":{"Regex":"(a+)+$"},"behavior":"Isolated","invert":false},"post_processor":null,"decoder":null,"model":{"type":"BPE","vocab":{"a":0,"b":1,"c":2},"merges":[]}}'
printf '%s\n' "$tok" >hopeless.json
printf '%s\n' 'abc' 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaac' 'cab' 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaac' 'b' >bad.txt
cal-read -f lines bad.txt -o bad.cal
expect_fail "without --skip-bad: the first bad document ends the run" 1 "match limit" cal-encode -t hopeless.json bad.cal
for j in 1 2; do
  cal-encode -j $j --skip-bad -t hopeless.json bad.cal -o sk$j.cal 2>err$j
  eq "--skip-bad -j $j: 3 of 5 documents encoded" "$(cal-cat --check sk$j.cal | sed 's/.*, \([0-9]*\) records.*/\1/')" 3
done
same "--skip-bad: the same bytes for -j 1 and -j 2" sk1.cal sk2.cal
case "$(cat err1)" in
  "cal-encode: bad.cal: byte "*"match limit"*"(skipped: --skip-bad)
cal-encode: 2 documents skipped: the tokenizer refused them (--skip-bad) (82 bytes)") ok "--skip-bad: the first error, then the count" ;;
  *) not_ok "--skip-bad: the first error, then the count" "$(cat err1)" ;; esac

# A pipeline: each stage's losses at the end, through a stage that stops
# early on a file (its trailer read from the file's end) and on a pipe.
cal-read wiki --min-chars 400 2>/dev/null | cal-encode -t llama3 -o w.tok
cal-pack -l 256 --mode doc -n 10 w.tok -o rows.cal 2>/dev/null
eq "cal-pack -n stops early on a file, yet cal-read's drops reach the end" \
  "$(drops rows.cal | cut -d' ' -f1,3-)" "cal-read documents dropped by --min-chars 400
cal-pack documents truncated by --truncate tail
cal-pack rows padded to -l 256"
cal-pack -l 256 --mode doc -n 10 <w.tok -o rows2.cal 2>/dev/null
cat w.tok | cal-pack -l 256 --mode doc -n 10 -o rows3.cal 2>/dev/null
eq "stdin that is a file: its trailer is read from the end too" "$(drops rows2.cal)" "$(drops rows.cal)"
eq "a pipe: cal-pack says it stopped early (what came before is not known)" \
  "$(cal-cat --summary rows3.cal | grep -c 'note: cal-pack read [0-9]* records and stopped')" 1

# --stratify --allow-short: the rows it could not make, bucket by bucket.
cal-read wiki -n 300 | cal-encode -t llama3 | cal-pack -l 512 --mode doc --stratify 64,128,256,512 -n 60 --allow-short \
  -o st.cal 2>err
n=$(cal-cat --check st.cal | sed 's/.*, \([0-9]*\) records.*/\1/')
short=$(sed -n 's/^cal-pack: \([0-9]*\) rows short in length bucket .*--allow-short)$/\1/p' err | paste -sd+ | bc)
eq "--stratify --allow-short: the rows short of -n are said by bucket ($n written)" "$((n + ${short:-0}))" 60
