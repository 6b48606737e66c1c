"""hfenv.py - python3-jinja2 set up the way transformers' apply_chat_template
sets it up (its documented behaviour, written here from scratch): an
ImmutableSandboxedEnvironment with trim_blocks, lstrip_blocks and the
loopcontrols extension; tojson = json.dumps(ensure_ascii=False, ...) with
Python's separators and key order; raise_exception(msg) raises TemplateError;
strftime_now(fmt) formats a fixed time so that tests are reproducible;
{% generation %} ... {% endgeneration %} renders its body."""
import datetime
import json

import jinja2
from jinja2 import nodes
from jinja2.ext import Extension, loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment

NOW = datetime.datetime(2024, 7, 26, 13, 45, 7)  # test_jinja_jinja.c uses the same


class Generation(Extension):
    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return nodes.CallBlock(self.call_method("_body"), [], [], body).set_lineno(lineno)

    def _body(self, caller):
        return caller()


def environment(now=NOW):
    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators,
                          sort_keys=sort_keys)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[Generation, loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: now.strftime(fmt)
    return env
