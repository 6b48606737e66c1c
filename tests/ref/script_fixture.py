"""script_fixture.py - a tokenizer.json whose patterns name scripts (issue
12: \\p{Han}, \\p{Hiragana}, ... must follow the reference's Unicode 16.0,
not PCRE2's 14.0), made from the fetched Llama 3 tokenizer.json. None of the
fetched tokenizers uses a script, so exact.py --unicode runs this one too.

Its normalizer replaces the code points of each script (written in the forms
patterns use: inside and outside a class, negated twice, names in
Oniguruma's loose spelling) by a Braille letter of its own, so the ids of
every code point say which script the reference put it in. Braille is not
among the scripts, so no later replacement touches an earlier marker.

    path(work_dir) -> the tokenizer.json (written when missing or stale)
"""
import hashlib
import json
import os

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SOURCE = os.path.join(ROOT, "build", "tokenizers", "llama3", "tokenizer.json")
PATTERNS = [
    r"\p{Common}", r"\p{Inherited}", r"\p{Han}", r"\p{Hiragana}", r"[\p{Katakana}]", r"\p{Latin}",
    r"\p{Greek}", r"[^\P{Cyrillic}]", r"\p{Arabic}", r"[\p{Thai}\p{Lao}]", r"\p{old_italic}",
    r"\p{Canadian-Aboriginal}", r"\p{HANGUL}", r"\p{Devanagari}", r"\p{Kawi}", r"\p{Garay}", r"\p{Unknown}",
]


def path(work):
    src = open(SOURCE, "rb").read()
    key = hashlib.sha256(src + open(__file__, "rb").read()).hexdigest()[:16]
    out = os.path.join(work, "fixtures", "scripts-" + key, "tokenizer.json")
    if os.path.exists(out):
        return out
    j = json.loads(src)
    j["normalizer"] = {"type": "Sequence", "normalizers": [
        {"type": "Replace", "pattern": {"Regex": p}, "content": chr(0x2801 + k)} for k, p in enumerate(PATTERNS)]}
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out + ".tmp", "w", encoding="utf-8") as f:
        json.dump(j, f, ensure_ascii=False)
    os.replace(out + ".tmp", out)
    return out
