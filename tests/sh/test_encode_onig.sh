#!/bin/sh
# Split and Replace patterns in Oniguruma's syntax (issue 29, item 3): every
# pattern tests/ref/onig_cases.py generates (whole spaces: every escape,
# every class item in every class context, every quantifier on every atom,
# anchors, groups, options, and the tokenizers' own patterns) splits every
# text as the Rust HF tokenizers' Split does (tests/ref/hf_split.js), or is
# refused by both. calkit refuses, with a message saying so, only the
# constructs REFUSED names (PCRE2 has nothing to match them with). Then
# BLOOM's pre-tokenizer, which did not compile before (a class nested in a
# class), on a byte-level vocabulary: cal-encode's ids are the reference's.
. tests/lib.sh
if ! sh scripts/fetch-tokenizers.sh >"$T/fetch.log" 2>&1; then
  not_ok "fetch tokenizers and the reference" "$(tail -3 "$T/fetch.log")"; exit 0
fi
$PY tests/ref/onig_cases.py build/tokenizers/*/tokenizer.json >"$T/cases.jsonl" || not_ok "generate the patterns"
node tests/ref/hf_split.js <"$T/cases.jsonl" >"$T/ref.jsonl" || not_ok "the reference's splits"
"$CAL_UNIT/hf_split" <"$T/cases.jsonl" >"$T/got.jsonl" 2>"$T/err" || not_ok "hf_split" "$(head -3 "$T/err")"
$PY - "$T/cases.jsonl" "$T/ref.jsonl" "$T/got.jsonl" <<'EOF'
import json, re, sys
# what calkit refuses, and the message that must say so
REFUSED = [(r"\(\?~", "absent operator"), (r"\[:\^?(upper|lower):\]", "is not supported"),
           (r"\\[yY]", "are not supported"), (r"\(\?[imx-]*([WDS]|P(?!<))", "is not supported")]
cases = [json.loads(l) for l in open(sys.argv[1])]
ref = [json.loads(l) for l in open(sys.argv[2])]
got = [json.loads(l) for l in open(sys.argv[3])]
if not (len(cases) == len(ref) == len(got)):
    print("not ok - one answer per pattern\n# %d patterns, %d and %d answers" % (len(cases), len(ref), len(got)))
    sys.exit(0)
same = errs = refused = bad = 0
for c, r, g in zip(cases, ref, got):
    p = c["pattern"]
    why = [m for pat, m in REFUSED if re.search(pat, p)]
    if "error" in g and why:
        ok = any(m in g["error"] for m in why)
        refused += ok
    elif "error" in r or "error" in g:
        ok = "error" in r and "error" in g
        errs += ok
    else:
        ok = r == g
        same += ok
    if not ok:
        bad += 1
        if bad <= 12:
            print("not ok - pattern %s" % json.dumps(p, ensure_ascii=False))
            if "error" in r or "error" in g:
                print("# reference: %s\n# calkit: %s" % (r.get("error", "compiles"), g.get("error", "compiles")))
            else:
                for k in ("isolated", "removed"):
                    for t, a, b in zip(c["texts"], r[k], g[k]):
                        if a != b:
                            print("# %s %s: reference %s, calkit %s" % (k, json.dumps(t, ensure_ascii=False),
                                  json.dumps(a, ensure_ascii=False), json.dumps(b, ensure_ascii=False)))
                            break
                    else:
                        continue
                    break
print(("ok" if not bad else "not ok") + " - %d patterns x %d texts: %d split alike, %d refused by both, "
      "%d refused as documented, %d differ" % (len(cases), len(cases[0]["texts"]), same, errs, refused, bad))
print(("ok" if same > 1000 else "not ok") + " - most patterns compile (%d)" % same)
EOF

# BLOOM's pre-tokenizer (Split, then the byte-level alphabet without a
# regex) on Llama 3's byte-level vocabulary, over text in the scripts and
# punctuation its class names
$PY - build/tokenizers/llama3/tokenizer.json "$T/bloom.json" "$T/in.cal" <<'EOF'
import json, sys
sys.path.insert(0, "examples")
import calstream
t = json.load(open(sys.argv[1], encoding="utf-8"))
t["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
    {"type": "Split", "pattern": {"Regex": " ?[^(\\s|[.,!?…。，、।۔،])]+"}, "behavior": "Isolated", "invert": False},
    {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}]}
json.dump(t, open(sys.argv[2], "w", encoding="utf-8"), ensure_ascii=False)
docs = ["Hello, world! How are you?... (fine) | piped", "中文，标点。日本語、カタカナ！", "हिन्दी। اردو۔ عربي، ٣٤",
        "tabs\tand\nnew lines\r\n  two  spaces…", "emoji 😀 and ½ ² ß"]
calstream.write_text(sys.argv[3], [(b"d%d" % i, d.encode()) for i, d in enumerate(docs)])
EOF
if cal-encode -t "$T/bloom.json" "$T/in.cal" -o "$T/bloom.cal" 2>"$T/err"; then
  node tests/ref/hf_encode.js "$T/bloom.json" plain "$T/in.cal" "$T/bloom.ids"
  got=$($PY -c "
import sys; sys.path.insert(0, 'examples'); import calstream
print(' '.join(','.join(map(str, calstream.ids_of(r[3]))) for r in calstream.read_records(sys.argv[1])[1]))" "$T/bloom.cal")
  want=$($PY -c "
import struct, sys; sys.path.insert(0, 'tests/ref'); import exact
print(' '.join(','.join(map(str, struct.unpack('<%dI' % (len(x) // 4), x))) for x in exact.read_ids_file(sys.argv[1])))" "$T/bloom.ids")
  eq "BLOOM's pre-tokenizer on a byte-level vocabulary: the reference's ids" "$got" "$want"
else
  not_ok "BLOOM's pre-tokenizer compiles" "$(cat "$T/err")"
fi
