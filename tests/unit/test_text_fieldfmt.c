/* test_text_fieldfmt.c - lib/text/fieldfmt.c: templates of fields (escapes,
 * Python's {{ }}, malformed templates), the values as Python's str.format
 * writes them (repr of floats: the expectations are CPython's output),
 * missing, null, list and object fields, and dotted paths. (test_read_fields.sh
 * compares whole files with CPython.) */
#include <string.h>

#include "test.h"
#include "text/fieldfmt.h"

static char err[256];

/* tmpl over the JSON rec: "=TEXT" or "!message" (parse or render error) */
static const char *render(const char *tmpl, const char *rec, int empty) {
    static cal_buf out, res;
    res.n = 0;
    cal_fieldfmt *f = cal_fieldfmt_parse(tmpl, err, sizeof err);
    json_t *root = json_loads(rec, JSON_DECODE_ANY, NULL);
    if (!f) cal_buf_addf(&res, "!%s", err);
    else if (cal_fieldfmt_render(f, root, NULL, empty, &out, err, sizeof err) < 0) cal_buf_addf(&res, "!%s", err);
    else cal_buf_addc(&res, '='), cal_buf_add(&res, out.p ? out.p : "", out.n);
    cal_buf_addc(&res, 0);
    cal_fieldfmt_free(f);
    json_decref(root);
    return res.p;
}
#define IS(t, r, want) (!strcmp(render(t, r, 0), want))

int main(void) {
    CHECK(cal_fieldfmt_is("{a}") && cal_fieldfmt_is("x}") && !cal_fieldfmt_is("meta.source"), "a template has braces");
    CHECK(IS("{instruction}\\n\\n{input}\\n\\n{output}", "{\"instruction\":\"I\",\"input\":\"\",\"output\":\"O\"}",
             "=I\n\n\n\nO"),
          "Alpaca, an empty input kept as Python keeps it");
    CHECK(IS("\\t\\r\\\\\\{ {{{a}}} \\}", "{\"a\":\"x\"}", "=\t\r\\{ {x} }"), "escapes and {{ }}");
    CHECK(IS("{a.b.1}|{a.c}", "{\"a\":{\"b\":[\"p\",\"q\"],\"c\":\"r\"}}", "=q|r"), "dotted paths, list indexes");
    cal_fieldfmt *f = cal_fieldfmt_parse("x{a}y{b.c}{a}", err, sizeof err);
    CHECK(f && cal_fieldfmt_nfields(f) == 3 && !strcmp(cal_fieldfmt_field(f, 1), "b.c") &&
              !strcmp(cal_fieldfmt_field(f, 2), "a") && !cal_fieldfmt_field(f, 3),
          "the fields, in order");
    cal_fieldfmt_free(f);

    /* str(value) of CPython 3 for json.loads' types */
    CHECK(IS("{i} {j} {t} {f}", "{\"i\":-12345678901234,\"j\":0,\"t\":true,\"f\":false}", "=-12345678901234 0 True False"),
          "integers and booleans");
    CHECK(IS("{a} {b} {c} {d} {e} {f} {g}", "{\"a\":1.0,\"b\":0.1,\"c\":1e16,\"d\":1e15,\"e\":0.0001,\"f\":1e-05,\"g\":-0.0}",
             "=1.0 0.1 1e+16 1000000000000000.0 0.0001 1e-05 -0.0"),
          "reals as repr(float): %s", render("{a} {b} {c} {d} {e} {f} {g}",
                                             "{\"a\":1.0,\"b\":0.1,\"c\":1e16,\"d\":1e15,\"e\":0.0001,\"f\":1e-05,\"g\":-0.0}", 0));
    CHECK(IS("{a} {b} {c} {d}", "{\"a\":1.5e300,\"b\":2.5e-300,\"c\":123456789.125,\"d\":12345678901234567.0}",
             "=1.5e+300 2.5e-300 123456789.125 1.2345678901234568e+16"),
          "large, small and long reals");

    /* missing and null fields, lists and objects */
    CHECK(IS("{a}{b}", "{\"a\":\"1\"}", "!no field 'b' (--missing empty writes it as empty)") &&
              IS("{a}{b}", "{\"a\":\"1\",\"b\":null}", "!null field 'b' (--missing empty writes it as empty)") &&
              IS("{a.x}", "{\"a\":\"s\"}", "!no field 'a.x' (--missing empty writes it as empty)"),
          "missing or null: an error");
    CHECK(!strcmp(render("{a}-{b}-{c.d}", "{\"a\":\"1\",\"b\":null}", 1), "=1--"), "missing or null: empty on request");
    CHECK(IS("{a}", "{\"a\":[\"x\"]}", "!field 'a' is a list: a template takes strings, numbers and booleans") &&
              !strcmp(render("{a}", "{\"a\":{}}", 1), "!field 'a' is an object: a template takes strings, numbers and booleans"),
          "lists and objects are refused, even with --missing empty");

    /* malformed templates */
    CHECK(IS("{a", "{}", "!'{' at character 0 is not closed") && IS("a}", "{}", "!a lone '}' at character 1 (write \\} or }})") &&
              IS("x{}", "{}", "!an empty field '{}' at character 1 (name it: {text})") &&
              IS("{a:>4}", "{}", "!field at character 0: format specs (':', '!') are not supported") &&
              IS("{a!r}", "{}", "!field at character 0: format specs (':', '!') are not supported") &&
              IS("\\x", "{}", "!unknown escape '\\x' at character 0 (\\n \\t \\r \\\\ \\{ \\})") &&
              IS("a\\", "{}", "!unknown escape '\\' at character 1 (\\n \\t \\r \\\\ \\{ \\})") &&
              IS("{a{b}}", "{}", "!'{' at character 0 is not closed"),
          "malformed templates: %s", render("a\\", "{}", 0));

    /* sections: every shape of the condition's field, both forms, nesting */
    static const char *const shapes[][2] = {{"{}", "-"}, {"{\"c\":null}", "-"}, {"{\"c\":\"\"}", "-"},
                                            {"{\"c\":\"v\"}", "+"}, {"{\"c\":0}", "+"}, {"{\"c\":false}", "+"},
                                            {"{\"c\":[]}", "+"}, {"{\"c\":{}}", "+"}};
    size_t right = 0;
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        int there = shapes[i][1][0] == '+';
        right += !strcmp(render("<{?c:yes}{!c:no}>", shapes[i][0], 0), there ? "=<yes>" : "=<no>");
    }
    CHECK(right == sizeof shapes / sizeof *shapes, "{?c:}/{!c:}: there unless missing, null or \"\" (%zu of %zu)", right,
          sizeof shapes / sizeof *shapes);
    CHECK(IS("{?a:A={a}{?b:,B={b}}}|{!b:nob}", "{\"a\":\"1\",\"b\":\"2\"}", "=A=1,B=2|") &&
              IS("{?a:A={a}{?b:,B={b}}}|{!b:nob}", "{\"a\":\"1\"}", "=A=1|nob") &&
              IS("{?a:{missing}}", "{}", "=") && IS("{?a:\\}{{x\\}}", "{\"a\":1}", "=}{x}") && IS("{?a:x}}", "{\"a\":1}", "!a lone '}' at character 6 (write \\} or }})"),
          "nested sections; a skipped section's fields are not looked up; escapes inside");
    cal_fieldfmt *g = cal_fieldfmt_parse("{?x:{y}}{z}", err, sizeof err);
    CHECK(g && cal_fieldfmt_nfields(g) == 3 && !strcmp(cal_fieldfmt_field(g, 0), "x") && !strcmp(cal_fieldfmt_field(g, 1), "y"),
          "a section's field counts among the fields");
    cal_fieldfmt_free(g);
    CHECK(IS("{?a}", "{}", "!section at character 0: write {?FIELD:text} or {!FIELD:text}") &&
              IS("{?a:x", "{}", "!the section at character 0 is not closed") &&
              IS("{?:x}", "{}", "!section at character 0: write {?FIELD:text} or {!FIELD:text}"),
          "malformed sections");
    TEST_END();
}
