/* jsonscan.h - a fast path for JSON Lines: extracts one top-level string
 * field of a JSON object without building a tree. It accepts only plain,
 * well-formed input and says "don't know" for anything else, so the caller
 * falls back to a full parser (jansson) for odd records and for errors. */
#ifndef CAL_JSONSCAN_H
#define CAL_JSONSCAN_H

#include <stddef.h>

#include "base/buf.h"

/* 1: the object's member `key` is a string, decoded into out (replacing its
 * content; invalid UTF-8 bytes are passed through for the caller to handle);
 * 0: anything else (no such member, not a string, duplicate key, a syntax
 * error, a \u escape that is not a valid code point, ...). */
int cal_json_field(const char *p, size_t n, const char *key, cal_buf *out);

#endif
