#!/bin/sh
# test_read_join.sh - cal-read --strip, --lines, --drop-blank, --join and
# --empty give the text Python gives (str.strip, text.split("\n"),
# str.isspace, sep.join) on documents with Unicode blanks, empty and blank
# lines and empty documents.
. tests/lib.sh
$PY - "$T" <<'PYEOF'
import json, sys
docs = ["  \u00a0a b\u3000\n", "", "x\n\n \ny\n\u2028", "\t", "last"]
open(sys.argv[1] + "/in.jsonl", "w").write("".join(json.dumps({"text": d}) + "\n" for d in docs))
out = {"strip": [d.strip() for d in docs],
       "lines": [l for d in docs for l in d.split("\n")],
       "lines-blank": [l for d in docs for l in d.split("\n") if not l.isspace()],
       "join": ["\n\n".join(docs)],
       "join-empty": ["".join(" \n" if d == "" else d for d in docs[:4])]}
json.dump(out, open(sys.argv[1] + "/want.json", "w"))
PYEOF
run() { n=$1; shift; cal-read "$@" "$T/in.jsonl" | cal-cat --json | $PY -c '
import json, sys; recs = [r for r in map(json.loads, sys.stdin) if "kind" in r]; print(json.dumps([r["text"] for r in recs]))' >"$T/$n.got"; }
run strip --strip
run lines --lines
run lines-blank --lines --drop-blank
run join --join '\n\n'
run join-empty -n 4 --join '' --empty ' \n'
for n in strip lines lines-blank join join-empty; do
  out=$($PY -c 'import json, sys; print("yes" if json.load(open(sys.argv[1])) == json.load(open(sys.argv[2]))[sys.argv[3]] else "no")' \
    "$T/$n.got" "$T/want.json" "$n")
  eq "cal-read $n: as Python" "$out" yes
done
expect_fail "--empty needs --join" 2 "--empty goes with --join" cal-read --empty x "$T/in.jsonl"
expect_fail "--join: unknown escape" 2 "unknown escape" cal-read --join 'a\q' "$T/in.jsonl"
