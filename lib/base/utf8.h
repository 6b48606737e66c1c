/* utf8.h - the one UTF-8 module: decode, validate, and replace invalid UTF-8 with U+FFFD exactly as the WHATWG
 * decoder (JavaScript TextDecoder, Node's Buffer.toString) and Python's
 * bytes.decode(errors="replace") do: one U+FFFD per "maximal subpart" of an
 * ill-formed sequence (Unicode 15, section 3.9, U+FFFD substitution of
 * maximal subparts). The reference tokenizers only ever see such repaired
 * strings, so calkit repairs the same way before encoding. */
#ifndef CAL_UTF8_REPAIR_H
#define CAL_UTF8_REPAIR_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

/* Length of the longest valid UTF-8 prefix of s[0..n) (n when all valid). */
size_t cal_utf8_valid_prefix(const char *s, size_t n);
/* Appends s[0..n) to out with every maximal ill-formed subpart replaced by
 * U+FFFD (EF BF BD). Returns the number of replacements. */
size_t cal_utf8_repair(const char *s, size_t n, cal_buf *out);

/* Decodes the character of valid UTF-8 at s[i] into *cp and returns its
 * length; a sequence cut by the end gives *cp = -1 and 1. */
size_t cal_utf8_next(const char *s, size_t len, size_t i, int32_t *cp);
/* NULL when s[0..n) is valid UTF-8 (no copy); otherwise a malloc'd,
 * NUL-terminated copy repaired as by cal_utf8_repair, its length in *out_len. */
char *cal_utf8_repaired(const char *s, size_t n, size_t *out_len);

/* Appends s[0..n) for an error message, NUL-terminated: valid UTF-8 text as
 * it is, '\\' and '\'' escaped, \n \t \r for those controls and \xHH for other
 * control bytes and bytes of invalid UTF-8; cut with "..." after `max`
 * input bytes. Shows exactly which byte is wrong in one line. */
void cal_utf8_escape(const char *s, size_t n, size_t max, cal_buf *out);

#endif
