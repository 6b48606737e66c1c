#!/bin/sh
# cal-read --field TEMPLATE: records made of several fields (Alpaca,
# prompt/completion, nested paths, numbers, booleans), each compared with
# CPython's TEMPLATE.format(**json.loads(line)) ({a.b} written {a[b]} for
# Python); --missing; lists of strings; the errors (file, byte, row; usage).
. tests/lib.sh
D() { cal-cat --json "$@" | $PY tests/read/texts.py; }
# the records: Alpaca (input sometimes empty), prompt/completion, nested
# values, numbers of every shape Python prints, unicode and special-token text
$PY - "$T" <<'PYEOF'
import json, random, sys
t = sys.argv[1]
rnd = random.Random(5)
words = ["naïve", "café", "日本語", "<|im_start|>", "tab\there", "line\nbreak", "{braces}", "back\\slash", "😀"]
floats = [0.0, -0.0, 1.0, 0.1, 1e16, 1e15, 123456789.125, 1e-4, 1e-5, 1.5e300, 2.5e-300, 1e22, 3.0e-7, 100.0, -2.75]
with open(f"{t}/a.jsonl", "w") as f:
    for i in range(600):
        r = {"instruction": f"task {i} {rnd.choice(words)}", "input": "" if i % 3 else rnd.choice(words),
             "output": f"answer {i} {rnd.choice(words)}", "prompt": f"Q{i}: ", "completion": rnd.choice(words),
             "meta": {"source": rnd.choice(words), "k": [rnd.choice(words), i]},
             "i": rnd.randrange(-10**15, 10**15), "x": floats[i] if i < len(floats) else rnd.uniform(-1e6, 1e6) * 10 ** rnd.randint(-30, 30),
             "b": bool(i % 2)}
        f.write(json.dumps(r, ensure_ascii=i % 2 == 0) + "\n")
PYEOF
# ref TEMPLATE FILE [empty]: CPython's rendering, one JSON string per line
ref() { $PY - "$@" <<'PYEOF'
import json, re, string, sys
tmpl, path = sys.argv[1], sys.argv[2]
empty = len(sys.argv) > 3
tmpl = tmpl.replace("\\n", "\n").replace("\\t", "\t")
py = re.sub(r"\{([^{}]+)\}", lambda m: "{" + m.group(1).split(".")[0] + "".join("[%s]" % p for p in m.group(1).split(".")[1:]) + "}", tmpl)
class F(string.Formatter):
    def get_field(self, name, a, k):
        try:
            v = super().get_field(name, a, k)
        except (KeyError, IndexError):
            if empty: return ("", name)
            raise
        return ("", name) if v[0] is None and empty else v
for line in open(path):
    print(json.dumps(F().format(py, **json.loads(line)), ensure_ascii=False))
PYEOF
}
for tm in '{instruction}\n\n{input}\n\n{output}' '{prompt}{completion}' '{meta.source}: {meta.k.0} ({meta.k.1})' \
          'i={i} x={x} b={b}\t{output}'; do
  cal-read --field "$tm" "$T/a.jsonl" | D >"$T/got"
  ref "$tm" "$T/a.jsonl" | grep -v '^""$' >"$T/want"
  same "template $tm equals CPython's str.format" "$T/got" "$T/want"
done
eq "escapes \\{ \\} \\\\ and {{ }}" "$(echo '{"a":"x"}' | cal-read --field '\{{a}\} {{a}} \\{a}' - | D)" '"{x} {a} \\x"'

# --missing: an error naming file and byte by default, empty on request
printf '{"a":"1","b":"2"}\n{"a":"3"}\n{"a":"4","b":null}\n' >"$T/m.jsonl"
expect_fail "a missing field is an error naming the file and line's byte" 1 \
  "^cal-read: .*m.jsonl: byte 18: no field 'b' \(--missing empty" cal-read --field '{a}{b}' "$T/m.jsonl"
sed -n 3p "$T/m.jsonl" >"$T/n.jsonl"
expect_fail "a null field is an error too" 1 "n.jsonl: byte 0: null field 'b'" cal-read --field '{a}{b}' --missing error "$T/n.jsonl"
eq "--missing empty" "$(cal-read --missing empty --field '{a}-{b}' "$T/m.jsonl" | D | tr '\n' ' ')" '"1-2" "3-" "4-" '
expect_fail "a list in a template is refused" 1 "field 'meta.k' is a list" cal-read --field '{meta.k}' "$T/a.jsonl"
expect_fail "an object in a template is refused" 1 "field 'meta' is an object" cal-read --field '{meta}' "$T/a.jsonl"
for bad in '{a' 'a}' '{}' '{a:>5}' '{a!r}' '\q{a}'; do
  expect_fail "malformed template $bad: usage error" 2 "^cal-read: --field: " cal-read --field "$bad" "$T/m.jsonl"
done
expect_fail "--missing without a template" 2 "--missing goes with a template" cal-read --missing empty "$T/m.jsonl"
expect_fail "--missing takes error or empty" 2 "--missing takes error or empty" cal-read --missing none --field '{a}' "$T/m.jsonl"
eq "the stage line keeps the template as written" "$(cal-read --field '{a}\n{b}' --missing empty "$T/m.jsonl" | cal-cat --json | head -1 | $PY -c 'import json,sys; print(json.loads(input())["meta"][0][1])')" \
  "cal-read --field '{a}\\n{b}' --missing empty $T/m.jsonl"

# a list of strings is one document, its strings joined by a blank line
printf '{"text":["a","b",null,"c"]}\n{"text":[]}\n{"text":[null]}\n{"text":"d"}\n' >"$T/l.jsonl"
eq "a list of strings: joined by a blank line, nulls skipped" "$(cal-read "$T/l.jsonl" | D | tr '\n' ' ')" '"a\n\nb\n\nc" "d" '
expect_fail "a list of numbers is not text" 1 "field 'text' is not a string" sh -c "echo '{\"text\":[1]}' | cal-read -"
expect_fail "records of other shapes: the error names a template" 1 "no field 'text' .*--field '\{prompt\}\{completion\}'" \
  sh -c "echo '{\"prompt\":\"p\",\"completion\":\"c\"}' | cal-read -"

# numbers only Python's json reads (NaN, the infinities, floats past a
# double, integers past 64 bits: io/pyjson.h keeps them as marked string
# nodes) are numbers: written as CPython's str.format writes them, and
# never a text field
: >"$T/big.jsonl"
for v in NaN Infinity -Infinity 1e400 -1e400 1E+400 2.5e999 123456789012345678901234567890 -1180591620717411303424 \
         18446744073709551616 -9223372036854775809; do
  printf '{"v": %s, "n": {"w": [%s, "t"]}, "x": 1}\n' "$v" "$v" >>"$T/big.jsonl"
done
cal-read --field '{v}!{n.w.0}!{n.w.1}' "$T/big.jsonl" | D >"$T/got"
ref '{v}!{n.w.0}!{n.w.1}' "$T/big.jsonl" >"$T/want"
same "numbers past jansson (NaN, Infinity, 1e400, big ints) as CPython's str.format writes them" "$T/got" "$T/want"
for r in '{"text": NaN}' '{"text": 1e400}' '{"text": 123456789012345678901234567890}' '{"text": ["a", Infinity]}'; do
  expect_fail "$r: a number past jansson is not a text field" 1 "field 'text' is not a string" sh -c "echo '$r' | cal-read -"
done
expect_fail "a NaN content is not chat text" 1 "chat record without role/content strings" \
  sh -c "echo '{\"messages\": [{\"role\": \"user\", \"content\": NaN}]}' | cal-read --template chatml -"
