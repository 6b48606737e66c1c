/* jsonsplit.h - the top-level values of a JSON document, one at a time,
 * without a tree: a top-level list [a, b, ...] gives its elements, so a
 * JSON file of a million records streams in bounded memory, and values
 * separated by whitespace (JSON Lines, records printed over several lines)
 * are given one after the other.
 *
 * Why: quantizers' "use your own data" paths (auto-round's `local`,
 * datasets' json builder behind llm-compressor) read a .json list of records
 * or an object of records, often pretty-printed; the line reader of JSON
 * Lines cannot. The splitter only finds where each value begins and ends
 * (strings, escapes, nesting); the caller parses each value (jansson), so
 * errors inside a value are the parser's, at the value's offset. */
#ifndef CAL_IO_JSONSPLIT_H
#define CAL_IO_JSONSPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "io/insrc.h"

typedef struct cal_jsonsplit cal_jsonsplit;

/* Splits s from its current position (a UTF-8 BOM is skipped). A value of
 * more than max bytes ends the program naming its offset. */
cal_jsonsplit *cal_jsonsplit_new(cal_insrc *s, size_t max);

/* The next value: 1 with its bytes in *p, *n (valid until the next call)
 * and *off its offset in the decompressed input; 0 at the end. *lone is 1
 * when the value is a top-level object and the only value of the input
 * (an object of records, or one record). A list inside a top-level list
 * is an element like any other. Bytes that cannot start or separate values
 * (a stray ',' or ']', a trailing ',' before ']', a list or value left open
 * at the end) end the program with "FILE: byte OFF: what". */
int cal_jsonsplit_next(cal_jsonsplit *j, const char **p, size_t *n, uint64_t *off, int *lone);

/* Elements given so far, counting from 0 (for messages: "record N"). */
uint64_t cal_jsonsplit_count(const cal_jsonsplit *j);

void cal_jsonsplit_free(cal_jsonsplit *j);

#endif
