/* test_text_chat.c - lib/text/chat.c: the three layouts of a chat written
 * out exactly (the strings of man/cal-read.1), ShareGPT messages, content
 * parts, null content, bytes kept as they are, and malformed chats. */
#include <jansson.h>
#include <string.h>

#include "base/buf.h"
#include "test.h"
#include "text/chat.h"

/* The flattened chat of the JSON array text j, or "REFUSED". */
static const char *flat(const char *j, int tmpl) {
    static cal_buf b;
    json_error_t e;
    json_t *m = json_loads(j, JSON_ALLOW_NUL, &e);
    if (!m) return "BAD TEST JSON";
    int ok = cal_chat_flatten(m, tmpl, NULL, &b);
    json_decref(m);
    if (!ok) return "REFUSED";
    cal_buf_addc(&b, 0);
    return b.p;
}

int main(void) {
    CHECK(cal_chat_template("plain") == CAL_CHAT_PLAIN && cal_chat_template("chatml") == CAL_CHAT_CHATML &&
              cal_chat_template("llama3") == CAL_CHAT_LLAMA3 && cal_chat_template("ChatML") < 0 &&
              cal_chat_template("") < 0,
          "template names");
    const char *chat = "[{\"role\": \"system\", \"content\": \"Be brief.\"}, {\"role\": \"user\", \"content\": \"Hi\"},"
                       " {\"role\": \"assistant\", \"content\": [{\"type\": \"text\", \"text\": \"Hel\"}, \"lo\"]}]";
    CHECK(!strcmp(flat(chat, CAL_CHAT_PLAIN), "System: Be brief.\n\nUser: Hi\n\nAssistant: Hello"), "plain");
    CHECK(!strcmp(flat(chat, CAL_CHAT_CHATML), "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n"
                                               "<|im_start|>assistant\nHello<|im_end|>\n"),
          "chatml");
    CHECK(!strcmp(flat(chat, CAL_CHAT_LLAMA3),
                  "<|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|><|start_header_id|>user"
                  "<|end_header_id|>\n\nHi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\nHello<|eot_id|>"),
          "llama3");
    CHECK(!strcmp(flat("[{\"from\": \"human\", \"value\": \"q\"}, {\"from\": \"gpt\", \"value\": \"a\"}, "
                       "{\"from\": \"tool\", \"value\": null}]", CAL_CHAT_PLAIN),
                  "User: q\n\nAssistant: a\n\nTool: "),
          "ShareGPT: human -> user, gpt -> assistant, null content");
    CHECK(!strcmp(flat("[{\"role\": \"\", \"content\": \"x\"}, {\"role\": \"Bob\"}, {\"role\": \"\\u00e9l\", "
                       "\"content\": [{\"type\": \"image\"}, 7]}]", CAL_CHAT_PLAIN),
                  ": x\n\nBob: \n\n\xC3\xA9l: "),
          "empty, capitalized and non-ASCII roles; parts without text");
    const char *ctl = flat("[{\"role\": \"u\\u0000x\", \"content\": \"a\\u0000\\u0001\\u009f\"}]", CAL_CHAT_CHATML);
    CHECK(!memcmp(ctl, "<|im_start|>u\0x\na\0\x01\xC2\x9F<|im_end|>\n", 32), "NUL and controls kept, in roles too");
    CHECK(!strcmp(flat("[]", CAL_CHAT_PLAIN), ""), "no messages: empty");
    CHECK(!strcmp(flat("[{\"content\": \"x\"}]", CAL_CHAT_PLAIN), "REFUSED") &&
              !strcmp(flat("[{\"role\": 1, \"content\": \"x\"}]", CAL_CHAT_PLAIN), "REFUSED") &&
              !strcmp(flat("[{\"role\": \"u\", \"content\": 3}]", CAL_CHAT_PLAIN), "REFUSED") &&
              !strcmp(flat("[{\"role\": \"u\", \"content\": {\"text\": \"x\"}}]", CAL_CHAT_PLAIN), "REFUSED") &&
              !strcmp(flat("[\"hi\"]", CAL_CHAT_PLAIN), "REFUSED"),
          "refused: no role, a role that is no string, content of another kind, a message that is no object");
    TEST_END();
}
