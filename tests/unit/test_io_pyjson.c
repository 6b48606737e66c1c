/* test_io_pyjson.c - JSON as Python's json.loads reads it (io/pyjson.h):
 * exact expectations from json.loads' behaviour, each input written out as
 * the tree with its marked numbers shown as <TEXT>, and the refusals. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "base/buf.h"
#include "io/pyjson.h"

/* The tree as compact text, marked numbers as <TEXT>, NUL in keys as \0. */
static void show(cal_buf *b, const json_t *v, const cal_pyjson *m) {
    const char *lit = cal_pyjson_literal(m, v);
    if (lit) {
        cal_buf_addf(b, "<%s>", lit);
        return;
    }
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        cal_buf_addc(b, '{');
        const char *k;
        size_t kn;
        json_t *x;
        int first = 1;
        json_object_keylen_foreach((json_t *)v, k, kn, x) {
            if (!first) cal_buf_addc(b, ',');
            first = 0;
            for (size_t i = 0; i < kn; i++) {
                if (k[i]) cal_buf_addc(b, k[i]);
                else cal_buf_add(b, "\\0", 2);
            }
            cal_buf_addc(b, ':');
            show(b, x, m);
        }
        cal_buf_addc(b, '}');
        return;
    }
    case JSON_ARRAY:
        cal_buf_addc(b, '[');
        for (size_t i = 0; i < json_array_size(v); i++) {
            if (i) cal_buf_addc(b, ',');
            show(b, json_array_get(v, i), m);
        }
        cal_buf_addc(b, ']');
        return;
    case JSON_STRING: cal_buf_addf(b, "'%s'", json_string_value(v)); return;
    case JSON_INTEGER: cal_buf_addf(b, "%lld", (long long)json_integer_value(v)); return;
    case JSON_REAL: cal_buf_addf(b, "%.17g", json_real_value(v)); return;
    case JSON_TRUE: cal_buf_add(b, "true", 4); return;
    case JSON_FALSE: cal_buf_add(b, "false", 5); return;
    default: cal_buf_add(b, "null", 4); return;
    }
}

static void parses(const char *in, const char *want) {
    json_t *root;
    cal_pyjson *m;
    char err[256];
    if (cal_pyjson_loads(in, strlen(in), &root, &m, err, sizeof err) < 0) {
        CHECK(0, "%s parses (%s)", in, err);
        return;
    }
    cal_buf b = {0}, label = {0};
    show(&b, root, m);
    cal_buf_addc(&b, 0);
    for (const char *c = in; *c; c++) { /* one line of TAP */
        if ((unsigned char)*c < 0x20) cal_buf_addf(&label, "\\x%02x", *c);
        else cal_buf_addc(&label, *c);
    }
    cal_buf_addc(&label, 0);
    CHECK(strcmp(b.p, want) == 0, "%s parses as json.loads reads it", label.p);
    cal_buf_free(&label);
    if (strcmp(b.p, want)) printf("# got %s\n", b.p);
    cal_buf_free(&b);
    json_decref(root);
    cal_pyjson_free(m);
}

static void refuses(const char *what, const char *in, size_t n, const char *frag) {
    json_t *root;
    cal_pyjson *m;
    char err[256] = "";
    int rc = cal_pyjson_loads(in, n, &root, &m, err, sizeof err);
    CHECK(rc < 0 && strstr(err, frag) && !strchr(err, '\n'), "%s: refused (%s)", what, err);
}

int main(void) {
    /* what json.loads gives that jansson refuses */
    parses("12345678901234567890", "<12345678901234567890>");
    parses("[-9223372036854775808, 9223372036854775807, 9223372036854775808, -9223372036854775809]",
           "[-9223372036854775808,9223372036854775807,<9223372036854775808>,<-9223372036854775809>]");
    parses("[NaN, Infinity, -Infinity, 1e400, -1e400, 1e-400, -0, -0.0, 1E+2, 2.5]",
           "[<NaN>,<Infinity>,<-Infinity>,<1e400>,<-1e400>,0,0,-0,100,2.5]");
    parses("{\"a\\u0000b\": 1, \"\\u0000\": [true, false, null]}", "{a\\0b:1,\\0:[true,false,null]}");
    parses("{\"a\": 1, \"b\": 2, \"a\": 3}", "{a:3,b:2}"); /* the last value, at the first place */
    parses(" \t\n\r\"\\ud83d\\ude42 \\u00e9\\t\" ", "'\xf0\x9f\x99\x82 \xc3\xa9\t'");
    char deep[4096];
    size_t k = 0;
    for (int i = 0; i < 1000; i++) deep[k++] = '[';
    for (int i = 0; i < 1000; i++) deep[k++] = ']';
    deep[k] = 0;
    json_t *root;
    cal_pyjson *m;
    char err[256];
    CHECK(cal_pyjson_loads(deep, k, &root, &m, err, sizeof err) == 0 && !m, "1000 levels parse, nothing marked");
    json_decref(root);
    /* what json.loads refuses */
    char big[5000];
    memset(big, '7', 4301);
    refuses("4301 digits (sys.get_int_max_str_digits)", big, 4301, "4301 digits");
    memset(big, '[', 1002);
    refuses("1002 levels", big, 1002, "nested more than 1000");
    refuses("a lone surrogate", "\"\\ud800x\"", 9, "lone surrogate \\ud800");
    refuses("01", "01", 2, "byte 1: extra data");
    refuses("1.", "[1.]", 4, "byte 2: expecting ','");
    refuses(".5", ".5", 2, "byte 0: expecting a value");
    refuses("a trailing comma", "[1,]", 4, "byte 3: expecting a value");
    refuses("a raw control character", "\"a\x01\"", 4, "control character");
    refuses("Inf", "Inf", 3, "expecting a value");
    refuses("-NaN", "-NaN", 4, "expecting a value");
    refuses("nothing", "", 0, "expecting a value");
    refuses("unterminated", "\"abc", 4, "unterminated string");
    /* marks are by node: a string that reads like a number is a string */
    parses("[\"12345678901234567890\", \"NaN\"]", "['12345678901234567890','NaN']");
    TEST_END();
}
