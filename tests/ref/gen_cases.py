"""gen_cases.py - the generated inputs of the exactness suite (issue 4), one
list of documents (bytes) per group. Deterministic: random parts use
random.Random with fixed seeds. "Assigned" code points are those of the
Unicode version of /usr/bin/python3's unicodedata (14.0 for Python 3.11).

    groups(reduced, specials) -> {group name: [bytes, ...]}

reduced=True (the ASan run) takes every 13th code point and 64 KB words
instead of 1 MB ones; every other group is the same.
"""
import itertools
import random
import unicodedata

LIMIT = 0x30000
EXCLUDED = {"Cn", "Cs", "Co"}  # unassigned, surrogates, private use


def code_points(step=1):
    return [c for c in range(0, LIMIT, step) if unicodedata.category(chr(c)) not in EXCLUDED]


def enc(docs):
    return [d.encode("utf-8") for d in docs]


WS_KINDS = [" ", "\t", "\r", "\n", "\r\n", "\u00a0", "\u2028", "\u2029", "\u3000",
            "\v", "\f", "\u0085", "\u1680", "\u2002", "\u2003", "\u2009", "\u200a",
            "\u202f", "\u205f", "\u200b", "\ufeff", "\u180e"]
WS_MAIN = [" ", "\t", "\n", "\r", "\u00a0", "\u3000", "\u2028"]


def whitespace():
    docs = []
    for k in WS_KINDS:
        for n in range(1, 21):
            w = k * n
            docs += [w, "a" + w + "b", w + "a", "a" + w, "Hello." + w + "World", "x" + w + "\n",
                     "1" + w + "2", "!" + w + "?", w + "<|endoftext|>"]
    for k1, k2 in itertools.product(WS_MAIN, repeat=2):
        for a in range(1, 5):
            for b in range(1, 5):
                w = k1 * a + k2 * b
                docs += [w, "x" + w + "y", "x" + w]
    rnd = random.Random(4)
    for _ in range(600):
        w = "".join(rnd.choice(WS_KINDS) for _ in range(rnd.randint(1, 20)))
        docs.append(rnd.choice(["", "word", "2", "."]) + w + rnd.choice(["", "word", "7", "("]))
    return docs


DIGIT_ZEROS = [0x30, 0x660, 0x6F0, 0x966, 0x9E6, 0xE50, 0xFF10, 0x1D7CE, 0x1040]


def digits():
    docs = []
    base = "1234567890"
    for n in range(1, 41):
        run = (base * 5)[:n]
        docs += [run, "a" + run + "b", run + " ", " " + run, run + "." + run[:3], "x" + run + "x" + run,
                 "-" + run, run + "%", "$" + run]
        docs.append("9" * n)
        docs.append("0" * n)
    for z in DIGIT_ZEROS:
        for n in range(1, 9):
            run = "".join(chr(z + (i * 7 + 3) % 10) for i in range(n))
            docs += [run, "a" + run, run + " b"]
    docs += ["1,234,567", "3.14159265358979", "1e-10", "0x1F", "2024-11-22", "12:30:45",
             "\u00b2\u00b3\u00b9", "\u00bd\u2153", "\u2160\u2161\u216b", "\u2460\u2461\u2473",
             "v1.2.3", "192.168.0.1", "+33 1 23 45 67 89", "10\u00a0000", "1\u202f000"]
    return docs


def contractions():
    docs = []
    suffixes = ["s", "t", "re", "ve", "m", "ll", "d"]
    apos = ["'", "\u2019", "\u02bc", "\uff07"]
    for suf in suffixes:
        for cased in itertools.product(*[(c.lower(), c.upper()) for c in suf]):
            s = "".join(cased)
            for a in apos:
                c = a + s
                docs += [c, "it" + c, "IT" + c, " " + c, "word" + c + " next", "x" + c + c,
                         "1" + c, c + "'", "\n" + c, "Don" + c]
    docs += ["I'm", "you're", "they've", "we'll", "he'd", "it's", "don't", "DON'T", "Y'ALL'D'VE",
             "rock'n'roll", "'tis", "ma'am", "o'clock", "the 90's", "''s", "'s's's", "can't've",
             "l'homme", "dell'arte", "I\u2019M", "WE\u2019LL", "she'S", "He'D", "'", "''", "'''"]
    return docs


def emoji():
    tones = ["\U0001F3FB", "\U0001F3FC", "\U0001F3FD", "\U0001F3FE", "\U0001F3FF"]
    zwj = "\u200d"
    docs = []
    for base in ["\U0001F44D", "\U0001F44B", "\U0001F9D1", "\U0001F469", "\U0001F468", "\u270C"]:
        docs.append(base)
        for t in tones:
            docs += [base + t, "hi " + base + t + "!", base + t + base + t]
            docs.append(base + t + zwj + "\U0001F4BB")
    docs += [
        "\U0001F468\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466",
        "\U0001F469\u200d\u2764\ufe0f\u200d\U0001F48B\u200d\U0001F468",
        "\U0001F3F3\ufe0f\u200d\U0001F308", "\U0001F3F4\u200d\u2620\ufe0f",
        "\U0001F9D1\U0001F3FD\u200d\U0001F91D\u200d\U0001F9D1\U0001F3FB",
        "\U0001F1FA\U0001F1F8", "\U0001F1EF\U0001F1F5\U0001F1EB\U0001F1F7", "\U0001F1FA",
        "\U0001F3F4\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F",
        "I \u2764\ufe0f NY", "\u2764\ufe0e", "\u263a\ufe0f\u263a", "#\ufe0f\u20e3", "1\ufe0f\u20e3 2\ufe0f\u20e3",
        "\U0001F600" * 20, "\U0001F600\U0001F603\U0001F604 smile", "a\U0001F600b", "\U0001F525\U0001F525!",
    ]
    for k in "0123456789#*":
        docs.append(k + "\ufe0f\u20e3")
    return docs


def combining():
    docs = []
    marks = [chr(c) for c in range(0x300, 0x370)]
    rnd = random.Random(7)
    for base in "aeiouAEIOUnSz \u0627\u05d0\u0915\u03b1":
        for m in marks[:40]:
            docs.append(base + m)
        for _ in range(10):
            docs.append("x" + base + "".join(rnd.choice(marks) for _ in range(rnd.randint(2, 6))) + "y")
    for c in range(0xC0, 0x250):
        ch = chr(c)
        if unicodedata.category(ch).startswith("L"):
            nfd = unicodedata.normalize("NFD", ch)
            if nfd != ch:
                docs += [nfd, "word" + nfd + "s", ch + nfd]
    for s in ["Ti\u1ebfng Vi\u1ec7t", "\ud55c\uad6d\uc5b4 \ud14d\uc2a4\ud2b8", "\u0915\u094d\u0937\u0924\u094d\u0930\u093f\u092f",
              "\u0e20\u0e32\u0e29\u0e32\u0e44\u0e17\u0e22", "Z\u0351\u036b\u0343\u036a\u0302\u036b\u033d\u034f\u0334algo",
              "\u1100\u1161\u11a8", "caf\u00e9 cafe\u0301", "\u212b \u00c5 A\u030a", "\ufb01 \ufb03", "\u0301 leading mark",
              " \u0301", "\u034f", "a\u034f\u0301", "\u0644\u064e\u0651\u0647\u0650"]:
        docs += [s, unicodedata.normalize("NFD", s), unicodedata.normalize("NFKC", s)]
    return docs


def rtl():
    ar = "\u0627\u0644\u0644\u063a\u0629 \u0627\u0644\u0639\u0631\u0628\u064a\u0629 \u062c\u0645\u064a\u0644\u0629"
    he = "\u05e2\u05d1\u05e8\u05d9\u05ea \u05e9\u05e4\u05d4 \u05e2\u05ea\u05d9\u05e7\u05d4"
    heniq = "\u05d1\u05bc\u05b0\u05e8\u05b5\u05d0\u05e9\u05b4\u05c1\u05d9\u05ea"
    fa = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"
    ur = "\u0627\u0631\u062f\u0648 \u0632\u0628\u0627\u0646"
    bidi = ["\u200e", "\u200f", "\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069", "\u061c"]
    docs = [ar, he, heniq, fa, ur, ar + " " + he, "abc " + ar + " 123 " + he + " def",
            ar + " \u0661\u0662\u0663", ar + "\u060c " + ar + "\u061f", he + ", " + he + ".",
            "(" + ar + ")", "\"" + he + "\"", ar * 10, "\ufdfd \ufefb \ufe8d"]
    for b in bidi:
        docs += [b, b + ar + b, "x" + b + "y", b + he + "\u202c", b * 3]
    return docs


def specials(strings):
    docs = []
    strings = sorted(set(s for s in strings if s))
    for s in strings:
        docs += [s, "x" + s + "y", " " + s + " ", s + s, s + "\n", "Hello" + s]
        if len(s) > 2:
            docs.append(s[:-1])
            docs.append(s[1:])
    rnd = random.Random(11)
    for _ in range(300):
        a, b = rnd.choice(strings), rnd.choice(strings)
        docs.append(a + b)
        docs.append("text " + a + " more" + b + "end")
    return docs


def big(reduced):
    """Words of 1 MB (64 KB reduced): one letter repeated, random letters,
    a run of spaces; and 256 KB of one CJK character (libsentencepiece's
    unigram model is quadratic on runs of unknown characters: 22 s for 1 MB)."""
    n = 1 << 16 if reduced else 1 << 20
    letters = bytes(97 + i % 26 for i in range(256))
    return [
        b"a" * n,
        random.Random(1).randbytes(n).translate(letters),
        ("\u4e2d" * (n // 12)).encode(),
        b" " * n,
    ]


def invalid():
    seqs = [b"\x80", b"\xbf", b"\xc0\xaf", b"\xc1\xbf", b"\xe0\x80\x80", b"\xe0\x9f\xbf", b"\xed\xa0\x80",
            b"\xed\xbf\xbf", b"\xf0\x80\x80\x80", b"\xf0\x8f\xbf\xbf", b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80",
            b"\xf8\x88\x80\x80\x80", b"\xfc\x84\x80\x80\x80\x80", b"\xfe", b"\xff", b"\xc2", b"\xe2\x82",
            b"\xf0\x9f\x98", b"\xf1\x80\x80\xe1\x80\xc2", b"\xe2\x82\xe2\x82\xac", b"\xc3\x28", b"\xa0\xa1",
            b"\xe2\x28\xa1", b"\xf0\x28\x8c\xbc", b"\xf0\x90\x28\xbc", b"\xef\xbf\xbd"]
    docs = []
    for s in seqs:
        docs += [s, b"a" + s + b"b", s + s, b"word " + s, s + b" word", b"\xe4\xb8\xad" + s + b"\xe6\x96\x87"]
    for c in range(0x80, 0x100):
        docs += [bytes([c]), b"x" + bytes([c]) + b"y"]
    rnd = random.Random(3)
    for _ in range(300):
        docs.append(bytes(rnd.randrange(256) for _ in range(rnd.randint(1, 64))))
    text = "The quick brown fox \u00e9t\u00e9 \u4e2d\u6587 \U0001F600 jumps over the lazy dog.".encode()
    for _ in range(300):
        b = bytearray(text)
        for _ in range(rnd.randint(1, 4)):
            b[rnd.randrange(len(b))] = rnd.randrange(256)
        docs.append(bytes(b))
    return docs


def packed(cps, fmt, sep, per=64):
    """Documents of per code points each, every one written as fmt, joined by
    sep: a million documents of one code point would cost the reference more
    than the text."""
    return [sep.join(fmt.format(chr(c)) for c in cps[i:i + per]).encode("utf-8")
            for i in range(0, len(cps), per)]


def controls():
    """The C0 and C1 controls (and DEL) inside real text."""
    text = "The quick brown fox jumps over the lazy dog. \u00c7a co\u00fbte 12,50 \u20ac. \u4e2d\u6587\u6587\u672c\u3002"
    docs = []
    for c in [chr(c) for c in list(range(0, 0x20)) + list(range(0x7F, 0xA0))]:
        docs += [text[:20] + c + text[20:], c + text, text + c, "word" + c * 3 + "word", c + " " + c,
                 "<|im_start|>" + c + "user", "<s>" + c + "</s>", "12" + c + "34", " " + c + "\n",
                 "it" + c + "'s", "\u00e9" + c + "\u0301", "\U0001F600" + c]
    return enc(docs)


def unicode_groups(step=1):
    """Every step-th code point U+0000..U+10FFFF but the surrogates, assigned
    or not, alone (between newlines); those of planes 0-3 and 14 (where every
    assigned character is) also after a letter, as the base of a combining
    sequence and inside one (after a base and a mark of class 220, before a
    mark of class 230: reordering and composition), while planes 4-13, 15 and
    16 hold only unassigned and private-use code points, alike there; and the
    controls inside real text."""
    cps = [c for c in range(0, 0x110000, step) if not 0xD800 <= c < 0xE000]
    lively = [c for c in cps if c < 0x40000 or 0xE0000 <= c < 0xF0000]
    return {
        "u-alone": packed(cps, "{}", "\n"),
        "u-after-letter": packed(lively, "a{}", " "),
        "u-base": packed(lively, "{}\u0301", " "),
        "u-inside": packed(lively, "a\u0323{}\u0301", " "),
        "controls": controls(),
    }


def groups(reduced=False, special_strings=()):
    step = 13 if reduced else 1
    cps = [chr(c) for c in code_points(step)]
    return {
        "cp": enc(cps),
        "cp-between": enc("a" + c + "b" for c in cps),
        "whitespace": enc(whitespace()),
        "digits": enc(digits()),
        "contractions": enc(contractions()),
        "emoji": enc(emoji()),
        "combining": enc(combining()),
        "rtl": enc(rtl()),
        "specials": enc(specials(special_strings)),
        "big": big(reduced),
        "invalid-utf8": invalid(),
    }
