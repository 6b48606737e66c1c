#!/bin/sh
# The README's pipeline gallery, run as written (tokenizer llama3 by name)
# on small inputs made from the built-in corpora, with each result checked
# against python/numpy references computed from the TOKENS records
# (cal-cat --json) or against exact expectations.
. tests/lib.sh
export PYTHONPATH="$PWD/tests/sh"
for p in cal-read cal-encode cal-pack cal-shuffle cal-blend cal-hessian cal-cat; do
  command -v $p >/dev/null 2>&1 || { skip "README gallery" "$p is not built yet"; exit 0; }
done
[ -f build/tokenizers/llama3/tokenizer.json ] || { skip "README gallery" "llama3 missing (make tokenizers)"; exit 0; }
[ -f build/corpora/wiki.jsonl.zst ] || { skip "README gallery" "corpora missing (make corpora)"; exit 0; }
ROOT=$PWD
# The tests run in $T: tokenizer and corpus names must resolve beside the
# programs (bin/ or build/bin-san/), as they do for a user.
unset CAL_TOKENIZERS CAL_CORPORA
cd "$T" || exit 1

# Inputs: the first wiki articles, as JSONL, as a wikitext-2 raw file and as
# a pile-val-style .jsonl.zst (web documents with a "meta" field).
zstd -dc "$ROOT/build/corpora/wiki.jsonl.zst" | head -300 > wiki.jsonl
zstd -dc "$ROOT/build/corpora/web.jsonl.zst" | head -200 > web.jsonl
$PY - <<'PYEOF' || not_ok "make inputs"
import json, subprocess
docs = [json.loads(l)["text"] for l in open("wiki.jsonl")]
open("wiki.txt", "w").write("".join(d + "\n" for d in docs))
out = []
for d in docs:
    title, _, body = d.partition("\n")
    out.append(" = %s = \n\n" % title.strip())
    out += [" %s \n\n" % p.strip() for p in body.split("\n") if p.strip()]
import os
os.makedirs("wikitext-2-raw", exist_ok=True)
open("wikitext-2-raw/wiki.train.raw", "w").write("".join(out))
with open("pile-val.jsonl", "w") as f:
    for l in open("web.jsonl"):
        f.write(json.dumps({"text": json.loads(l)["text"], "meta": {"pile_set_name": "Pile-CC"}}) + "\n")
PYEOF
zstd -q --rm pile-val.jsonl

# Look inside: the text comes out as it went in, and again after
# encoding and decoding (issue 4: cal-cat -t shows the text again).
cal-read wiki.jsonl | cal-cat --text > text.out
same "cal-read | cal-cat --text" text.out wiki.txt
cal-read wiki.jsonl | cal-encode -t llama3 > wiki.tok
cal-cat --text -t llama3 wiki.tok > decoded.out
same "cal-encode -t llama3 | cal-cat --text -t llama3 shows the text again" decoded.out wiki.txt
eq "... | head exits quietly" "$(cal-cat --text -t llama3 wiki.tok | head -1)" "$(head -1 wiki.txt)"
cal-cat wiki.tok | head -2 > show.out
eq "cal-cat shows metadata first" "$(cat show.out)" "# wiki.tok: header 1
#   stage=cal-read wiki.jsonl"
cal-pack -l 2048 < wiki.tok > rows.cal
n=$(cal-cat --json rows.cal | grep -c '"kind":"ROW"')
eq "cal-cat --check counts" "$(cal-cat --check rows.cal)" \
  "rows.cal: ok: 2 headers, $n records (TEXT 0, TOKENS 0, ROW $n, VECTORS 0), $(wc -c < rows.cal | tr -d ' ') bytes"
cal-read wiki.jsonl | cal-cat --pass | cal-encode -t llama3 > pass.tok
same "cal-cat --pass mid-pipe changes nothing" pass.tok wiki.tok

# GPTQ's wikitext2 set: the recipe on the raw file, and the pipeline it
# runs on the dataset's rows (Parquet, as the hub ships them) give the same
# rows; those are windows of "\n\n".join(rows) encoded with BOS, drawn by
# CPython's random.seed(0); randint(0, L - 2049) (tests/py/peers.py checks
# the recipe against GPTQ's function itself).
sh "$ROOT/examples/gptq-wikitext2.sh" -i wikitext-2-raw/wiki.train.raw -o gptq >/dev/null
$PY - <<'PYEOF'
import json
rows = []
for line in open("wikitext-2-raw/wiki.train.raw", encoding="utf-8"):
    rows.append(line if line.strip() else "")
json.dump(rows, open("rows.json", "w"))
PYEOF
# The writer is installed and copied here, not left by another test: the
# suite's order is not fixed.
NM=$(cd "$ROOT" && sh tests/read/npm.sh hyparquet-writer@0.17.0) &&
  cp "$ROOT/tests/read/parquet_strings.mjs" "$NM/../parquet_strings.mjs" &&
  node "$NM/../parquet_strings.mjs" rows.json train-00000-of-00001.parquet ||
  not_ok "Parquet fixture (hyparquet-writer)"
cal-read --join '\n\n' train-00000-of-00001.parquet |
  cal-encode -t llama3 --add-special --parse-special |
  cal-pack -l 2048 --mode window -n 128 --rng python --seed 0 |
  cal-cat -o gptq-calib.jsonl
cal-read --join '\n\n' train-00000-of-00001.parquet | cal-encode -t llama3 --add-special --parse-special |
  cal-cat --json > wt.json
cal-cat -o gptq.npy gptq/cal_data.cal
$PY - <<'PYEOF'
import json, random, numpy as np
from hessian_lib import report
recs = [r for r in map(json.loads, open("wt.json")) if "kind" in r]
ids = recs[0]["ids"]
rows = [json.loads(l)["input_ids"] for l in open("gptq-calib.jsonl")]
random.seed(0)
want = []
for _ in range(128):
    i = random.randint(0, len(ids) - 2048 - 1)
    want.append(ids[i:i + 2048])
report("GPTQ: 128 windows of 2048, as GPTQ's get_wikitext2 draws them", rows == want, len(rows))
report("GPTQ: examples/gptq-wikitext2.sh on wiki.train.raw gives the same rows",
       np.load("gptq.npy").tolist() == rows)
PYEOF

# AutoAWQ's pile-val set: the pipeline and examples/awq-pileval.sh agree;
# the rows are AutoAWQ's (shuffle 42, strip, skip > 512, 128 documents).
cal-read --strip pile-val.jsonl.zst | cal-encode -t llama3 --add-special --parse-special |
  cal-shuffle --rng numpy --seed 42 |
  cal-pack -l 512 --max-tokens 512 --min-tokens 1 --docs 128 2>/dev/null | cal-cat -o awq.npy
sh "$ROOT/examples/awq-pileval.sh" -i pile-val.jsonl.zst -o awq >/dev/null
cal-cat -o awq-recipe.npy awq/cal_data.cal
cal-read --strip pile-val.jsonl.zst | cal-encode -t llama3 --add-special --parse-special | cal-cat --json > awq.json
$PY - <<'PYEOF'
import json, numpy as np
from hessian_lib import report
recs = [json.loads(l) for l in open("awq.json")][1:]
docs = [recs[k]["ids"] for k in np.random.default_rng(42).permutation(len(recs))]
kept = [d for d in docs if 0 < len(d) <= 512][:128]
flat = [i for d in kept for i in d]
n = len(flat) // 512
want = np.array(flat[:n * 512], dtype=np.int64).reshape(n, 512)
got = np.load("awq.npy")
report("AWQ rows = AutoAWQ's (shuffle 42, documents over 512 skipped, 128 concatenated, cut at 512)",
       got.dtype == np.int64 and got.shape == want.shape and (got == want).all(), (got.shape, want.shape))
report("AWQ: examples/awq-pileval.sh gives the same rows", (np.load("awq-recipe.npy") == got).all())
PYEOF

# llama.cpp's route: the text for llama-imatrix -f, documents joined by a
# blank line, one final newline (which llama-imatrix's -f removes).
sh "$ROOT/examples/imatrix.sh" -T calibration.txt -i wiki -i code -D -S 50 -l 512 -n 200 >imatrix.out
cal-read --dedup --sample 50 --seed 0 wiki code | cal-cat --json >parts.json
$PY - <<'PYEOF'
import json
from hessian_lib import report
docs = [r["text"] for r in map(json.loads, open("parts.json")) if r.get("kind") == "TEXT"]
got = open("calibration.txt", encoding="utf-8").read()
report("imatrix.sh -T: the sampled documents joined by a blank line, one final newline",
       got == "\n\n".join(docs) + "\n" and len(docs) == 50, (len(got), len(docs)))
report("imatrix.sh -T prints the llama-imatrix command",
       "llama-imatrix -m MODEL.gguf -f calibration.txt -c 512 --chunks 200 -o imatrix.gguf" in open("imatrix.out").read())
PYEOF

# A domain mix by exact row counts.
for c in wiki code web; do
  cal-read "$ROOT/build/corpora/$c.jsonl.zst" -n 200 -L $c | cal-encode -t llama3 | cal-pack -l 256 > $c.rows
done
cal-blend wiki.rows:rows=64 code.rows:rows=32 web.rows:rows=32 --seed 0 |
  cal-cat -o mix.safetensors
for c in wiki code web; do cal-cat -o $c.npy $c.rows; done
$PY - <<'PYEOF'
import numpy as np
from hessian_lib import st_read, report
t, _ = st_read("mix.safetensors")
x = t["input_ids"]
src = {c: {tuple(r) for r in np.load(f"{c}.npy")} for c in ("wiki", "code", "web")}
counts = {c: sum(tuple(r) in s for r in x) for c, s in src.items()}
report("blend: 128 rows, 64 wiki + 32 code + 32 web", x.shape == (128, 256) and x.dtype == np.int64
       and counts == {"wiki": 64, "code": 32, "web": 32}, (x.shape, counts))
first = np.load("wiki.npy")[:64]
report("blend: the first 64 wiki rows, in order", (x[[tuple(r) in src["wiki"] for r in x]] == first).all())
PYEOF

# Shuffled, BOS on every row, length-stratified (the code corpus has
# documents in every bucket).
cal-read code | cal-encode -t llama3 | cal-shuffle -S 256M --seed 1 |
  cal-pack -l 2048 --bos row --mode doc --stratify 64,128,256,512,1024,2048 -n 128 > strat.cal
cal-cat -o strat.npy strat.cal
$PY - <<'PYEOF'
import numpy as np
from hessian_lib import report
x = np.load("strat.npy")
report("stratified: 128 rows of 2048 with BOS", x.shape == (128, 2048) and (x[:, 0] == 128000).all(), x.shape)
PYEOF

# Fan-out: shards merged by id give the serial pipeline's rows.
if command -v parallel >/dev/null 2>&1; then
  cp wiki.jsonl big.jsonl
  parallel --halt now,fail=1 "cal-read big.jsonl --shard {}/8 | cal-encode -t llama3 -o part{}.cal" ::: 0 1 2 3 4 5 6 7
  cat part*.cal | cal-shuffle --by-id | cal-pack -l 2048 > rows-par.cal
  cal-read big.jsonl | cal-encode -t llama3 | cal-shuffle --by-id | cal-pack -l 2048 > rows-ser.cal
  cal-cat -o par.npy rows-par.cal; cal-cat -o ser.npy rows-ser.cal
  same "fan-out rows = serial rows" par.npy ser.npy
  rm part3.cal
  expect_fail "fan-out with a shard missing: the README's merge line fails, naming it" 1 "missing 3 " \
    sh -c 'cat part*.cal | cal-shuffle --by-id | cal-pack -l 2048 > rows-par.cal'
  cal-cat --summary rows-ser.cal >sum.txt && cal-cat --plot rows.svg rows-ser.cal &&
    grep -q "^  big " sum.txt && grep -q "<svg" rows.svg && ok "cal-cat --summary and --plot of the README's rows" ||
    not_ok "cal-cat --summary / --plot" "$(head -3 sum.txt)"
else
  skip "fan-out" "GNU parallel is not installed"
fi

# Issue 6: the first layer's Hessian on a tiny model whose vocabulary
# covers llama3's ids, against numpy on the packed rows.
check "tiny model" $PY "$ROOT/examples/make-tiny-model.py" --vocab 128256 --dim 16 -o model.safetensors
cal-read wiki.jsonl | cal-encode -t llama3 | cal-pack -l 2048 -n 8 | cal-hessian --embed model.safetensors -o h.safetensors
cal-pack -l 2048 < wiki.tok | cal-hessian --embed model.safetensors --scale gptq -o hg.safetensors
cal-pack -l 2048 -n 8 < wiki.tok | cal-cat -o r8.npy
cal-pack -l 2048 < wiki.tok | cal-cat -o rall.npy
$PY - <<'PYEOF'
import numpy as np
from hessian_lib import st_read, report, close
m, _ = st_read("model.safetensors")
E = m["model.embed_tokens.weight"].astype(np.float64)
for name, h, rows, scale in (("sum", "h", "r8", 1.0), ("gptq", "hg", "rall", None)):
    ids = np.load(f"{rows}.npy")
    X = E[ids.reshape(-1)]
    t, _ = st_read(f"{h}.safetensors")
    s = 2.0 / ids.shape[0] if scale is None else scale
    report(f"hessian --embed ({name}): rows and tokens counted",
           int(t["rows"][0]) == ids.shape[0] and int(t["tokens"][0]) == ids.size, (t["rows"], t["tokens"]))
    close(f"hessian --embed ({name}) = numpy", t["hessian"].astype(np.float64), s * (X.T @ X), 1e-5)
PYEOF

# Existing files in, and back byte for byte.
cal-cat rows.cal -o rows.safetensors && cal-cat --import rows.safetensors | cmp - rows.cal
eq "safetensors round trip is byte for byte" "$?" 0
eq "cal-cat --import | cal-cat shows metadata" "$(cal-cat --import rows.safetensors | cal-cat | sed -n 2p)" \
  "#   stage=cal-read wiki.jsonl"
