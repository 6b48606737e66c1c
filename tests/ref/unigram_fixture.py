"""unigram_fixture.py - the tokenizer.json files with a "Unigram" model that
exact.py compares against the Rust HF tokenizers: the fetched unigram
.model files converted as transformers converts them and serialized by the
reference itself (tests/ref/unigram_json.js; no npm package here ships one):

    albert-unigram-hf  ALBERT's (AlbertConverter: NFKD, StripAccents,
                       Lowercase, Precompiled nmt_nfkc, [CLS] $A [SEP])
    smart-unigram-hf   the 50k code model's (SpmConverter: Precompiled,
                       Strip, Replace)
    bert-wordpiece-hf  a BERT-style WordPiece tokenizer.json (BertNormalizer,
                       BertPreTokenizer, WordPiece, BertProcessing) whose
                       vocabulary is ALBERT's pieces as BERT writes words
                       and continuations

    path(work_dir, name) -> the tokenizer.json (made when missing or stale)
"""
import hashlib
import os
import subprocess

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
NAMES = {"albert-unigram-hf": ("albert-unigram.model", "albert"), "smart-unigram-hf": ("smart-unigram.model", "spm"),
         "bert-wordpiece-hf": ("albert-unigram.model", "bert")}


def path(work, name):
    model, style = NAMES[name]
    src = os.path.join(ROOT, "build", "tokenizers", model)
    script = os.path.join(ROOT, "tests", "ref", "unigram_json.js")
    h = hashlib.sha256(open(src, "rb").read() + open(script, "rb").read() + style.encode())
    out = os.path.join(work, "fixtures", "%s-%s" % (name, h.hexdigest()[:16]), "tokenizer.json")
    if not os.path.exists(out):
        os.makedirs(os.path.dirname(out), exist_ok=True)
        tmp = "%s.tmp.%d" % (out, os.getpid())  # test_encode_exact and test_encode_decode may make it at once
        subprocess.run(["node", script, src, style, tmp], check=True)
        os.replace(tmp, out)
    return out
