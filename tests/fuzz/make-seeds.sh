#!/bin/sh
# make-seeds.sh DIR - write the seed corpora of the fuzz targets:
#   DIR/stream   small cal-streams of every record kind (examples/calstream.py json)
#   DIR/rowfile  small .safetensors and .npy files (numpy)
#   DIR/gguf     small GGUF imatrix files (tests/py/gguf_spec.py)
#   DIR/jinja    the chat templates of tests/jinja/templates and a few small ones
#   DIR/tokjson  small tokenizer.json files: byte-level BPE, Oniguruma patterns,
#                many added tokens, Unigram + Precompiled, WordPiece + BERT
#   DIR/jsonscan JSON Lines records: big integers, deep nesting, NUL in keys
#   (stream also: trailers, CONTINUES headers, drop/input/partial/shard lines)
# Seeds are generated, never committed. Idempotent.
set -eu
cd "$(dirname "$0")/../.."
D=${1:-build/fuzz/corpus}
PY=/usr/bin/python3
mkdir -p "$D/stream" "$D/rowfile"
H='{"header": [["tokenizer","t.json"],["tokenizer_fp","00000000000000aa"],["vocab","100"],["stage","seed"]]}'
seed() { printf '%s\n' "$H" "$@" | $PY examples/calstream.py json; }
seed '{"kind":"TEXT","label":"wiki","id":1,"text":"Hello w\u00f6rld"}' >"$D/stream/text"
seed '{"kind":"TOKENS","label":"code","id":2,"ids":[1,2,3,4000000000]}' >"$D/stream/tokens"
seed '{"kind":"ROW","label":"wiki","id":3,"ids":[5,6,7,0],"mask":[1,1,1,0]}' \
     '{"kind":"ROW","label":"noise","id":4,"ids":[0,0],"noise":true}' >"$D/stream/rows"
seed '{"kind":"VECTORS","label":"l0","id":5,"n":2,"d":2,"dtype":"f32","values":[1,2,3,4]}' \
     '{"kind":"VECTORS","label":"l1","id":6,"n":1,"d":2,"dtype":"f16","values":[1,2]}' \
     '{"kind":"VECTORS","label":"l2","id":7,"n":1,"d":1,"dtype":"bf16","values":[1]}' >"$D/stream/vectors"
cat "$D/stream/text" "$D/stream/rows" >"$D/stream/concat"
seed >"$D/stream/empty"
$PY - "$D/rowfile" <<'PYEOF'
import io, json, struct, sys
import numpy as np
d = sys.argv[1]
ids = np.array([[1, 2, 3], [-1, -1, -1]], dtype="<i8")
mask = np.array([[1, 1, 0], [1, 1, 1]], dtype="<i8")
h = json.dumps({"__metadata__": {"format": "pt"},
                "input_ids": {"dtype": "I64", "shape": [2, 3], "data_offsets": [0, 48]},
                "attention_mask": {"dtype": "I64", "shape": [2, 3], "data_offsets": [48, 96]}},
               separators=(",", ":")).encode()
h += b" " * (-len(h) % 8)
open(d + "/st", "wb").write(struct.pack("<Q", len(h)) + h + ids.tobytes() + mask.tobytes())
for name, a in (("npy64", ids), ("npy32", np.arange(5, dtype="<i4"))):
    b = io.BytesIO(); np.save(b, a); open(d + "/" + name, "wb").write(b.getvalue())
PYEOF

# GGUF: llama-imatrix's layout, dense and per-expert (tests/py/gguf_spec.py).
mkdir -p "$D/gguf"
PYTHONPATH=tests/py $PY - "$D/gguf" <<'PYEOF'
import sys
import numpy as np
import gguf_spec as G
d = sys.argv[1]
e = {"blk.0.attn_q.weight": (np.ones((1, 8)), np.ones((1, 8)), [3]),
     "blk.0.ffn_up_exps.weight": (np.arange(8.0).reshape(2, 4), np.ones((2, 4)), [1, 2])}
G.llama_imatrix(d + "/imatrix", e, ["a.txt"], 2, 4)
G.llama_imatrix(d + "/old", {"w": (np.ones((1, 4)), None, [1])}, [], 1, 1, with_in_sum=False)
PYEOF

# tokenizer.json: small hand-made files covering byte-level BPE and the
# SentencePiece-style pipeline (the real 2-33 MB files are too large to mutate).
mkdir -p "$D/tokjson"
cat >"$D/tokjson/bytelevel.json" <<'JSON'
{"added_tokens":[{"id":5,"content":"<s>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true}],
 "normalizer":{"type":"NFC"},
 "pre_tokenizer":{"type":"Sequence","pretokenizers":[{"type":"Split","pattern":{"Regex":"\\p{N}{1,3}| ?\\p{L}+|\\s+"},"behavior":"Isolated","invert":false},{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":false}]},
 "post_processor":{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<s>","type_id":0}},{"Sequence":{"id":"A","type_id":0}}],"pair":[],"special_tokens":{"<s>":{"id":"<s>","ids":[5],"tokens":["<s>"]}}},
 "decoder":{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":false},
 "model":{"type":"BPE","dropout":null,"unk_token":null,"fuse_unk":false,"byte_fallback":false,"ignore_merges":true,
  "vocab":{"H":0,"e":1,"l":2,"o":3,"He":4,"<s>":5,"ll":6,"Hell":7},"merges":[["H","e"],["l","l"],["He","ll"]]}}
JSON
cat >"$D/tokjson/metaspace.json" <<'JSON'
{"added_tokens":[{"id":0,"content":"<unk>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true}],
 "normalizer":{"type":"Sequence","normalizers":[{"type":"Prepend","prepend":"\u2581"},{"type":"Replace","pattern":{"String":" "},"content":"\u2581"}]},
 "pre_tokenizer":null,
 "decoder":{"type":"Sequence","decoders":[{"type":"Replace","pattern":{"String":"\u2581"},"content":" "},{"type":"ByteFallback"},{"type":"Fuse"},{"type":"Strip","content":" ","start":1,"stop":0}]},
 "model":{"type":"BPE","dropout":null,"unk_token":"<unk>","fuse_unk":true,"byte_fallback":true,
  "vocab":{"<unk>":0,"<0x41>":1,"\u2581":2,"a":3,"b":4,"\u2581a":5},"merges":["\u2581 a"]}}
JSON

# Jinja: real chat templates and a few that reach the limits.
mkdir -p "$D/jinja"
cp tests/jinja/templates/*.jinja "$D/jinja/"
printf '%s' '{% for m in messages %}{{ m.role|upper }}: {{ m.content|tojson }}{% endfor %}' >"$D/jinja/small"
printf '%s' '{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}' >"$D/jinja/recursion"
printf '%s' '{% set ns = namespace(s="ab") %}{% for i in range(99) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}' >"$D/jinja/growth"

# Round 3's classes (#29), one small seed each, so that mutation starts next
# to them: integers past 2^64, % formatting with flags, width and precision,
# |format, jinja2's filters and tests, a loop that meets the step budget.
j() { printf '%s' "$2" >"$D/jinja/$1"; }
j bigint '{{ 2**64 + 1 }} {{ 18446744073709551616 * 3 // 7 }} {{ -2**100 % 97 }} {{ (2**70)|string|length }} {{ 10**30 / 3 }} {{ "123456789012345678901234567890"|int + 1 }} {{ (2**65)|abs }} {{ -9223372036854775809 < 0 }} {{ [2**64, 1]|max }} {{ 2**64 is divisibleby 2 }}'
j percent '{{ "%5d|%-5s|%05.2f|%+x|%#o|%e|%r|%%|%c|%.3s|%*d" % (42, "ab", 3.14159, 255, 8, 1e300, "q", 65, "abcdef", 4, 7) }}{{ "%(a)s %(b)08.3f %(a)r" % {"a": 1, "b": 2.5} }}{{ "%d" % 2**70 }}{{ "%x %o" % (-2**65, 2**66) }}'
j format '{{ "%s-%d %5.1f"|format("x", 2**65, 0.25) }}{{ "{} {:>8} {:08.3f}".format(1, "ab", 3.5) }}{{ "%s"|format(none) }}{{ "%(k)s"|format(k=1) }}'
j filters '{% for g in messages|groupby("role") %}{{ g.grouper }}={{ g.list|length }};{% endfor %}{{ "<b>a</b>  b<!-- c -->&amp;"|striptags }}{{ "a long line of words to wrap here"|wordwrap(7, true, "|") }}{{ (messages[0]|items|list)[1:] }}{{ {"b": 1, "a": 2}|dictsort(reverse=true) }}{{ [3, 1, 2]|sort|reverse|join(",") }}{{ "x"|center(9) }}{{ "abc def"|title|truncate(5, true, "..", 0) }}{{ messages|map(attribute="role")|unique|list }}{{ messages|selectattr("content", "string")|rejectattr("role", "eq", "user")|list|count }}{{ range(10)|batch(3, 0)|list }}{{ range(7)|slice(3)|list }}{{ "a&b <c>"|urlencode }} {{ "see http://x.org now"|urlize }}{{ {"a": "b c"}|xmlattr }}{{ 1234567|filesizeformat(true) }}{{ 2.5|round(0, "floor") }}{{ [1, 2]|sum(start=10) }}{{ "a\nb"|indent(2, true) }}{{ messages|tojson(indent=2) }}{{ "abc"|wordcount }}'
j tests '{% for v in [1, 2.5, "s", none, true, [1], {"a": 1}, range(2), 2**64, undefined_name] %}{{ v is defined }}{{ v is number }}{{ v is integer }}{{ v is float }}{{ v is string }}{{ v is sequence }}{{ v is mapping }}{{ v is iterable }}{{ v is callable }}{{ v is none }}{{ v is boolean }}{{ v is true }}{{ v is false }}{{ (v is odd) if v is integer }}{{ (v is lower) if v is string }}{{ v is sameas none }}{{ v is in [1, "s"] }}{{ v is eq 1 }}{% endfor %}{{ "upper" is filter }}{{ "odd" is test }}'
j budget '{% set ns = namespace(n=0) %}{% for i in range(1000) %}{% for k in range(1000) %}{% set ns.n = ns.n + i * k %}{% endfor %}{% endfor %}{{ ns.n }}'
j slicing '{% set s = "abcdefgh" %}{{ s[1:6:2] }}{{ s[::-1] }}{{ s[-3:] }}{{ messages[1:-1]|length }}{{ (messages|list)[::2]|map(attribute="role")|join }}{{ range(2**64, 2**64 + 3)|list }}{{ "%s" % s[10:] }}'

# tokenizer.json: Oniguruma-only pattern syntax (BLOOM's nested class, \h,
# possessive and atomic groups, \p{..}), many added_tokens, a Unigram model
# with a Precompiled normalizer (a small charsmap built here: a darts-clone
# double array, lib/tok/charsmap.h) and a WordPiece model with BERT's parts.
$PY - "$D/tokjson" <<'PYEOF'
import base64, json, struct, sys
d = sys.argv[1]
def out(name, t):
    open("%s/%s.json" % (d, name), "w").write(json.dumps(t, ensure_ascii=False))
def added(i, s, special=True, **kw):
    a = {"id": i, "content": s, "single_word": False, "lstrip": False, "rstrip": False,
         "normalized": not special, "special": special}
    a.update(kw)
    return a
def split(pat, behavior="Isolated", invert=False):
    return {"type": "Split", "pattern": {"Regex": pat}, "behavior": behavior, "invert": invert}
bl = [chr(c) for c in range(33, 127)] + [chr(c) for c in range(161, 173)] + [chr(c) for c in range(174, 256)]
bl += [chr(256 + i) for i in range(256 - len(bl))]  # GPT-2's bytes_to_unicode alphabet (its order)
vocab = {c: i for i, c in enumerate(bl + ["He", "ll", "Hell", "\u0120w"])}
bpe = {"type": "BPE", "dropout": None, "unk_token": None, "fuse_unk": False, "byte_fallback": False,
       "ignore_merges": False, "vocab": vocab, "merges": ["H e", "l l", "He ll", "\u0120 w"]}
pats = [" ?[^(\\s|[.,!?…。，、।۔،])]+",                     # BLOOM: a class nested in a class
        "\\h+|\\H|(?>ab|a)c|\\p{Lu}++\\p{Ll}*+|\\d?+",      # \h, atomic, possessive
        "(?i:[[:alpha:]&&[^aeiou]])+|\\p{Han}|\\p{Greek}|\\P{L}{1,3}|\\x{1F642}|\\R",
        "'(?i:[sdmt]|ll|ve|re)|[^\\r\\n\\p{L}\\p{N}]?+\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*|\\s*[\\r\\n]|\\s+(?!\\S)|\\s+"]
for k, p in enumerate(pats):
    out("onig%d" % k, {"added_tokens": [], "normalizer": None,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [split(p, ["Isolated", "MergedWithNext", "MergedWithPrevious", "Contiguous"][k]),
                                                               {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}]},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}, "model": bpe})
# Many added tokens: overlapping, lstrip/rstrip, single_word, normalized ones.
toks = [added(100 + i, "<|t%d|>" % i) for i in range(40)]
toks += [added(140, "<s>"), added(141, "<s><s>"), added(142, " world", special=False, lstrip=True),
         added(143, "ell", special=False, single_word=True), added(144, "\u00e9", special=False, rstrip=True),
         added(145, "\n\t"), added(146, "12")]
out("added", {"added_tokens": toks, "normalizer": {"type": "NFKC"},
    "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
    "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}, "model": bpe})
# A darts-clone double array over a few rules (a prefix pair, multi-byte keys).
rules = {b"A": b"a", b"AB": b"x", "\uff21".encode(): b"A", "\ufb01".encode(): b"fi",
         "\u00a0".encode(): b" ", "\u2026".encode(): b"...", "e\u0301".encode(): "\u00e9".encode()}
norm, val = b"", {}
for k in sorted(rules):
    val[k] = len(norm); norm += rules[k] + b"\0"
trie = {}
for k in rules:
    for i in range(1, len(k) + 1):
        trie.setdefault(k[:i - 1], set()).add(k[i - 1])
units, used = {0: 0}, {0}
def place(prefix, pos):
    kids = sorted(trie.get(prefix, ()))
    leaf = prefix in rules and prefix != b""
    labels = ([0] if leaf else []) + kids
    base = 256
    while any(base ^ c in used for c in labels): base += 1
    units[pos] = (units.get(pos, 0) & 0x1ff) | (pos ^ base) << 10  # next = pos ^ offset
    for c in labels: used.add(base ^ c)
    if leaf: units[base] = 1 << 31 | val[prefix]
    for c in kids:
        units[base ^ c] = c | (1 << 8 if prefix + bytes([c]) in rules else 0)
    for c in kids:
        place(prefix + bytes([c]), base ^ c)
place(b"", 0)
n = max(units) + 1
blob = struct.pack("<I", 4 * n) + b"".join(struct.pack("<I", units.get(i, 0)) for i in range(n)) + norm
cm = base64.b64encode(blob).decode()
out("unigram", {"added_tokens": [added(0, "<unk>"), added(1, "</s>")],
    "normalizer": {"type": "Sequence", "normalizers": [{"type": "Precompiled", "precompiled_charsmap": cm},
                   {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}]},
    "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
    "post_processor": {"type": "TemplateProcessing", "single": [{"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}],
                       "pair": [], "special_tokens": {"</s>": {"id": "</s>", "ids": [1], "tokens": ["</s>"]}}},
    "decoder": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
    "model": {"type": "Unigram", "unk_id": 0, "byte_fallback": True,
              "vocab": [["<unk>", 0.0], ["</s>", 0.0], ["\u2581", -2.0], ["\u2581he", -3.5], ["llo", -4.0], ["l", -5.0],
                        ["a", -5.0], ["fi", -4.5], ["\u00e9", -6.0], ["<0x41>", -9.0], ["<0xFF>", -9.0], ["\u2581wor", -4.0], ["ld", -4.2]]}})
wp = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "hello", "world", "##s", "##l", "'", "caf", "##e", "12", "##345", "中", "文", "h", "##ello"]
out("wordpiece", {"added_tokens": [added(0, "[PAD]"), added(1, "[UNK]"), added(2, "[CLS]"), added(3, "[SEP]")],
    "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True, "strip_accents": None, "lowercase": True},
    "pre_tokenizer": {"type": "BertPreTokenizer"},
    "post_processor": {"type": "BertProcessing", "sep": ["[SEP]", 3], "cls": ["[CLS]", 2]},
    "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
    "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 8,
              "vocab": {w: i for i, w in enumerate(wp)}}})
PYEOF

# JSON Lines: integers past 2^64, deep nesting, NUL and escapes in keys, a
# "text" key spelled with escapes or given twice (jsonscan vs jansson).
mkdir -p "$D/jsonscan"
$PY - "$D/jsonscan" <<'PYEOF'
import sys
d = sys.argv[1]
deep = '{"a":' * 40 + '[' * 40 + '1' + ']' * 40 + '}' * 40
seeds = {
    "bigint": '{"id":18446744073709551616123,"n":-1e999,"f":1.5e-400,"m":-0,"text":"a"}',
    "deep": '{"meta":%s,"text":"x\\u00e9"}' % deep,
    "deep-text": '{"a":{"text":"inner"},"b":[{"text":"no"}],"text":"outer"}',
    "nul-key": '{"te\\u0000xt":1,"text\\u0000":2,"\\u0000":3,"text":"ok\\u0000"}',
    "escaped-key": '{"t\\u0065xt":"esc","conversations":[]}',
    "twice": '{"text":"first","id":1,"text":"second"}',
    "surrogates": '{"text":"\\ud83d\\ude42 \\ud800 \\udc00x","role":"user"}',
    "not-string": '{"text":["a"],"messages":[{"role":"user","content":"hi"}]}',
}
for k, v in seeds.items():
    open("%s/%s" % (d, k), "w").write(v + "\n")
PYEOF

# cal-streams with late headers: a trailer (CONTINUES, END of 0) with drop,
# input and stopped lines; a CONTINUES header mid-stream; shard stage lines
# and a partial line; two streams concatenated (man/cal-stream.5).
PYTHONPATH=examples $PY - "$D/stream" <<'PYEOF'
import sys
import calstream as C
d = sys.argv[1]
base = [("tokenizer", "t.json"), ("tokenizer_fp", "00000000000000aa"), ("vocab", "100"), ("stage", "cal-read a.jsonl")]
shard = lambda i: base[:3] + [("stage", "cal-read big.jsonl --shard %d/2" % i)]
fp = "1f0c4e9a2b7d3c55"
trailer = [("input", "%s 1234 a.jsonl" % fp), ("drop", "%s cal-pack 27 tokens 0 - dropped as the last partial row (--tail drop)" % fp),
           ("drop", "%s cal-read 2 documents 100 bytes refused by the template" % fp), ("stopped", "cal-pack -n 2")]
toks = C.tokens("wiki", 1, [1, 2, 3])
def out(name, *parts):
    open("%s/%s" % (d, name), "wb").write(b"".join(parts))
out("trailer", C.header(base), toks, C.end(1), C.header(base + trailer, flags=C.CONTINUES), C.end(0))
out("continues", C.header(base), toks, C.end(1), C.header(base + [("stage", "cal-encode -t t.json")], flags=C.CONTINUES),
    C.row("wiki", 2, [1, 2], [1, 0]), C.end(1))
out("shards", C.header(shard(0)), toks, C.end(1), C.header(shard(0) + [("input", "%s 10 big.jsonl" % fp)], flags=C.CONTINUES), C.end(0),
    C.header(shard(1)), C.end(0))
out("partial", C.header(shard(1) + [("partial", "cal-read big.jsonl --shard I/2")]), toks, C.end(1))
out("empty-trailer", C.header(base), C.end(0), C.header(base + trailer, flags=C.CONTINUES), C.end(0))
PYEOF
