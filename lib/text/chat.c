/* chat.c - see chat.h. */
#include "text/chat.h"

#include <string.h>

int cal_chat_template(const char *name) {
    static const char *const names[] = {[CAL_CHAT_PLAIN] = "plain", [CAL_CHAT_CHATML] = "chatml",
                                        [CAL_CHAT_LLAMA3] = "llama3"};
    for (int k = 0; k < (int)(sizeof names / sizeof *names); k++)
        if (!strcmp(name, names[k])) return k;
    return -1;
}

/* A string node that is not a number jansson could not hold. */
static int is_str(const json_t *v, const cal_pyjson *marks) {
    return json_is_string(v) && !(marks && cal_pyjson_literal(marks, v));
}

/* Text of a message content: a string, or a list of parts. */
static int content_text(const json_t *c, const cal_pyjson *marks, cal_buf *b) {
    if (is_str(c, marks)) {
        cal_buf_add(b, json_string_value(c), json_string_length(c));
        return 1;
    }
    if (!json_is_array(c)) return 0;
    for (size_t i = 0; i < json_array_size(c); i++) {
        const json_t *x = json_array_get(c, i);
        const json_t *t = json_is_object(x) ? json_object_get(x, "text") : x;
        if (is_str(t, marks)) cal_buf_add(b, json_string_value(t), json_string_length(t));
    }
    return 1;
}

int cal_chat_flatten(const json_t *msgs, int tmpl, const cal_pyjson *marks, cal_buf *b) {
    b->n = 0;
    for (size_t i = 0; i < json_array_size(msgs); i++) {
        const json_t *m = json_array_get(msgs, i);
        const json_t *r = json_object_get(m, "role"), *c = json_object_get(m, "content");
        if (!r && !c) r = json_object_get(m, "from"), c = json_object_get(m, "value");
        if (!is_str(r, marks)) return 0;
        const char *role = json_string_value(r);
        size_t rn = json_string_length(r);
        if (strcmp(role, "human") == 0) role = "user", rn = 4;
        else if (strcmp(role, "gpt") == 0) role = "assistant", rn = 9;
        if (tmpl == CAL_CHAT_CHATML) {
            cal_buf_add(b, "<|im_start|>", 12);
            cal_buf_add(b, role, rn);
            cal_buf_addc(b, '\n');
        } else if (tmpl == CAL_CHAT_LLAMA3) {
            cal_buf_add(b, "<|start_header_id|>", 19);
            cal_buf_add(b, role, rn);
            cal_buf_add(b, "<|end_header_id|>\n\n", 19);
        } else { /* "Role: ", the first letter in upper case */
            if (i) cal_buf_add(b, "\n\n", 2);
            size_t at = b->n;
            cal_buf_add(b, role, rn);
            if (rn && b->p[at] >= 'a' && b->p[at] <= 'z') b->p[at] = (char)(b->p[at] - 32);
            cal_buf_add(b, ": ", 2);
        }
        if (c && !json_is_null(c) && !content_text(c, marks, b)) return 0;
        if (tmpl == CAL_CHAT_CHATML) cal_buf_add(b, "<|im_end|>\n", 11);
        else if (tmpl == CAL_CHAT_LLAMA3) cal_buf_add(b, "<|eot_id|>", 10);
    }
    return 1;
}
