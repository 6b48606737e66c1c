/* jsonscan.h - JSON strings without a tree, both ways.
 *
 * Reading: a fast path for JSON Lines that extracts one top-level string
 * field of a JSON object. It accepts only plain, well-formed input and says
 * "don't know" for anything else, so the caller falls back to a full parser
 * (jansson) for odd records and for errors.
 * Writing: bytes as one JSON string, for output read by jq or Python. */
#ifndef CAL_JSONSCAN_H
#define CAL_JSONSCAN_H

#include <stddef.h>

#include "base/buf.h"

/* 1: the object's member `key` is a string, decoded into out (replacing its
 * content; invalid UTF-8 bytes are passed through for the caller to handle);
 * 0: anything else (no such member, not a string, duplicate key, a syntax
 * error, a \u escape that is not a valid code point, ...). */
int cal_json_field(const char *p, size_t n, const char *key, cal_buf *out);

/* Appends s[0..n) to b as a JSON string: '"' and '\\' escaped, \n and \t as
 * such, other control characters and DEL as \u00XX, everything else as UTF-8;
 * invalid UTF-8 becomes U+FFFD, one per maximal invalid subpart (base/utf8.h),
 * so the string is what Python's bytes.decode("utf-8", "replace") gives. */
void cal_json_put_str(cal_buf *b, const char *s, size_t n);

#endif
