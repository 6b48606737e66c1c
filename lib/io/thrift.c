/* thrift.c - Thrift compact protocol, bounds-checked. */
#include "io/thrift.h"

#define TC_MAX_DEPTH 32

uint64_t tc_offset(const tc_reader *r) { return r->base + (uint64_t)(r->p - r->start); }

static void fail(tc_reader *r, const char *what) { r->fail(r->ctx, tc_offset(r), what); }

static uint8_t byte(tc_reader *r) {
    if (r->p >= r->end) fail(r, "truncated Thrift data");
    return *r->p++;
}

uint64_t tc_varint(tc_reader *r) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        uint8_t b = byte(r);
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) return v;
    }
    fail(r, "Thrift varint too long");
    return 0;
}

int64_t tc_zigzag(tc_reader *r) {
    uint64_t v = tc_varint(r);
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

int32_t tc_i32(tc_reader *r) {
    int64_t v = tc_zigzag(r);
    if (v < INT32_MIN || v > INT32_MAX) fail(r, "Thrift i32 out of range");
    return (int32_t)v;
}

int tc_field(tc_reader *r, int16_t *id) {
    uint8_t b = byte(r);
    int type = b & 15;
    if (type == TC_STOP) return TC_STOP;
    int delta = b >> 4;
    if (delta) *id = (int16_t)(*id + delta);
    else {
        int64_t v = tc_zigzag(r);
        if (v < INT16_MIN || v > INT16_MAX) fail(r, "bad Thrift field id");
        *id = (int16_t)v;
    }
    if (type > TC_STRUCT) fail(r, "bad Thrift field type");
    return type;
}

const uint8_t *tc_binary(tc_reader *r, size_t *n) {
    uint64_t len = tc_varint(r);
    if (len > (uint64_t)(r->end - r->p)) fail(r, "Thrift string longer than its buffer");
    const uint8_t *s = r->p;
    r->p += len;
    *n = (size_t)len;
    return s;
}

int tc_list(tc_reader *r, size_t *n) {
    uint8_t b = byte(r);
    uint64_t len = b >> 4;
    int type = b & 15;
    if (len == 15) len = tc_varint(r);
    if (type == TC_STOP || type > TC_STRUCT) fail(r, "bad Thrift list element type");
    /* every element takes at least one byte */
    if (len > (uint64_t)(r->end - r->p)) fail(r, "Thrift list longer than its buffer");
    *n = (size_t)len;
    return type;
}

void tc_skip(tc_reader *r, int type) {
    size_t n;
    switch (type) {
    case TC_TRUE: case TC_FALSE: return;  /* value in the field type */
    case TC_BYTE: byte(r); return;
    case TC_I16: case TC_I32: case TC_I64: tc_varint(r); return;
    case TC_DOUBLE:
        if (r->end - r->p < 8) fail(r, "truncated Thrift data");
        r->p += 8;
        return;
    case TC_BINARY: tc_binary(r, &n); return;
    case TC_LIST: case TC_SET: {
        if (++r->depth > TC_MAX_DEPTH) fail(r, "Thrift data nested too deeply");
        int et = tc_list(r, &n);
        for (size_t i = 0; i < n; i++) {
            if (et == TC_TRUE || et == TC_FALSE) byte(r);
            else tc_skip(r, et);
        }
        r->depth--;
        return;
    }
    case TC_MAP: {
        if (++r->depth > TC_MAX_DEPTH) fail(r, "Thrift data nested too deeply");
        uint64_t len = tc_varint(r);
        if (len) {
            uint8_t kv = byte(r);
            if (len > (uint64_t)(r->end - r->p)) fail(r, "Thrift map longer than its buffer");
            for (uint64_t i = 0; i < len; i++) {
                int kt = kv >> 4, vt = kv & 15;
                if (kt == TC_TRUE || kt == TC_FALSE) byte(r); else tc_skip(r, kt);
                if (vt == TC_TRUE || vt == TC_FALSE) byte(r); else tc_skip(r, vt);
            }
        }
        r->depth--;
        return;
    }
    case TC_STRUCT: {
        if (++r->depth > TC_MAX_DEPTH) fail(r, "Thrift data nested too deeply");
        int16_t id = 0;
        int t;
        while ((t = tc_field(r, &id)) != TC_STOP) tc_skip(r, t);
        r->depth--;
        return;
    }
    default: fail(r, "bad Thrift type");
    }
}
