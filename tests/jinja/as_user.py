"""as_user.py RECORDS - writes the records of tests/sh/test_read_as_user.sh:
plain texts ({"text": ...}: cases.TEXTS and more) followed by nothing else
(TEXTS.jsonl), and conversations ({"messages": ...}, every role order of
cases.conversations() without tools) into RECORDS.chats.

as_user.py autoround RECORDS MODEL AGP SYSTEM|- OUT - the reference of
cal-read --chat MODEL --as-user [--system SYSTEM] --retry-without-system:
auto-round's apply_chat_template_to_samples (intel/auto-round, commit
b9f3d0079d014c73a1ff009800c597b9bc3f2a36, auto_round/calib_dataset.py,
read there and written anew): for each text, messages = [system turn when
the system prompt is neither None nor ""] + [{"role": "user", "content":
text}], rendered by apply_chat_template(messages, tokenize=False,
add_generation_prompt=AGP) (auto-round passes True); on any exception, the
messages without those of role system, rendered again. A second failure
is an error record. "-" is system_prompt=None.

as_user.py ultrachat RECORDS MODEL OUT - the reference of cal-read --chat
MODEL --system '' on conversations: llm-compressor's ultrachat
preprocessing (vllm-project/llm-compressor, commit
ab1ba3effcafc15746cd6d6ca24cba3f7bd7a582,
src/llmcompressor/transformers/data/ultrachat_200k.py,
UltraChatDataset.dataset_template): an empty system turn inserted when
messages[0] is not a system turn, then apply_chat_template(messages,
tokenize=False, add_generation_prompt=False).

Both render in python3-jinja2 set up as transformers does (hfenv.py), with
the model's template and special tokens as chat_read.py loads them
(a .jinja file: its text, no special tokens), strftime_now at 2024-07-26.
OUT: one JSON object a line, {"want": TEXT, "retried": 0|1} or {"error": MSG}."""
import datetime
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402
import chat_read  # noqa: E402
import hfenv  # noqa: E402

MORE = ["A plain calibration sentence.", "Two\n\nparagraphs here.", "x" * 300, "日本語だけ", "tab\tand trailing  "]


def write_records(path):
    with open(path, "w", encoding="utf-8") as f:
        for t in cases.TEXTS + MORE:
            if t:
                f.write(json.dumps({"text": t}, ensure_ascii=False) + "\n")
    with open(path + ".chats", "w", encoding="utf-8") as f:
        for c in cases.conversations():
            if c["tools"] is None and all(isinstance(m.get("content"), str) for m in c["messages"]):
                f.write(json.dumps({"messages": c["messages"]}, ensure_ascii=False) + "\n")


def load(model):
    if model.endswith(".jinja"):
        return open(model, encoding="utf-8", newline="").read(), {}
    return chat_read.model_template(model)


def main():
    mode = sys.argv[1]
    if mode not in ("autoround", "ultrachat"):
        write_records(mode)
        return
    env = hfenv.environment(now=datetime.datetime(2024, 7, 26))
    if mode == "autoround":
        recs, model, agp, system, out = sys.argv[2:7]
    else:
        recs, model, out = sys.argv[2:5]
        agp, system = "0", None
    tpl, toks = load(model)
    if isinstance(tpl, dict):
        tpl = tpl["default"]
    t = env.from_string(tpl)

    def apply(messages):
        return t.render(messages=messages, tools=None, documents=None, add_generation_prompt=agp == "1", **toks)

    with open(out, "w", encoding="utf-8") as f:
        for line in open(recs, encoding="utf-8"):
            r = json.loads(line)
            res = {}
            if mode == "autoround":
                message = []
                if system != "-" and system != "":
                    message.append({"role": "system", "content": system})
                message.append({"role": "user", "content": r["text"]})
                try:
                    res = {"want": apply(message), "retried": 0}
                except Exception:  # noqa: BLE001 - auto-round's bare except
                    try:
                        res = {"want": apply([m for m in message if m["role"] != "system"]), "retried": 1}
                    except Exception as e:  # noqa: BLE001
                        res = {"error": str(e)}
            else:
                messages = r["messages"]
                if messages[0]["role"] != "system":
                    messages.insert(0, {"role": "system", "content": ""})
                try:
                    res = {"want": apply(messages)}
                except Exception as e:  # noqa: BLE001
                    res = {"error": str(e)}
            f.write(json.dumps(res, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
