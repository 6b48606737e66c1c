#!/bin/sh
# encode.sh - cal-encode's speed against the anchors, measured in the same
# run on the same text (no timed assertions; ratios are printed with their
# targets, issue 17 item 3):
# Every rate is bytes per CPU second (cal-encode -v's "MB/s CPU"; the
# anchors' process CPU time), each the median of REPS (default 3) rounds
# that run the anchor and cal-encode in turn, so that a busy or drifting
# machine slows both alike.
#   1. single thread, per tokenizer: cal-encode -j 1 vs the Rust HF tokenizers
#      (npm @anush008/tokenizers, one document at a time, RAYON_NUM_THREADS=1)
#      for tokenizer.json, python3-sentencepiece for .model files; and vs
#      tiktoken (where `import tiktoken` works: pip, not Debian) for the
#      tiktoken-style vocabularies, the anchor of the fastest exact encoders
#      (quicktok: 4-11x tiktoken)
#   2. qwen3 against llama3 (NFC and single digits must not cost more)
#   3. cal-encode -j N vs N x -j 1 (llama3, qwen3, gpt4o), N = the online
#      cores (at least 2)
#   4. Gemma 3 tokenizer.json: load time and peak RSS (/usr/bin/time -v)
# Text: about 600 KB of each built-in corpus (make corpora), else local text.
#   ENCODE_TOKENIZERS  the tokenizers of part 1 (default: all twelve; NAME-hf are
#                      tokenizer.json files made from the .model files)
#   ENCODE_BASELINE    an older cal-encode (e.g. main's bin/cal-encode): part 1
#                      also prints our speed against it, run after run
#                      (target >= 2 for llama3, gpt4o and qwen3)
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

ours() { # ours TOKENIZER J FILE... -> MB/s of CPU from cal-encode -v (encoding only, load excluded)
  tk=$1 j=$2
  shift 2
  # an older cal-encode (ENCODE_BASELINE) printed one, wall, figure
  ${ENC:-cal-encode} -t "$tk" -j "$j" -v "$@" 2>&1 >/dev/null |
    sed -n -e 's/.* \([0-9.]*\) MB\/s CPU.*/\1/p' -e t -e 's/.* \([0-9.]*\) MB\/s (.*/\1/p'
}
ours_wall() { # the same run's wall MB/s
  tk=$1 j=$2
  shift 2
  ${ENC:-cal-encode} -t "$tk" -j "$j" -v "$@" 2>&1 >/dev/null | sed -n 's/.* \([0-9.]*\) MB\/s wall.*/\1/p'
}
med() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
REPS=${REPS:-3}
mbs() { awk '{ if ($1 > 0) printf "%.2f", $2 / $1 / 1e6 }'; }   # "CPU_SECONDS BYTES" -> MB/s
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'; }
# tiktoken: the first python3 that has it (the system one has not)
TT=
for p in python3 $PY; do
  if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import tiktoken' 2>/dev/null; then TT=$p; break; fi
done

printf '%-16s %11s %11s %7s %11s %7s\n' tokenizer cal-encode reference ratio tiktoken ratio
for tk in ${ENCODE_TOKENIZERS:-llama3 qwen3 gemma3 mistral gpt4o deepseek_v3 gptoss llama2-spm albert-unigram smart-unigram albert-unigram-hf bert-wordpiece-hf}; do
  refs= mine= tts= k=0
  json=build/tokenizers/$tk/tokenizer.json tkarg=$tk
  case $tk in # the Unigram and WordPiece tokenizer.json files made from the .model files (tests/ref/unigram_fixture.py)
    *-hf) json=$($PY -c "import sys; sys.path.insert(0, 'tests/ref'); import unigram_fixture; print(unigram_fixture.path('build/exact', '$tk'))") tkarg=$json ;;
  esac
  while [ "$k" -lt "$REPS" ]; do # anchor and ours in turn
    case $tk in
      *-spm|*-unigram) r=$($PY bench/encode_spm_speed.py "build/tokenizers/$tk.model" "$W/text.cal" | mbs) ;;
      *) r=$(RAYON_NUM_THREADS=1 node bench/encode_ref_speed.js "$json" "$W/text.cal" | mbs) ;;
    esac
    refs="$refs $r"
    case $tk in
      llama3|qwen3|gpt4o) [ -n "$TT" ] && tts="$tts $($TT bench/encode_tiktoken_speed.py "build/tokenizers/$tk/tokenizer.json" "$W/text.cal" | mbs)" ;;
    esac
    mine="$mine $(ours "$tkarg" 1 "$W/text.cal")"
    k=$((k + 1))
  done
  ref=$(med $refs) m=$(med $mine) tt=
  case $tk in *[!a-z0-9_]*) ;; *) eval "mb_$tk=\$m" ;; esac  # for the qwen3 / llama3 line below
  [ -n "$tts" ] && tt=$(med $tts)
  if [ -n "${ENCODE_BASELINE:-}" ]; then
    b=$(ENC=$ENCODE_BASELINE ours "$tkarg" 1 "$W/text.cal")
    printf '%-16s %9s/s against %s: %9s/s = %sx (target >= 2; a baseline that prints only wall MB/s is compared by those)\n' "$tk" "${m}MB" "$ENCODE_BASELINE" "${b}MB" \
      "$(ratio "$m" "$b")"
  fi
  if [ -n "$tt" ]; then
    printf '%-16s %9s/s %9s/s %6sx %9s/s %6sx (target >= 4, quicktok 4-11x tiktoken)\n' "$tk" "${m}MB" "${ref}MB" \
      "$(ratio "$m" "$ref")" "${tt}MB" "$(ratio "$m" "$tt")"
  else
    case $tk in
      *-spm) tgt=" (target >= 8: SentencePiece BPE by calkit's own BPE)" ;;
      *-unigram) tgt=" (SentencePiece unigram by calkit's own search)" ;;
      *) tgt= ;;
    esac
    printf '%-16s %9s/s %9s/s %6sx%s\n' "$tk" "${m}MB" "${ref}MB" "$(ratio "$m" "$ref")" "$tgt"
  fi
done
echo "(MB/s of CPU time, medians of $REPS alternating rounds; reference: Rust HF tokenizers 0.6.0 binding, one document at a time, 1 thread; python3-sentencepiece for .model)"
[ -n "$TT" ] || echo "(tiktoken: not installed here, pip install tiktoken to measure against it; encode_tiktoken_speed.py builds it from the tokenizer.json)"
if [ -n "${mb_qwen3:-}" ] && [ -n "${mb_llama3:-}" ]; then
  echo "qwen3 / llama3 single thread: $(ratio "$mb_qwen3" "$mb_llama3") (target >= 1.0)"
fi

# Threads: the text four times over (enough batches for every worker), per
# tokenizer, -j 1 and -j N in turn, REPS rounds. The wall ratio is the
# scaling (it needs N idle cores: on a busy machine it shows the load); the
# CPU ratio is what the threads cost in work (1.0: none).
n=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
[ "$n" -ge 2 ] || n=2
for tk in llama3 qwen3 gpt4o; do
  a= b= aw= bw= k=0
  while [ "$k" -lt "$REPS" ]; do
    line=$(${ENC:-cal-encode} -t "$tk" -j 1 -v "$W/text.cal" "$W/text.cal" "$W/text.cal" "$W/text.cal" 2>&1 >/dev/null)
    a="$a $(echo "$line" | sed -n 's/.* \([0-9.]*\) MB\/s CPU.*/\1/p')"
    aw="$aw $(echo "$line" | sed -n 's/.* \([0-9.]*\) MB\/s wall.*/\1/p')"
    line=$(${ENC:-cal-encode} -t "$tk" -j "$n" -v "$W/text.cal" "$W/text.cal" "$W/text.cal" "$W/text.cal" 2>&1 >/dev/null)
    b="$b $(echo "$line" | sed -n 's/.* \([0-9.]*\) MB\/s CPU.*/\1/p')"
    bw="$bw $(echo "$line" | sed -n 's/.* \([0-9.]*\) MB\/s wall.*/\1/p')"
    k=$((k + 1))
  done
  j1=$(med $aw) jn=$(med $bw)
  printf '%-7s -j %d / (%d x -j 1), wall: %s / (%d x %s MB/s) = %s (target >= 0.8)\n' "$tk" "$n" "$n" "$jn" "$n" "$j1" \
    "$(ratio "$jn" "$(awk -v a="$j1" -v n="$n" 'BEGIN { print a * n }')")"
  printf '%-7s -j %d / -j 1, MB/s of CPU: %s / %s = %s (target >= 0.9)\n' "$tk" "$n" "$(med $b)" "$(med $a)" \
    "$(ratio "$(med $b)" "$(med $a)")"
done

size=$(wc -c <build/tokenizers/gemma3/tokenizer.json)
printf '' | $PY examples/calstream.py text "$W/empty.cal"
/usr/bin/time -v cal-encode -t gemma3 -j 1 "$W/empty.cal" -o "$W/e.cal" 2>"$W/time" >/dev/null
rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$W/time")
wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$W/time")
printf 'gemma3 tokenizer.json (%.1f MB): load %s wall, peak RSS %.1f MB = %.1fx the file\n' \
  "$(echo "$size" | awk '{ print $1 / 1e6 }')" "$wall" "$(echo "$rss" | awk '{ print $1 / 1e3 }')" \
  "$(awk -v r="$rss" -v s="$size" 'BEGIN { print r * 1024 / s }')"
