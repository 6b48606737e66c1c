"""chat_read.py RECORDS - writes the conversation records of
tests/sh/test_read_chat.sh as JSON Lines (one record a line, as datasets hold
them): the generated conversations of cases.py (every role order, tools,
empty contents, unicode, special-token lookalikes in user text, tool_calls,
reasoning_content, lists of parts) as OpenAI {"messages", "tools"} records
(tools left out, null or a list), some as ShareGPT {"conversations":
[{from, value}]}, records whose tool-call arguments hold integers and
floats that Python prints differently (1 and 1.0), and records only
Python's json.loads reads (jansson refuses them): integers past 64 bits,
NaN, Infinity, 1e400, a NUL in a key.

chat_read.py RECORDS MODEL_DIR AGP OUT [KWARGS] - the reference: each record rendered
as transformers' tokenizer.apply_chat_template(messages, tools=tools,
add_generation_prompt=AGP, tokenize=False) renders it with the model's
tokenizer_config.json (chat_template.jinja and additional_chat_templates/
beside it win; named templates: $CHAT_TEMPLATE_NAME when set, else
"tool_use" when tools are given, else "default"), in
python3-jinja2 set up as transformers does (hfenv.py), strftime_now at
2024-07-26 00:00; KWARGS (a JSON object) are apply_chat_template's
template keyword arguments (enable_thinking=False). OUT gets one JSON object a line: {"want": TEXT} or
{"error": MESSAGE} ("raise": the raise_exception message, escaped as C
prints it)."""
import datetime
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402
import hfenv  # noqa: E402

SHAREGPT = {"user": "human", "assistant": "gpt", "system": "system"}


def records():
    for k, c in enumerate(cases.conversations()):
        msgs = c["messages"]
        plain = all(m["role"] in SHAREGPT and isinstance(m["content"], str) and len(m) == 2 for m in msgs)
        if plain and k % 3 == 0:
            yield {"conversations": [{"from": SHAREGPT[m["role"]], "value": m["content"]} for m in msgs]}
            continue
        r = {"messages": msgs}
        if c["tools"] is not None:
            r["tools"] = c["tools"]
        elif k % 2:
            r["tools"] = None
        yield r
    args = {"a": 1, "b": 1.0, "c": 2.5e-7, "d": 1e100, "e": -0.0, "f": 12345678901234, "g": [1, 2.0, True, None]}
    for k in range(4):
        call = {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": args}}
        msgs = [{"role": "user", "content": "numbers %d" % k},
                {"role": "assistant", "content": "", "tool_calls": [call]},
                {"role": "tool", "content": json.dumps(args)},
                {"role": "assistant", "content": "done"}]
        yield {"messages": msgs, "tools": cases.TOOLS if k % 2 else None}
    docs = [{"title": "Doc %d" % i, "text": "Facts %d: 1.0 and 1, ünïcode" % i} for i in range(3)]
    for k in range(3):  # RAG records: documents reach the template
        yield {"messages": [{"role": "user", "content": "What do the documents say? %d" % k}],
               "documents": docs[:k + 1] if k < 2 else None}
    # What json.loads reads and jansson refuses (json.dumps writes NaN and
    # Infinity as such; RAW below adds 1e400 and -0 as text).
    odd = {"order_id": 12345678901234567890, "neg": -(2 ** 70), "nan": float("nan"), "inf": float("inf"),
           "ninf": float("-inf"), "key\x00nul": "v", "small": 7}
    for k in range(2):
        call = {"id": "c2", "type": "function", "function": {"name": "lookup_order", "arguments": odd}}
        msgs = [{"role": "user", "content": "order %d" % odd["order_id"]},
                {"role": "assistant", "content": "", "tool_calls": [call]},
                {"role": "tool", "content": "status of %d: shipped" % odd["order_id"]},
                {"role": "assistant", "content": "done"}]
        yield {"messages": msgs, "tools": cases.TOOLS if k else None}


# Records as text: numbers json.dumps cannot write.
RAW = ['{"messages": [{"role": "user", "content": "big"}, {"role": "assistant", "content": "", "tool_calls": '
       '[{"id": "c3", "type": "function", "function": {"name": "f", "arguments": {"x": 1e400, "y": -1e400, '
       '"z": -0, "w": 123456789012345678901234567890123456789, "v": -1.5E+300}}}]}]}']


def special_tokens(cfg):
    return cases.special_tokens(cfg)


def model_template(model_dir):
    """As transformers' from_pretrained (tokenization_utils_base.py: the
    local additional_chat_templates/*.jinja become chat_template_NAME files,
    read after chat_template.jinja into one dict): a lone "default" is the
    template, several are a dict; without files, the config's chat_template
    (a list of {name, template} becomes a dict)."""
    cfg = json.load(open(os.path.join(model_dir, "tokenizer_config.json"), encoding="utf-8"))
    read = lambda p: open(p, encoding="utf-8", newline="").read()
    files = {}
    jinja = os.path.join(model_dir, "chat_template.jinja")
    if os.path.exists(jinja):
        files["default"] = read(jinja)
    extra = os.path.join(model_dir, "additional_chat_templates")
    if os.path.isdir(extra):
        for f in sorted(os.listdir(extra)):
            if f.endswith(".jinja") and os.path.isfile(os.path.join(extra, f)):  # default.jinja replaces the root's
                files[f[:-len(".jinja")]] = read(os.path.join(extra, f))
    if len(files) == 1 and "default" in files:
        t = files["default"]
    elif files:
        t = files
    else:
        t = cfg.get("chat_template")
    if isinstance(t, list):
        t = {e["name"]: e["template"] for e in t}
    return t, special_tokens(cfg)


_compiled = {}


def render(env, tpl, rec, agp, toks):
    """apply_chat_template(..., tokenize=False) for one record."""
    if "conversations" in rec:
        role = {"human": "user", "gpt": "assistant"}
        msgs = [{"role": role.get(m["from"], m["from"]), "content": m["value"]} for m in rec["conversations"]]
    else:
        msgs = rec["messages"]
    tools = rec.get("tools")
    if isinstance(tpl, dict):  # get_chat_template: the name asked for, else tool_use with tools, else default
        name = os.environ.get("CHAT_TEMPLATE_NAME")
        tpl = tpl[name] if name else tpl["tool_use"] if tools is not None and "tool_use" in tpl else tpl["default"]
    try:
        if tpl not in _compiled:
            _compiled[tpl] = env.from_string(tpl)
        kw = dict(toks)
        docs = rec.get("documents", kw.pop("documents", None))  # the record's, else --chat-var's
        return {"want": _compiled[tpl].render(messages=msgs, tools=tools, documents=docs,
                                                    add_generation_prompt=agp, **kw)}
    except Exception as e:  # noqa: BLE001 - any failure must fail in C too
        r = {"error": "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")}
        if type(e).__name__ == "TemplateError":
            r["raise"] = cases.escaped(str(e))
        return r


def main():
    if len(sys.argv) == 2:
        with open(sys.argv[1], "w", encoding="utf-8") as out:
            for r in records():
                out.write(json.dumps(r, ensure_ascii=False) + "\n")
            for line in RAW:
                out.write(line + "\n")
        return
    recs_path, model_dir, agp, out_path = sys.argv[1:5]
    env = hfenv.environment(now=datetime.datetime(2024, 7, 26))
    tpl, toks = model_template(model_dir)
    if len(sys.argv) > 5:  # {**special_tokens_map, **kwargs}, as transformers merges them
        toks = {**toks, **json.loads(sys.argv[5])}
    with open(out_path, "w", encoding="utf-8") as out:
        for line in open(recs_path, encoding="utf-8"):
            r = render(env, tpl, json.loads(line), agp == "1", toks)
            out.write(json.dumps(r, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
