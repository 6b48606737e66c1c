#!/bin/sh
# test_examples_defaults.sh - fanout.sh, mix-experiment.sh and imatrix.sh at
# the defaults their headers state (nothing but -o, and imatrix.sh's required
# -m), on the built-in corpora with the Llama 3 tokenizer, as a new user runs
# them; each checked against an independent reference:
#   fanout.sh          the serial pipeline its header says it equals, run
#                      here: byte-identical rows
#   mix-experiment.sh  the documents encoded by the Rust HF tokenizers
#                      (tests/ref/hf_encode.js), cut into consecutive rows,
#                      counted by largest remainder and interleaved by the
#                      documented schedule (tests/py/packref.py)
#   imatrix.sh         llama-imatrix's chunks of the same text (HF-encoded,
#                      BOS first, every chunk's first token BOS) through the
#                      model with forward pre-hooks: every layer's sum x^2
#                      and counts (numpy, float64)
# (chat-instruct.sh at its defaults: test_read_chat.sh; the recipes of the
# peers: test_recipes_defaults.sh; slurm-array.sh: test_slurm.sh.)
. tests/lib.sh
ROOT=$PWD
TOKF=$ROOT/build/tokenizers/llama3/tokenizer.json
if ! command -v node >/dev/null 2>&1 || [ ! -d build/npm/node_modules/@anush008/tokenizers ] || [ ! -f "$TOKF" ] ||
  [ ! -f build/corpora/wiki.jsonl.zst ] || ! command -v cal-cat >/dev/null 2>&1; then
  skip "examples at their defaults" "node, build/npm, build/tokenizers/llama3, build/corpora or cal-cat missing"
  exit 0
fi
unset CAL_TOKENS_DIR CAL_TOKENIZER
export PYTHONPATH="$ROOT/tests/py:$ROOT/examples"

# ---- fanout.sh: wiki, 4 shards, 2 jobs, 64 rows of 2048, seed 0 ----
if command -v parallel >/dev/null 2>&1; then
  cal-read wiki | cal-encode -t llama3 | cal-shuffle --by-id --seed 0 | cal-pack -l 2048 -n 64 -o "$T/serial.cal" &&
    cal-cat -o "$T/serial.npy" "$T/serial.cal" || not_ok "fanout: the serial pipeline ran"
  if sh examples/fanout.sh -o "$T/fan" >"$T/fan.out" 2>&1; then
    eq "defaults: fanout.sh says 4 shards, -j 2" "$(head -1 "$T/fan.out" | sed 's/, [0-9]* s).*//')" "fan-out (4 shards, -j 2"
    same "defaults: fanout.sh = the serial pipeline run here, byte for byte" "$T/fan/fanout.npy" "$T/serial.npy"
    eq "defaults: fanout.sh: 64 rows of 2048 (numpy)" \
      "$($PY -c 'import numpy, sys; print(numpy.load(sys.argv[1]).shape)' "$T/fan/fanout.npy")" "(64, 2048)"
  else
    not_ok "defaults: fanout.sh runs" "$(tail -3 "$T/fan.out")"
  fi
else
  skip "defaults: fanout.sh" "GNU parallel is not installed"
fi

# ---- mix-experiment.sh: three mixes of 128 rows of 2048, seed 0 ----
if sh examples/mix-experiment.sh -o "$T/mix" >"$T/mix.out" 2>&1; then
  mkdir -p "$T/enc"
  $PY - "$ROOT/build/corpora" "$TOKF" "$T/mix" "$T/enc" <<'PYEOF' || not_ok "defaults: mix-experiment.sh: the reference ran"
import json, struct, sys
import numpy as np
import calstream as cs, packref as ref, peers
corpora, tokf, out, work = sys.argv[1:5]
L, N, SEED = 2048, 128, 0
mixes = {"prose": [("web", 2), ("wiki", 2), ("stories", 1)],
         "code": [("code", 3), ("technical", 1), ("web", 1)],
         "broad": [(c, 1) for c in ("web", "wiki", "code", "stories", "multilingual", "technical")]}
counts = {m: ref.largest_remainder(N, [w for _, w in s]) for m, s in mixes.items()}
need = {}
for m, s in mixes.items():
    for (c, _), k in zip(s, counts[m]):
        need[c] = max(need.get(c, 0), k)
# only the documents the rows reach are encoded: a Llama 3 token holds ~4
# bytes of text, so 8 bytes a token is plenty (too few rows fail below)
enc, texts = peers.Encoder(tokf, work), {}
for c, k in need.items():
    texts[c], b = [], 0
    for t in peers.corpus(corpora, c):
        if b >= 8 * k * L:
            break
        texts[c].append(t)
        b += len(t.encode())
    enc.add("plain", texts[c])
enc.run()
rows = {c: [r[2] for r in ref.concat([(c, 0, enc("plain", t)) for t in texts[c]], L, need[c])] for c in need}
for m, s in mixes.items():
    sched, at, want = ref.blend_schedule(counts[m], SEED), [0] * len(s), []
    for i in sched:
        c = s[i][0]
        want.append((c, rows[c][at[i]] if at[i] < len(rows[c]) else None))
        at[i] += 1
    b = open("%s/%s/cal_data.safetensors" % (out, m), "rb").read()
    n = struct.unpack("<Q", b[:8])[0]
    h = json.loads(b[8:8 + n])["input_ids"]
    a = np.frombuffer(b[8 + n + h["data_offsets"][0]:8 + n + h["data_offsets"][1]], dtype="<i8").reshape(h["shape"])
    labels = [x["label"] for x in cs.read("%s/%s/cal_data.cal" % (out, m))[1]]
    bad = [i for i, (c, r) in enumerate(want) if i >= len(labels) or labels[i] != c or r is None or list(a[i]) != r]
    peers.tap(h["dtype"] == "I64" and a.shape == (N, L) and not bad,
              "defaults: mix-experiment.sh %s: %s rows of HF-encoded text, largest remainder, the seeded schedule"
              % (m, "+".join("%s %d" % (c, k) for (c, _), k in zip(s, counts[m]))),
              "%s %s, first bad row %s" % (h["dtype"], a.shape, bad[:1] and (bad[0], want[bad[0]][0], labels[bad[0]:bad[0] + 1])))
PYEOF
else
  not_ok "defaults: mix-experiment.sh runs" "$(tail -3 "$T/mix.out")"
fi

# ---- imatrix.sh: wiki, 100 chunks of 512, batch 1 ----
# The model (-m is required): tests/py/tiny_llama.py, which takes any number
# of positions, with an embedding over Llama 3's 128256 ids. Its lm_head
# gives 16 logits, not 128256: imatrix.sh leaves lm_head out (as
# llama-imatrix), and 128256 logits for each of 51200 tokens cost ~18 CPU
# seconds of allocation alone.
if ! $PY -c "import torch" 2>/dev/null; then skip "defaults: imatrix.sh" "python3-torch is missing"; exit 0; fi
$PY - "$T/m.pt" <<'PYEOF' || not_ok "imatrix: make the model"
import sys, torch
from tiny_llama import TinyLlama
torch.manual_seed(4)
m = TinyLlama(vocab=128256, layers=2).eval()
m.lm_head = torch.nn.Linear(16, 16, bias=False)
torch.save(m, sys.argv[1])
PYEOF
if (cd "$T" && sh "$ROOT/examples/imatrix.sh" -m m.pt >im.out 2>&1); then
  eq "defaults: imatrix.sh says what it wrote" "$(tail -1 "$T/im.out")" \
    "imatrix of every linear layer: 100 rows of 512 tokens (llama-imatrix's chunks) from wiki -> $T/imatrix.gguf"
  mkdir -p "$T/ienc"
  $PY - "$ROOT/build/corpora" "$TOKF" "$T" <<'PYEOF' || not_ok "defaults: imatrix.sh: the reference ran"
import json, re, sys
import numpy as np, torch
import gguf_spec as G, peers
corpora, tokf, T = sys.argv[1:4]
ROWS, L = 100, 512
bos = next(t["id"] for t in json.load(open(tokf))["added_tokens"] if t["content"] == "<|begin_of_text|>")
# llama-imatrix (tools/imatrix/imatrix.cpp at 80fb11a): the whole text
# tokenized once with BOS, without parsing special tokens; chunks of -c
# tokens, each one's first token replaced by BOS. The text: the documents
# joined by a blank line; a prefix far longer than the chunks is encoded.
docs, b = [], 0
for t in peers.corpus(corpora, "wiki"):
    docs.append(t)
    b += len(t.encode())
    if b >= 8 * ROWS * L:
        break
enc = peers.Encoder(tokf, T + "/ienc")
enc.add("plain", ["\n\n".join(docs)])
enc.run()
ids = [bos] + enc("plain", "\n\n".join(docs))
assert len(ids) > ROWS * L + 64, len(ids)
chunks = [[bos] + ids[i * L + 1:(i + 1) * L] for i in range(ROWS)]
m = torch.load(T + "/m.pt")
S = {}
def pre(name):
    def f(mod, inp):
        x = inp[0].reshape(-1, inp[0].shape[-1]).double().numpy()
        S[name] = S.get(name, 0) + (x ** 2).sum(0)
    return f
for n, mod in m.model.named_modules():
    if isinstance(mod, torch.nn.Linear):
        mod.register_forward_pre_hook(pre("model." + n))
with torch.no_grad():
    for c in chunks:  # -b 1: one row at a time, as imatrix.sh's default
        x = torch.tensor([c])
        m.model(x, torch.ones_like(x))
g = G.read(T + "/imatrix.gguf")
names = {"self_attn.q_proj": "attn_q", "self_attn.k_proj": "attn_k", "self_attn.v_proj": "attn_v",
         "self_attn.o_proj": "attn_output", "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up", "mlp.down_proj": "ffn_down"}
def gname(k):
    layer, rest = re.match(r"model\.layers\.(\d+)\.(.*)", k).groups()
    return "blk.%s.%s.weight" % (layer, names[rest])
want = {gname(k): v for k, v in S.items()}
got = sorted(n.rsplit(".", 1)[0] for n in g.tensors if n.endswith(".in_sum2"))
worst = max(float(np.max(np.abs(g.tensors[k + ".in_sum2"].values.reshape(-1) - v) / v)) for k, v in want.items()
            if k + ".in_sum2" in g.tensors) if set(got) == set(want) else None
peers.tap(got == sorted(want), "defaults: imatrix.sh: every linear layer but output.weight, under llama.cpp's names",
          "%s vs %s" % (got, sorted(want)))
peers.tap(worst is not None and worst < 1e-6,
          "defaults: imatrix.sh: sum x^2 of every layer = llama-imatrix's 100 chunks of 512 through the model (float64)",
          "worst relative difference %s" % worst)
peers.tap(all(float(g.tensors[k + ".counts"].values.reshape(-1)[0]) == ROWS * L for k in want)
          and g.kv["imatrix.chunk_count"][-1] == ROWS and g.kv["imatrix.chunk_size"][-1] == L,
          "defaults: imatrix.sh: counts 51200 tokens, chunk_count 100, chunk_size 512",
          "%s %s" % (g.kv.get("imatrix.chunk_count"), g.kv.get("imatrix.chunk_size")))
PYEOF
else
  not_ok "defaults: imatrix.sh -m MODEL runs" "$(tail -3 "$T/im.out")"
fi
