#!/usr/bin/python3
"""onig_cases.py - Split patterns in Oniguruma's syntax, for
tests/sh/test_encode_onig.sh: one JSON line {"pattern": P, "texts": [...]}
per pattern, on standard output. The patterns are whole spaces, not samples:

- every backslash escape of a printable ASCII character, alone and in a class;
- every kind of class item (literal, range, escaped code point, set escape,
  property, POSIX bracket, nested and negated class, leading ']' and '-')
  in every class context (alone, negated, beside a letter, either side of
  '&&', nested, under (?i));
- every quantifier (greedy, lazy, possessive, intervals of every form,
  Oniguruma's reversed {n,m}, a quantifier on a quantifier) on every kind of
  atom;
- anchors, groups, look-arounds, back-references and the options i, m, x;
- the tokenizers' own patterns: BLOOM's, GPT-2's and those of the fetched
  tokenizers (passed as arguments: their tokenizer.json files).

Left out, as hf_onig.c says: \\X (PCRE2 10.42's grapheme clusters are
Unicode 14's) and (?i)[\\H] (Oniguruma folds U+FB00 to "ff" in a class:
multi-character folds). The constructs calkit refuses (REFUSED in
test_encode_onig.sh) are in, so that the refusal is seen.

    onig_cases.py [TOKENIZER.json]... >CASES.jsonl
"""
import json
import re
import sys

TEXTS = [
    "a\nb\n", "aaa", "x$y.z", "ab\ncd", "aQbE\u212aKk", "ab]c-d\b^", "a a\n\r\nb\r", "\u00e9e\u0301 x",
    "abab aab", "ABC abc", "aaaaa", "{x}1{,2}", "Hello, world! 123 4567 89",
    "  spaces\t\ttabs\n\nnew\x0bvt\x0cff", "中文，标点。日本語、カタカナ", "हिन्दी। اردو۔ عربي، ٣٤",
    "emoji 😀 x 👍🏽", "(paren|pipe)[brack]{brace}", "Ünïcödé ÀÉÎ ß ǅ ŉ", "1/2 ½ ² ³ ¼ ¹ ٣ Ⅻ",
    "_under_score-dash–em—", "don't I'll we've 'S 'Re", "\x00nul\x01soh\x1besc\x7fdel", "tab\there",
    "#hash &amp; 100% @at ~tilde `tick` \\back\\", "ſ K Å µ ΐ ﬁ", "\u200bzw\u200cj\u200dj\u2028ls\u2029ps\u0085nel",
]

# BLOOM's pre-tokenizer (a class nested in a class) and GPT-2's
KNOWN = [
    " ?[^(\\s|[.,!?…。，、।۔،])]+",
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+",
    " {2,}", "\\s+$", "^\\s+", "(?m)^.+$", "▁+", "[\\u4e00-\\u9fa5]",
]

ESC_SKIP = {"X"}  # PCRE2's \X is Unicode 14's

def escapes():
    out = []
    for o in range(0x20, 0x7F):
        c = chr(o)
        if c in ESC_SKIP:
            continue
        out.append("\\" + c)
        out.append("[\\" + c + "]")
        out.append("[a\\" + c + "z]")
    return out

ITEMS = [
    "a", "a-c", "A-Z", "0-9", "\\x41", "\\x{e9}", "\\u00e9", "\\101", "\\t", "\\n", "\\r", "\\f", "\\v",
    "\\a", "\\e", "\\b", "\\cA", "\\C-a", "\\s", "\\S", "\\w", "\\W", "\\d", "\\D", "\\h", "\\H", "\\p{L}",
    "\\P{L}", "\\p{^N}", "\\p{Lu}", "\\p{Greek}", "\\p{Han}", "\\p{Nd}", "\\p{P}", "\\p{S}", "\\p{Zs}",
    "\\p{Alphabetic}", "[:alpha:]", "[:^alpha:]", "[:alnum:]", "[:blank:]", "[:cntrl:]", "[:digit:]",
    "[:graph:]", "[:print:]", "[:punct:]", "[:space:]", "[:word:]", "[:xdigit:]", "[:ascii:]",
    "[:^space:]", "[ab]", "[^ab]", "[a-z&&[^aeiou]]", "[\\w&&\\p{^L}]", "\\]", "\\[", "\\-", "\\\\", "\\^",
    "é-ü", "一-龥", "(", ")", "|", ".", "$", "*", "+", "?", "{", "}", "#", " ",
]

def classes():
    out = []
    for x in ITEMS:
        out += ["[" + x + "]", "[^" + x + "]", "[q" + x + "]", "[" + x + "q]", "[" + x + "&&\\w]",
                "[\\w&&" + x + "]", "[[" + x + "]x]", "(?i)[^" + x + "]", "[" + x + "]+"]
        if x != "\\H":  # multi-character folds (see above)
            out.append("(?i)[" + x + "]")
    out += ["[]a]", "[]]", "[^]a]", "[a-]", "[-a]", "[a-c-e]", "[\\w-]", "[-\\w]", "[a&&]", "[&&a]",
            "[a&&&b]", "[a-c&&b-d&&c]", "[^a-z&&[aeiou]]", "[[^a][^b]]", "[[[[a]]]]", "[^[^[^a]]]",
            "[a-z&&b-y&&[^c]]", "[\\x{0}-\\x{10ffff}]", "[^\\x{0}-\\x{10ffff}]"]
    return out

ATOMS = ["a", ".", "[ab]", "(ab)", "(?:a|b)", "\\w", "\\p{L}", "\\s", "a\\d"]
QUANTS = ["*", "+", "?", "{2}", "{1,2}", "{,2}", "{2,}", "{2,1}", "{0}", "{1,1}", "*?", "+?", "??", "{2}?",
          "{1,2}?", "{,2}?", "{2,}?", "*+", "++", "?+", "{2}+", "{1,2}+", "**", "*{2}", "+*", "{2}{3}", "{2}*",
          "{", "{,}", "{x}", "{1", "{ 1}"]

def quantified():
    return [a + q for a in ATOMS for q in QUANTS]

MISC = [
    "^", "$", "^.", ".$", "^a|b$", "\\A.", ".\\z", ".\\Z", "\\Ga", "\\ba", "a\\b", "\\Ba", "\\b", "\\B",
    "(?=a)", "(?!a)a", "(?<=a)b", "(?<!a)b", "(?<=ab|c)d", "(?>a+)b", "(?<n>a)\\k<n>", "(?'n'a)\\k'n'",
    "(a)\\1", "(a)(b)\\2", "(a)\\g<1>", "(?<n>a|b)\\g<n>", "(a)?(?(1)b|c)", "(?#comment)a", "a(?#c)+",
    "(?i)a", "(?i:a)b", "(?-i)a", "(?i)a(?-i)b", "(?m).", "(?m)a.b", "(?-m).", "(?x) a b # c", "(?ix) A b",
    "(?mi:A.)", "(?i)\\p{Lu}", "(?i)\\P{Ll}", "(?i)[\\p{Lu}]", "(?i)ß", "(?i)ſ", "(?i)k", "(?i)µ",
    "\\p{Hani}+", "\\p{Latn}+", "\\p{Cyrl}", "\\p{Common}+", "\\p{Inherited}", "\\p{^Han}+", "\\P{^L}",
    "\\p{Any}", "\\p{Assigned}", "\\p{Cn}", "\\p{Word}+", "\\p{Space}", "\\p{Alpha}+", "\\x{1F600}",
    "\\u00e9", "\\uD83D", "\\x{110000}", "\\0", "\\012", "\\177", "\\8", "\\9", "\\1", "\\N", "\\R", "\\K",
    "\\O", "a|", "|a", "()", "(|)", "a{1}{2}", "(?)", "(?s).", "(?P<n>a)", "(?W)\\w", "(?z)", "a)", "(a",
    "[", "]", "[]", "[^]", "[z-a]", "[[:foo:]]", "[[:alpha:]-z]", "[a-\\w]", "\\p{Foo}", "\\p", "\\",
    "\\pL", "[\\pL]", "\\u", "\\u12", "[\\u]", "\\x{110000}", "\\x{13ffff}", "\\x{140000}", "\\x{ffffffff}",
    "\\x{41 42}", "[\\x{41 42}]", "\\x{ 41 }", "\\k", "\\g", "\\k1",
    "(?~ab)", "[[:upper:]]", "[[:^lower:]]", "\\y", "\\Y", "(?W)\\w", "(?D)\\d", "(?S)\\s", "(?P)[[:alpha:]]",
]

def main():
    pats = []
    for path in sys.argv[1:]:
        # the normalizer and pre-tokenizer come before the (large) model
        with open(path, encoding="utf-8") as f:
            text = f.read()
        head = text[:text.find('"model"')] if '"model"' in text else text
        for m in re.finditer(r'"Regex"\s*:\s*("(?:[^"\\]|\\.)*")', head):
            pats.append(json.loads(m.group(1)))
    pats += KNOWN + escapes() + classes() + quantified() + MISC
    seen = set()
    for p in pats:
        if p in seen:
            continue
        seen.add(p)
        print(json.dumps({"pattern": p, "texts": TEXTS}))

main()
