#!/bin/sh
# test_llama_imatrix.sh - make check-llama: calkit against llama.cpp's own
# programs (llama.cpp 80fb11a, built by scripts/build-llama.sh into
# build/llama) on a tiny random Llama with Llama 3's vocabulary written by
# llama.cpp's gguf-py (tests/llama/make_model.py):
#   - the text examples/imatrix.sh -T writes is what llama-imatrix -f reads;
#     cal-pack --mode llama cuts the chunks llama-imatrix cuts: the first
#     layer's inputs over calkit's rows (cal-hessian --embed --rmsnorm) give
#     llama-imatrix's blk.0.attn_{q,k,v} sums and counts within float
#     rounding, and plain concatenated rows (no BOS) do not;
#   - the legacy .dat: llama-imatrix's is read (same means), calkit's is
#     read by llama-imatrix and has llama-imatrix's call and chunk counts;
#   - cal-hessian --merge --show-statistics prints what llama-imatrix
#     --show-statistics prints, byte for byte;
#   - llama-quantize takes calkit's imatrix (Q4_K_M differs from one
#     without it; its log names the entries used) and records its datasets.
. tests/lib.sh
ROOT=$PWD
L=$ROOT/build/llama/cmake/bin
TOKF=$ROOT/build/tokenizers/llama3/tokenizer.json
if [ ! -x "$L/llama-imatrix" ] || [ ! -x "$L/llama-quantize" ] || [ ! -d build/llama/src/gguf-py ] || [ ! -f "$TOKF" ]; then
  skip "llama.cpp parity" "build/llama not built (sh scripts/build-llama.sh) or build/tokenizers/llama3 missing"
  exit 0
fi
export CAL_TOKENIZER=llama3
PYTHONPATH=$ROOT/build/llama/src/gguf-py $PY tests/llama/make_model.py "$TOKF" "$T/model.gguf" "$T/model.st" ||
  { not_ok "make the test model (gguf-py)"; exit 0; }
ROWS=6 LEN=128 SKIP=1
check "imatrix.sh -T writes the text for llama-imatrix -f" \
  sh examples/imatrix.sh -T "$T/cal.txt" -i foldoc -i stories -S 40 -s 3 -l $LEN -n $ROWS -K $SKIP
grep -q "llama-imatrix -m MODEL.gguf -f $T/cal.txt -c $LEN --chunks $ROWS --chunk $SKIP" "$T/.out" &&
  ok "... and prints the llama-imatrix command" || not_ok "imatrix.sh -T prints the command" "$(cat "$T/.out")"
im() { "$L/llama-imatrix" -m "$T/model.gguf" -c $LEN --no-ppl -t 2 "$@" >"$T/im.log" 2>&1; }
check "llama-imatrix on that text" im -f "$T/cal.txt" --chunk $SKIP --chunks $ROWS -o "$T/ref.gguf"
check "llama-imatrix, legacy output" im -f "$T/cal.txt" --chunk $SKIP --chunks $ROWS --output-format dat -o "$T/ref.dat"

# calkit: the same text, cut as llama-imatrix cuts it, the first layer's input
first() {  # first MODE-OPTIONS... : rows | the first layer's RMSNorm'd embeddings -> an imatrix
  out=$1; shift
  cal-read --sample 40 --seed 3 --join '\n\n' foldoc stories | cal-encode -t llama3 | cal-pack -l $LEN "$@" 2>/dev/null |
    cal-hessian --embed "$T/model.st" --rmsnorm model.layers.0.input_layernorm.weight --eps 1e-5 \
      --imatrix-name blk.0.attn_q.weight --imatrix "$out"
}
check "calkit: cal-pack --mode llama | cal-hessian --embed --rmsnorm" \
  first "$T/cal.gguf" --mode llama --skip-chunks $SKIP -n $ROWS --allow-short
check "calkit: the same rows into a legacy .dat" \
  first "$T/cal.dat" --mode llama --skip-chunks $SKIP -n $ROWS --allow-short
check "calkit: rows without BOS (--mode concat), to show the test can fail" first "$T/shift.gguf" -n $ROWS
check "llama-imatrix reads calkit's .dat" "$L/llama-imatrix" -m "$T/model.gguf" --in-file "$T/cal.dat" -o "$T/fromcal.gguf"
check "cal-hessian --merge reads llama-imatrix's .dat" cal-hessian --merge --imatrix "$T/fromdat.gguf" "$T/ref.dat"
PYTHONPATH=$ROOT/build/llama/src/gguf-py $PY - "$T" $ROWS $LEN <<'PYEOF'
import struct, sys, numpy as np, gguf
T, rows, ln = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def report(name, ok, detail=""):
    print(("ok - " if ok else "not ok - ") + name)
    if not ok: print("# %s" % str(detail)[:500])
def rd(p):
    r = gguf.GGUFReader(p)
    return {t.name: np.array(t.data, dtype=np.float64).ravel() for t in r.tensors}, r
def kv(r, k):
    f = r.fields[k]
    return f.contents()
ref, rr = rd(f"{T}/ref.gguf"); cal, rc = rd(f"{T}/cal.gguf"); sh, _ = rd(f"{T}/shift.gguf")
w = "blk.0.attn_q.weight"
rel = lambda a, b: float(np.max(np.abs(a - b) / np.abs(b)))
worst = max(rel(cal[w + ".in_sum2"], ref["blk.0.%s.weight.in_sum2" % k]) for k in ("attn_q", "attn_k", "attn_v"))
report("calkit's imatrix = llama-imatrix's for blk.0.attn_{q,k,v} (max rel. diff %.1e)" % worst, worst < 1e-4, worst)
report("the same counts (%d tokens), chunk count and chunk size" % ref[w + ".counts"][0],
       cal[w + ".counts"][0] == ref[w + ".counts"][0] == rows * ln
       and kv(rc, "imatrix.chunk_count") == kv(rr, "imatrix.chunk_count") == rows
       and kv(rc, "imatrix.chunk_size") == kv(rr, "imatrix.chunk_size") == ln,
       (cal[w + ".counts"], ref[w + ".counts"], kv(rc, "imatrix.chunk_count"), kv(rr, "imatrix.chunk_count")))
d = rel(sh[w + ".in_sum2"], ref[w + ".in_sum2"])
report("rows without llama-imatrix's BOS give another imatrix (rel. diff %.1e)" % d, d > 1e-3, d)
report("imatrix.datasets names the sources read, as llama-imatrix names its file",
       kv(rc, "imatrix.datasets") == ["cal-read --sample 40 --seed 3 --join '\\n\\n' foldoc stories"]
       or kv(rc, "imatrix.datasets") == ["foldoc", "stories"], kv(rc, "imatrix.datasets"))

def dat(p):  # common/imatrix-loader.cpp's legacy reader, written anew
    b, at, e = open(p, "rb").read(), 4, {}
    for _ in range(struct.unpack_from("<i", b, 0)[0]):
        n, = struct.unpack_from("<i", b, at); name = b[at + 4:at + 4 + n].decode(); at += 4 + n
        ncall, nval = struct.unpack_from("<ii", b, at); at += 8
        e[name] = (ncall, np.frombuffer(b, "<f4", nval, at).astype(np.float64)); at += 4 * nval
    chunks, n = struct.unpack_from("<ii", b, at)
    return e, chunks, b[at + 8:at + 8 + n].decode(), len(b) == at + 8 + n
rd_, rchunks, rds, rend = dat(f"{T}/ref.dat"); cd, cchunks, cds, cend = dat(f"{T}/cal.dat")
ok = cd[w][0] == rd_[w][0] and cchunks == rchunks and cend and rend
report("calkit's .dat: llama-imatrix's layout, call count %d and chunk count %d" % (cd[w][0], cchunks), ok,
       (cd[w][0], rd_[w][0], cchunks, rchunks))
d = rel(cd[w][1], rd_[w][1])
report("calkit's .dat values = llama-imatrix's (rel. diff %.1e)" % d, d < 1e-4, d)
fc, _ = rd(f"{T}/fromcal.gguf")
d = rel(fc[w + ".in_sum2"] / fc[w + ".counts"][0], ref[w + ".in_sum2"] / ref[w + ".counts"][0])
report("llama-imatrix reads calkit's .dat back to the same means (rel. diff %.1e)" % d, d < 1e-4, d)
fd, _ = rd(f"{T}/fromdat.gguf")
d = max(rel(fd[k + ".in_sum2"] / fd[k + ".counts"][0], ref[k + ".in_sum2"] / ref[k + ".counts"][0])
        for k in (x[:-len(".in_sum2")] for x in ref if x.endswith(".in_sum2")))
report("cal-hessian reads llama-imatrix's .dat to the same means, every tensor (rel. diff %.1e)" % d, d < 1e-5, d)
PYEOF

# --show-statistics: llama-imatrix logs it (to its log file; the prefixes
# removed). At 80fb11a its logger thread may not have written anything when
# the program exits (common/log.cpp leaks the logger on purpose; the output
# is then lost), so it runs until the table comes, up to 10 times.
cal-hessian --merge --show-statistics "$T/ref.gguf" >"$T/stats.cal"
for i in 1 2 3 4 5 6 7 8 9 10; do
  "$L/llama-imatrix" -m "$T/model.gguf" --in-file "$T/ref.gguf" --show-statistics --log-file "$T/stats.log" >/dev/null 2>&1
  sed 's/^[0-9.]* I //' "$T/stats.log" >"$T/stats.llama"
  [ -s "$T/stats.llama" ] && break
done
if [ -s "$T/stats.llama" ]; then
  same "cal-hessian --show-statistics prints llama-imatrix --show-statistics's table" "$T/stats.llama" "$T/stats.cal"
else
  skip "the statistics against llama-imatrix's" "llama-imatrix's log came out empty 10 times (its logger loses output at exit)"
fi
grep -q "attn_q" "$T/stats.cal" && ok "... a table with the tensors" || not_ok "statistics table" "$(head -5 "$T/stats.cal")"

# llama-quantize with calkit's imatrix (one entry, blk.0.attn_q.weight): that
# weight alone changes
q() { "$L/llama-quantize" "$@" >"$T/q.log" 2>&1; }
check "llama-quantize Q4_K_M without an imatrix" q "$T/model.gguf" "$T/q0.gguf" Q4_K_M 2
check "llama-quantize Q4_K_M with calkit's imatrix" q --imatrix "$T/cal.gguf" "$T/model.gguf" "$T/q1.gguf" Q4_K_M 2
grep -q "loaded 1 importance matrix entries" "$T/q.log" && ok "llama-quantize loaded calkit's entry" ||
  not_ok "llama-quantize loaded the entry" "$(grep -i imatrix "$T/q.log" | head -5)"
cmp -s "$T/q0.gguf" "$T/q1.gguf" && not_ok "the imatrix changes the quantized model" ||
  ok "the imatrix changes the quantized model"
PYTHONPATH=$ROOT/build/llama/src/gguf-py $PY - "$T" <<'PYEOF'
import sys, numpy as np, gguf
T = sys.argv[1]
a, b = gguf.GGUFReader(f"{T}/q0.gguf"), gguf.GGUFReader(f"{T}/q1.gguf")
ta, tb = {t.name: np.array(t.data).tobytes() for t in a.tensors}, {t.name: np.array(t.data).tobytes() for t in b.tensors}
diff = sorted(k for k in ta if ta[k] != tb[k])
ok = "blk.0.attn_q.weight" in diff and "blk.1.attn_q.weight" not in diff
print(("ok - " if ok else "not ok - ") + "only the weight with an entry changes: %s" % ", ".join(diff))
ds = b.fields.get("quantize.imatrix.dataset")
ok = ds is not None and "foldoc" in str(ds.contents())
print(("ok - " if ok else "not ok - ") + "llama-quantize records calkit's datasets: %s" % (ds.contents() if ds else None))
PYEOF
