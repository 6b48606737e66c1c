/* length.h - document lengths in characters, for --min-chars and
 * --max-chars: a long document is cut into pieces at a line or word end. */
#ifndef CAL_TEXT_LENGTH_H
#define CAL_TEXT_LENGTH_H

#include <stddef.h>
#include <stdint.h>

/* Characters (code points) of valid UTF-8: the bytes that are not
 * continuation bytes. */
size_t cal_text_chars(const char *p, size_t n);

/* Bytes of the first piece of p[0..n) (n > 0) holding at most max_chars
 * characters: all of it when it fits (or max_chars is 0); else the piece
 * ends after the last newline among its characters max_chars/2+1 ..
 * max_chars, else after the last space there, else after max_chars
 * characters. Never 0, never inside a character. */
size_t cal_text_piece(const char *p, size_t n, uint64_t max_chars);

#endif
