/* thrift.h - a bounded reader of the Thrift compact protocol (the encoding
 * of Parquet's footer and page headers). Every read is checked against the
 * end of the buffer; a problem calls the fail hook, which must not return
 * (the Parquet reader longjmps back to its API entry). */
#ifndef CAL_THRIFT_H
#define CAL_THRIFT_H

#include <stddef.h>
#include <stdint.h>

enum {
    TC_STOP = 0, TC_TRUE = 1, TC_FALSE = 2, TC_BYTE = 3, TC_I16 = 4, TC_I32 = 5, TC_I64 = 6,
    TC_DOUBLE = 7, TC_BINARY = 8, TC_LIST = 9, TC_SET = 10, TC_MAP = 11, TC_STRUCT = 12
};

typedef struct tc_reader {
    const uint8_t *start, *p, *end;
    uint64_t base;  /* file offset of start, for messages */
    void (*fail)(void *ctx, uint64_t off, const char *what);
    void *ctx;
    int depth;
} tc_reader;

/* Field header: returns the type (TC_STOP at the end of a struct) and sets
 * *id (previous id in/out, starts at 0). Booleans carry their value in the type. */
int tc_field(tc_reader *r, int16_t *id);
uint64_t tc_varint(tc_reader *r);
int64_t tc_zigzag(tc_reader *r);
int32_t tc_i32(tc_reader *r);  /* i8/i16/i32 fields (zigzag varint) */
/* Binary/string: pointer into the buffer and its length. */
const uint8_t *tc_binary(tc_reader *r, size_t *n);
/* List/set header: element type and count (count checked against the bytes left). */
int tc_list(tc_reader *r, size_t *n);
/* Skips a value of the given type (nesting limited). */
void tc_skip(tc_reader *r, int type);
uint64_t tc_offset(const tc_reader *r);

#endif
