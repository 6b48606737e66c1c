/* chat_render.h - a conversation record rendered with its model's own chat
 * template (cal-read --chat), as transformers'
 * tokenizer.apply_chat_template(messages, tools=..., add_generation_prompt=...,
 * tokenize=False) renders it. The template and the special tokens come from
 * the model's tokenizer_config.json (chat_template.jinja beside it wins, as in
 * transformers); jinja/jinja.h runs it.
 *
 * Why: an instruct model reads conversations through that template; the
 * fixed layouts of text/chat.h are only approximations of a few of them. */
#ifndef CAL_TEXT_CHAT_RENDER_H
#define CAL_TEXT_CHAT_RENDER_H

#include <jansson.h>
#include <stddef.h>
#include <time.h>

#include "base/buf.h"
#include "io/pyjson.h"

typedef struct cal_chat_render cal_chat_render;

typedef struct {
    const char *model;       /* folder, tokenizer_config.json, .jinja, or a fetched name */
    const char *name;        /* --chat-template-name: one of a list of named templates, or NULL */
    int add_generation_prompt;
    const struct tm *now;    /* strftime_now's time; NULL: the time of rendering */
    const char *const *vars; /* --chat-var KEY=JSON: more template variables, as
                              * apply_chat_template's keyword arguments */
    size_t nvars;
    const char *system;      /* --system: a system turn put first (NULL: none) */
    int retry_without_system; /* a refused conversation is rendered again
                               * without its system turns (auto-round) */
} cal_chat_spec;

/* Finds and loads the template of spec->model (spec->vars are set after the
 * special tokens, so they override them as keyword arguments do; messages,
 * tools and add_generation_prompt are refused, as Python refuses a keyword
 * given twice; documents is the default of records without their own): a folder (its
 * chat_template.jinja, else the chat_template of its tokenizer_config.json;
 * with additional_chat_templates/NAME.jinja files, the templates are named:
 * NAME, and "default" for chat_template.jinja or a default.jinja there,
 * as transformers loads them),
 * a tokenizer_config.json (the files beside it win), a .jinja file
 * (tokenizer_config.json beside it gives the special tokens), or a bare NAME
 * fetched by `make tokenizers` (DIR/NAME/ for DIR in cal_data_dirs
 * "tokenizers"). A chat_template that is a list of {name, template} is kept
 * whole: records take "default", or "tool_use" when they have tools, or
 * spec->name. NULL with a one-line message in err. */
cal_chat_render *cal_chat_render_open(const cal_chat_spec *spec, char *err, size_t errlen);

/* The file the template was read from, for messages. */
const char *cal_chat_render_source(const cal_chat_render *c);

/* Renders a record: msgs is its "messages" (OpenAI: role, content,
 * tool_calls, ...) or "conversations" (ShareGPT from/value, mapped to
 * role/content with human -> user, gpt -> assistant); record is the whole
 * record, whose "tools" and "documents" (lists, or absent/null; documents
 * absent: --chat-var's, else null) are passed on; marks are the record's
 * numbers jansson cannot hold (io/pyjson.h; NULL: none). With
 * spec->system, a {"role": "system", "content": SYSTEM} turn goes first
 * unless the first message is a system turn (llm-compressor's ultrachat
 * preprocessing inserts an empty one so). Writes the text into out
 * (replacing its content). Returns 0, 1 when it was rendered only at the
 * retry without system turns (spec->retry_without_system: every message
 * of role system left out, as auto-round's apply_chat_template_to_samples
 * retries after any error; a conversation without system turns is not
 * rendered again, as it would fail the same), or -1 with the template's
 * message (or what is wrong with the record) in err, which says "(at the
 * retry without its system turns)" when the retry gave it. */
int cal_chat_render_record(const cal_chat_render *c, const json_t *record, const json_t *msgs,
                           const cal_pyjson *marks, cal_buf *out, char *err, size_t errlen);

/* cal_chat_render_record, also appending to spans the byte spans of out
 * that are the assistant's output, as u32 pairs (start, end) in native byte
 * order: the {% generation %} blocks of a template that has them (as
 * transformers' return_assistant_tokens_mask takes them), else each
 * assistant turn found by rendering the conversation up to it (with the
 * generation prompt) and through it: the turn's text and its end-of-turn
 * tokens. Assistant turns not found so, and {% generation %} blocks whose
 * output was captured (a macro, a set or filter block: no span, where
 * transformers records one at the top-level length), are counted in *lost. */
int cal_chat_render_spans(const cal_chat_render *c, const json_t *record, const json_t *msgs,
                          const cal_pyjson *marks, cal_buf *out, cal_buf *spans, uint64_t *lost, char *err,
                          size_t errlen);

/* Text as a user turn (cal-read --as-user): the messages [{"role": "system",
 * "content": spec->system} when set, {"role": "user", "content": text}],
 * rendered as cal_chat_render_record renders them (auto-round's
 * apply_chat_template_to_samples with add_generation_prompt from the spec).
 * text[0..n) is UTF-8. Returns 0, 1 (rendered at the retry), or -1 with err. */
int cal_chat_render_user(const cal_chat_render *c, const char *text, size_t n, cal_buf *out, char *err, size_t errlen);

/* 0 when kv is a valid --chat-var KEY=JSON (JSON as Python's json.loads
 * reads it: big integers, NaN, NUL in keys), else -1 with the reason in err. */
int cal_chat_var_check(const char *kv, char *err, size_t errlen);

void cal_chat_render_free(cal_chat_render *c);

#endif
