"""flag_modes.py - every code point in the three flag modes besides plain
(--parse-special, --add-special, both) at the reference's cost of about one
plain pass (issue 12, item 6). exact.py --unicode uses it.

cal-encode encodes the whole code point space in all four modes (seconds);
the reference encodes it all in plain mode and, in the other three, only a
sample: every 17th document, the controls group and every document holding
the text of some tokenizer's special token. Every other document is covered
by what a flag can change, asserted document by document:

  --parse-special  only cuts out the text of special tokens (HF added tokens
                   with special=true, matched on the raw text, or on the
                   normalized text for normalized=true ones; SentencePiece's
                   control and unknown pieces). A document holding none of
                   them must give the plain ids: checked for every document
                   outside the sample (and that it holds none).
  --add-special    only puts fixed ids around a single sequence (the
                   post-processor's template; BOS for .model files): ids =
                   P + plain + S, with P and S found from the reference on
                   the sample (one split must fit every sampled document)
                   and then checked on every document, with and without
                   --parse-special.
"""
import hashlib
import json
import os
import re

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SAMPLE_EVERY = 17


def _identity_normalizer(n):
    return n is None or (n.get("type") == "Sequence" and all(_identity_normalizer(x) for x in n.get("normalizers", [])))


def special_texts(name, path, spm, cache_dir):
    """The texts --parse-special can cut out for one tokenizer, or None when
    a normalized special token meets a normalizer that may change the text
    (then matching on the raw text proves nothing)."""
    key = hashlib.sha256(open(path, "rb").read()).hexdigest()[:16]
    cache = os.path.join(cache_dir, "special-texts-%s-%s.json" % (name, key))
    if os.path.exists(cache):
        return json.load(open(cache, encoding="utf-8"))["texts"]
    if spm:
        import sentencepiece
        sp = sentencepiece.SentencePieceProcessor(model_file=path)
        texts = [sp.id_to_piece(i) for i in range(sp.get_piece_size()) if sp.is_control(i) or sp.is_unknown(i)]
    else:
        j = json.load(open(path, encoding="utf-8"))
        sp = [t for t in j.get("added_tokens", []) if t.get("special")]
        texts = [t["content"] for t in sp]
        if any(t.get("normalized") for t in sp) and not _identity_normalizer(j.get("normalizer")):
            texts = None
    texts = sorted(set(t for t in texts if t)) if texts is not None else None
    json.dump({"texts": texts}, open(cache + ".tmp", "w", encoding="utf-8"))
    os.replace(cache + ".tmp", cache)
    return texts


def finder(texts):
    """A function telling whether bytes hold one of texts."""
    if not texts:
        return lambda b: False
    rx = re.compile("|".join(re.escape(t) for t in sorted(texts, key=len, reverse=True)).encode("utf-8"))
    return lambda b: rx.search(b) is not None


def sample(labels, docs, all_texts):
    """Indices of the documents the reference encodes in the flag modes."""
    holds = finder(all_texts)
    return [k for k in range(len(docs))
            if k % SAMPLE_EVERY == 0 or labels[k] == b"controls" or holds(docs[k])]


def affixes(ref_plain, ref_add, idx):
    """(P, S) as bytes with ref_add[j] = P + ref_plain[idx[j]] + S for every
    sampled j, or None when no single split fits them all."""
    if not idx:
        return None
    extra = len(ref_add[0]) - len(ref_plain[idx[0]])
    if extra < 0 or extra % 4:
        return None
    first, fits = ref_add[0], []
    for cut in range(0, extra + 1, 4):
        p, s = first[:cut], first[len(first) - (extra - cut):]
        if all(ref_add[j] == p + ref_plain[i] + s for j, i in enumerate(idx)):
            fits.append((p, s))
    return fits[0] if len(fits) == 1 else None


def check(name, texts, docs, idx, ours, ref_plain, refs):
    """ours: {mode: [payload bytes per document]} for the four modes (the
    plain ones already equal ref_plain); refs: {mode: [reference payload per
    sampled document]}. Returns (ok, [report lines])."""
    lines, ok = [], True
    in_sample = set(idx)
    for mode in ("parse", "add", "add-parse"):
        bad = [j for j, k in enumerate(idx) if ours[mode][k] != refs[mode][j]]
        if bad:
            ok = False
            j = bad[0]
            lines.append("not ok - every code point: %s %s: %d of %d sampled documents differ from the reference; "
                         "first: document %d %r" % (name, mode, len(bad), len(idx), idx[j], docs[idx[j]][:80]))
    if texts is None:
        lines.append("not ok - every code point: %s: a normalized special token under a normalizer: the documents "
                     "outside the sample cannot be argued; send them all to the reference" % name)
        return False, lines
    holds = finder(texts)
    unsampled_special = [k for k in range(len(docs)) if k not in in_sample and holds(docs[k])]
    if unsampled_special:
        lines.append("not ok - every code point: %s: document %d holds a special token's text but is not sampled"
                     % (name, unsampled_special[0]))
        return False, lines
    diff = [k for k in range(len(docs)) if k not in in_sample and ours["parse"][k] != ours["plain"][k]]
    report = "every code point: %s parse: %d documents: %d against the reference, %d (no special token's text) " \
             "equal to plain" % (name, len(docs), len(idx), len(docs) - len(idx))
    if diff:
        ok = False
        lines.append("not ok - %s; %d differ, first: document %d %r" % (report, len(diff), diff[0], docs[diff[0]][:80]))
    else:
        lines.append("ok - " + report)
    ps = affixes(ref_plain, refs["add"], idx)
    if ps is None or any(refs["add-parse"][j] != ps[0] + refs["parse"][j] + ps[1] for j in range(len(idx))):
        lines.append("not ok - every code point: %s: no fixed prefix and suffix fits the reference's --add-special "
                     "ids on the sample, with and without --parse-special" % name)
        return False, lines
    p, s = ps
    for mode, base in (("add", "plain"), ("add-parse", "parse")):
        diff = [k for k in range(len(docs)) if ours[mode][k] != p + ours[base][k] + s]
        report = "every code point: %s %s: %d documents = %d prefix + %s + %d suffix ids (fixed by the reference " \
                 "on %d)" % (name, mode, len(docs), len(p) // 4, base, len(s) // 4, len(idx))
        if diff:
            ok = False
            lines.append("not ok - %s; %d differ, first: document %d %r" % (report, len(diff), diff[0], docs[diff[0]][:80]))
        else:
            lines.append("ok - " + report)
    return ok, lines
