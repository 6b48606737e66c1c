#!/bin/sh
# encode.sh - cal-encode's speed against the references, measured in the
# same run on the same text (no timed assertions; ratios are printed):
#   1. single thread, per tokenizer: cal-encode -j 1 vs the Rust HF tokenizers
#      (npm @anush008/tokenizers, one document at a time, RAYON_NUM_THREADS=1)
#      for tokenizer.json; vs python3-sentencepiece for .model files
#   2. cal-encode -j 2 vs -j 1 (llama3)
#   3. Gemma 3 tokenizer.json: load time and peak RSS (/usr/bin/time -v)
# Text: about 600 KB of each built-in corpus (make corpora), else local text.
. "$(dirname "$0")/lib/preamble.sh"
sh scripts/fetch-tokenizers.sh

# The text: the first ~600 KB of each corpus.
for c in wiki web code stories multilingual technical; do
  cal-read "$c" -o "$W/$c.cal" 2>/dev/null || true
done
$PY - "$W" <<'PYEOF'
import glob, os, sys
sys.path.insert(0, "examples")
import calstream
w = sys.argv[1]
docs = []
for f in sorted(glob.glob(os.path.join(w, "*.cal"))):
    size = 0
    for r in calstream.read_records(f, verify=False)[1]:
        if size >= 600_000:
            break
        docs.append((r[1], r[3]))
        size += len(r[3])
if not docs:  # corpora not built: local text
    print("bench/encode.sh: corpora not built (make corpora); using /usr/share/common-licenses and Python sources", file=sys.stderr)
    for f in sorted(glob.glob("/usr/share/common-licenses/*") + glob.glob("/usr/lib/python3.11/*.py"))[:400]:
        if os.path.isfile(f):
            docs.append(("local", open(f, "rb").read()))
calstream.write_text(os.path.join(w, "text.cal"), docs)
print("text: %d documents, %.2f MB" % (len(docs), sum(len(d) for _, d in docs) / 1e6))
PYEOF

ours() { # ours TOKENIZER J -> MB/s from cal-encode -v (encoding only, load excluded)
  cal-encode -t "$1" -j "$2" -v "$W/text.cal" 2>&1 >/dev/null | sed -n 's/.* \([0-9.]*\) MB\/s.*/\1/p'
}
printf '%-16s %10s %10s %8s\n' tokenizer cal-encode reference ratio
for tk in llama3 qwen3 gemma3 mistral gpt4o deepseek_v3 gptoss llama2-spm albert-unigram; do
  case $tk in
    *-spm|*-unigram) ref=$($PY bench/encode_spm_speed.py "build/tokenizers/$tk.model" "$W/text.cal") ;;
    *) ref=$(RAYON_NUM_THREADS=1 node bench/encode_ref_speed.js "build/tokenizers/$tk/tokenizer.json" "$W/text.cal") ;;
  esac
  refmb=$(echo "$ref" | awk '{ printf "%.2f", $2 / $1 / 1e6 }')
  m=$(ours "$tk" 1)
  printf '%-16s %8s/s %8s/s %7.1fx\n' "$tk" "${m}MB" "${refmb}MB" "$(awk -v a="$m" -v b="$refmb" 'BEGIN { print a / b }')"
done
echo "(reference: Rust HF tokenizers 0.6.0 binding, one document at a time, 1 thread; python3-sentencepiece for .model)"

j1=$(ours llama3 1)
j2=$(ours llama3 2)
printf 'llama3 -j 2 vs -j 1: %s vs %s MB/s = %.2fx\n' "$j2" "$j1" "$(awk -v a="$j2" -v b="$j1" 'BEGIN { print a / b }')"

size=$(wc -c <build/tokenizers/gemma3/tokenizer.json)
printf '' | $PY examples/calstream.py text "$W/empty.cal"
/usr/bin/time -v cal-encode -t gemma3 -j 1 "$W/empty.cal" -o "$W/e.cal" 2>"$W/time" >/dev/null
rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$W/time")
wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$W/time")
printf 'gemma3 tokenizer.json (%.1f MB): load %s wall, peak RSS %.1f MB = %.1fx the file\n' \
  "$(echo "$size" | awk '{ print $1 / 1e6 }')" "$wall" "$(echo "$rss" | awk '{ print $1 / 1e3 }')" \
  "$(awk -v r="$rss" -v s="$size" 'BEGIN { print r * 1024 / s }')"
