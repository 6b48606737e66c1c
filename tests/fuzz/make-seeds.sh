#!/bin/sh
# make-seeds.sh DIR - write the seed corpora of the fuzz targets:
#   DIR/stream   small cal-streams of every record kind (examples/calstream.py json)
#   DIR/rowfile  small .safetensors and .npy files (numpy)
#   DIR/gguf     small GGUF imatrix files (tests/py/gguf_spec.py)
#   DIR/jinja    the chat templates of tests/jinja/templates and a few small ones
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
 "decoder":{"type":"ByteLevel"},
 "model":{"type":"BPE","dropout":null,"unk_token":null,"fuse_unk":false,"byte_fallback":false,"ignore_merges":true,
  "vocab":{"H":0,"e":1,"l":2,"o":3,"He":4,"<s>":5,"ll":6,"Hell":7},"merges":["H e","l l",["He","ll"]]}}
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
