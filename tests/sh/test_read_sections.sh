#!/bin/sh
# test_read_sections.sh - conditional sections of --field templates
# ({?FIELD:text} when the field is there and not empty, {!FIELD:text} when
# not): one template against llm-compressor's open_platypus preprocessing
# (vllm-project/llm-compressor, commit ab1ba3effcafc15746cd6d6ca24cba3f7bd7a582,
# src/llmcompressor/transformers/data/open_platypus.py,
# OpenPlatypusDataset.dataset_template, written anew: the prompt with an input
# when "input" is in the sample and not "", else the prompt without; then the
# output when "output" is in the sample) over records with every combination
# of input missing/empty/given and output missing/empty/given; nesting, the
# negative form, and malformed sections.
. tests/lib.sh
D() { cal-cat --json "$@" | $PY tests/read/texts.py; }
$PY - "$T" <<'PYEOF'
import itertools, json, sys
t = sys.argv[1]
WORDS = ["plain", "naïve café {x}", "line\nbreak", "日本語", "<|im_start|>", " ", "0", "false"]
recs = []
for k, (inp, out) in enumerate(itertools.product(["missing", "empty", "given"], repeat=2)):
    for w in WORDS:
        r = {"instruction": "task %d: %s" % (k, w)}
        if inp != "missing": r["input"] = "" if inp == "empty" else "in " + w
        if out != "missing": r["output"] = "" if out == "empty" else "out " + w
        recs.append(r)
with open(t + "/p.jsonl", "w") as f:
    for r in recs: f.write(json.dumps(r, ensure_ascii=False) + "\n")
T = {"prompt_input": "Below is an instruction that describes a task, paired with an input that provides further context. Write a response that appropriately completes the request.\n\n### Instruction:\n{instruction}\n\n### Input:\n{input}\n\n### Response:\n",
     "prompt_no_input": "Below is an instruction that describes a task. Write a response that appropriately completes the request.\n\n### Instruction:\n{instruction}\n\n### Response:\n"}
with open(t + "/p.want", "w") as f:
    for sample in recs:
        if "input" in sample and sample["input"] != "":
            prompt = T["prompt_input"].format(instruction=sample["instruction"], input=sample["input"])
        else:
            prompt = T["prompt_no_input"].format(instruction=sample["instruction"])
        text = prompt
        if "output" in sample:
            text += sample["output"]
        f.write(json.dumps(text, ensure_ascii=False) + "\n")
PYEOF
tpl='Below is an instruction that describes a task{?input:, paired with an input that provides further context}. Write a response that appropriately completes the request.\n\n### Instruction:\n{instruction}\n\n{?input:### Input:\n{input}\n\n}### Response:\n{?output:{output}}'
cal-read --field "$tpl" "$T/p.jsonl" | D >"$T/got"
same "one template with sections = open_platypus's two Alpaca templates, for every input/output shape" "$T/got" "$T/p.want"
eq "{!FIELD:...}, nesting, a null and a number" \
  "$(printf '%s\n' '{"a":"x","b":null,"n":0}' '{"b":"y"}' | cal-read --field '{!a:no a;}{?a:a={a}{?b:, b={b}};}{?n:n={n}}' - | D | tr '\n' ' ')" \
  '"a=x;n=0" "no a;" '
for bad in '{?a}' '{?:x}' '{?a:x' '{!a:{b}'; do
  expect_fail "malformed section $bad: usage error" 2 "^cal-read: --field: " cal-read --field "$bad" "$T/p.jsonl"
done
