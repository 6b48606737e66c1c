# test_encode_cache.sh - prepared tokenizers in the cache (cal-encode(1),
# CACHE): for every fetched tokenizer.json model folder and the Llama 2
# .model (a folder and the file alone: encoded by calkit's BPE, decoded by
# libsentencepiece loaded on first use) and the two unigram .model files
# (calkit's unigram search, decoded the same way), the first run makes
# the image, the next maps it ("cache: hit"), and both give the bytes of
# --no-cache (plain, --parse-special, --add-special; cal-cat --text decodes
# the same); concurrent first runs leave one complete image and no temp
# file; a damaged, cut short, foreign or garbage image is made anew with the
# same output; a changed tokenizer file (same size, same modification time)
# gets an image of its own; a cache folder that cannot be made (read-only
# home) is no error; CAL_CACHE=off, --no-cache and XDG_CACHE_HOME. The load
# times of a hit are printed ("#" lines), never asserted.
. tests/lib.sh
if ! sh scripts/fetch-tokenizers.sh >"$T/fetch.log" 2>&1; then
  not_ok "fetch tokenizers" "$(tail -3 "$T/fetch.log")"; exit 0
fi
export CAL_CACHE="$T/c"
C=$T/c/tokenizers
{ cal-read wiki -n 40; cal-read multilingual -n 40; cal-read code -n 20; } >"$T/text.cal" 2>/dev/null ||
  printf 'Hello world\nit is 2024 <|begin_of_text|> <s> Grüße 日本語\n' | $PY examples/calstream.py text "$T/text.cal"
note() { sed -n 's/.*(.*cache: \(.*\))$/\1/p' "$1"; }   # what -v said the cache did
loadms() { sed -n 's/.*loaded in \([0-9.]*\) ms (\([0-9.]*\) ms CPU.*/\1 ms wall, \2 ms CPU/p' "$1"; }

times=
for tk in llama3 llama3.1-instruct qwen3 gemma3 mistral gpt4o deepseek_v3 gptoss llama2 llama2-spm.model \
    albert-unigram.model smart-unigram.model; do
  d=build/tokenizers/$tk
  cal-encode -t $d -v "$T/text.cal" -o "$T/made.cal" 2>"$T/made.err"
  cal-encode -t $d -v "$T/text.cal" -o "$T/hit.cal" 2>"$T/hit.err"
  cal-encode -t $d --no-cache -v "$T/text.cal" -o "$T/off.cal" 2>"$T/off.err"
  case $(note "$T/made.err") in made\ *) ok "$tk: the first run makes the image" ;; *) not_ok "$tk: the first run makes the image" "$(cat "$T/made.err")" ;; esac
  eq "$tk: the second run maps it" "$(note "$T/hit.err" | cut -c1-3)" "hit"
  eq "$tk: --no-cache uses none" "$(note "$T/off.err")" "off (--no-cache)"
  same "$tk: same bytes made, mapped and without the cache" "$T/made.cal" "$T/off.cal"
  same "$tk: same bytes mapped and without the cache" "$T/hit.cal" "$T/off.cal"
  times="$times
# $tk: $(loadms "$T/hit.err")"
  for f in --parse-special --add-special; do
    cal-encode -t $d $f "$T/text.cal" -o "$T/a.cal" && cal-encode -t $d $f --no-cache "$T/text.cal" -o "$T/b.cal"
    same "$tk $f: same bytes mapped and without the cache" "$T/a.cal" "$T/b.cal"
  done
  cal-cat --text -t $d "$T/hit.cal" >"$T/dec-hit.txt" 2>&1
  CAL_CACHE=off cal-cat --text -t $d "$T/hit.cal" >"$T/dec-off.txt" 2>&1
  same "$tk: cal-cat --text decodes the same through the cache" "$T/dec-hit.txt" "$T/dec-off.txt"
done
echo "# load times of a cache hit (this machine, now):$times"

# concurrent first runs: one image, complete, no temp file left
rm -rf "$T/c"
i=0
while [ $i -lt 6 ]; do cal-encode -t build/tokenizers/mistral "$T/text.cal" -o "$T/p$i.cal" & i=$((i + 1)); done
wait
cal-encode -t build/tokenizers/mistral --no-cache "$T/text.cal" -o "$T/p.cal"
for i in 0 1 2 3 4 5; do cmp -s "$T/p$i.cal" "$T/p.cal" || echo "$i differs"; done >"$T/diff"
eq "6 concurrent first runs give the same bytes" "$(cat "$T/diff")" ""
eq "and leave one image, no temp file" "$(ls "$C" | grep -c '\.tok$') $(ls "$C" | grep -c tmp)" "1 0"
cal-encode -t build/tokenizers/mistral -v "$T/text.cal" -o "$T/a.cal" 2>"$T/a.err"
eq "which the next run maps" "$(note "$T/a.err" | cut -c1-3)" "hit"

# damaged images are made anew, the output unchanged
img=$(ls "$C"/*.tok)
damage() { # damage NAME CMD...: CMD spoils the image; the next run rebuilds it
  n=$1; shift
  "$@"
  cal-encode -t build/tokenizers/mistral -v "$T/text.cal" -o "$T/a.cal" 2>"$T/a.err"
  case $(note "$T/a.err") in rebuilt:*made*) ok "$n: rebuilt" ;; *) not_ok "$n: rebuilt" "$(cat "$T/a.err")" ;; esac
  same "$n: same bytes" "$T/a.cal" "$T/p.cal"
  cal-encode -t build/tokenizers/mistral -v "$T/text.cal" -o "$T/a.cal" 2>"$T/a.err"
  eq "$n: then mapped" "$(note "$T/a.err" | cut -c1-3)" "hit"
}
size=$(wc -c <"$img")
damage "an image cut short" truncate -s $((size / 2)) "$img"
damage "a byte changed mid-file" sh -c "printf '\\377' | dd of='$img' bs=1 seek=$((size / 2 + 7)) conv=notrunc 2>/dev/null"
damage "garbage" sh -c "head -c 5000 /dev/urandom >'$img'"
damage "an empty file" sh -c ": >'$img'"
CAL_CACHE="$T/d" cal-encode -t build/tokenizers/qwen3 "$T/text.cal" -o /dev/null
damage "another tokenizer's image" sh -c "cp '$T'/d/tokenizers/*.tok '$img'"

# A tokenizer.json changed in place (same inode, size and modification
# time: only its change time tells) after its memo was written is not
# served the old image. Memos are written for files over 2 s old: sleep.
cp -r build/tokenizers/mistral "$T/m"
sleep 3
cal-encode -t "$T/m" -v "$T/text.cal" -o "$T/m1.cal" 2>"$T/m1.err"
cal-encode -t "$T/m" -v "$T/text.cal" -o /dev/null 2>"$T/h1.err"
eq "a copy of a folder maps the same image (its bytes hashed), then finds the key in its memo" \
  "$(note "$T/m1.err") / $(note "$T/h1.err")" "hit (files hashed, image hashed) / hit"
$PY - "$T/m/tokenizer.json" <<'EOF'
import os, re, sys
p = sys.argv[1]
st = os.stat(p)
b = open(p, "rb").read()
m = re.search(rb'"\xe2\x96\x81the": *(\d+)', b)  # a common token's id + 1: same size
new = str(int(m.group(1)) + 1).encode()
assert len(new) == len(m.group(1))
with open(p, "r+b") as f:  # in place: the same inode
    f.seek(m.start(1))
    f.write(new)
os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
EOF
cal-encode -t "$T/m" -v "$T/text.cal" -o "$T/m2.cal" 2>"$T/m2.err"
cal-encode -t "$T/m" --no-cache "$T/text.cal" -o "$T/m3.cal"
case $(note "$T/m2.err") in made\ *) ok "a tokenizer.json changed in place gets an image of its own" ;; *) not_ok "a tokenizer.json changed in place gets an image of its own" "$(cat "$T/m2.err")" ;; esac
same "which gives the changed file's ids" "$T/m2.cal" "$T/m3.cal"
if cmp -s "$T/m1.cal" "$T/m2.cal"; then not_ok "the change changes the ids (the test's premise)"; else ok "the change changes the ids (the test's premise)"; fi

# where the cache lives, and none
rm -rf "$T/c" "$T/x"
cal-encode -t build/tokenizers/mistral -v "$T/text.cal" -o "$T/a.cal" 2>"$T/a.err" --no-cache
eq "--no-cache writes nothing" "$(ls "$T/c" 2>/dev/null | wc -l)" "0"
CAL_CACHE=off cal-encode -t build/tokenizers/mistral -v "$T/text.cal" -o "$T/a.cal" 2>"$T/a.err"
eq "CAL_CACHE=off" "$(note "$T/a.err" | cut -c1-3) $(ls "$T/c" 2>/dev/null | wc -l)" "off 0"
env -u CAL_CACHE XDG_CACHE_HOME="$T/x" cal-encode -t build/tokenizers/mistral "$T/text.cal" -o "$T/a.cal"
eq "XDG_CACHE_HOME/calkit/tokenizers" "$(ls "$T"/x/calkit/tokenizers/*.tok 2>/dev/null | wc -l)" "1"
env -u CAL_CACHE -u XDG_CACHE_HOME HOME=/proc/self cal-encode -t build/tokenizers/mistral -v "$T/text.cal" -o "$T/a.cal" 2>"$T/a.err"
rc=$?
case "$rc $(note "$T/a.err")" in "0 not written: "*) ok "a read-only home: no cache, no error" ;; *) not_ok "a read-only home: no cache, no error" "$rc $(cat "$T/a.err")" ;; esac
same "and the same bytes" "$T/a.cal" "$T/p.cal"
: >"$T/file"
CAL_CACHE="$T/file/sub" cal-encode -t build/tokenizers/mistral "$T/text.cal" -o "$T/a.cal" 2>"$T/a.err"
eq "a cache folder that cannot be made: exit 0, nothing said without -v" "$? $(cat "$T/a.err")" "0 "
