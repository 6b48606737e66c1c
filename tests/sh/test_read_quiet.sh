#!/bin/sh
# cal-read writes the same bytes with and without -v, --progress and -o
# (options that cannot change the records stay out of the stage line), for
# every kind of option; the stage line keeps the other words as written.
. tests/lib.sh
export CAL_CORPORA="$T/corp"
mkdir -p "$T/corp" "$T/dir"
$PY - "$T" <<'PYEOF'
import gzip, json, sys
t = sys.argv[1]
docs = ["doc %d: %s" % (i, "word " * (i % 37)) + ("\r\n" if i % 5 == 0 else "") for i in range(300)]
open(t + "/a.txt", "w", newline="").write("\n".join(docs) + "\n")
open(t + "/dir/b.txt", "w").write("<|x|>".join(docs[:50]))
open(t + "/c.jsonl", "w").write("".join(json.dumps({"text": d, "m": {"b": d[:5]}}) + "\n" for d in docs))
open(t + "/chat.jsonl", "w").write("".join(json.dumps({"messages": [{"role": "user", "content": d}]}) + "\n" for d in docs[:20]))
open(t + "/corp/wiki.jsonl.zst", "wb").write(b"")
open(t + "/bad.txt", "wb").write(b"ok \xff \xe0\x80 x\x00y\n" * 10)
PYEOF
zstd -q -f "$T/c.jsonl" -o "$T/corp/wiki.jsonl.zst"
n=0 bad="" failed=""
while IFS= read -r args; do
  n=$((n + 1))
  eval "cal-read $args" >"$T/plain" 2>/dev/null; rc=$?
  [ $rc = 0 ] || failed="$failed [$args]"
  for q in "-v" "--progress" "-v --progress" "--verbose"; do
    eval "cal-read $q $args" >"$T/quiet" 2>/dev/null
    cmp -s "$T/plain" "$T/quiet" || bad="$bad [$q $args]"
  done
  eval "cal-read -v -o '$T/out.cal' $args" 2>/dev/null
  if [ $rc = 0 ]; then cmp -s "$T/plain" "$T/out.cal" || bad="$bad [-o: $args]"; fi
done <<CMDS
"$T/a.txt"
-f lines "$T/a.txt"
-f lines --crlf --nfc --max-chars 20 --min-chars 5 "$T/a.txt"
--format=lines --dedup --shard=1/3 "$T/a.txt"
-f lines --sample 40 "$T/a.txt"
-f lines --sample=40 --seed 7 -n 10 "$T/a.txt"
--sep '<|x|>' "$T/dir"
-L mine --field m.b "$T/c.jsonl"
--template chatml "$T/chat.jsonl"
wiki -n 17
--strict "$T/bad.txt"
-f lines "$T/bad.txt"
- < "$T/a.txt"
-- "$T/a.txt"
CMDS
eq "only --strict on invalid UTF-8 fails" "$failed" " [--strict \"$T/bad.txt\"]"
eq "$n commands: the same bytes with and without -v, --progress, -o" "$bad" ""

# stage LINE_OF_THE_STREAM_FILE: its stage line
stage() { cal-cat --json "$1" | head -1 | $PY -c 'import json,sys; print([v for k, v in json.loads(sys.stdin.read())["meta"] if k == "stage"][0])'; }
(cd "$T" && cal-read -v -f lines --progress --sample 3 a.txt -o s.cal 2>/dev/null)
eq "stage line without -v --progress -o" "$(stage "$T/s.cal")" "cal-read -f lines --sample 3 a.txt --seed 0"
(cd "$T" && cal-read --format=lines -v --max-chars=9 -n 2 -- a.txt >s.cal 2>/dev/null)
eq "stage line: words as written" "$(stage "$T/s.cal")" \
  "cal-read --format=lines --max-chars=9 -n 2 -- a.txt"
