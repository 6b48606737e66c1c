/* test_text_jsonl.c - lib/text/jsonl.c: the document of a JSON line (fast
 * path and full parse give the same text), field paths, nulls, chats, the
 * malformed records (message and byte), and text kept as it is: \u0000,
 * raw control bytes inside strings, invalid UTF-8 repaired by the one policy
 * (counted) or refused with strict. */
#include <string.h>

#include "base/buf.h"
#include "test.h"
#include "text/chat.h"
#include "text/jsonl.h"

static cal_jsonl J;
static char err[256];
static size_t pos, got_n; /* got_n: the length of the last document */

/* The result of line (length n) with field f: "=TEXT", "-" (none) or
 * "!BYTE: message". */
static const char *doc_n(const char *f, const char *line, size_t n) {
    static cal_buf out;
    const char *t;
    size_t tn;
    J.field = f;
    int r = cal_jsonl_doc(&J, line, n, &t, &tn, err, sizeof err, &pos);
    out.n = 0;
    if (r > 0) cal_buf_addc(&out, '='), cal_buf_add(&out, t, got_n = tn);
    else if (r == 0) cal_buf_addc(&out, '-');
    else cal_buf_addf(&out, "!%zu: %s", pos, err);
    cal_buf_addc(&out, 0);
    return out.p;
}
#define DOC(f, line) doc_n(f, line, strlen(line))
#define IS(f, line, want) (!strcmp(DOC(f, line), want))

int main(void) {
    CHECK(IS("text", "{\"text\": \"plain \\u00e9 \\ud83d\\ude00\", \"n\": [1, {\"a\": null}]}", "=plain \xC3\xA9 \xF0\x9F\x98\x80"),
          "a top-level field, escapes decoded");
    CHECK(IS("text", "{\"t\\u0065xt\": \"by the full parser\"}", "=by the full parser"), "an escaped key (full parse)");
    CHECK(IS("meta.body", "{\"meta\": {\"body\": \"nested\"}}", "=nested") &&
              IS("a.1.b", "{\"a\": [{\"b\": \"no\"}, {\"b\": \"yes\"}]}", "=yes"),
          "dotted paths through objects and arrays");
    CHECK(IS("a.x", "{\"a\": [\"q\"]}", "!0: no field 'a.x' (and no chat 'messages'; other records take a template such as --field '{prompt}{completion}')"), "a path that does not exist");
    CHECK(IS("text", "\"just a string\"", "=just a string"), "a line that is a JSON string");
    CHECK(IS("text", "", "-") && IS("text", " \t\r", "-"), "blank lines give nothing");
    uint64_t nulls = J.nulls;
    CHECK(IS("text", "{\"text\": null}", "-") && IS("meta.t", "{\"meta\": {\"t\": null}}", "-") && J.nulls == nulls + 2,
          "nulls are skipped and counted");
    CHECK(IS("text", "{\"messages\": [{\"role\": \"user\", \"content\": \"Hi\"}]}", "=User: Hi"), "a chat without the field");
    J.tmpl = CAL_CHAT_CHATML;
    CHECK(IS("messages", "{\"messages\": [{\"role\": \"user\", \"content\": \"Hi\"}], \"text\": \"t\"}",
             "=<|im_start|>user\nHi<|im_end|>\n"),
          "--field messages: the chat, in the template");
    J.tmpl = CAL_CHAT_PLAIN;
    CHECK(IS("text", "{\"conversations\": [{\"from\": \"gpt\", \"value\": \"ok\"}]}", "=Assistant: ok"),
          "conversations (ShareGPT)");
    CHECK(IS("text", "{\"messages\": \"hi\"}", "!0: no field 'text', and 'messages' is not a chat list") &&
              IS("text", "{\"conversations\": {\"a\": 1}}", "!0: no field 'text', and 'conversations' is not a chat list"),
          "a chat field that is not a list is an error, not a document");
    CHECK(IS("messages", "{\"messages\": \"named\"}", "=named"), "the field named by --field may be a string");
    CHECK(IS("text", "{\"messages\": [{\"content\": \"x\"}]}", "!0: chat record without role/content strings"),
          "a chat without roles");
    CHECK(IS("text", "{\"body\": \"x\"}", "!0: no field 'text' (and no chat 'messages'; other records take a template such as --field '{prompt}{completion}')") &&
              IS("text", "{\"text\": 5}", "!0: field 'text' is not a string (or a list of strings)") &&
              IS("text", "{\"text\": [\"a\", 1]}", "!0: field 'text' is not a string (or a list of strings)") &&
              IS("text", "{\"text\": [\"a\", null, \"b\"]}", "=a\n\nb") && IS("text", "{\"text\": []}", "=") &&
              IS("text", "[1, 2]", "!0: no field 'text' (and no chat 'messages'; other records take a template such as --field '{prompt}{completion}')"),
          "missing or non-string fields; a list of strings is joined by blank lines");
    CHECK(IS("text", "{\"text\": \"broken", "!16: invalid JSON: premature end of input near '\"broken'"),
          "invalid JSON names the byte: %s", DOC("text", "{\"text\": \"broken"));

    /* Text is never altered: NUL and controls, escaped or raw. */
    CHECK(!memcmp(DOC("text", "{\"text\": \"a\\u0000b\\u0001\\u001f\\u007f\\u0080\\u009f\"}"),
                  "=a\0b\x01\x1f\x7f\xC2\x80\xC2\x9F", 12),
          "\\u0000 and escaped C0/C1 controls (fast path)");
    CHECK(!memcmp(DOC("x.y", "{\"x\": {\"y\": \"a\\u0000b\"}}"), "=a\0b", 5), "\\u0000 (full parse)");
    char raw[64 + 32 * 2];
    size_t n = 0;
    memcpy(raw, "{\"text\": \"", 10), n = 10;
    for (int c = 0; c < 0x20; c++)
        if (c != '\n') raw[n++] = (char)c, raw[n++] = 'x';
    memcpy(raw + n, "\"}", 2), n += 2;
    const char *g = doc_n("text", raw, n);
    CHECK(g[0] == '=' && got_n == n - 12 && !memcmp(g + 1, raw + 10, n - 12), "raw C0 controls inside a string are kept (NUL, tab and CR too)");
    CHECK(IS("text", "{\"text\": \"x\"}\r", "=x"), "CR after the object (CRLF lines)");
    CHECK(!strncmp(DOC("text", "{\"text\": \"a\" \x01}"), "!14: invalid JSON: ", 19),
          "a raw control outside strings is still invalid JSON (at its byte): %s", DOC("text", "{\"text\": \"a\" \x01}"));

    /* Invalid UTF-8: the fast path leaves it to hygiene; the full parse
     * repairs it (one U+FFFD per maximal subpart) and counts it. */
    uint64_t rep = J.replaced;
    CHECK(IS("text", "{\"text\": \"bad \xff \xe0\xa0 byte\"}", "=bad \xff \xe0\xa0 byte") && J.replaced == rep,
          "fast path: invalid bytes passed on");
    CHECK(IS("m.t", "{\"m\": {\"t\": \"bad \xff \xe0\xa0 \xf0\x9f\x98!\"}}",
             "=bad \xEF\xBF\xBD \xEF\xBF\xBD \xEF\xBF\xBD!") && J.replaced == rep + 3,
          "full parse: repaired and counted");
    J.strict = 1;
    CHECK(IS("m.t", "{\"m\": {\"t\": \"ok \xc0\xaf\"}}", "!16: invalid UTF-8"), "strict: the bad byte of the line");
    J.strict = 0;
    cal_jsonl_free(&J);
    TEST_END();
}
