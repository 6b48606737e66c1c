/* jsonl.h - the document of one line of JSON Lines: the string at a field
 * path, or a chat record flattened (text/chat.h). Lines are read leniently
 * where text would otherwise be lost: raw control bytes inside strings are
 * taken as the characters they are, and invalid UTF-8 is repaired with the
 * one policy of base/utf8.h (or is an error with strict). */
#ifndef CAL_TEXT_JSONL_H
#define CAL_TEXT_JSONL_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "base/buf.h"
#include "text/chat_render.h"
#include "text/fieldfmt.h"

typedef struct {
    const char *field;  /* dotted path of the text: "text", "meta.body", "a.0" */
    int tmpl;           /* chat layout (CAL_CHAT_*) */
    const cal_chat_render *render; /* --chat: the model's template, or NULL */
    int chat;           /* the last document is a chat in a template's layout */
    const cal_fieldfmt *fmt; /* a template of fields (--field '{a}...'), or NULL */
    int missing_empty;  /* a missing or null field of fmt is empty, not an error */
    int strict;         /* invalid UTF-8 in a line parsed in full is an error */
    uint64_t nulls;     /* lines whose text is null (skipped) */
    uint64_t replaced;  /* invalid UTF-8 sequences replaced in lines parsed in full */
    int as_user;        /* --as-user: text records are wanted with render (no -3) */
    uint64_t plain_chats; /* chats laid out in the plain layout (no --chat) */
    uint64_t retried;   /* chats rendered only without their system turns */
    int want_spans;     /* --assistant-mask: render with the assistant's spans */
    cal_buf spans;      /* the last chat's spans (u32 pairs), when want_spans */
    uint64_t lost_turns; /* assistant turns whose span was not found */
    const struct cal_pyjson *marks; /* the parsed record's numbers jansson cannot hold (io/pyjson.h), or NULL */
    struct cal_pyjson *marks_owned; /* the same, kept until cal_jsonl_done or the next parse */
    cal_buf str, chat_text, fix, esc; /* scratch */
} cal_jsonl;

/* The document of line[0..n): 1 with its bytes in *text, *tn (valid until the
 * next call; invalid UTF-8 found by the fast path is left for the caller to
 * repair), 0 when the line gives none (blank, or a null value: counted), -1
 * for a malformed record, with the message in err and in *pos the byte of the
 * line it concerns. The text is the string at j->field; a line that is just a
 * JSON string is the text. A record without the field that has a list
 * "messages" or "conversations" is a chat, flattened with j->tmpl (so are
 * these fields when j->field names them), or rendered with j->render: a
 * template error returns -2, with the template's message in err. j->chat
 * tells whether the document is a chat laid out by a template (its
 * special-token strings are meant as special tokens). With j->render and
 * not j->as_user, a record that gives text rather than a conversation (it
 * has no chat list, or also has the text field) returns -3 with the reason
 * in err: --chat never passes text on as if it were rendered. A list of strings is
 * one document, its strings joined by a blank line. With j->fmt the text is
 * the template filled from the record (text/fieldfmt.h). A line jansson
 * refuses is read again as Python's json.loads reads it (io/pyjson.h: big
 * integers, NaN, Infinity, NUL in keys), and its numbers reach a chat
 * template as json.loads gives them. */
int cal_jsonl_doc(cal_jsonl *j, const char *line, size_t n, const char **text, size_t *tn, char *err,
                  size_t errlen, size_t *pos);
/* The value of line[0..n) parsed as cal_jsonl_doc parses it (invalid UTF-8
 * repaired unless j->strict, raw control characters in strings kept): a new
 * reference, or NULL with the message in err and in *pos the byte of the
 * line it concerns. */
json_t *cal_jsonl_parse(cal_jsonl *j, const char *line, size_t n, char *err, size_t errlen, size_t *pos);
/* After a record that cal_jsonl_parse returned is done with (json_decref'd):
 * forgets its marks, which name its nodes. */
void cal_jsonl_done(cal_jsonl *j);
/* The same for a record already parsed (a Parquet row, io/parquet_rec.h):
 * 1, 0 (a null value), -1 with the message in err, -2 (a template error) or
 * -3 (not a conversation, under --chat). */
int cal_jsonl_record(cal_jsonl *j, const json_t *root, const char **text, size_t *tn, char *err, size_t errlen);
void cal_jsonl_free(cal_jsonl *j);

#endif
