"""encode_tiktoken_speed.py - tiktoken's single-thread speed for
bench/encode.sh, the anchor of the fastest exact encoders' claims:
TOKENIZER.json IN.cal -> "SECONDS BYTES", or nothing when the tiktoken
package is not installed (Debian has none: `pip install tiktoken`).

tiktoken is built from the tokenizer.json itself (no download): its
byte-level vocabulary as the ranks (id order, as the tiktoken-born
vocabularies of Llama 3, Qwen and GPT-4o are) and its Split regex as the
pattern. NFC (Qwen) is not applied: tiktoken has none. One document at a
time, encoding time only."""
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
import calstream  # noqa: E402

try:
    import tiktoken
except ImportError:
    sys.exit(0)


def byte_decoder():
    """GPT-2's byte-level alphabet: code point -> byte."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs)}


def split_regex(pre):
    if pre is None:
        return None
    if pre.get("type") == "Sequence":
        for p in pre["pretokenizers"]:
            r = split_regex(p)
            if r:
                return r
    if pre.get("type") == "Split":
        return pre["pattern"].get("Regex")
    return None


j = json.load(open(sys.argv[1], encoding="utf-8"))
pat = split_regex(j.get("pre_tokenizer"))
if not pat:
    sys.exit("encode_tiktoken_speed.py: %s: no Split regex" % sys.argv[1])
dec = byte_decoder()
added = {t["content"] for t in j.get("added_tokens", [])}
ranks = {}
for tok, i in j["model"]["vocab"].items():
    if tok in added or any(c not in dec for c in tok):
        continue
    ranks[bytes(dec[c] for c in tok)] = i
enc = tiktoken.Encoding("calkit-bench", pat_str=pat, mergeable_ranks=ranks, special_tokens={})
docs = [r[3] for r in calstream.read_records(sys.argv[2], verify=False)[1]]
texts = [d.decode("utf-8", "replace") for d in docs]
t0 = time.process_time()  # CPU seconds: robust on a shared machine
for t in texts:
    enc.encode_ordinary(t)
print(time.process_time() - t0, sum(len(d) for d in docs))
