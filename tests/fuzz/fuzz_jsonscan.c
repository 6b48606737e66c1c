/* fuzz_jsonscan.c - differential libFuzzer target: whenever the fast JSON
 * Lines scanner (jsonscan.c) accepts a line, jansson must parse the same
 * line to an object whose "text" member is the same string. The only lines
 * the scanner may accept and jansson reject hold invalid UTF-8, which the
 * scanner passes through to cal-read's hygiene (U+FFFD) on purpose, or what
 * jansson cannot represent: numbers out of its range, and a NUL (\u0000)
 * in an object key (valid JSON; jansson's keys are C strings). */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "io/jsonscan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    cal_buf out = {0};
    int fast = cal_json_field((const char *)data, size, "text", &out);
    if (fast) {
        json_error_t e;
        json_t *root = json_loadb((const char *)data, size, JSON_ALLOW_NUL, &e);
        if (root) {
            json_t *v = json_object_get(root, "text");
            if (!json_is_string(v) || json_string_length(v) != out.n ||
                memcmp(json_string_value(v), out.p ? out.p : "", out.n) != 0)
                abort();
            json_decref(root);
        } else if (!strstr(e.text, "unable to decode byte") && !strstr(e.text, "too big") &&
                   !strstr(e.text, "overflow") &&  /* numbers out of jansson's range are still JSON */
                   !strstr(e.text, "NUL byte in object key")) {  /* so is "a\u0000b": 1 */
            abort();
        }
    }
    cal_buf_free(&out);
    return 0;
}
