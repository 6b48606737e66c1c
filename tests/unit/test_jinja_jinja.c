/* test_jinja_jinja.c - the Jinja interpreter (jinja/jinja.h).
 *
 * Without arguments: exact expectations (Jinja's documented behaviour: trim
 * and lstrip, scoping, Undefined, filters, errors with their lines, limits).
 * With --cases FILE: the differential driver of tests/sh/test_jinja.sh.
 * FILE is JSON Lines written by tests/jinja/cases.py from python3-jinja2:
 *   {"conv": K, "vars": {...}}                  a conversation (messages, tools)
 *   {"template": NAME, "source": TEXT}          a template (later cases use it)
 *   {"c": K, "extra": {...}, "want": TEXT}      conversation K plus the extra
 *                                               variables must render to TEXT
 *   {"c": K, "extra": {...}, "error": E, "raise": MSG}  must fail; MSG (for
 *                                               raise_exception) is the message
 *   {"c": K, "extra": {...}, "any": true}       must render (jinja2's output
 *                                               held an object's address)
 * Prints one TAP line per template; all renders use a fixed strftime_now date
 * (2024-07-26 13:45:07, as cases.py). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test.h"
#include "jinja/jinja.h"

static struct tm fixed_now(void) {
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    tm.tm_year = 2024 - 1900;
    tm.tm_mon = 6;
    tm.tm_mday = 26;
    tm.tm_hour = 13;
    tm.tm_min = 45;
    tm.tm_sec = 7;
    return tm;
}

/* Renders src with vars (JSON text); returns the output or "ERROR: msg". */
static char *render(const char *src, const char *vars_json, const cal_jinja_opts *o) {
    static char out_s[1 << 16];
    char err[512];
    cal_jinja *t = cal_jinja_load("t", src, strlen(src), err, sizeof err);
    if (!t) {
        snprintf(out_s, sizeof out_s, "ERROR: %s", err);
        return out_s;
    }
    json_error_t je;
    json_t *vars = json_loads(vars_json ? vars_json : "{}", 0, &je);
    if (!vars) {
        snprintf(out_s, sizeof out_s, "BAD JSON: %s", je.text);
        cal_jinja_free(t);
        return out_s;
    }
    cal_jinja_opts def;
    memset(&def, 0, sizeof def);
    struct tm now = fixed_now();
    def.now = &now;
    cal_buf b = {0};
    if (cal_jinja_render(t, vars, o ? o : &def, &b, err, sizeof err) != 0) {
        snprintf(out_s, sizeof out_s, "ERROR: %s", err);
    } else {
        snprintf(out_s, sizeof out_s, "%.*s", (int)b.n, b.p ? b.p : "");
    }
    cal_buf_free(&b);
    json_decref(vars);
    cal_jinja_free(t);
    return out_s;
}

static void expect(const char *what, const char *src, const char *vars, const char *want) {
    const char *got = render(src, vars, NULL);
    CHECK(strcmp(got, want) == 0, "%s", what);
    if (strcmp(got, want) != 0) printf("# got:  [%s]\n# want: [%s]\n", got, want);
}

/* The render fails and its message contains frag. */
static void expect_err(const char *what, const char *src, const char *vars, const char *frag) {
    const char *got = render(src, vars, NULL);
    int ok = strncmp(got, "ERROR: ", 7) == 0 && strstr(got, frag) && !strchr(got, '\n');
    CHECK(ok, "%s", what);
    if (!ok) printf("# got:  [%s]\n# want an error with [%s]\n", got, frag);
}

static void unit(void) {
    /* whitespace control as transformers configures it */
    expect("trim_blocks eats the newline after a block tag", "{% if true %}\nx\n{% endif %}\ny", NULL, "x\ny");
    expect("lstrip_blocks strips indentation before a block tag", "a\n    {% if true %}b{% endif %}", NULL, "a\nb");
    expect("lstrip_blocks leaves a tag after text alone", "a  {% if true %}b{% endif %}", NULL, "a  b");
    expect("variables are not lstripped", "a\n  {{ 'b' }}", NULL, "a\n  b");
    expect("- strips all whitespace", "a \n {{- 'b' -}} \n c", NULL, "abc");
    expect("+ keeps the indentation", "a\n  {%+ if true %}b{% endif %}", NULL, "a\n  b");
    expect("one trailing newline is dropped", "x\n\n", NULL, "x\n");
    expect("comments vanish and trim", "a{# c #}\nb", NULL, "ab");
    expect("raw blocks", "{% raw %}{{ x }}{% endraw %}", NULL, "{{ x }}");
    expect("\\r\\n becomes \\n", "a\r\nb\rc", NULL, "a\nb\nc");
    /* expressions */
    expect("precedence", "{{ 1 + 2 * 3 }} {{ 2 ** 3 ** 2 }} {{ -2 ** 2 }} {{ 7 // 2 }} {{ -7 // 2 }} {{ -7 % 3 }}",
           NULL, "7 64 4 3 -4 2");
    expect("division is true division", "{{ 1 / 2 }} {{ 4 / 2 }}", NULL, "0.5 2.0");
    expect("floats print as Python's repr", "{{ 0.1 + 0.2 }} {{ 1e16 }} {{ 1e-5 }} {{ 1.5e300 * 10 }} {{ 100.0 }}",
           NULL, "0.30000000000000004 1e+16 1e-05 1.5e+301 100.0");
    expect("~ concatenates str()", "{{ 1 ~ 'a' ~ none ~ true }}", NULL, "1aNoneTrue");
    expect("lists and dicts print as repr", "{{ [1, 'a', none, {'k': \"it's\"}] }} {{ (1,) }}", NULL,
           "[1, 'a', None, {'k': \"it's\"}] (1,)");
    expect("and/or return operands", "{{ 0 or 'x' }} {{ 'a' and 'b' }} {{ none or [] }}", NULL, "x b []");
    expect("inline if without else is undefined", "[{{ 'a' if false }}]", NULL, "[]");
    expect("chained comparisons", "{{ 1 < 2 < 3 }} {{ 1 < 3 < 2 }} {{ 'a' in 'cat' }} {{ 2 not in [1] }}", NULL,
           "True False True True");
    expect("1 == 1.0 == true", "{{ 1 == 1.0 }} {{ true == 1 }} {{ [1] == (1,) }}", NULL, "True True False");
    expect("slices", "{{ 'héllo'[1:3] }} {{ [1,2,3,4][::-2] }} {{ 'abc'[-1] }} {{ 'abc'[5] }}|", NULL,
           "él [4, 2] c |");
    expect("string methods", "{{ '  a b  '.strip() }}|{{ 'a,b,,c'.split(',') }}|{{ ' x  y '.split() }}|"
           "{{ 'Hello'.startswith('He') }}|{{ 'abc'.replace('b', 'X') }}|{{ 'ab'.upper() }}|{{ 'x'.find('y') }}",
           NULL, "a b|['a', 'b', '', 'c']|['x', 'y']|True|aXc|AB|-1");
    expect("str.format", "{} and {name}|{:>5}|{:.2f}", NULL, "{} and {name}|{:>5}|{:.2f}");
    expect("str.format calls", "{{ '{} and {n}'.format(1, n='x') }}|{{ '{:>4}|{:.2f}'.format('a', 3.14159) }}",
           NULL, "1 and x|   a|3.14");
    expect("dict methods", "{% for k, v in {'a': 1, 'b': 2}.items() %}{{ k }}={{ v }};{% endfor %}"
           "{{ {'a': 1}.get('b', 'd') }}", NULL, "a=1;b=2;d");
    /* statements */
    expect("for with else, loop variables",
           "{% for x in [1,2,3] %}{{ loop.index }}{{ loop.first }}{{ loop.last }}{{ loop.revindex0 }}"
           "{{ loop.previtem }},{% endfor %}{% for x in [] %}no{% else %}empty{% endfor %}", NULL,
           "1TrueFalse2,2FalseFalse11,3FalseTrue02,empty");
    expect("loop filter, break and continue",
           "{% for x in range(10) if x is odd %}{% if x > 6 %}{% break %}{% endif %}{% if x == 3 %}{% continue %}{% endif %}{{ x }}{% endfor %}",
           NULL, "15");
    expect("set in a loop does not leak; namespace does",
           "{% set x = 'o' %}{% set ns = namespace(c=0) %}{% for i in [1,2] %}{{ x }}{% set x = i %}{{ x }}"
           "{% set ns.c = ns.c + i %}{% endfor %}{{ x }}{{ ns.c }}", NULL, "o1o2o3");
    expect("set in an if does leak", "{% if true %}{% set x = 1 %}{% endif %}{{ x }}", NULL, "1");
    expect("block set with a filter", "{% set x | upper %}ab{% endset %}{{ x }}", NULL, "AB");
    expect("macros with defaults, varargs, kwargs, caller",
           "{% macro m(a, b='B') %}{{ a }}{{ b }}{{ varargs }}{{ kwargs }}{% endmacro %}{{ m(1) }}|{{ m(1, 2, 3, k=4) }}|"
           "{% macro w() %}<{{ caller() }}>{% endmacro %}{% call w() %}in{% endcall %}",
           NULL, "1B(){}|12(3,){'k': 4}|<in>");
    expect("filter blocks", "{% filter upper %}abc{% endfilter %}", NULL, "ABC");
    expect("tuple unpacking", "{% set a, b = 1, 2 %}{{ a }}{{ b }}{% for x, y in [[1, 2], 'ab'] %}{{ x }}{{ y }}{% endfor %}",
           NULL, "1212ab");
    /* Undefined */
    expect("undefined prints empty and is falsy", "[{{ nope }}][{{ nope is defined }}][{{ nope|length }}]", NULL,
           "[][False][0]");
    expect("missing keys are undefined", "{% set d = {'a': 1} %}[{{ d.b }}{{ d['b'] }}{{ [][0] }}]", NULL, "[]");
    expect_err("attribute of undefined fails", "{{ nope.x }}", NULL, "'nope' is undefined");
    expect_err("attribute of a missing key fails", "{{ m.a.b }}", "{\"m\": {}}", "'dict object' has no attribute 'a'");
    expect_err("arithmetic on undefined fails", "{{ nope + 1 }}", NULL, "is undefined");
    /* filters */
    expect("tojson keeps non-ASCII and key order", "{{ {'b': 'é\"\\n', 'a': [1, 2.5, none, true]}|tojson }}", NULL,
           "{\"b\": \"é\\\"\\n\", \"a\": [1, 2.5, null, true]}");
    expect("tojson indent", "{{ {'a': [1], 'b': {}}|tojson(indent=2) }}", NULL,
           "{\n  \"a\": [\n    1\n  ],\n  \"b\": {}\n}");
    expect("trim, title, capitalize, replace, join, default",
           "{{ ' x '|trim }}|{{ 'hello world-foo'|title }}|{{ 'hELLO'|capitalize }}|{{ 'aaa'|replace('a', 'b', 2) }}|"
           "{{ [1, 2]|join(', ') }}|{{ nope|default('d') }}|{{ ''|default('e', true) }}",
           NULL, "x|Hello World-Foo|Hello|bba|1, 2|d|e");
    expect("select, map, selectattr",
           "{{ [1,2,3,4]|select('even')|list }} {{ ['a','b']|map('upper')|join }} "
           "{{ [{'r': 'u'}, {'r': 's'}]|selectattr('r', 'equalto', 's')|list }} {{ [{'r': 1}]|map(attribute='r')|list }}",
           NULL, "[2, 4] AB [{'r': 's'}] [1]");
    expect("a generator is consumed once and is always true",
           "{% set g = [1]|select %}{{ g|list }}{{ g|list }}{{ ([]|select) is true }}{% if []|select %}T{% endif %}",
           NULL, "[1][]FalseT");
    expect("sort, dictsort, unique, reverse, first, last, length",
           "{{ [3,1,2]|sort }} {{ {'b':1,'a':2}|dictsort }} {{ ['a','A','b']|unique|list }} {{ [1,2]|reverse|list }} "
           "{{ 'abc'|first }}{{ 'abc'|last }}{{ 'héllo'|length }}",
           NULL, "[1, 2, 3] [('a', 2), ('b', 1)] ['a', 'b'] [2, 1] ac5");
    expect("int, float, round, abs, string",
           "{{ '42'|int }} {{ '4.7'|int }} {{ 'x'|int(3) }} {{ '1.5'|float }} {{ 2.5|round }} {{ 2.675|round(2) }} "
           "{{ -3|abs }} {{ 5|string ~ 'x' }}",
           NULL, "42 4 3 1.5 2.0 2.67 3 5x");
    expect("indent", "{{ 'a\nb\n\nc'|indent(2) }}|{{ 'a\nb'|indent(first=true) }}", NULL, "a\n  b\n\n  c|    a\n    b");
    expect("items filter", "{% for k, v in {'x': 1}|items %}{{ k }}{{ v }}{% endfor %}", NULL, "x1");
    /* tests */
    expect("is tests",
           "{{ 'a' is string }}{{ {} is mapping }}{{ [] is iterable }}{{ 1 is number }}{{ true is number }}"
           "{{ 1 is integer }}{{ true is integer }}{{ none is none }}{{ 3 is odd }}{{ 6 is divisibleby 3 }}"
           "{{ 'ab' is lower }}{{ x is not defined }}",
           NULL, "TrueTrueTrueTrueTrueTrueFalseTrueTrueTrueTrueTrue");
    /* transformers' globals */
    expect_err("raise_exception gives the template's message", "\n{{ raise_exception('Roles must alternate!') }}", NULL,
               "t: line 2: Roles must alternate!");
    expect("strftime_now uses the given time", "{{ strftime_now('%d %b %Y %A %H:%M') }}", NULL, "26 Jul 2024 Friday 13:45");
    /* errors: one line, the template's line */
    expect_err("a syntax error names its line", "a\nb\n{% if %}", NULL, "t: line 3:");
    expect_err("an unclosed block", "{% for x in y %}", NULL, "endfor");
    expect_err("an unknown tag", "{% frobnicate %}", NULL, "unknown tag 'frobnicate'");
    expect_err("an unknown filter outside if", "{{ x|frobnicate }}", NULL, "No filter named 'frobnicate'");
    expect("an unknown filter inside if fails only when run", "{% if false %}{{ x|frobnicate }}{% endif %}ok", NULL, "ok");
    expect_err("break outside a loop", "{% break %}", NULL, "outside loop");
    expect_err("a type error names its line", "\n\n{{ 'a' + 1 }}", NULL, "t: line 3: TypeError");
    expect_err("do is not enabled", "{% do x %}", NULL, "unknown tag 'do'");
    expect_err("mutating methods are refused", "{% set l = [] %}{{ l.append(1) }}", NULL, "unsafe");
    expect_err("range is bounded as in the sandbox", "{{ range(200000)|length }}", NULL, "MAX_RANGE");
    expect_err("invalid UTF-8 template", "\xff", NULL, "not valid UTF-8");
    /* formatting without fixed buffers (a 512-byte one cut '%-5s' % ('x'*1000) to 511) */
    expect("% keeps long text whatever the flags, width and precision",
           "{{ ('%-5s' % ('x' * 1000))|length }} {{ ('%1000d' % 7)|length }} {{ ('%.600f' % 1.5)|length }}", NULL,
           "1000 1000 602");
    expect("format filter: precision, hex, octal, exponent, %c, %%, *",
           "{{ '%.2f|%x|%#o|%e|%c|%%|%*d'|format(3.14159, 255, 8, 12345.678, 233, 4, 7) }}", NULL,
           "3.14|ff|0o10|1.234568e+04|\xc3\xa9|%|   7");
    expect("str.format: grouping, alignment, zero padding, conversions, nested fields",
           "{{ '{:,}|{:_x}|{:>+8.2f}|{:^7}|{:08,}|{!r:>5}'.format(1234567, 65535, 3.14159, 'ab', 1234, 'a') }}"
           "{{ '{:{w}.{p}f}'.format(3.14159, w=8, p=3) }}",
           NULL, "1,234,567|ffff|   +3.14|  ab   |0,001,234|  'a'   3.142");
    {
        /* a macro named by 600 characters prints whole: <Macro '...'> */
        static char src[2048];
        char name[601];
        memset(name, 'm', 600);
        name[600] = 0;
        snprintf(src, sizeof src, "{%% macro %s() %%}{%% endmacro %%}{{ (%s|string)|length }}", name, name);
        expect("a long macro name prints whole", src, NULL, "610");
    }
    /* integers beyond 64 bits, as Python's */
    expect("big ints: literals, arithmetic, comparison with floats, tojson",
           "{{ 12345678901234567890 }} {{ 2 ** 100 }} {{ -(2 ** 63) }} {{ (2 ** 64) // 3 }} {{ (-(10 ** 30)) % 7 }} "
           "{{ 10 ** 30 / 3 }} {{ 2 ** 64 == 18446744073709551616.0 }} {{ [2 ** 64]|tojson }}",
           NULL, "12345678901234567890 1267650600228229401496703205376 -9223372036854775808 6148914691236517205 6 "
                 "3.333333333333333e+29 True [18446744073709551616]");
    expect_err("str() of an int past 4300 digits is Python's ValueError", "{{ 10 ** 5000 }}", NULL,
               "Exceeds the limit (4300 digits)");
}

static void limits(void) {
    cal_jinja_opts o;
    memset(&o, 0, sizeof o);
    struct tm now = fixed_now();
    o.now = &now;
    o.max_steps = 1000;
    const char *r = render("{% for i in range(100) %}{% for j in range(100) %}{% endfor %}{% endfor %}", "{}", &o);
    CHECK(strstr(r, "budget of 1000 work units") != NULL, "loop iterations are bounded (%s)", r);
    /* the budget counts the text too: 100 iterations of 3 MB each */
    o.max_steps = 100000;
    r = render("\n{% set s = 'x' * 1000000 %}{% for i in range(100) %}{{ s == s ~ '' }}{% endfor %}", "{}", &o);
    CHECK(strstr(r, "t: line 2: the template used more than its budget of 100000 work units") != NULL,
          "work on text is bounded, the error names the line (%.120s)", r);
    /* each iteration releases its memory, overwritten namespace values too */
    memset(&o, 0, sizeof o);
    o.max_memory = 1 << 20;
    r = render("{% set ns = namespace(s='', n=0) %}{% for i in range(300) %}{% for j in range(300) %}"
               "{% set x = [i, j, 'abc' ~ j] %}{% set ns.s = 'v' * 100 ~ j %}{% set ns.n = ns.n + 1 %}{% endfor %}"
               "{% endfor %}{{ ns.s|length }} {{ ns.n }}", "{}", &o);
    CHECK(strcmp(r, "103 90000") == 0, "90000 iterations in 1 MiB (%.120s)", r);
    memset(&o, 0, sizeof o);
    o.max_depth = 20;
    r = render("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", "{}", &o);
    CHECK(strstr(r, "RecursionError") != NULL, "recursion is bounded (%s)", r);
    memset(&o, 0, sizeof o);
    o.max_output = 1000;
    r = render("{% for i in range(1000) %}xx{% endfor %}", "{}", &o);
    CHECK(strstr(r, "larger than 1000 bytes") != NULL, "output is bounded (%s)", r);
    memset(&o, 0, sizeof o);
    o.max_memory = 1 << 20;
    r = render("{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}", "{}", &o);
    CHECK(strstr(r, "ERROR") != NULL, "memory is bounded (%s)", r);
    /* left-deep chains and values built in loops must not overflow the stack */
    static char chain[4096];
    strcpy(chain, "{{ 1");
    for (int i = 0; i < 600; i++) strcat(chain, "+1");
    strcat(chain, " }}");
    r = render(chain, "{}", NULL);
    CHECK(strstr(r, "nested more than 500") != NULL, "a 600-term sum is refused, not a stack overflow (%.80s)", r);
    r = render("{% set ns = namespace(x=[]) %}{% for i in range(5000) %}{% set ns.x = [ns.x] %}{% endfor %}"
               "{{ ns.x == ns.x }}", "{}", NULL);
    CHECK(strstr(r, "RecursionError") != NULL, "comparing a list nested 5000 deep fails cleanly (%.80s)", r);
    r = render("{% set ns = namespace(x=[]) %}{% for i in range(5000) %}{% set ns.x = [ns.x] %}{% endfor %}"
               "{{ ns.x }}", "{}", NULL);
    CHECK(strstr(r, "RecursionError") != NULL, "printing a list nested 5000 deep fails cleanly (%.80s)", r);
    r = render("{% set ns = namespace(t=()) %}{% for i in range(5000) %}{% set ns.t = (ns.t,) %}{% endfor %}"
               "{{ {ns.t: 1} }}", "{}", NULL);
    CHECK(strstr(r, "ERROR") != NULL, "hashing a tuple nested 5000 deep fails cleanly (%.80s)", r);
}

/* ---- the differential driver ---- */

/* The message of a render error without its "NAME: line N: " prefix. */
static const char *bare_message(const char *err, const char *name) {
    size_t k = strlen(name);
    if (strncmp(err, name, k) == 0 && strncmp(err + k, ": line ", 7) == 0) {
        const char *p = strchr(err + k + 7, ':');
        if (p && p[1] == ' ') return p + 2;
    }
    if (strncmp(err, name, k) == 0 && strncmp(err + k, ": ", 2) == 0) return err + k + 2;
    return err;
}

static int cases(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) {
        printf("not ok - cannot open %s\n", path);
        return 1;
    }
    struct tm now = fixed_now();
    cal_jinja_opts o;
    memset(&o, 0, sizeof o);
    o.now = &now;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    cal_jinja *t = NULL;
    char name[256] = "", group[256] = "", load_err[1024] = "";
    long n_cases = 0, n_bad = 0, total = 0, total_bad = 0;
    char first_bad[2048] = "";
    int failed = 0;
    json_t **convs = NULL;
    size_t nconvs = 0;
#define FLUSH_TEMPLATE()                                                                      \
    do {                                                                                      \
        if (group[0]) {                                                                       \
            if (n_bad) printf("not ok - %s: %ld of %ld cases differ\n# %s\n", group, n_bad, n_cases, first_bad); \
            else printf("ok - %s: %ld cases identical to python3-jinja2\n", group, n_cases);  \
            failed |= n_bad != 0;                                                             \
        }                                                                                     \
    } while (0)
    while ((len = getline(&line, &cap, f)) > 0) {
        json_error_t je;
        json_t *j = json_loadb(line, (size_t)len, 0, &je);
        if (!j) {
            printf("not ok - %s: bad JSON line: %s\n", path, je.text);
            failed = 1;
            continue;
        }
        json_t *conv = json_object_get(j, "conv");
        if (conv) {
            size_t k = (size_t)json_integer_value(conv);
            if (k >= nconvs) {
                size_t nc = k * 2 + 16;
                json_t **nv = realloc(convs, nc * sizeof *nv);
                if (!nv) abort();
                memset(nv + nconvs, 0, (nc - nconvs) * sizeof *nv);
                convs = nv;
                nconvs = nc;
            }
            convs[k] = json_incref(json_object_get(j, "vars"));
            json_decref(j);
            continue;
        }
        json_t *src = json_object_get(j, "source");
        if (src) {
            /* a template starts a group of its own unless it names one */
            const char *g = json_string_value(json_object_get(j, "group"));
            snprintf(name, sizeof name, "%s", json_string_value(json_object_get(j, "template")));
            if (!g) g = name;
            if (strcmp(g, group) != 0) {
                FLUSH_TEMPLATE();
                snprintf(group, sizeof group, "%s", g);
                n_cases = n_bad = 0;
                first_bad[0] = 0;
            }
            cal_jinja_free(t);
            t = cal_jinja_load(name, json_string_value(src), json_string_length(src), load_err, sizeof load_err);
            json_decref(j);
            continue;
        }
        n_cases++;
        total++;
        json_t *want = json_object_get(j, "want");
        json_t *raise = json_object_get(j, "raise");
        int any = json_is_true(json_object_get(j, "any")); /* jinja2's output held an address */
        char err[1024] = "";
        cal_buf b = {0};
        int rc = -1;
        size_t k = (size_t)json_integer_value(json_object_get(j, "c"));
        json_t *vars = k < nconvs && convs[k] ? json_copy(convs[k]) : json_object();
        json_object_update(vars, json_object_get(j, "extra"));
        if (t) rc = cal_jinja_render(t, vars, &o, &b, err, sizeof err);
        else snprintf(err, sizeof err, "%s", load_err);
        const char *why = NULL;
        char tmp[1600];
        if (any) {
            if (rc != 0) {
                snprintf(tmp, sizeof tmp, "%s case %ld: error %s, python3-jinja2 renders it", name, n_cases, err);
                why = tmp;
            }
        } else if (want) {
            size_t wn = json_string_length(want);
            if (rc != 0) {
                snprintf(tmp, sizeof tmp, "%s case %ld: error %s, want output [%.200s]", name, n_cases, err, json_string_value(want));
                why = tmp;
            } else if (b.n != wn || memcmp(b.p ? b.p : "", json_string_value(want), wn) != 0) {
                size_t k = 0;
                while (k < b.n && k < wn && b.p[k] == json_string_value(want)[k]) k++;
                size_t from = k > 40 ? k - 40 : 0;
                snprintf(tmp, sizeof tmp, "%s case %ld: differs at byte %zu: got [%.120s] want [%.120s]", name, n_cases, k,
                         b.p ? b.p + from : "", json_string_value(want) + from);
                why = tmp;
            }
        } else {
            if (rc == 0) {
                snprintf(tmp, sizeof tmp, "%s case %ld: rendered, but python3-jinja2 fails with %.300s", name, n_cases,
                         json_string_value(json_object_get(j, "error")));
                why = tmp;
            } else if (raise && strcmp(bare_message(err, name), json_string_value(raise)) != 0) {
                snprintf(tmp, sizeof tmp, "%s case %ld: message [%.300s], want [%.300s]", name, n_cases,
                         bare_message(err, name), json_string_value(raise));
                why = tmp;
            }
        }
        if (why) {
            if (!n_bad) snprintf(first_bad, sizeof first_bad, "%s", why);
            else if (n_bad < 8) printf("# %s\n", why);
            n_bad++;
            total_bad++;
        }
        cal_buf_free(&b);
        json_decref(vars);
        json_decref(j);
    }
    FLUSH_TEMPLATE();
#undef FLUSH_TEMPLATE
    cal_jinja_free(t);
    for (size_t k = 0; k < nconvs; k++) json_decref(convs[k]);
    free(convs);
    free(line);
    fclose(f);
    printf("# %ld cases, %ld differ\n", total, total_bad);
    return failed;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--cases") == 0) return cases(argv[2]);
    unit();
    limits();
    TEST_END();
}
