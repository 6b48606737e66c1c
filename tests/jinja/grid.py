"""grid.py OUT - the whole space of Jinja's built-in filters and tests, over
every kind of value a template can hold, rendered by python3-jinja2 as
transformers sets it up (hfenv.py), as cases for `test_jinja_jinja --cases
OUT` (the format of cases.py; one TAP group per filter, test or operator):

  every filter of jinja2.filters.FILTERS (with transformers' tojson) x each
  of its argument lists below x every value of VALUES;
  every test of jinja2.tests.TESTS x its argument lists x every value;
  every binary operator x every pair of NUMBERS (the numeric values, big
  ints among them, and a few others).

A filter or test jinja2 has that is not listed here fails the run: a new
jinja2 cannot add one unseen. Outputs holding an object's address (a
generator, a bound method, a cycler) are compared as "renders without
error"; a generator or dict view is printed as a list (its repr has an
address). `random` is random.choice on Python's global generator, which
calkit seeds with 0 as each render starts (lib/jinja/jinja_filters.c: the
same output every run): render() calls random.seed(0) before each render,
so that jinja2 draws as calkit does."""
import json
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hfenv  # noqa: E402
import jinja2  # noqa: E402
from jinja2 import filters as jfilters, tests as jtests  # noqa: E402

VALUES = [
    "none", "true", "false", "0", "7", "-3", "12345678901234567890", "-(2 ** 70)", "2.5", "-0.0", "1e300",
    "SNAN|float", "SINF|float", "'H\\u00e9llo w\\u00f6rld'", "''", "'<a href=\"x\">b &amp; c</a>  <!-- c --> d'",
    "'  a  b\\n c '", "'42'", "' 3.5e2 '", "'123456789012345678901234567890'", "'0x1f'",
    "'see www.example.com and http://x.org/a?b=c&d <x@y.org>'", "'word ' * 12", "'a\\tb\\n\\nc'",
    "[3, 1, 2]", "['b', 'A', 'a', 'B']", "[]", "[1, 'a', none]", "[[1, 2], [3]]",
    "[{'k': 'x', 'v': 1}, {'k': 'y', 'v': 2}, {'k': 'X', 'v': 3}]", "(1, 'a')", "{'b': 1, 'a': 2}", "{}",
    "{'a': {'b': [1, 2]}, 'c d': 'e<f'}", "nope", "{}.nope", "namespace(a=1)", "m", "loop", "[1, 2, 3]|select",
    "range(4)", "'<b>x</b>'|safe", "{'a': 1}.items()", "'x'.upper", "cycler(1, 2)", "joiner()", "[2 ** 64, 1]",
    # for the text filters: hyphens and em-dashes (wordwrap), references and
    # comments (striptags), brackets around addresses (urlize), and values
    # past pprint's 80 columns
    "'Look, goof-ball -- use the -b option! a-very-long-hyphenated-word\\nand---more text--here x-y'",
    "'&amp;&lt;&#39;&#x41;&#0;&#x110000;&#128;&eacute;&notit;&amp &ampx &#;<!-- a <b> -->z<!--<!---->-->'",
    "'(see http://x.org/a_(b)). <www.y.com>, mailto:a@b.cd x@y.org (https://[::1]:80/p) 127.0.0.1 foo.info.'",
    "range(30)|list", "dict(a='x' * 50, b=[1] * 20, c={'d': 'y' * 70})",
    "['long string number one ' * 3, 'two ' * 20, ('t', 'u')]", "'\u00df\u0130 \ufb01 \u1e9e'",
]

# Each filter's argument lists (without the value): jinja2.filters'
# parameters, their typical uses in chat templates, and a few odd ones.
FILTER_ARGS = {
    "abs": [""], "attr": ["('a')", "('upper')"], "batch": ["(2)", "(2, 'x')"],
    "capitalize": [""], "center": ["", "(9)"], "count": [""], "d": ["", "('x', true)"],
    "default": ["('x')", "('x', true)"], "dictsort": ["", "(by='value')", "(true, 'key', true)"],
    "e": [""], "escape": [""], "filesizeformat": ["", "(true)"], "first": [""],
    "float": ["", "(9)"], "forceescape": [""], "format": ["", "(1)", "(1, 2)", "(a=1)"],
    "groupby": ["('k')", "(0)", "('k', default='z')", "('k', case_sensitive=true)"],
    "indent": ["", "(2, true)", "('> ', blank=true)"], "int": ["", "(7)", "(base=16)"], "items": [""],
    "join": ["", "('-')", "(attribute='k')"], "last": [""], "length": [""], "list": [""], "lower": [""],
    "map": ["('upper')", "(attribute='k')", "(attribute='k', default='d')"],
    "max": ["", "(attribute='v')"], "min": ["", "(case_sensitive=true)"], "pprint": [""],
    "reject": ["", "('odd')"], "rejectattr": ["('k')", "('v', 'odd')"],
    "replace": ["('l', 'L')", "('', '-', 2)"], "reverse": [""],
    "round": ["", "(1)", "(1, 'floor')", "(0, 'ceil')"], "safe": [""],
    "select": ["", "('odd')", "('equalto', 'a')"], "selectattr": ["('k')", "('k', 'equalto', 'x')"],
    "slice": ["(2)", "(2, 0)"], "sort": ["", "(reverse=true)", "(attribute='v')", "(case_sensitive=true)"],
    "string": [""], "striptags": [""], "sum": ["", "(start=10)", "(attribute='v')"], "title": [""],
    "tojson": ["", "(indent=2)"], "trim": ["", "('H')"], "truncate": ["(9)", "(9, true)", "(5, false, '..', 0)"],
    "unique": ["", "(attribute='k')"], "upper": [""], "urlencode": [""],
    "urlize": ["", "(10)", "(target='_blank', rel='x')"], "wordcount": [""],
    "wordwrap": ["(5)", "(5, false)", "(10, true, '|')"], "xmlattr": ["", "(false)"],
    "random": [""],
}
SKIPPED_FILTERS = set()

TEST_ARGS = {
    "boolean": [""], "callable": [""], "defined": [""], "divisibleby": ["(3)"], "eq": ["(7)"],
    "equalto": ["('a')"], "==": ["(7)"], "escaped": [""], "even": [""], "false": [""], "filter": [""],
    "float": [""], "ge": ["(0)"], ">=": ["(0)"], "greaterthan": ["(1)"], "gt": ["(1)"], ">": ["(1)"],
    "in": ["([1, 7, 'a'])", "('H\\u00e9llo 7')"], "integer": [""], "iterable": [""], "le": ["(2)"],
    "<=": ["(2)"], "lessthan": ["(5)"], "lower": [""], "lt": ["(5)"], "<": ["(5)"], "mapping": [""],
    "ne": ["(1)"], "!=": ["(1)"], "none": [""], "number": [""], "odd": [""], "sameas": ["(none)", "(true)"],
    "sequence": [""], "string": [""], "test": [""], "true": [""], "undefined": [""], "upper": [""],
}

NUMBERS = ["0", "7", "-3", "12345678901234567890", "-(2 ** 70)", "2 ** 63", "2.5", "-0.0", "1e300", "true",
           "'ab'", "[1]", "none"]
OPERATORS = ["+", "-", "*", "/", "//", "%", "**", "==", "<", ">=", "~", "in"]
BIG = {"12345678901234567890", "-(2 ** 70)", "2 ** 63", "1e300"}

# Values are set to a variable first: jinja2 folds constant expressions at
# compile time, and a folded nan or inf becomes Python source that does not
# run ("NameError: name 'nan' is not defined", a jinja2 bug); SNAN and SINF
# are variables of the render for the same reason. The macro and the loop
# are defined where a value needs them only: compiling is most of the time.
VARS = {"SNAN": "nan", "SINF": "-inf"}


def wrap(v, body):
    """The template that sets V to the value v, then runs body."""
    src = "{%% set V = (%s) %%}%s" % (v, body)
    if v == "loop":
        src = "{% for _ in [1] %}" + src + "{% endfor %}"
    if v == "m":
        src = "{% macro m() %}M{% endmacro %}" + src
    return src


# Values whose str() holds an address: what a filter makes of that text
# is compared as "renders or fails" only.
OPAQUE = {"[1, 2, 3]|select", "'x'.upper", "cycler(1, 2)", "joiner()"}
STR_FILTERS = {"capitalize", "center", "e", "escape", "forceescape", "format", "indent", "lower", "upper", "title",
               "trim", "truncate", "wordcount", "wordwrap", "replace", "striptags", "urlize", "urlencode", "safe",
               "string", "pprint", "length", "count", "reverse", "list", "first", "last", "join", "unique", "sort",
               "min", "max", "batch", "slice", "xmlattr", "tojson", "default", "d", "attr", "map", "select",
               "reject", "selectattr", "rejectattr", "groupby", "sum", "dictsort", "items", "int", "float",
               "filesizeformat", "abs", "round"}
# How a result r is shown: as it is, or (when that printed an address) a
# generator or dict view as a list.
PLAIN = "{{ r }}"
SHOW = "{{ r|list if r is iterable and r is not string and r is not mapping and r is not sequence else r }}"
# An address, or a bound method's repr (MarkupSafe 2 and 3 name Markup's
# methods differently).
ADDRESS = re.compile(r" at 0x[0-9a-f]+|<bound method ", re.I)


def render(env, src, loose=False):
    """{"want": ...}, {"any": true} (the output holds an address, or loose)
    or {"error": ...}; None when jinja2 cannot compile it."""
    try:
        tpl = env.from_string(src)
    except Exception:  # noqa: BLE001 - a syntax error: left out
        return None
    try:
        random.seed(0)  # calkit's random filter: Python's generator seeded with 0 at each render
        out = tpl.render(**VARS)
    except Exception as e:  # noqa: BLE001 - any failure must fail in C too
        r = {"error": "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")}
        if type(e) is jinja2.exceptions.TemplateError:
            r["raise"] = str(e)
        return r
    if loose or ADDRESS.search(out):
        return {"any": True}
    try:
        out.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: no UTF-8 text to compare
        return {"error": "UnicodeEncodeError"}
    return {"want": out}


def cases():
    """(group, template source) for the whole grid, in a fixed order."""
    known = set(jfilters.FILTERS) | {"tojson"}
    missing = sorted(known - set(FILTER_ARGS) - SKIPPED_FILTERS)
    if missing:
        sys.exit("grid.py: jinja2 has filters the grid does not cover: %s" % ", ".join(missing))
    missing = sorted(set(jtests.TESTS) - set(TEST_ARGS))
    if missing:
        sys.exit("grid.py: jinja2 has tests the grid does not cover: %s" % ", ".join(missing))
    for f in sorted(FILTER_ARGS):
        for args in FILTER_ARGS[f]:
            for v in VALUES:
                yield "filter %s" % f, wrap(v, "{%% set r = V|%s%s %%}" % (f, args)), v in OPAQUE and f in STR_FILTERS
    for t in sorted(TEST_ARGS):
        for args in TEST_ARGS[t]:
            for v in VALUES:
                if t.isidentifier():
                    body = "{%% set r = V is %s%s %%}" % (t, args)
                else:  # "==", "<", ...: only select() and friends reach them
                    body = "{%% set r = [V]|select('%s', %s)|list %%}" % (t, args[1:-1])
                yield "test %s" % t, wrap(v, body), v in OPAQUE
    for op in OPERATORS:
        for a in NUMBERS:
            for b in NUMBERS:
                if op == "**" and b in BIG:
                    continue  # Python would work for ever on 7 ** 12345678901234567890
                yield "operator %s" % op, wrap(a, "{%% set W = (%s) %%}{%% set r = V %s W %%}" % (b, op)), False


def main(out_path):
    env = hfenv.environment()
    n = skipped = 0
    with open(out_path, "w", encoding="utf-8") as out:
        out.write(json.dumps({"conv": 0, "vars": VARS}) + "\n")
        for i, (group, body, loose) in enumerate(cases()):
            src = body + PLAIN
            r = render(env, src, loose)
            if r and r.get("any") and not loose:
                src = body + SHOW
                r = render(env, src, loose)
            if r is None:
                skipped += 1
                continue
            out.write(json.dumps({"template": "grid-%d" % i, "group": group, "source": src}, ensure_ascii=False) + "\n")
            case = {"c": 0, "extra": {}}
            case.update(r)
            out.write(json.dumps(case, ensure_ascii=False) + "\n")
            n += 1
    print("# grid: %d expressions (%d filters, %d tests, %d operators)" % (n, len(FILTER_ARGS), len(TEST_ARGS),
                                                                         len(OPERATORS)))
    if skipped:
        sys.exit("grid.py: jinja2 cannot compile %d of the expressions" % skipped)


if __name__ == "__main__":
    main(sys.argv[1])
