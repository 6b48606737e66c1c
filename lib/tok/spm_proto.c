/* spm_proto.c - the protobuf wire format and the ModelProto fields calkit's
 * SentencePiece engines read (see spm_proto.h). */
#include "tok/spm_proto.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"

static uint64_t pb_varint(pb_reader *r) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64 && r->p < r->end; shift += 7) {
        uint8_t b = *r->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) return v;
    }
    r->bad = 1;
    return 0;
}

void pb_walk(pb_reader *r, const pb_visit *v) {
    while (r->p < r->end && !r->bad) {
        uint64_t tag = pb_varint(r), field = tag >> 3;
        size_t skip = 0;
        switch (tag & 7) {
        case 0: {
            uint64_t x = pb_varint(r);
            if (v->on_varint && !r->bad) v->on_varint(v->ctx, field, x);
            break;
        }
        case 1: skip = 8; break;
        case 5:
            if (r->end - r->p >= 4 && v->on_fixed32) {
                uint32_t x = (uint32_t)r->p[0] | (uint32_t)r->p[1] << 8 | (uint32_t)r->p[2] << 16 | (uint32_t)r->p[3] << 24;
                v->on_fixed32(v->ctx, field, x);
            }
            skip = 4;
            break;
        case 2: {
            uint64_t len = pb_varint(r);
            if (r->bad || len > (uint64_t)(r->end - r->p)) {
                r->bad = 1;
                return;
            }
            pb_reader s = {r->p, r->p + len, 0};
            if (v->on_bytes) v->on_bytes(v->ctx, field, &s);
            r->bad |= s.bad;
            skip = (size_t)len;
            break;
        }
        default: r->bad = 1; return; /* groups: not in a ModelProto */
        }
        if ((size_t)(r->end - r->p) < skip) r->bad = 1;
        else r->p += skip;
    }
}

/* ---- ModelProto ---- */

typedef struct {
    spm_model *m;
    size_t cap;
    spm_piece cur;
} rd;

static void piece_varint(void *ctx, uint64_t field, uint64_t v) {
    rd *r = ctx;
    if (field == 3) r->cur.type = v >= 1 && v <= 6 ? (int)v : 0;
}

static void piece_fixed(void *ctx, uint64_t field, uint32_t v) {
    rd *r = ctx;
    if (field == 2) memcpy(&r->cur.score, &v, 4);
}

static void piece_bytes(void *ctx, uint64_t field, pb_reader *sub) {
    rd *r = ctx;
    if (field != 1) return;
    r->cur.text = (const char *)sub->p;
    r->cur.len = (uint32_t)(sub->end - sub->p);
}

static void trainer_varint(void *ctx, uint64_t field, uint64_t v) {
    spm_model *m = ((rd *)ctx)->m;
    if (field == 3) m->model_type = v;
    if (field == 24) m->suffix = v != 0;
    if (field == 35) m->byte_fallback = v != 0;
}

static void normalizer_varint(void *ctx, uint64_t field, uint64_t v) {
    spm_model *m = ((rd *)ctx)->m;
    if (field == 3) m->dummy_prefix = v != 0;
    if (field == 4) m->remove_extra = v != 0;
    if (field == 5) m->escape = v != 0;
}

static void normalizer_bytes(void *ctx, uint64_t field, pb_reader *sub) {
    spm_model *m = ((rd *)ctx)->m;
    size_t n = (size_t)(sub->end - sub->p);
    if (field == 1) m->norm_name = (const char *)sub->p, m->norm_name_len = n;
    if (field == 2) m->charsmap = n ? sub->p : NULL, m->charsmap_len = n;
}

static void model_bytes(void *ctx, uint64_t field, pb_reader *sub) {
    rd *r = ctx;
    if (field == 1) {
        r->cur = (spm_piece){"", 0, 0.0f, SPM_P_NORMAL};
        pb_visit v = {piece_varint, piece_fixed, piece_bytes, r};
        pb_walk(sub, &v);
        if (r->m->n == r->cap) {
            r->cap = r->cap ? 2 * r->cap : 1024;
            r->m->pieces = cal_xrealloc(r->m->pieces, r->cap * sizeof *r->m->pieces);
        }
        r->m->pieces[r->m->n++] = r->cur;
    } else if (field == 2) {
        pb_visit v = {trainer_varint, NULL, NULL, r};
        pb_walk(sub, &v);
    } else if (field == 3) {
        pb_visit v = {normalizer_varint, NULL, normalizer_bytes, r};
        pb_walk(sub, &v);
    }
}

int spm_model_read(spm_model *m, const void *data, size_t len, char *err, size_t errlen) {
    memset(m, 0, sizeof *m);
    m->model_type = 1;
    m->dummy_prefix = m->remove_extra = m->escape = 1;
    m->norm_name = "";
    rd r = {m, 0, {0}};
    pb_reader p = {data, (const uint8_t *)data + len, 0};
    pb_visit v = {NULL, NULL, model_bytes, &r};
    pb_walk(&p, &v);
    if (p.bad) {
        spm_model_free(m);
        return cal_errf(err, errlen, "SentencePiece model: protobuf parse failed");
    }
    return 0;
}

void spm_model_free(spm_model *m) {
    free(m->pieces);
    m->pieces = NULL;
    m->n = 0;
}
