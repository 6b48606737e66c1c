"""synth.py - random small templates for the differential test: expressions
(literals, variables, attributes, items, slices, arithmetic, comparisons,
and/or/not, inline if, ~), filters with arguments, tests, str/dict/list
methods, and statements (if/elif/else, for with loop variables, filters and
else, set and block set, namespace, macros with defaults and call blocks,
break/continue), with every whitespace control marker. Seeded: the same
templates every run. Used by cases.py; each template is rendered with CTX."""
import random

CTX = {
    "s": "Héllo, Wörld! ß", "e": "", "ws": "  a b\tc \n\u3000", "n": 7, "m": -3, "z": 0,
    "f": 2.5, "g": -0.1, "big": 12345678901, "t": True, "fl": False, "nn": None,
    "lst": [3, 1, 2], "strs": ["b", "A", "c", "a", "B"], "mixed": [1, "a", None, 2.5, True],
    "nested": [[1, 2], [3, 4]], "pairs": [["x", 1], ["y", 2]],
    "d": {"b": 1, "a": [1, 2], "c": {"x": "y"}, "items": "shadow", "k-ey": "dash"},
    "msgs": [
        {"role": "system", "content": "Be nice."},
        {"role": "user", "content": "Hi <|im_start|> 🙂"},
        {"role": "assistant", "content": None,
         "tool_calls": [{"id": "c1", "function": {"name": "f", "arguments": {"a": 1, "b": "two"}}}]},
        {"role": "tool", "content": "{\"r\": 1}"},
        {"role": "assistant", "content": "<think>x</think>\n\nDone."},
    ],
    "uni": "日本語🙂e\u0301 ΣΑΣ",
    "num_s": " 42 ", "float_s": "3.5e2", "bad_s": "4x", "csv": "a,b,,c",
    "tl": "o'neil mcDONALD-smith (jr.) [iii] {x}<y>\tz ﬁn ǆ ŉ İ ΌΣ ΣΑΣ.",
    "multi": "line1\nline2\n\nline4",
}

STR_EXPRS = ["s", "e", "ws", "uni", "tl", "tl", "num_s", "float_s", "bad_s", "csv", "multi", "'lit'", '"dq\\"x"', "d['items']",
             "'it\\'s'", "'a\\nb'", "'\\u00e9\\x41'", "msgs[1].content", "d.c.x", "'%s-%d'", "'{0}:{}'"]
INT_EXPRS = ["n", "m", "z", "big", "0", "1", "-1", "3", "1_000", "0x1f", "lst[0]", "d.b", "lst|length"]
FLOAT_EXPRS = ["f", "g", "1.5", "1e3", "0.1", "-2.5", "1e-7", "3.0"]
LIST_EXPRS = ["lst", "strs", "mixed", "nested", "pairs", "[]", "[1, 'a']", "msgs", "(1, 2)", "range(4)",
              "d.a", "msgs|map(attribute='role')|list", "csv.split(',')"]
DICT_EXPRS = ["d", "{}", "{'a': 1, 'b': [2]}", "msgs[0]", "msgs[2].tool_calls[0].function", "d.c"]
OTHER = ["t", "fl", "nn", "nope", "d.nope", "msgs[9]", "lst[5]", "true", "none", "0b101", "0o17",
         "1_000.5", "1E5", "'\\101\\x42\\u0043\\U0001F600\\q\\é'", "'a\\\nb'", "(1,)", "()",
         "{1: 'a', 2.5: 'b', none: 'c', (1, 2): 'd', true: 'e'}", "nested.0", "d.c['x']", "lst.1",
         "'x' 'y' \"z\"", "nope == nope", "nope in lst", "[nope]|length", "{}.a is defined"]

STR_FILTERS = ["trim", "upper", "lower", "capitalize", "title", "length", "count", "string", "list",
               "first", "last", "reverse|join", "int", "float", "safe", "escape", "wordcount", "center(9)",
               "replace('l', 'L')", "replace('', '-', 2)", "trim('H!')", "indent(2)",
               "indent(2, true)", "indent('> ', blank=true)", "truncate(8)", "truncate(9, true, '..', 0)",
               "format(1, 2)", "default('dflt')", "tojson", "join('|')", "unique|list", "sort|join"]
LIST_FILTERS = ["length", "first", "last", "list", "sort", "sort(reverse=true)", "unique|list",
                "reverse|list", "join(', ')", "join", "tojson", "tojson(indent=2)", "sum", "min", "max",
                "select('odd')|list", "reject('none')|list", "select|list", "map('string')|list",
                "selectattr('role', 'equalto', 'user')|list", "rejectattr('content')|list",
                "map(attribute='role', default='?')|list", "batch(2)|list", "batch(2, 0)|list",
                "slice(2)|list", "string", "dictsort", "items|list", "default([9])", "count",
                "sort(attribute='0')", "map('upper')|list", "selectattr('role')|list"]
DICT_FILTERS = ["items|list", "dictsort", "dictsort(by='value')", "dictsort(reverse=true)", "tojson",
                "tojson(indent=1)", "tojson(sort_keys=true)", "tojson(separators=(',', ':'))",
                "tojson(true)", "tojson(indent='\\t')", "tojson(indent=0)", "list", "length", "first", "last",
                "string", "attr('b')", "default", "attr('items') is callable"]
NUM_FILTERS = ["abs", "round", "round(1)", "round(1, 'floor')", "round(0, 'ceil')", "int", "float",
               "string", "string|length", "tojson", "default(0)", "float|round(2)", "format"]
TESTS = ["defined", "undefined", "none", "string", "number", "integer", "float", "boolean", "true",
         "false", "mapping", "iterable", "sequence", "callable", "odd", "even", "divisibleby 3",
         "divisibleby(2)", "lower", "upper", "eq 7", "equalto('a')", "ne 1", "gt 1", "ge(0)", "lt 5",
         "le 2", "in [1, 2, 3]", "in 'Héllo'", "sameas none", "sameas true", "escaped", "filter",
         "test"]
METHODS = ["strip()", "lstrip()", "rstrip('\\n ')", "split()", "split(',')", "split(',', 1)",
           "rsplit(',', 1)", "split('l')", "startswith('H')", "startswith(('a', 'H'))", "endswith('!')",
           "upper()", "lower()", "title()", "capitalize()", "swapcase()", "replace('o', '0')",
           "find('l')", "rfind('l')", "find('')", "count('l')", "splitlines()", "splitlines(true)",
           "isdigit()", "isalpha()", "isspace()", "islower()", "isupper()", "zfill(5)", "ljust(8, '.')",
           "rjust(8)", "center(10, '*')", "partition(',')", "rpartition('l')", "removeprefix('H')",
           "removesuffix('!')", "join(['x', 'y'])", "format(1, 'b')", "index('x')", "strip('Hd!')"]
DICT_METHODS = ["items()|list", "keys()|list", "values()|list", "get('b')", "get('zz', 5)", "get('a', 0)", "copy()"]
LIST_METHODS = ["count(1)", "index(1)", "index(9)"]


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def pick(self, xs):
        return self.r.choice(xs)

    def expr(self, depth=0):
        r = self.r.random()
        if depth > 2 or r < 0.25:
            return self.atom()
        kind = self.pick(["filter", "filter", "test", "method", "binop", "binop", "cmp", "logic", "cond",
                          "concat", "item", "slice", "unary", "call"])
        if kind == "filter":
            base, fl = self.pick([(STR_EXPRS, STR_FILTERS), (LIST_EXPRS, LIST_FILTERS), (DICT_EXPRS, DICT_FILTERS),
                                  (INT_EXPRS + FLOAT_EXPRS, NUM_FILTERS), (OTHER, STR_FILTERS + NUM_FILTERS)])
            return "%s|%s" % (self.paren(self.pick(base), depth), self.pick(fl))
        if kind == "test":
            return "%s is %s%s" % (self.paren(self.atom(), depth), self.pick(["", "not "]), self.pick(TESTS))
        if kind == "method":
            which = self.r.random()
            if which < 0.6:
                return "%s.%s" % (self.paren(self.pick(STR_EXPRS), depth), self.pick(METHODS))
            if which < 0.85:
                return "%s.%s" % (self.paren(self.pick(DICT_EXPRS), depth), self.pick(DICT_METHODS))
            return "%s.%s" % (self.paren(self.pick(LIST_EXPRS), depth), self.pick(LIST_METHODS))
        if kind == "binop":
            op = self.pick(["+", "-", "*", "/", "//", "%", "**"])
            if op in ("*", "**"):
                # small operands: no huge strings or numbers in Python either
                small = ["n", "m", "z", "f", "g", "2", "3", "-1", "0.5", "t", "fl", "nn", "nope"]
                if op == "**":  # a negative base to a fractional power is complex in Python
                    return "%s ** %s" % (self.pick(["n", "z", "f", "2", "0.5", "t", "fl", "nope"]), self.pick(small))
                return "%s * %s" % (self.pick(small + ["s", "lst", "'ab'", "[1]", "(1, 2)"]), self.pick(small))
            return "%s %s %s" % (self.expr(depth + 1), op, self.expr(depth + 1))
        if kind == "cmp":
            return "%s %s %s" % (self.expr(depth + 1), self.pick(["==", "!=", "<", "<=", ">", ">=", "in", "not in"]),
                                 self.expr(depth + 1))
        if kind == "logic":
            op = self.pick(["and", "or"])
            return "%s %s %s" % (self.expr(depth + 1), op, self.expr(depth + 1)) if self.r.random() < 0.8 \
                else "not %s" % self.expr(depth + 1)
        if kind == "cond":
            if self.r.random() < 0.2:
                return "(%s if %s)" % (self.expr(depth + 1), self.expr(depth + 1))
            return "(%s if %s else %s)" % (self.expr(depth + 1), self.expr(depth + 1), self.expr(depth + 1))
        if kind == "concat":
            return "%s ~ %s" % (self.expr(depth + 1), self.expr(depth + 1))
        if kind == "item":
            return "%s[%s]" % (self.paren(self.pick(LIST_EXPRS + DICT_EXPRS + STR_EXPRS), depth),
                               self.pick(["0", "1", "-1", "'role'", "'b'", "'k-ey'", "5", "true"]))
        if kind == "slice":
            parts = [self.pick(["", "1", "-2", "0", "9"]), self.pick(["", "2", "-1", "3"])]
            if self.r.random() < 0.4:
                parts.append(self.pick(["", "2", "-1", "-2"]))
            return "%s[%s]" % (self.paren(self.pick(LIST_EXPRS + STR_EXPRS), depth), ":".join(parts))
        if kind == "unary":
            return "%s(%s)" % (self.pick(["-", "+"]), self.expr(depth + 1))
        return self.pick(["range(%d)|list" % self.r.randint(0, 5), "range(1, 9, 3)|list", "range(5, 0, -2)|join(',')",
                          "dict(a=1, b='x')", "namespace(a=1).a", "strftime_now('%Y-%m-%d %a %j')",
                          "joiner('-')()", "cycler(1, 2).next()", "'%s and %r' % ('x', 'y')", "'%d%%' % 5",
                          "'{}|{:>4}|{:.1f}'.format(1, 'ab', 2.25)", "'x'.join(strs)", "lipsum_missing"])

    def paren(self, e, depth):
        # x|f.m() would name the filter "f.m": always bracket filtered operands
        return "(%s)" % e if ("|" in e or (" " in e and self.r.random() < 0.9)) else e

    def atom(self):
        return self.pick(STR_EXPRS + INT_EXPRS + FLOAT_EXPRS + LIST_EXPRS + DICT_EXPRS + OTHER)

    def ws(self):
        return self.pick(["", "", "", "-", "+"])

    def stmt(self, depth=0):
        k = self.r.random()
        a, b = self.ws(), self.ws()
        if depth > 1 or k < 0.35:
            return "{{%s %s %s}}" % (a.replace("+", ""), self.expr(), b.replace("+", ""))
        nl = self.pick(["", "\n", "\n  ", "  \n", " "])
        body = lambda: "".join(self.stmt(depth + 1) + self.pick(["", "\n", " ", "x"]) for _ in range(self.r.randint(1, 2)))
        if k < 0.5:
            s = "{%%%s if %s %s%%}%s%s" % (a, self.expr(), b, nl, body())
            if self.r.random() < 0.4:
                s += "{%% elif %s %%}%s" % (self.expr(), body())
            if self.r.random() < 0.5:
                s += "{%%%s else %s%%}%s" % (self.ws(), self.ws(), body())
            return s + "{%% endif %s%%}%s" % (self.ws(), nl)
        if k < 0.7:
            target = self.pick(["x", "x", "k, v"])
            it = self.pick(LIST_EXPRS + ["d.items()", "d", "s", "pairs", "msgs", "range(3)", "nope"])
            filt = " if x" if target == "x" and self.r.random() < 0.2 else ""
            inner = self.pick(["{{ x }}", "{{ loop.index }}{{ loop.last }}", "{{ loop.revindex }}/{{ loop.length }}",
                               "{{ loop.previtem }}|{{ loop.nextitem }}", "{{ loop.cycle('a', 'b') }}",
                               "{% if loop.first %}F{% endif %}", "{% if loop.index > 1 %}{% break %}{% endif %}{{ x }}",
                               "{% if x is number %}{% continue %}{% endif %}{{ x }}", "{{ k }}={{ v }}",
                               "{{ loop.changed(x) }}", "{{ loop.depth }}"])
            s = "{%%%s for %s in %s%s %s%%}%s%s" % (a, target, it, filt, b, nl, inner)
            if self.r.random() < 0.3:
                s += "{% else %}none"
            return s + "{%% endfor %s%%}" % self.ws()
        if k < 0.8:
            if self.r.random() < 0.3:
                return "{%% set v | %s %%}%s{%% endset %%}{{ v }}" % (self.pick(["upper", "trim", "length", "tojson"]), body())
            return "{%% set v = %s %%}{{ v }}{%% set ns = namespace(c=v) %%}{{ ns.c }}" % self.expr()
        if k < 0.84:
            return self.pick([
                "{#%s a comment %s#}%s" % (self.ws(), self.ws(), nl),
                "{%%%s raw %s%%}{{ x }}{%% endraw %%}%s" % (self.ws().replace("+", ""), self.ws(), nl),
                "{%% with a = %s, b = %s %%}{{ a }}|{{ b }}{%% endwith %%}" % (self.expr(), self.expr()),
                "{% for x in nested + [5, [6, [7]]] recursive %}<{{ x if x is number else loop(x) }}"
                "{{ loop.depth }}>{% endfor %}",
                "{%% macro vv(a) %%}{{ a }}{{ varargs }}{{ kwargs }}{%% endmacro %%}{{ vv(%s, %s, k=%s) }}"
                % (self.expr(), self.expr(), self.expr()),
                "{%% macro ww(x) %%}{{ caller(x) }}{%% endmacro %%}{%% call(y) ww(%s) %%}<{{ y }}>{%% endcall %%}"
                % self.expr(),
                "{% for a in strs %}{% set outer = loop %}{% for b in lst %}{{ outer.index }}{{ loop.index }}"
                "{% endfor %}{% endfor %}",
                "{%% set ns = namespace(items=[]) %%}{%% for x in %s %%}{%% set ns.items = ns.items + [x] %%}"
                "{%% endfor %%}{{ ns.items }}" % self.pick(LIST_EXPRS),
                "{%% if %s %%}a{%% elif %s %%}b{%% else %%}c{%% endif %%}" % (self.expr(), self.expr()),
            ])
        if k < 0.9:
            return ("{%% macro mm(a, b=%s) %%}[{{ a }}|{{ b }}{%% if caller is defined %%}{{ caller() }}{%% endif %%}]"
                    "{%% endmacro %%}{{ mm(%s) }}{%% call mm(1) %%}c{%% endcall %%}") % (self.expr(), self.expr())
        return "{%% filter %s %%}%s{%% endfilter %%}" % (self.pick(["upper", "trim", "indent(2)", "replace('a', 'b')"]), body())

    def template(self):
        n = self.r.randint(1, 3)
        pre = self.pick(["", "A", "  ", "\n", "line\n    ", "\t", " \t\n\t "])
        return pre + "".join(self.stmt() + self.pick(["", "\n", "  \n", " z ", "\n\t", "\n\n  "]) for _ in range(n))


def templates(count, seed=20240726):
    g = Gen(seed)
    return [g.template() for _ in range(count)]
