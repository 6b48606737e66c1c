#!/bin/sh
# test_read_chat.sh - cal-read --chat MODEL against transformers'
# apply_chat_template(messages, tools=..., add_generation_prompt=...,
# tokenize=False) as python3-jinja2 set up like transformers renders it
# (tests/jinja/chat_read.py on hfenv.py): every fetched model's template
# (build/tokenizers/*/tokenizer_config.json) over generated conversation
# records, byte for byte, with and without --add-generation-prompt; the
# records the template refuses are counted by --skip-bad and are a one-line
# error without it. Then the ids of cal-encode on the rendered records (the
# CAL_TEXT_CHAT flag: special tokens matched, none added) against the Rust
# HF tokenizers (tests/ref/hf_encode.js, mode parse).
. tests/lib.sh
if ! $PY -c 'import jinja2' 2>/dev/null; then
  skip "read chat" "python3-jinja2 is not installed (apt-get install python3-jinja2)"
  exit 0
fi
toks=build/tokenizers
export PYTHONPATH=examples
$PY tests/jinja/chat_read.py "$T/recs.jsonl"
nrec=$(wc -l <"$T/recs.jsonl")

# compare NAME STREAM WANT: the TEXT payloads of STREAM, each flagged
# CAL_TEXT_CHAT, are the "want" texts of WANT that are not empty (cal-read
# skips empty documents); prints the number of errors of WANT on fd 3.
compare() {
  $PY - "$2" "$3" >"$T/cmp.out" 2>&1 <<'PYEOF'
import json, sys
import calstream
_, recs = calstream.read(sys.argv[1])
ref = [json.loads(l) for l in open(sys.argv[2], encoding="utf-8")]
want = [r["want"] for r in ref if r.get("want")]
got = [r["payload"].decode("utf-8") for r in recs]
bad = [r["raw"][1] for r in recs if r["raw"][1] != 1]
print(sum("error" in r for r in ref))
if bad:
    sys.exit("%d records without the chat flag (flags %r)" % (len(bad), bad[:3]))
if len(got) != len(want):
    sys.exit("%d records, want %d" % (len(got), len(want)))
for i, (g, w) in enumerate(zip(got, want)):
    if g != w:
        at = next((j for j in range(min(len(g), len(w))) if g[j] != w[j]), min(len(g), len(w)))
        sys.exit("record %d differs at char %d: got %r want %r" % (i, at, g[max(0, at - 20):at + 40], w[max(0, at - 20):at + 40]))
PYEOF
}

models=0
for cfg in "$toks"/*/tokenizer_config.json; do
  m=$(basename "$(dirname "$cfg")")
  grep -q '"chat_template"' "$cfg" || [ -f "$(dirname "$cfg")/chat_template.jinja" ] || continue
  models=$((models + 1))
  for agp in 0 1; do
    opt=; [ $agp = 1 ] && opt=--add-generation-prompt
    $PY tests/jinja/chat_read.py "$T/recs.jsonl" "$toks/$m" $agp "$T/want.$m.$agp" || { not_ok "$m: reference"; continue; }
    if ! cal-read --chat "$m" $opt --date 2024-07-26 --skip-bad -v "$T/recs.jsonl" >"$T/$m.$agp.cal" 2>"$T/err"; then
      not_ok "$m agp=$agp: cal-read --chat" "$(head -3 "$T/err")"; continue
    fi
    if compare "$m" "$T/$m.$agp.cal" "$T/want.$m.$agp"; then
      nerr=$(head -1 "$T/cmp.out")
      said=$(sed -n 's/^cal-read: \([0-9]*\) records refused by the chat template (--skip-bad)$/\1/p' "$T/err")
      if [ "${said:-0}" = "$nerr" ]; then
        ok "$m agp=$agp: $nrec records as apply_chat_template renders them ($nerr refused, counted)"
      else
        not_ok "$m agp=$agp: --skip-bad counts the $nerr refused records" "$(cat "$T/err")"
      fi
    else
      not_ok "$m agp=$agp: cal-read --chat renders as apply_chat_template" "$(tail -2 "$T/cmp.out")"
    fi
  done
  # without --skip-bad the first refused record is one line: file, line, message
  line=$($PY -c 'import json,sys
for i, l in enumerate(open(sys.argv[1], encoding="utf-8"), 1):
    r = json.loads(l)
    if "error" in r: print(i, r.get("raise", "")); break' "$T/want.$m.0")
  if [ -n "$line" ]; then
    n=${line%% *} msg=${line#* }
    cal-read --chat "$m" --date 2024-07-26 "$T/recs.jsonl" >/dev/null 2>"$T/err"; rc=$?
    if [ $rc = 1 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "^cal-read: $T/recs.jsonl: line $n: " "$T/err" &&
       grep -qF -- "$msg" "$T/err"; then
      ok "$m: a refused record is one line naming the file, line $n and the template's message"
    else
      not_ok "$m: a refused record is one line naming the file, line $n and the template's message" \
        "status $rc" "$(head -2 "$T/err")" "want: $msg"
    fi
  fi
done

# --chat-var: apply_chat_template's template keyword arguments: Qwen 3's
# enable_thinking (it changes the generation prompt), and a bos_token that
# overrides the configuration's (Llama 3.1 prints it), as transformers
# merges {**special_tokens_map, **kwargs}
chatvar() { # chatvar MODEL AGP KWARGS_JSON CAL-READ-ARGS...
  m=$1 agp=$2 kw=$3; shift 3
  opt=; [ "$agp" = 1 ] && opt=--add-generation-prompt
  [ -f "$toks/$m/tokenizer_config.json" ] || { skip "$m --chat-var" "not fetched"; return; }
  $PY tests/jinja/chat_read.py "$T/recs.jsonl" "$toks/$m" "$agp" "$T/want.kw" "$kw" || { not_ok "$m --chat-var: reference"; return; }
  if cal-read --chat "$m" $opt "$@" --date 2024-07-26 --skip-bad "$T/recs.jsonl" >"$T/kw.cal" 2>"$T/err" &&
     compare "$m" "$T/kw.cal" "$T/want.kw"; then
    ok "$m agp=$agp $*: as apply_chat_template(..., **$kw)"
  else
    not_ok "$m agp=$agp $*" "$(cat "$T/err" "$T/cmp.out" | tail -3)"
  fi
}
chatvar qwen3 1 '{"enable_thinking": false}' --chat-var enable_thinking=false
chatvar llama3.1-instruct 0 '{"bos_token": "<B>"}' --chat-var 'bos_token="<B>"'
# Numbers only Python's json.loads reads, in records and in --chat-var, as
# the template sees them: ints past 64 bits, NaN, infinities, NUL in keys
# (tests/jinja/chat_read.py's last records), printed, computed, tojson'd.
mkdir -p "$T/numbers"
cp "$toks/qwen3/tokenizer_config.json" "$T/numbers/"
cat >"$T/numbers/chat_template.jinja" <<'JEOF'
{%- for m in messages %}{{ m.role }}:{{ m.content }}{% for c in m.tool_calls or [] %}|{{ c.function.arguments|tojson }}
{%- for k, v in c.function.arguments|dictsort %} {{ k|tojson }}={{ v }}/{{ v * 3 if v is number else '' }}
{%- if v is integer %}/{{ v // 7 }}/{{ '%x' % v }}/{{ '{:,}'.format(v) }}{% endif %}{% endfor %}{% endfor %}
{% endfor %}{{ big }}|{{ big|tojson }}|{{ (big * 3) // 7 }}|{{ nk|tojson }}|{{ nan }}|{{ nan == nan }}
JEOF
kw='{"big": 12345678901234567890123, "nk": {"a\u0000b": [NaN, -1208925819614629174706176]}, "nan": NaN}'
if $PY tests/jinja/chat_read.py "$T/recs.jsonl" "$T/numbers" 0 "$T/want.num" "$kw" &&
   cal-read --chat "$T/numbers" --chat-var big=12345678901234567890123 \
     --chat-var 'nk={"a\u0000b": [NaN, -1208925819614629174706176]}' --chat-var nan=NaN \
     --date 2024-07-26 --skip-bad "$T/recs.jsonl" >"$T/num.cal" 2>"$T/err" &&
   compare numbers "$T/num.cal" "$T/want.num"; then
  ok "big ints, NaN, infinities and NUL keys of records and --chat-var as json.loads gives them to the template"
else
  not_ok "numbers of records and --chat-var as json.loads gives them" "$(cat "$T/err" "$T/cmp.out" | tail -3)"
fi
expect_fail "--chat-var of a variable cal-read sets is a usage error" 2 "tools is set by cal-read itself" \
  cal-read --chat qwen3 --chat-var tools=null "$T/recs.jsonl"
expect_fail "--chat-var with a value that is not JSON is a usage error" 2 "the value is not JSON" \
  cal-read --chat qwen3 --chat-var enable_thinking=False "$T/recs.jsonl"
[ "$models" -ge 3 ] && ok "$models fetched models have a chat template" ||
  not_ok "the fetched models have chat templates" "run: sh scripts/fetch-tokenizers.sh"

# The ids: cal-encode on chat records == HF tokenizers with special tokens
# matched and none added; plain TEXT of the same bytes keeps today's default.
ids_json() {  # IDS JSON: hf_encode.js output as a JSON list of lists
  $PY -c 'import json, struct, sys
b = open(sys.argv[1], "rb").read(); out, i = [], 0
while i < len(b):
    (n,) = struct.unpack_from("<I", b, i); out.append(list(struct.unpack_from("<%dI" % n, b, i + 4))); i += 4 + 4 * n
json.dump(out, open(sys.argv[2], "w"))' "$1" "$2"
}
for m in qwen3 llama3.1-instruct; do
  [ -f "$toks/$m/tokenizer.json" ] || { not_ok "$m: tokenizer.json is fetched"; continue; }
  in="$T/$m.1.cal"
  if ! node tests/ref/hf_encode.js "$toks/$m/tokenizer.json" parse "$in" "$T/$m.ref" plain "$in" "$T/$m.plain" \
      2>"$T/node.err"; then
    not_ok "$m: reference (node)" "$(tail -3 "$T/node.err")"; continue
  fi
  ids_json "$T/$m.ref" "$T/$m.ref.json"; ids_json "$T/$m.plain" "$T/$m.plain.json"
  cal-encode -t "$m" --add-special "$in" >"$T/$m.tok" || { not_ok "$m: cal-encode"; continue; }
  # the same texts as plain TEXT records (flag cleared) encode as plain text
  $PY -c 'import sys, calstream
_, recs = calstream.read(sys.argv[1])
calstream.write_text(sys.argv[2], [("x", r["payload"]) for r in recs])' "$in" "$T/$m.noflag.cal" 2>"$T/py.err" ||
    { not_ok "$m: the texts as plain records" "$(tail -2 "$T/py.err")"; continue; }
  cal-encode -t "$m" "$T/$m.noflag.cal" >"$T/$m.notok" || { not_ok "$m: cal-encode (plain)"; continue; }
  for pair in "tok ref chat records: special tokens matched, none added (even with --add-special)" \
              "notok plain the same texts as plain TEXT: special-token strings are text"; do
    set -- $pair; got=$1 want=$2; shift 2
    if $PY -c 'import json, sys, calstream
_, recs = calstream.read(sys.argv[1]); got = [r["ids"] for r in recs]
want = json.load(open(sys.argv[2]))
bad = [i for i, (g, w) in enumerate(zip(got, want)) if g != w]
if len(got) != len(want) or bad: sys.exit("%d vs %d records, %d differ, first %r" % (len(got), len(want), len(bad), bad[:1]))
' "$T/$m.$got" "$T/$m.$want.json" 2>"$T/py.err"; then
      ok "$m: $*"
    else
      not_ok "$m: $*" "$(tail -2 "$T/py.err")"
    fi
  done
done

# Template files as transformers reads them (additional_chat_templates/):
# a folder with Qwen 3's config, its template as chat_template.jinja, Llama
# 3.1 Instruct's as additional_chat_templates/tool_use.jinja and Gemma 3's
# as .../plain.jinja: records with tools take tool_use, the others default
# (the config's own template is not used); --chat-template-name plain takes
# plain for every record.
mkdir -p "$T/multi/additional_chat_templates"
cp "$toks/qwen3/tokenizer_config.json" "$T/multi/"
$PY -c 'import json, sys
for src, dst in zip(sys.argv[1::2], sys.argv[2::2]):
    open(dst, "w", encoding="utf-8", newline="").write(json.load(open(src, encoding="utf-8"))["chat_template"])' \
  "$toks/qwen3/tokenizer_config.json" "$T/multi/chat_template.jinja" \
  "$toks/llama3.1-instruct/tokenizer_config.json" "$T/multi/additional_chat_templates/tool_use.jinja" \
  "$toks/gemma3/tokenizer_config.json" "$T/multi/additional_chat_templates/plain.jinja"
# Last, additional_chat_templates/default.jinja (Gemma 3's), which
# transformers reads after chat_template.jinja: it is the default.
for name in "" plain default.jinja; do
  what=${name:-default and tool_use}
  [ "$name" = default.jinja ] && cp "$T/multi/additional_chat_templates/plain.jinja" "$T/multi/additional_chat_templates/default.jinja" &&
    name= what="default.jinja over chat_template.jinja, and tool_use"
  opt=; [ -n "$name" ] && opt="--chat-template-name $name"
  CHAT_TEMPLATE_NAME=$name $PY tests/jinja/chat_read.py "$T/recs.jsonl" "$T/multi" 0 "$T/want.multi" || not_ok "multi: reference"
  # shellcheck disable=SC2086
  if cal-read --chat "$T/multi" $opt --date 2024-07-26 --skip-bad "$T/recs.jsonl" >"$T/multi.cal" 2>"$T/err" &&
     compare multi "$T/multi.cal" "$T/want.multi"; then
    ok "additional_chat_templates/ $what: as transformers loads and picks them"
  else
    not_ok "additional_chat_templates/ $what" "$(head -3 "$T/err" "$T/cmp.out")"
  fi
done

# The flag survives the programs that pass TEXT records on.
in="$T/qwen3.1.cal"
flags() { $PY -c 'import sys, calstream
_, recs = calstream.read(sys.argv[1]); print(len(recs), sorted({r["raw"][1] for r in recs}))' "$1"; }
want=$(flags "$in")
cal-shuffle --seed 3 "$in" >"$T/sh.cal" && eq "cal-shuffle keeps the chat flag" "$(flags "$T/sh.cal")" "$want"
n=${want%% *}
cal-blend --grouped "$in" "$T/sh.cal:label=chat" >"$T/bl.cal" &&
  eq "cal-blend keeps the chat flag, relabelled or not" "$(flags "$T/bl.cal")" "$((2 * n)) [1]"
cal-cat --pass "$in" >"$T/pass.cal" && eq "cal-cat --pass keeps the chat flag" "$(flags "$T/pass.cal")" "$want"
# cal-cat shows it: " chat" in the summary, "chat":true in --json, on
# exactly the records whose flag byte calstream.py reads as 1 (of both files)
$PY -c 'import sys, calstream; calstream.write_text(sys.argv[1], [("x", b"chat plain"), ("y", b"no flag")])' "$T/plain.cal"
chats() { $PY -c 'import sys, calstream
print(sum(r["raw"][1] == 1 for f in sys.argv[1:] for r in calstream.read(f)[1]))' "$@"; }
eq "cal-cat: ' chat' on every chat TEXT record" "$(cal-cat "$in" "$T/plain.cal" | grep -c '^TEXT .* len=[0-9]* chat ')" "$(chats "$in" "$T/plain.cal")"
eq "cal-cat --json: \"chat\":true on every chat TEXT record" \
  "$(cal-cat --json "$in" "$T/plain.cal" | $PY -c 'import json, sys; print(sum(json.loads(l).get("chat") is True for l in sys.stdin))')" \
  "$(chats "$in" "$T/plain.cal")"

# examples/chat-instruct.sh at the defaults its header states (Qwen 3's
# template and tokenizer, the fixture, rows of 512, every conversation): one
# padded and masked row per conversation, exported for GPTQModel (.jsonl)
# and llm-compressor (.safetensors); each row is its conversation's ids as
# the HF tokenizers give them for its apply_chat_template text.
if sh examples/chat-instruct.sh -o "$T/ex" >"$T/ex.out" 2>&1; then
  $PY tests/jinja/chat_read.py tests/data/chat-instruct.jsonl "$toks/qwen3" 0 "$T/ex.want"
  $PY -c 'import json, sys, calstream
w = [json.loads(l)["want"] for l in open(sys.argv[1], encoding="utf-8")]
calstream.write_text(sys.argv[2], [("x", t.encode()) for t in w])' "$T/ex.want" "$T/ex.ref.cal"
  node tests/ref/hf_encode.js "$toks/qwen3/tokenizer.json" parse "$T/ex.ref.cal" "$T/ex.ref" 2>"$T/node.err"
  ids_json "$T/ex.ref" "$T/ex.ref.json"
  if $PY - "$T/ex" "$T/ex.ref.json" <<'PYEOF' 2>"$T/py.err"; then
import json, struct, sys
d, ref = sys.argv[1], json.load(open(sys.argv[2]))
rows = [json.loads(l) for l in open(d + "/cal_data.jsonl")]
assert len(rows) == len(ref) == 30, (len(rows), len(ref))
for i, (r, w) in enumerate(zip(rows, ref)):
    n = sum(r["attention_mask"])
    assert r["attention_mask"] == [1] * n + [0] * (512 - n), i
    assert r["input_ids"][:n] == w[:512], "row %d: %r vs %r" % (i, r["input_ids"][:8], w[:8])
b = open(d + "/cal_data.safetensors", "rb").read()
h = json.loads(b[8:8 + struct.unpack("<Q", b[:8])[0]])
assert h["input_ids"]["shape"] == [30, 512] and h["attention_mask"]["shape"] == [30, 512], h
PYEOF
    ok "chat-instruct.sh at its defaults: 30 conversations of 512 as HF encodes their rendering, padded and masked, in .jsonl and .safetensors"
  else
    not_ok "chat-instruct.sh: rows as HF encodes the rendered conversations" "$(tail -2 "$T/py.err")"
  fi
else
  not_ok "chat-instruct.sh runs" "$(tail -3 "$T/ex.out")"
fi

# RAG templates: a record's documents reach the template (and --chat-var
# documents=... is the documents of records without their own), as
# apply_chat_template(..., documents=...) passes them; Granite 3.3's and
# Command R7B's templates print them
for tpl in granite-3.3-2b-instruct c4ai-command-r7b-12-2024; do
  mkdir -p "$T/$tpl" && cp "tests/jinja/templates/$tpl.jinja" "$T/$tpl/chat_template.jinja" && echo '{}' >"$T/$tpl/tokenizer_config.json"
  for kw in "" '{"documents": [{"title": "Default", "text": "from --chat-var"}]}'; do
    set --; [ -n "$kw" ] && set -- --chat-var 'documents=[{"title": "Default", "text": "from --chat-var"}]'
    $PY tests/jinja/chat_read.py "$T/recs.jsonl" "$T/$tpl" 0 "$T/want.doc" ${kw:+"$kw"} || { not_ok "$tpl documents: reference"; continue; }
    if cal-read --chat "$T/$tpl" "$@" --date 2024-07-26 --skip-bad "$T/recs.jsonl" >"$T/doc.cal" 2>"$T/err" &&
       compare doc "$T/doc.cal" "$T/want.doc" && grep -q "Facts 1: 1.0 and 1" "$T/want.doc"; then
      ok "$tpl: documents reach the template $*"
    else
      not_ok "$tpl: documents reach the template $*" "$(cat "$T/err" "$T/cmp.out" | tail -3)"
    fi
  done
done

# the fetched instruct names carry their real templates (scripts/fetch-tokenizers.sh)
eq "llama3.1-instruct renders Meta's Llama 3.1 template (knowledge date, tool role ipython)" \
  "$(printf '%s\n' '{"messages":[{"role":"user","content":"hi"},{"role":"tool","content":"42"}]}' |
     cal-read --chat llama3.1-instruct --date 2024-07-26 - | cal-cat --text | grep -c 'Cutting Knowledge Date: December 2023\|<|start_header_id|>ipython<|end_header_id|>')" 2
eq "mistral renders Mistral 7B Instruct's [INST] template" \
  "$(printf '%s\n' '{"messages":[{"role":"user","content":"hi"}]}' | cal-read --chat mistral - | cal-cat --text)" "<s>[INST] hi [/INST]"
expect_fail "gptoss has no chat template, and says so" 1 "gptoss/tokenizer_config.json: no chat_template \(the tokenizer has no chat template\)" \
  cal-read --chat gptoss "$T/recs.jsonl"
eq "cal-encode --list says which names have no chat template" \
  "$(cal-encode --list | grep -E '^(gptoss|gpt4o)' | grep -c 'no chat template$')" 2
# --assistant-mask: a {% generation %} block run inside a macro gives no span
# (transformers records one at the top-level length); it is counted on
# standard error with the turns left out, never lost in silence
printf '%s' "{% macro a(m) %}{% generation %}{{ m.content }}{% endgeneration %}{% endmacro %}{% for m in messages %}{{ m.role }}:{% if m.role == 'assistant' %}{{ a(m) }}{% else %}{{ m.content }}{% endif %};{% endfor %}" >"$T/macro_gen.jinja"
printf '%s\n' '{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":"a"}]}' |
  cal-read --chat "$T/macro_gen.jinja" --assistant-mask - 2>"$T/err" >/dev/null
eq "--assistant-mask counts a generation block run in a macro on stderr" \
  "$(grep -c '1 turns of the assistant left out of the mask.*generation' "$T/err")" 1
# --retry-without-system renders again only when a system turn was left
# out; the message of a refusal says which render gave it
printf '%s' "{{ raise_exception('no ' ~ messages|length) }}" >"$T/refuse.jinja"
printf '%s\n' '{"messages":[{"role":"user","content":"q"}]}' >"$T/nosys.jsonl"
printf '%s\n' '{"messages":[{"role":"system","content":"s"},{"role":"user","content":"q"}]}' >"$T/sys.jsonl"
eq "--retry-without-system: no system turn, no second render" \
  "$(cal-read --chat "$T/refuse.jinja" --retry-without-system "$T/nosys.jsonl" 2>&1 >/dev/null | grep -c 'no 1$')" 1
eq "--retry-without-system: a system turn left out, the retry's message says so" \
  "$(cal-read --chat "$T/refuse.jinja" --retry-without-system "$T/sys.jsonl" 2>&1 >/dev/null | grep -c 'no 1 (at the retry without its system turns)$')" 1
