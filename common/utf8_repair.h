/* utf8_repair.h - replace invalid UTF-8 with U+FFFD exactly as the WHATWG
 * decoder (JavaScript TextDecoder, Node's Buffer.toString) and Python's
 * bytes.decode(errors="replace") do: one U+FFFD per "maximal subpart" of an
 * ill-formed sequence (Unicode 15, section 3.9, U+FFFD substitution of
 * maximal subparts). The reference tokenizers only ever see such repaired
 * strings, so calkit repairs the same way before encoding. */
#ifndef CAL_UTF8_REPAIR_H
#define CAL_UTF8_REPAIR_H

#include <stddef.h>

#include "util.h"

/* Length of the longest valid UTF-8 prefix of s[0..n) (n when all valid). */
size_t cal_utf8_valid_prefix(const char *s, size_t n);
/* Appends s[0..n) to out with every maximal ill-formed subpart replaced by
 * U+FFFD (EF BF BD). Returns the number of replacements. */
size_t cal_utf8_repair(const char *s, size_t n, cal_buf *out);

#endif
