/* chat.h - a chat (a list of messages) flattened into one document, in the
 * layout of --template: plain ("Role: content" paragraphs), ChatML or the
 * Llama 3 header format. Messages are OpenAI style {role, content} or
 * ShareGPT {from, value} (human -> user, gpt -> assistant). */
#ifndef CAL_TEXT_CHAT_H
#define CAL_TEXT_CHAT_H

#include <jansson.h>

#include "base/buf.h"
#include "io/pyjson.h"

enum { CAL_CHAT_PLAIN, CAL_CHAT_CHATML, CAL_CHAT_LLAMA3 };

/* The template named plain, chatml or llama3; -1 for any other name. */
int cal_chat_template(const char *name);

/* Writes the flattened chat msgs (a JSON array) into out (replacing its
 * content). A content is a string, a list of parts (each part's "text", or
 * the part itself when it is a string) or null. Returns 1, or 0 when a
 * message has no role string or a content of another kind. marks (NULL:
 * none, io/pyjson.h): string nodes that stand for numbers, which are
 * numbers here too (no role, no content). */
int cal_chat_flatten(const json_t *msgs, int tmpl, const cal_pyjson *marks, cal_buf *out);

#endif
