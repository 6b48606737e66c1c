#!/bin/sh
# test_read_as_user.sh - cal-read --chat MODEL --as-user [--system TEXT]
# [--add-generation-prompt] [--retry-without-system] against auto-round's
# apply_chat_template_to_samples, and --chat MODEL --system '' on
# conversations against llm-compressor's ultrachat preprocessing, both
# written anew from the peers' code at a named commit (tests/jinja/as_user.py)
# and rendered by python3-jinja2 set up as transformers does: every fetched
# model with a chat template and two real templates that refuse a system turn
# or a role order; byte for byte, with the retries and refusals counted.
# Then what --chat does with records that are not conversations, and the
# notice for chat records read without --chat (issue #25).
. tests/lib.sh
if ! $PY -c 'import jinja2' 2>/dev/null; then
  skip "read as user" "python3-jinja2 is not installed (apt-get install python3-jinja2)"
  exit 0
fi
toks=build/tokenizers
$PY tests/jinja/as_user.py "$T/recs.jsonl"

# compare STREAM WANT: the TEXT payloads of STREAM (each a chat record) are
# the non-empty "want" texts of WANT; prints "RETRIED ERRORS" of WANT.
compare() {
  PYTHONPATH=examples $PY - "$1" "$2" <<'PYEOF'
import json, sys
import calstream
_, recs = calstream.read(sys.argv[1])
ref = [json.loads(l) for l in open(sys.argv[2], encoding="utf-8")]
want = [r["want"] for r in ref if r.get("want")]
got = [r["payload"].decode("utf-8") for r in recs]
if any(r["raw"][1] != 1 for r in recs):
    sys.exit("records without the chat flag")
if got != want:
    bad = next((i for i, (g, w) in enumerate(zip(got, want)) if g != w), min(len(got), len(want)))
    sys.exit("%d records, want %d; record %d: got %r want %r" % (len(got), len(want), bad,
             got[bad][:120] if bad < len(got) else None, want[bad][:120] if bad < len(want) else None))
print(sum(r.get("retried", 0) for r in ref), sum("error" in r for r in ref))
PYEOF
}

models=""
for cfg in "$toks"/*/tokenizer_config.json; do
  grep -q '"chat_template"' "$cfg" && models="$models $(dirname "$cfg")"
done
models="$models tests/jinja/templates/gemma-2-2b-it.jinja tests/jinja/templates/mistral-7b-instruct-v0.3.jinja"
n=0
for m in $models; do
  name=$(basename "$m")
  for sys in - "You are a helpful assistant."; do
    for agp in 1 0; do
      opt=; [ "$agp" = 1 ] && opt=--add-generation-prompt
      if [ "$sys" = - ]; then set -- $opt; else set -- $opt --system "$sys"; fi
      $PY tests/jinja/as_user.py autoround "$T/recs.jsonl" "$m" "$agp" "$sys" "$T/want" || { not_ok "$name: reference"; continue; }
      if ! cal-read --chat "$m" --as-user --retry-without-system --skip-bad --date 2024-07-26 "$@" "$T/recs.jsonl" \
          >"$T/got.cal" 2>"$T/err"; then
        not_ok "$name --as-user $*" "$(head -3 "$T/err")"; continue
      fi
      if r=$(compare "$T/got.cal" "$T/want" 2>&1); then
        retried=${r% *} errors=${r#* }
        if { [ "$retried" = 0 ] || grep -q "$retried conversations rendered without their system turns" "$T/err"; } &&
           { [ "$errors" = 0 ] || grep -q "$errors records refused by the chat template" "$T/err"; }; then
          ok "$name --as-user $*: auto-round's apply_chat_template_to_samples ($retried retried, $errors refused)"
          n=$((n + 1))
        else
          not_ok "$name --as-user $*: retries ($retried) and refusals ($errors) counted" "$(cat "$T/err")"
        fi
      else
        not_ok "$name --as-user $*" "$r"
      fi
    done
  done
  $PY tests/jinja/as_user.py ultrachat "$T/recs.jsonl.chats" "$m" "$T/want" || { not_ok "$name: ultrachat reference"; continue; }
  if cal-read --chat "$m" --system '' --skip-bad --date 2024-07-26 "$T/recs.jsonl.chats" >"$T/got.cal" 2>"$T/err" &&
     r=$(compare "$T/got.cal" "$T/want" 2>&1); then
    errors=${r#* }
    if [ "$errors" = 0 ] || grep -q "$errors records refused by the chat template" "$T/err"; then
      ok "$name --system '': llm-compressor's ultrachat preprocessing ($errors refused)"
    else
      not_ok "$name --system '': refusals counted" "$(cat "$T/err")"
    fi
  else
    not_ok "$name --system ''" "$r" "$(head -2 "$T/err")"
  fi
done
[ "$n" -ge 24 ] && ok "$n model/option pairs compared" || not_ok "too few models compared ($n)"

# without --retry-without-system a refusal of the system turn is a refusal
g2=tests/jinja/templates/gemma-2-2b-it.jinja
expect_fail "without --retry-without-system: the template's refusal, naming the file and byte" 1 \
  "^cal-read: .*recs.jsonl: byte 0: --as-user: the chat template refused the text: .*System role not supported" \
  cal-read --chat $g2 --as-user --system S "$T/recs.jsonl"
expect_fail "--as-user goes with --chat" 2 "go with --chat" cal-read --as-user "$T/recs.jsonl"
expect_fail "a template --field goes with --chat only with --as-user" 2 "nor a template --field without --as-user" \
  cal-read --chat qwen3 --field '{text}' "$T/recs.jsonl"
eq "--as-user with a template of fields" \
  "$(echo '{"q": "2+2?", "c": "math"}' | cal-read --chat qwen3 --as-user --field '{c}: {q}' - | cal-cat --text)" \
  "$(printf '<|im_start|>user\nmath: 2+2?<|im_end|>')"

# --chat and records that are not conversations (issue #25)
printf '{"messages": [{"role": "user", "content": "hi"}]}\n{"text": "plain", "messages": [{"role": "user", "content": "x"}]}\n{"text": "only text"}\n' >"$T/mix.jsonl"
expect_fail "--chat: a record with both text and messages is an error naming the line" 1 \
  "^cal-read: .*mix.jsonl: line 2: --chat: the record has both 'text' and 'messages'" cal-read --chat qwen3 "$T/mix.jsonl"
sed -n 3p "$T/mix.jsonl" >"$T/text.jsonl"
expect_fail "--chat: a record without a conversation is an error naming the line" 1 \
  "text.jsonl: line 1: --chat: the record holds no conversation" cal-read --chat qwen3 "$T/text.jsonl"
printf 'just text\n' >"$T/t.txt"
expect_fail "--chat: a text file is an error" 1 "t.txt: byte 0: --chat: a text document, not a conversation record" \
  cal-read --chat qwen3 "$T/t.txt"
cal-read --chat qwen3 --skip-bad "$T/mix.jsonl" >"$T/o.cal" 2>"$T/err"
eq "--skip-bad: skipped, counted without -v, the first one named" \
  "$(cal-cat --check "$T/o.cal" >/dev/null && cal-cat --text "$T/o.cal" | head -1 | tr -d '\n'; grep -c . "$T/err"; grep -o '2 records skipped by --skip-bad: not conversations (--chat)' "$T/err"; grep -o 'the first record skipped as no conversation: .*mix.jsonl: line 2' "$T/err")" \
  "<|im_start|>user2
2 records skipped by --skip-bad: not conversations (--chat)
the first record skipped as no conversation: $T/mix.jsonl: line 2"
head -2 "$T/mix.jsonl" >"$T/two.jsonl"
cal-read --chat $g2 --system S --skip-bad --field messages "$T/two.jsonl" >/dev/null 2>"$T/err"
eq "refused records are counted without -v, with the template's message for the first" \
  "$(grep -c 'cal-read: 2 records refused by the chat template' "$T/err") $(grep -c 'the first refused record: .*two.jsonl: line 1: .*System role not supported' "$T/err")" "1 1"
cal-read "$T/mix.jsonl" >/dev/null 2>"$T/err"
eq "chat records read without --chat: one line saying how they were laid out and how to render them" \
  "$(cat "$T/err")" 'cal-read: 1 chat records laid out as plain "User: ... Assistant: ..." text; to render them as the model reads them: --chat MODEL (its chat template)'
eq "no notice with an explicit --template" "$(cal-read --template chatml "$T/mix.jsonl" 2>&1 >/dev/null)" ""
