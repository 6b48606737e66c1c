/* spm_chunk.c - SentencePiece on long texts in pieces where that is exact
 * (see spm_chunk.h for the argument), and a limit where it is not. */
#include "tok/spm_chunk.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- the few ModelProto fields that decide it ------------------------------
 * libsentencepiece does not export its protobuf classes, so the settings are
 * read from the protobuf wire format: ModelProto.trainer_spec (2) with
 * model_type (3, UNIGRAM=1 BPE=2) and treat_whitespace_as_suffix (24);
 * ModelProto.normalizer_spec (3) with add_dummy_prefix (3),
 * remove_extra_whitespaces (4) and escape_whitespaces (5). Absent fields
 * take the .proto defaults. */

typedef struct {
    const uint8_t *p, *end;
    int bad;
} pb_reader;

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

/* Walks one message: varint fields go to on_varint, length-delimited ones
 * (submessages) to on_sub; others are skipped. */
typedef struct {
    void (*on_varint)(void *ctx, uint64_t field, uint64_t v);
    void (*on_sub)(void *ctx, uint64_t field, pb_reader *sub);
    void *ctx;
} pb_visit;

static void pb_walk(pb_reader *r, const pb_visit *v) {
    while (r->p < r->end && !r->bad) {
        uint64_t tag = pb_varint(r), field = tag >> 3;
        size_t skip = 0;
        switch (tag & 7) {
        case 0: {
            uint64_t x = pb_varint(r);
            if (v->on_varint) v->on_varint(v->ctx, field, x);
            break;
        }
        case 1: skip = 8; break;
        case 5: skip = 4; break;
        case 2: {
            uint64_t len = pb_varint(r);
            if (r->bad || len > (uint64_t)(r->end - r->p)) {
                r->bad = 1;
                return;
            }
            pb_reader s = {r->p, r->p + len, 0};
            if (v->on_sub) v->on_sub(v->ctx, field, &s);
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

static void trainer_field(void *ctx, uint64_t field, uint64_t v) {
    spm_settings *s = ctx;
    if (field == 3) s->model_type = v;
    if (field == 24) s->suffix = v;
    if (field == 35) s->byte_fallback = v;
}

static void normalizer_field(void *ctx, uint64_t field, uint64_t v) {
    spm_settings *s = ctx;
    if (field == 3) s->dummy_prefix = v;
    if (field == 4) s->remove_extra = v;
    if (field == 5) s->escape = v;
}

/* NormalizerSpec.precompiled_charsmap (2): its length */
static void normalizer_sub(void *ctx, uint64_t field, pb_reader *sub) {
    spm_settings *s = ctx;
    if (field == 2) s->charsmap += (uint64_t)(sub->end - sub->p);
}

/* ModelProto.SentencePiece.type (3): USER_DEFINED 4, UNUSED 5 */
static void piece_field(void *ctx, uint64_t field, uint64_t v) {
    spm_settings *s = ctx;
    if (field == 3 && v == 4) s->user_defined++;
    if (field == 3 && v == 5) s->unused++;
}

static void model_sub(void *ctx, uint64_t field, pb_reader *sub) {
    pb_visit v = {field == 1 ? piece_field : field == 2 ? trainer_field : field == 3 ? normalizer_field : NULL,
                  field == 3 ? normalizer_sub : NULL, ctx};
    if (v.on_varint) pb_walk(sub, &v);
}

spm_settings spm_settings_of(const void *data, size_t len) {
    spm_settings st = {1, 0, 1, 1, 1, 0, 0, 0, 0, 0};
    pb_reader r = {data, (const uint8_t *)data + len, 0};
    pb_visit v = {NULL, model_sub, &st};
    pb_walk(&r, &v);
    st.bad = r.bad;
    return st;
}

#define LOWER_BLOCK "\xe2\x96\x81" /* U+2581, SentencePiece's escaped space */

static int alnum(char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
}

spm_chunking spm_chunking_of(const spm_shim *s, const void *data, size_t len) {
    spm_chunking c = {0, 0, NULL};
    spm_settings st = spm_settings_of(data, len);
    if (st.bad) c.why = "its settings could not be read";
    else if (st.model_type != 2) c.why = "it is not a BPE model";
    else if (st.suffix || !st.escape) c.why = "it does not mark words with a leading U+2581";
    else if (!st.dummy_prefix && st.remove_extra) c.why = "it strips the space a cut would leave";
    if (c.why) return c;
    uint32_t n = spm_shim_vocab_size(s);
    for (uint32_t id = 0; id < n; id++) {
        if (spm_shim_is_special(s, id)) continue;
        size_t plen;
        const char *p = spm_shim_piece(s, id, &plen);
        /* A token across a cut would hold an ASCII letter or digit followed
         * by U+2581 (or a space): runs of U+2581 ("\u2581\u2581") are fine. */
        for (size_t i = 1; i < plen; i++)
            if (alnum(p[i - 1]) && (p[i] == ' ' || (i + 3 <= plen && !memcmp(p + i, LOWER_BLOCK, 3)))) {
                c.why = "a vocabulary piece spans a word boundary";
                return c;
            }
    }
    c.can_cut = 1;
    c.drop_space = st.dummy_prefix != 0;
    return c;
}


/* The first i >= from with text[i] a space between ASCII letters or digits, or len. */
static size_t next_cut(const char *t, size_t from, size_t len) {
    for (size_t i = from > 0 ? from : 1; i + 1 < len; i++) {
        const char *sp = memchr(t + i, ' ', len - 1 - i);
        if (!sp) return len;
        i = (size_t)(sp - t);
        if (alnum(t[i - 1]) && alnum(t[i + 1])) return i;
    }
    return len;
}

static int too_long(const spm_chunking *c, size_t n, char *err, size_t errlen) {
    snprintf(err, errlen,
             "SentencePiece: a text of %zu bytes %s; this model is encoded at most %zu MiB at a time because %s "
             "(the library needs about 100 bytes of memory per byte): cut long documents first "
             "(cal-read --max-chars)",
             n, c->can_cut ? "has no place to cut (a space between ASCII letters or digits) within the limit" : "is too long",
             CAL_SPM_MAX_WHOLE >> 20, c->can_cut ? "it needs such a place" : c->why);
    return -1;
}

int spm_chunk_encode(const spm_shim *s, const spm_chunking *c, const char *t, size_t len, cal_ids *out,
                     char *err, size_t errlen) {
    if (len <= 4 * CAL_SPM_PIECE || !c->can_cut) {
        if (len > CAL_SPM_MAX_WHOLE) return too_long(c, len, err, errlen);
        return spm_shim_encode(s, t, len, out, err, errlen);
    }
    size_t start = 0;
    while (start < len) {
        size_t end = len - start <= CAL_SPM_PIECE ? len : next_cut(t, start + CAL_SPM_PIECE, len);
        if (end - start > CAL_SPM_MAX_WHOLE) return too_long(c, end - start, err, errlen);
        if (spm_shim_encode(s, t + start, end - start, out, err, errlen)) return -1;
        start = end < len && c->drop_space ? end + 1 : end;
    }
    return 0;
}
