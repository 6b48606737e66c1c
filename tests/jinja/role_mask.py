"""role_mask.py RECORDS MODEL_DIR OUT - the reference of cal-read --chat
MODEL_DIR --assistant-mask | cal-encode | cal-pack --mode doc --pad none:
for each conversation record, the rendered text (python3-jinja2 set up as
transformers does, hfenv.py) and the character spans of the assistant's
output:

- a template with {% generation %} blocks: the spans transformers'
  AssistantTracker records (utils/chat_template_utils.py: the template run
  with generate(), each block's output at the length of what was generated
  before it), as return_assistant_tokens_mask uses them;
- otherwise each assistant turn k: from the end of messages[:k] rendered with
  add_generation_prompt=True to the end of messages[:k+1] rendered without,
  both prefixes of the whole; when only the first is, to the end of the
  turn's content found in the whole followed by the end-of-turn text that
  follows it in messages[:k+1]'s rendering (calkit's rule, cal-read(1)).

OUT gets one JSON object a line: {"text": TEXT, "spans": [[s, e], ...]} (in
characters), or {"error": MSG} for a record the template refuses.
role_mask.py labels OUT TOKENS.json WANT.jsonl - from the texts and the Rust
HF tokenizers' ids and character offsets of each (TOKENS.json: a list of
{"ids", "offsets"}), the rows calkit should export: input_ids, and
loss_mask 1 for every token holding a character of a span (char_to_token),
labels the id there and -100 elsewhere."""
import datetime
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chat_read  # noqa: E402
import hfenv  # noqa: E402
from jinja2 import nodes  # noqa: E402
from jinja2.ext import Extension  # noqa: E402


class Tracker(Extension):
    """transformers' AssistantTracker, written anew: the spans of the output
    of {% generation %} blocks in the whole output."""
    tags = {"generation"}

    def __init__(self, environment):
        super().__init__(environment)
        self.blocks, self.spans = None, None

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return nodes.CallBlock(self.call_method("_support"), [], [], body).set_lineno(lineno)

    def _support(self, caller):
        rv = caller()
        if self.blocks is not None:
            start = len("".join(self.blocks))
            self.spans.append((start, start + len(rv)))
        return rv


def environment():
    env = hfenv.environment(now=datetime.datetime(2024, 7, 26))
    env.add_extension(Tracker)
    return env


def turn_end(msg, alone, full, start):
    c = msg.get("content")
    if not isinstance(c, str) or not c or c not in alone:
        return 0
    at = alone.rindex(c)
    tail = alone[at + len(c):]
    i = full.find(c, start)
    if i < 0 or full[i + len(c):i + len(c) + len(tail)] != tail:
        return 0
    return i + len(c) + len(tail)


def main():
    if sys.argv[1] == "labels":
        out, toks, want = sys.argv[2:5]
        with open(want, "w") as w:
            refs = [r for r in map(json.loads, open(out, encoding="utf-8")) if r.get("text")]  # as hf_offsets.js
            for r, t in zip(refs, json.load(open(toks))):
                mask = [int(any(a < e and b > s for s, e in r["spans"])) for a, b in t["offsets"]]
                w.write(json.dumps({"input_ids": t["ids"], "loss_mask": mask,
                                    "labels": [i if m else -100 for i, m in zip(t["ids"], mask)]}) + "\n")
        return
    recs, model, out = sys.argv[1:4]
    env = environment()
    tr = next(e for e in env.extensions.values() if isinstance(e, Tracker))
    tpl, toks = chat_read.model_template(model)
    t = env.from_string(tpl)
    gen = "endgeneration" in tpl

    def render(m, agp):
        return t.render(messages=m, tools=None, documents=None, add_generation_prompt=agp, **toks)

    with open(out, "w", encoding="utf-8") as f:
        for line in open(recs, encoding="utf-8"):
            m = json.loads(line)["messages"]
            try:
                if gen:
                    tr.blocks, tr.spans = [], []
                    for b in t.generate(messages=m, tools=None, documents=None, add_generation_prompt=False, **toks):
                        tr.blocks.append(b)
                    full, spans = "".join(tr.blocks), [s for s in tr.spans if s[1] > s[0]]
                    tr.blocks = None
                else:
                    full, spans, last = render(m, False), [], 0
                    for k, msg in enumerate(m):
                        if msg["role"] != "assistant":
                            continue
                        try:
                            a, b = render(m[:k], True), render(m[:k + 1], False)
                        except Exception:  # noqa: BLE001 - a shorter conversation the template refuses
                            continue
                        end = 0
                        if len(b) > len(a) >= last and full.startswith(b) and b.startswith(a):
                            end = len(b)
                        elif len(a) >= last and full.startswith(a):
                            end = turn_end(msg, b, full, len(a))
                        if end > len(a):
                            spans.append((len(a), end))
                            last = end
                f.write(json.dumps({"text": full, "spans": spans}, ensure_ascii=False) + "\n")
            except Exception as e:  # noqa: BLE001
                tr.blocks = None
                f.write(json.dumps({"error": str(e)}) + "\n")


if __name__ == "__main__":
    main()
