/* fieldfmt.h - the text of a record made from several of its fields:
 * cal-read --field '{instruction}\n\n{input}\n\n{output}' over JSON Lines
 * and Parquet rows (Alpaca, prompt/completion, any record). A template is
 * literal text with {PATH} fields (dotted paths as --field takes them:
 * {meta.source}, {a.0}); \n \t \r \\ \{ \} are escapes, and {{ }} are
 * braces as in Python's str.format. A section {?PATH:TEXT} writes TEXT
 * (itself a template) only when the field is there and not empty (not
 * missing, not null, not ""), {!PATH:TEXT} only when it is not (inside a
 * section '}' ends it: a brace there is \}): Alpaca's
 * two prompts, with and without an input, as llm-compressor's open_platypus
 * chooses them, are one template.
 *
 * Values are written as Python's TEMPLATE.format(**json.loads(line)) writes
 * them: strings as they are, integers in decimal, reals as repr(float)
 * (1.0, 1e+16, 1e-05), booleans True/False. Where Python would write text no
 * one calibrates on, the template refuses: null is a missing field (Python:
 * "None"), lists and objects are errors (Python: their repr). */
#ifndef CAL_TEXT_FIELDFMT_H
#define CAL_TEXT_FIELDFMT_H

#include <jansson.h>
#include <stddef.h>

#include "base/buf.h"
#include "io/pyjson.h"

typedef struct cal_fieldfmt cal_fieldfmt;

/* 1 when s is a template rather than a field path (it holds a brace). */
int cal_fieldfmt_is(const char *s);
/* Compiles a template; NULL with the message in err when it is malformed
 * (an unclosed '{' or section, a lone '}', an empty or formatted field, an
 * unknown escape). */
cal_fieldfmt *cal_fieldfmt_parse(const char *tmpl, char *err, size_t errlen);
/* The template's field paths, in order (repeats included; a section's field
 * too). */
size_t cal_fieldfmt_nfields(const cal_fieldfmt *f);
const char *cal_fieldfmt_field(const cal_fieldfmt *f, size_t i);
/* Writes the text of record root into out (replacing its content): 0, or -1
 * with the message in err for a missing or null field (unless
 * missing_empty: then it is empty) or a list or object. marks (NULL: none)
 * are root's numbers jansson cannot hold (io/pyjson.h): such a node is
 * written as Python's str.format writes the number json.loads made of it
 * (nan, inf, -inf, the integer's digits), never as its JSON text. */
int cal_fieldfmt_render(const cal_fieldfmt *f, const json_t *root, const cal_pyjson *marks, int missing_empty,
                        cal_buf *out, char *err, size_t errlen);
void cal_fieldfmt_free(cal_fieldfmt *f);

/* The value at a dotted path: object members by name, array elements by
 * number; NULL when a step is missing. */
json_t *cal_json_at(const json_t *v, const char *path);

#endif
