/* test_text_chat_render.c - where cal-read --chat finds a model's template
 * and how it renders a record: folders, configs, .jinja files (and
 * chat_template.jinja winning over the config), fetched names, named
 * templates chosen as transformers chooses them, special tokens as strings
 * or AddedToken objects, ShareGPT records, per-record tools, numbers, and
 * the errors. Expected outputs are written out by hand. */
#include "text/chat_render.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "test.h"

static char dir[] = "/tmp/test_text_chat_render.XXXXXX";

static const char *at(const char *name) {
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static void put(const char *name, const char *text) {
    FILE *f = fopen(at(name), "w");
    fputs(text, f);
    fclose(f);
}

/* The rendering of record (JSON) with the model spec; "!message" for an
 * error, "open!message" when the template cannot be opened. */
static const char *render(const char *model, const char *name, const char *record) {
    static char out[1024];
    char err[512];
    struct tm now = {.tm_year = 124, .tm_mon = 6, .tm_mday = 26};
    cal_chat_spec spec = {model, name, 1, &now, NULL, 0, NULL, 0};
    cal_chat_render *c = cal_chat_render_open(&spec, err, sizeof err);
    if (!c) {
        snprintf(out, sizeof out, "open!%s", err);
        return out;
    }
    json_error_t je;
    json_t *r = json_loads(record, 0, &je);
    json_t *m = json_object_get(r, "messages");
    if (!m) m = json_object_get(r, "conversations");
    cal_buf b = {0};
    if (cal_chat_render_record(c, r, m, NULL, &b, err, sizeof err) == 0) snprintf(out, sizeof out, "%.*s", (int)b.n, b.p);
    else snprintf(out, sizeof out, "!%s", err);
    cal_buf_free(&b);
    json_decref(r);
    cal_chat_render_free(c);
    return out;
}

/* The assistant spans of record (JSON) with the .jinja file model, as
 * "start-end ..." then "lost N"; "!message" for an error. */
static const char *spans_of(const char *model, const char *record) {
    static char out[1024];
    char err[512];
    cal_chat_spec spec = {model, NULL, 0, NULL, NULL, 0, NULL, 0};
    cal_chat_render *c = cal_chat_render_open(&spec, err, sizeof err);
    if (!c) {
        snprintf(out, sizeof out, "open!%s", err);
        return out;
    }
    json_t *r = json_loads(record, 0, NULL);
    cal_buf b = {0}, sp = {0};
    uint64_t lost = 0;
    size_t k = 0;
    if (cal_chat_render_spans(c, r, json_object_get(r, "messages"), NULL, &b, &sp, &lost, err, sizeof err) < 0) {
        snprintf(out, sizeof out, "!%s", err);
    } else {
        for (size_t i = 0; i + 8 <= sp.n; i += 8) {
            uint32_t se[2];
            memcpy(se, sp.p + i, sizeof se);
            k += (size_t)snprintf(out + k, sizeof out - k, "%u-%u ", se[0], se[1]);
        }
        snprintf(out + k, sizeof out - k, "lost %llu", (unsigned long long)lost);
    }
    cal_buf_free(&b), cal_buf_free(&sp);
    json_decref(r);
    cal_chat_render_free(c);
    return out;
}

#define IS(got, want) (!strcmp((got), (want)) || (printf("# got  %s\n# want %s\n", (got), (want)), 0))

int main(void) {
    cal_set_progname("test_text_chat_render");
    if (!mkdtemp(dir)) return 2;
    const char *hi = "{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}";
    mkdir(at("m"), 0755);
    put("m/tokenizer_config.json",
        "{\"model_max_length\": 1000000000000000019884624838656, \"bos_token\": {\"content\": \"<s>\", \"lstrip\": false},"
        " \"eos_token\": \"</s>\", \"pad_token\": null, \"chat_template\": \"{{ bos_token }}{% for m in messages %}"
        "{{ m.role }}:{{ m.content }};{% endfor %}{% if add_generation_prompt %}A:{% endif %}{{ pad_token is defined }}"
        "{{ eos_token }}\"}");
    CHECK(IS(render(at("m"), NULL, hi), "<s>user:hi;A:False</s>"),
          "a folder: its config's template, AddedToken and string tokens, unset ones left out");
    CHECK(IS(render(at("m/tokenizer_config.json"), NULL, hi), "<s>user:hi;A:False</s>"), "a tokenizer_config.json");
    CHECK(IS(render(at("m"), NULL,
                    "{\"conversations\": [{\"from\": \"system\", \"value\": \"s\"}, {\"from\": \"human\", \"value\": \"q\"},"
                    " {\"from\": \"gpt\", \"value\": \"a\"}]}"),
             "<s>system:s;user:q;assistant:a;A:False</s>"),
          "ShareGPT from/value: human -> user, gpt -> assistant");
    put("m/chat_template.jinja", "J{{ messages|length }}{{ bos_token }}{{ strftime_now('%Y-%m-%d %a') }}");
    CHECK(IS(render(at("m"), NULL, hi), "J1<s>2024-07-26 Fri"), "chat_template.jinja beside the config wins (folder)");
    CHECK(IS(render(at("m/tokenizer_config.json"), NULL, hi), "J1<s>2024-07-26 Fri"),
          "chat_template.jinja beside the config wins (config named)");
    put("m/other.jinja", "{{ raise_exception('no ' + messages[0].role) }}");
    char want[600];
    snprintf(want, sizeof want, "!%s: line 1: no user", at("m/other.jinja"));
    CHECK(IS(render(at("m/other.jinja"), NULL, hi), want), "a .jinja file; raise_exception's message, word for word");
    mkdir(at("n"), 0755);
    put("n/tokenizer_config.json",
        "{\"chat_template\": [{\"name\": \"default\", \"template\": \"D{{ tools }}\"},"
        " {\"name\": \"tool_use\", \"template\": \"T{{ tools|length }}\"},"
        " {\"name\": \"rag\", \"template\": \"R{{ messages[0].n }} {{ messages[0].f }} {{ messages[0] | tojson }}\"}]}");
    CHECK(IS(render(at("n"), NULL, hi), "DNone"), "named templates: default without tools (tools None)");
    CHECK(IS(render(at("n"), NULL, "{\"messages\": [], \"tools\": null}"), "DNone"), "tools null is no tools");
    CHECK(IS(render(at("n"), NULL, "{\"messages\": [], \"tools\": [{\"a\": 1}, {}]}"), "T2"),
          "tool_use for a record with tools");
    CHECK(IS(render(at("n"), NULL, "{\"messages\": [], \"tools\": []}"), "T0"), "an empty tools list is tools given");
    CHECK(IS(render(at("n"), "rag", "{\"messages\": [{\"n\": 1, \"f\": 1.0, \"e\": 2.5e-07}], \"tools\": [{}]}"),
             "R1 1.0 {\"n\": 1, \"f\": 1.0, \"e\": 2.5e-07}"),
          "--chat-template-name; integers stay integers and floats floats");
    CHECK(IS(render(at("n"), NULL, "{\"messages\": [], \"tools\": \"x\"}"), "!'tools' is not a list"),
          "tools that are not a list are an error");
    CHECK(strstr(render(at("n"), "nope", hi), "open!") && strstr(render(at("n"), "nope", hi), "'nope' (default, tool_use, rag)"),
          "an unknown template name is an error naming the names");
    put("n/tokenizer_config.json", "{\"chat_template\": [{\"name\": \"tool_use\", \"template\": \"T\"}]}");
    CHECK(IS(render(at("n"), NULL, "{\"messages\": [], \"tools\": []}"), "T"), "tool_use alone serves records with tools");
    CHECK(strstr(render(at("n"), NULL, hi), "!the model has several chat templates and none named default") != NULL,
          "and a record without tools is an error");
    put("n/tokenizer_config.json", "{\"bos_token\": \"<s>\"}");
    CHECK(strstr(render(at("n"), NULL, hi), "open!") && strstr(render(at("n"), NULL, hi), "no chat_template"),
          "a config without chat_template is an error");
    CHECK(strstr(render(at("none"), NULL, hi), "open!") && strstr(render(at("none"), NULL, hi), "no such model folder"),
          "a missing model is an error");
    /* a fetched name: DIR/NAME/tokenizer_config.json under $CAL_TOKENIZERS */
    setenv("CAL_TOKENIZERS", dir, 1);
    CHECK(IS(render("m", NULL, hi), "J1<s>2024-07-26 Fri"), "a bare name is looked up among fetched tokenizers");
    const char *parts = "{\"messages\": [{\"role\": \"user\", \"content\": [{\"type\": \"text\", \"text\": \"x\"}]}]}";
    put("m/chat_template.jinja", "{{ messages[0].content[0].text }}{{ messages[0].content | length }}");
    CHECK(IS(render("m", NULL, parts), "x1"), "content parts reach the template as a list");
    /* --assistant-mask: whether a template has {% generation %} blocks is the
     * parser's word; the text "endgeneration" in a comment or a string
     * leaves the turn-by-turn rule on */
    const char *qa = "{\"messages\": [{\"role\": \"user\", \"content\": \"q\"},"
                     " {\"role\": \"assistant\", \"content\": \"a\"}]}";
    const char *turns = "{% for m in messages %}<{{ m.role }}>{{ m.content }}</>{% endfor %}"
                        "{% if add_generation_prompt %}<assistant>{% endif %}";
    char src[512];
    snprintf(src, sizeof src, "{# no endgeneration here #}%s", turns);
    put("g.jinja", src);
    CHECK(IS(spans_of(at("g.jinja"), qa), "21-25 lost 0"), "a comment naming endgeneration: the assistant turn by turns");
    snprintf(src, sizeof src, "{{ '' if 'endgeneration' else '' }}%s", turns);
    put("g.jinja", src);
    CHECK(IS(spans_of(at("g.jinja"), qa), "21-25 lost 0"), "a string naming endgeneration: the assistant turn by turns");
    put("g.jinja", "{% for m in messages %}<{{ m.role }}>{% if m.role == 'assistant' %}{% generation %}"
                   "{{ m.content }}</>{% endgeneration %}{% else %}{{ m.content }}</>{% endif %}{% endfor %}");
    CHECK(IS(spans_of(at("g.jinja"), qa), "21-25 lost 0"), "a {%% generation %%} block gives its span");
    /* a block whose output is captured gives no span (transformers records
     * one at the top-level length): counted with the lost turns instead */
    put("g.jinja", "{% macro a(m) %}{% generation %}{{ m.content }}</>{% endgeneration %}{% endmacro %}"
                   "{% for m in messages %}<{{ m.role }}>{% if m.role == 'assistant' %}{{ a(m) }}"
                   "{% else %}{{ m.content }}</>{% endif %}{% endfor %}");
    CHECK(IS(spans_of(at("g.jinja"), qa), "lost 1"), "a generation block in a macro: no span, counted");
    put("g.jinja", "{% set x %}{% generation %}x{% endgeneration %}{% endset %}{% filter upper %}{% generation %}"
                   "{% endgeneration %}{% endfilter %}{% for m in messages %}<{{ m.role }}>{% generation %}"
                   "{{ m.content }}</>{% endgeneration %}{% endfor %}");
    CHECK(IS(spans_of(at("g.jinja"), qa), "6-10 21-25 lost 1"),
          "in a set block: counted; an empty one in a filter block: not; top-level ones give their spans");
    unlink(at("g.jinja"));
    unlink(at("m/chat_template.jinja")), unlink(at("m/other.jinja")), unlink(at("m/tokenizer_config.json"));
    unlink(at("n/tokenizer_config.json")), rmdir(at("m")), rmdir(at("n")), rmdir(dir);
    TEST_END();
}
