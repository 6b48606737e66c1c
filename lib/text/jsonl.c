/* jsonl.c - see jsonl.h. The fast path (io/jsonscan.h) reads a plain
 * top-level field without a tree; everything else goes to jansson. */
#include "text/jsonl.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/utf8.h"
#include "io/jsonscan.h"
#include "io/pyjson.h"
#include "text/chat.h"
#include "text/fieldfmt.h"

static int blank(const char *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r') return 0;
    return 1;
}

/* JSON forbids raw bytes below 0x20 inside strings; Python's
 * json.loads(strict=False) and the text itself keep them. Writes p with each
 * such byte inside a string as \u00XX into out; 0 when there is none. */
static int escape_controls(const char *p, size_t n, cal_buf *out) {
    size_t i = 0;
    while (i < n && (unsigned char)p[i] >= 0x20) i++;
    if (i == n) return 0;
    out->n = 0;
    int in_str = 0, any = 0;
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (in_str && c < 0x20) {
            cal_buf_addf(out, "\\u%04x", c);
            any = 1;
            continue;
        }
        cal_buf_addc(out, (char)c);
        if (c == '"') in_str = !in_str;
        else if (in_str && c == '\\' && i + 1 < n) cal_buf_addc(out, p[++i]);
    }
    return any; /* line ends between the values of a pretty-printed record need nothing */
}

static int fail(char *err, size_t errlen, size_t *pos, size_t at, const char *fmt, ...) CAL_PRINTF(5, 6);
static int fail(char *err, size_t errlen, size_t *pos, size_t at, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    *pos = at;
    return -1;
}

json_t *cal_jsonl_parse(cal_jsonl *j, const char *line, size_t n, char *err, size_t errlen, size_t *pos) {
    /* first what jansson would refuse but the text keeps */
    const char *p = line;
    size_t pn = n, bad = cal_utf8_valid_prefix(line, n);
    int rewritten = 0;
    if (bad < n) {
        if (j->strict) {
            fail(err, errlen, pos, bad, "invalid UTF-8");
            return NULL;
        }
        j->fix.n = 0;
        j->replaced += cal_utf8_repair(line, n, &j->fix);
        p = j->fix.p, pn = j->fix.n, rewritten = 1;
    }
    if (escape_controls(p, pn, &j->esc)) p = j->esc.p, pn = j->esc.n, rewritten = 1;
    json_error_t e;
    json_t *root = json_loadb(p, pn, JSON_ALLOW_NUL | JSON_DECODE_ANY, &e);
    cal_pyjson_free(j->marks_owned);
    j->marks = j->marks_owned = NULL;
    if (!root) {
        /* what jansson refuses may be Python's JSON (json.loads reads it):
         * big integers, NaN, Infinity, 1e400 */
        char perr[256];
        if (cal_pyjson_loads(p, pn, &root, &j->marks_owned, perr, sizeof perr) < 0) {
            /* a rewritten line has other offsets: name the line's start */
            fail(err, errlen, pos, rewritten || e.position < 0 ? 0 : (size_t)e.position, "invalid JSON: %s", e.text);
            return NULL;
        }
        j->marks = j->marks_owned;
    }
    return root;
}

void cal_jsonl_done(cal_jsonl *j) {
    cal_pyjson_free(j->marks_owned);
    j->marks = j->marks_owned = NULL;
}

int cal_jsonl_doc(cal_jsonl *j, const char *line, size_t n, const char **text, size_t *tn, char *err,
                  size_t errlen, size_t *pos) {
    const char *field = j->field;
    j->chat = 0;
    int chat_field = !strcmp(field, "messages") || !strcmp(field, "conversations");
    int fast = !j->fmt && !chat_field && !strchr(field, '.') && !(j->render && !j->as_user); /* --chat checks records */
    if (fast && cal_json_field(line, n, field, &j->str)) {
        *text = j->str.p ? j->str.p : "";
        *tn = j->str.n;
        return 1;
    }
    if (blank(line, n)) return 0;
    json_t *root = cal_jsonl_parse(j, line, n, err, errlen, pos);
    if (!root) return -1;
    int r = cal_jsonl_record(j, root, text, tn, err, errlen);
    *pos = 0;
    json_decref(root);
    cal_jsonl_done(j);
    return r;
}

/* A string node, not a number jansson could not hold (NaN, 1e400, big
 * integers: io/pyjson.h marks them), which is a number as 5 is. */
static int is_str(const cal_jsonl *j, const json_t *v) {
    return json_is_string(v) && !(j->marks && cal_pyjson_literal(j->marks, v));
}

/* A list of strings is one document: its strings (nulls skipped) joined by
 * a blank line, as --template plain joins turns. 0 when v is another list. */
static int join_strings(const cal_jsonl *j, const json_t *v, cal_buf *out) {
    size_t i;
    json_t *x;
    json_array_foreach(v, i, x) if (!is_str(j, x) && !json_is_null(x)) return 0;
    out->n = 0;
    json_array_foreach(v, i, x) if (json_is_string(x)) {
        if (out->n) cal_buf_add(out, "\n\n", 2);
        cal_buf_add(out, json_string_value(x), json_string_length(x));
    }
    return 1;
}

int cal_jsonl_record(cal_jsonl *j, const json_t *root, const char **text, size_t *tn, char *err, size_t errlen) {
    const char *field = j->field;
    j->spans.n = 0;
    int chat_field = !strcmp(field, "messages") || !strcmp(field, "conversations");
    j->chat = 0;
    if (j->fmt) {
        if (cal_fieldfmt_render(j->fmt, root, j->marks, j->missing_empty, &j->str, err, errlen) < 0) return -1;
        *text = j->str.p ? j->str.p : "", *tn = j->str.n;
        return 1;
    }
    json_t *v = is_str(j, root) ? (json_t *)root : cal_json_at(root, field);
    const char *chat_name = chat_field ? field : NULL;
    int r = 1;
    size_t at; /* a record's errors concern the whole of it */
    if (!v && !chat_field && json_is_object(root)) {
        chat_name = "messages";
        if (!(v = json_object_get(root, chat_name))) chat_name = "conversations", v = json_object_get(root, chat_name);
        if (!v) chat_name = NULL;
    }
    if (is_str(j, v) && (!chat_name || chat_field)) {
        j->str.n = 0;
        cal_buf_add(&j->str, json_string_value(v), json_string_length(v));
        *text = j->str.p, *tn = j->str.n;
    } else if (json_is_array(v) && chat_name && j->render) {
        j->spans.n = 0;
        int k = cal_chat_render_spans(j->render, root, v, j->marks, &j->chat_text, j->want_spans ? &j->spans : NULL,
                                      &j->lost_turns, err, errlen);
        if (k >= 0) *text = j->chat_text.p ? j->chat_text.p : "", *tn = j->chat_text.n, j->chat = 1;
        else r = -2;
        j->retried += k == 1;
    } else if (json_is_array(v) && chat_name) {
        j->chat = j->tmpl != CAL_CHAT_PLAIN;
        j->plain_chats += j->tmpl == CAL_CHAT_PLAIN;
        if (cal_chat_flatten(v, j->tmpl, j->marks, &j->chat_text)) *text = j->chat_text.p ? j->chat_text.p : "", *tn = j->chat_text.n;
        else r = fail(err, errlen, &at, 0, "chat record without role/content strings");
    } else if (json_is_array(v) && !chat_name && join_strings(j, v, &j->str)) {
        *text = j->str.p ? j->str.p : "", *tn = j->str.n;
    } else if (json_is_null(v)) {
        j->nulls++;
        r = 0;
    } else if (!v) {
        r = fail(err, errlen, &at, 0, "no field '%s' (and no chat 'messages'; other records take a template such as --field "
                 "'{prompt}{completion}')", field);
    } else if (chat_name && !chat_field) {
        r = fail(err, errlen, &at, 0, "no field '%s', and '%s' is not a chat list", field, chat_name);
    } else {
        r = fail(err, errlen, &at, 0, "field '%s' is not a string (or a list of strings)", field);
    }
    if (r == 1 && j->render && !j->as_user && !j->chat) { /* --chat: a record that is not a conversation */
        const char *c = json_is_object(root) && json_object_get(root, "messages") ? "messages"
                      : json_is_object(root) && json_object_get(root, "conversations") ? "conversations" : NULL;
        if (c) cal_errf(err, errlen, "--chat: the record has both '%s' and '%s' (render the conversation with "
                        "--field %s, or the text as a user turn with --as-user)", field, c, c);
        else cal_errf(err, errlen, "--chat: the record holds no conversation ('messages' or 'conversations'); "
                      "--as-user renders its '%s' as a user turn", field);
        r = -3;
    }
    return r;
}

void cal_jsonl_free(cal_jsonl *j) {
    cal_buf_free(&j->str), cal_buf_free(&j->chat_text), cal_buf_free(&j->fix), cal_buf_free(&j->esc);
    cal_buf_free(&j->spans);
    cal_jsonl_done(j);
}
