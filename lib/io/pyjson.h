/* pyjson.h - JSON as Python's json.loads reads it, into jansson values.
 *
 * Why this module exists: transformers renders chat templates over what
 * json.loads gave the user's script, and json.loads takes records jansson
 * refuses: integers of any size (an order id of 20 digits in a tool call),
 * NaN, Infinity and -Infinity, numbers past a double's range (1e400 is
 * inf), and NUL characters in object keys. Such a record is parsed here:
 * the tree is jansson's (NUL keys through json_object_setn), and the numbers
 * jansson cannot hold are string nodes marked as literals; a consumer that
 * knows (the Jinja renderer, through cal_jinja_opts.literal) asks
 * cal_pyjson_literal for a node's number text and makes the number Python
 * would; cal-read's fields (text/jsonl.c, fieldfmt.c, chat.c) take such a
 * node as the number it is. The marks are by node, so no string of the
 * record can pass for one.
 *
 * What json.loads refuses is refused too: integers past 4300 digits
 * (Python's int max_str_digits), nesting deeper than 1000 (its recursion
 * limit, about), bad syntax. A \u escape of a lone surrogate is refused as
 * well: Python keeps it in the str, but the text cannot be UTF-8, so the
 * rendered conversation could not be tokenized either. Raw control
 * characters in strings are the caller's (cal-read escapes them first, as
 * json.loads(strict=False) keeps them). */
#ifndef CAL_IO_PYJSON_H
#define CAL_IO_PYJSON_H

#include <jansson.h>
#include <stddef.h>

typedef struct cal_pyjson cal_pyjson;

/* Parses p[0..n) (one JSON value, whitespace around it): 0 with *root (a
 * new reference) and *marks (NULL when no node is marked; free with
 * cal_pyjson_free), or -1 with "byte OFF: what" in err. */
int cal_pyjson_loads(const char *p, size_t n, json_t **root, cal_pyjson **marks, char *err, size_t errlen);

/* The JSON text of the number a marked string node stands for ("1e400",
 * "NaN", "123456789012345678901234567890"), or NULL for any other node. */
const char *cal_pyjson_literal(const cal_pyjson *m, const json_t *node);

void cal_pyjson_free(cal_pyjson *m);

#endif
