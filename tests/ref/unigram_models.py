"""unigram_models.py - random SentencePiece unigram models and texts, each
encoded by cal-encode and by python3-sentencepiece (the library itself):
every setting calkit's unigram engine replays (lib/tok/spm_unigram.h).

    /usr/bin/python3 tests/ref/unigram_models.py WORKDIR [MODELS] [--charsmap MODEL]

Each model is written as a serialized ModelProto by hand (the protobuf wire
format; python3-protobuf is not needed): small alphabets so that pieces
overlap, scores drawn from a few values (ties: the first candidate must
win) and from floats whose sums round differently in float and double,
user-defined, unused, control and byte pieces, byte_fallback or not, the
unknown piece anywhere, every combination of add_dummy_prefix,
remove_extra_whitespaces, escape_whitespaces and
treat_whitespace_as_suffix, with and without the precompiled character map
of a real model (--charsmap: ALBERT's nmt_nfkc). Texts mix the alphabet,
runs of spaces (ASCII and others the map folds), unknown characters and
the pieces' texts. Prints one "ok"/"not ok" line per model, and the first
difference of a failing one. Deterministic (seeded).
"""
import os
import random
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples"))
import calstream  # noqa: E402
import sentencepiece  # noqa: E402

NORMAL, UNKNOWN, CONTROL, USER, UNUSED, BYTE = 1, 2, 3, 4, 5, 6


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field_bytes(f, b):
    return varint(f << 3 | 2) + varint(len(b)) + b


def field_varint(f, v):
    return varint(f << 3) + varint(v)


def field_float(f, x):
    return varint(f << 3 | 5) + struct.pack("<f", x)


def model_bytes(pieces, model_type, byte_fallback, suffix, dummy, extra, escape, charsmap):
    out = bytearray()
    for text, score, typ in pieces:
        p = field_bytes(1, text.encode("utf-8")) + field_float(2, score)
        if typ != NORMAL:
            p += field_varint(3, typ)
        out += field_bytes(1, p)
    trainer = field_varint(3, model_type) + field_varint(24, suffix) + field_varint(35, byte_fallback)
    out += field_bytes(2, trainer)
    norm = field_bytes(1, b"calkit-test")
    if charsmap:
        norm += field_bytes(2, charsmap)
    norm += field_varint(3, dummy) + field_varint(4, extra) + field_varint(5, escape)
    out += field_bytes(3, norm)
    return bytes(out)


def charsmap_of(path):
    """The precompiled_charsmap of a real .model (NormalizerSpec field 2)."""
    data = open(path, "rb").read()

    def fields(b):
        i = 0
        while i < len(b):
            tag, i = read_varint(b, i)
            f, w = tag >> 3, tag & 7
            if w == 0:
                v, i = read_varint(b, i)
            elif w == 1:
                v, i = b[i:i + 8], i + 8
            elif w == 5:
                v, i = b[i:i + 4], i + 4
            else:
                n, i = read_varint(b, i)
                v, i = b[i:i + n], i + n
            yield f, v

    def read_varint(b, i):
        v = s = 0
        while True:
            c = b[i]
            i += 1
            v |= (c & 0x7F) << s
            s += 7
            if c < 0x80:
                return v, i

    for f, v in fields(data):
        if f == 3:
            for g, w in fields(v):
                if g == 2:
                    return w
    return None


def make(rnd, k, charsmap):
    alpha = rnd.choice(["ab", "abc", "ab\u00e9", "xy\u65e5", "ab1"])
    sp = "\u2581"
    texts = set()
    pieces = []
    for _ in range(rnd.randint(4, 40)):
        t = "".join(rnd.choice(alpha) for _ in range(rnd.randint(1, 4)))
        if rnd.random() < 0.4:
            t = sp + t
        texts.add(t)
    if rnd.random() < 0.5:
        texts.add(sp)
    if rnd.random() < 0.3:
        texts.add(sp + sp)
    scores = [-1.0, -2.0, -1.5, -0.5] if rnd.random() < 0.5 else None
    for t in sorted(texts):
        if scores:
            s = rnd.choice(scores)
        else:  # floats whose sums round apart in float and double
            s = -rnd.choice([0.1, 0.2, 0.3, 1.1, 2.2, 3.3, 0.7, 1e-7, 12345.678]) * rnd.choice([1, 3, 7])
        typ = NORMAL
        r = rnd.random()
        if r < 0.08:
            typ = USER
        elif r < 0.14:
            typ = UNUSED
        pieces.append((t, s, typ))
    for ch in alpha:  # most single characters, some left unknown
        if ch not in texts and rnd.random() < 0.7:
            pieces.append((ch, -rnd.choice([3.0, 4.5, 6.0]), NORMAL))
    if rnd.random() < 0.3:
        pieces.append(("(", 0.0, USER))
        pieces.append(("((x", 0.0, USER))
    rnd.shuffle(pieces)
    specials = [("<unk>", 0.0, UNKNOWN), ("<s>", 0.0, CONTROL), ("</s>", 0.0, CONTROL)]
    byte_fallback = rnd.random() < 0.4
    if byte_fallback:
        specials += [("<0x%02X>" % b, 0.0, BYTE) for b in range(256)]
    at = rnd.randint(0, len(pieces))
    pieces = pieces[:at] + specials[:1] + pieces[at:]
    pieces = specials[1:3] + pieces + specials[3:]
    flags = [rnd.random() < 0.5 for _ in range(4)]
    cm = charsmap if charsmap and rnd.random() < 0.5 else None
    data = model_bytes(pieces, 1, byte_fallback, flags[0], flags[1], flags[2], flags[3], cm)
    docs = []
    pool = [p[0].replace(sp, " ") for p in pieces if p[2] in (NORMAL, USER)]
    extra = [" ", "  ", "   ", "\u3000", "\t", "\u00a0", "z", "\u00e8", "\U0001F600", "\uff21", "\u2460", "\u2581"]
    for _ in range(60):
        parts = [rnd.choice(pool + extra + list(alpha)) for _ in range(rnd.randint(0, 12))]
        docs.append("".join(parts))
    docs += ["", " ", "  a", "a  ", " \u3000 ", "\u2581", "((x(", alpha * 3]
    return data, docs


def main():
    work = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 and not sys.argv[2].startswith("-") else 120
    charsmap = charsmap_of(sys.argv[sys.argv.index("--charsmap") + 1]) if "--charsmap" in sys.argv else None
    rnd = random.Random(30)
    os.makedirs(work, exist_ok=True)
    failed = 0
    for k in range(count):
        data, docs = make(rnd, k, charsmap)
        path = os.path.join(work, "m%03d.model" % k)
        open(path, "wb").write(data)
        try:
            sp = sentencepiece.SentencePieceProcessor(model_file=path)
        except Exception as e:  # a model the library refuses is a bug of this generator
            print("not ok - model %d: the library refuses it: %s" % (k, e))
            failed += 1
            continue
        inp = os.path.join(work, "in%03d.cal" % k)
        calstream.write_text(inp, [(b"u", d.encode("utf-8")) for d in docs])
        out = os.path.join(work, "out%03d.cal" % k)
        env = dict(os.environ, CAL_CACHE=os.path.join(work, "cache"))
        r = subprocess.run(["cal-encode", "-v", "-t", path, inp, "-o", out], capture_output=True, env=env)
        if r.returncode != 0:
            print("not ok - model %d: cal-encode exit %d: %s" % (k, r.returncode, r.stderr.decode()[-300:]))
            failed += 1
            continue
        if b"encoded by calkit's unigram" not in r.stderr:  # -v names the engine
            print("not ok - model %d: not encoded by calkit's unigram: %s" % (k, r.stderr.decode()[-300:]))
            failed += 1
            continue
        recs = calstream.read_records(out)[1]
        bad = [(d, list(calstream.ids_of(rec[3])), sp.encode(d)) for d, rec in zip(docs, recs)
               if list(calstream.ids_of(rec[3])) != sp.encode(d)]
        if len(recs) != len(docs) or bad:
            failed += 1
            print("not ok - model %d (%d pieces): %d of %d texts differ" % (k, sp.get_piece_size(), len(bad), len(docs)))
            for d, ours, ref in bad[:2]:
                print("#   %r: ours %s, libsentencepiece %s" % (d, ours, ref))
        else:
            print("ok - model %d (%d pieces): %d texts as libsentencepiece encodes them" % (k, sp.get_piece_size(), len(docs)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
