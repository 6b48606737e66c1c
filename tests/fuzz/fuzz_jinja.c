/* fuzz_jinja.c - libFuzzer target: parses and renders arbitrary templates
 * (jinja/jinja.h) with a small fixed conversation under tight limits. No
 * input may crash, hang, leak or exceed the limits; a failure must be one
 * non-empty line. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jinja/jinja.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const VARS =
    "{\"messages\": [{\"role\": \"system\", \"content\": \"Be brief.\"},"
    " {\"role\": \"user\", \"content\": \"Hi \\u00e9 <|im_start|> \\ud83d\\ude42\"},"
    " {\"role\": \"assistant\", \"content\": null, \"tool_calls\": [{\"id\": \"call12345\","
    " \"type\": \"function\", \"function\": {\"name\": \"f\", \"arguments\": {\"a\": [1, 2.5, true]}}}]},"
    " {\"role\": \"tool\", \"content\": \"{}\"},"
    " {\"role\": \"assistant\", \"content\": [{\"type\": \"text\", \"text\": \"ok\"}]}],"
    " \"tools\": [{\"type\": \"function\", \"function\": {\"name\": \"f\", \"parameters\": {}}}],"
    " \"documents\": null, \"add_generation_prompt\": true,"
    " \"bos_token\": \"<s>\", \"eos_token\": \"</s>\"}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static json_t *vars;
    if (!vars) vars = json_loads(VARS, 0, NULL);
    if (!vars) abort();
    char err[512];
    cal_jinja *t = cal_jinja_load("fuzz", (const char *)data, size, err, sizeof err);
    if (!t) {
        if (!err[0] || strchr(err, '\n')) abort();
        return 0;
    }
    struct tm now;
    memset(&now, 0, sizeof now);
    now.tm_year = 124;
    now.tm_mday = 1;
    cal_jinja_opts o;
    memset(&o, 0, sizeof o);
    o.now = &now;
    o.max_output = 1 << 20;
    o.max_memory = 64 << 20;
    o.max_steps = 100000;
    o.max_depth = 64;
    cal_buf b = {0};
    int rc = cal_jinja_render(t, vars, &o, &b, err, sizeof err);
    if (rc != 0 && (!err[0] || strchr(err, '\n'))) abort();
    if (rc == 0 && b.n > o.max_output) abort();
    if (rc != 0 && b.n) abort(); /* out stays unchanged on failure */
    cal_buf_free(&b);
    cal_jinja_free(t);
    return 0;
}
