/* spm_proto.h - a SentencePiece .model (a serialized ModelProto) read from
 * its protobuf wire format.
 *
 * Why: libsentencepiece does not export its protobuf classes, and calkit's
 * own engines (spm_bpe.h, spm_unigram.h) need what the library keeps to
 * itself: every piece's type (user-defined pieces included, which the
 * library's API does not tell apart from normal ones), the precompiled
 * character map and the normalizer's whitespace rules. Only the fields
 * those engines read are decoded (sentencepiece_model.proto, 0.1.97):
 *
 *   ModelProto       pieces (1), trainer_spec (2), normalizer_spec (3)
 *   SentencePiece    piece (1), score (2, float), type (3: NORMAL 1,
 *                    UNKNOWN 2, CONTROL 3, USER_DEFINED 4, UNUSED 5, BYTE 6)
 *   TrainerSpec      model_type (3: UNIGRAM 1, BPE 2), treat_whitespace_as_suffix
 *                    (24), byte_fallback (35)
 *   NormalizerSpec   name (1), precompiled_charsmap (2), add_dummy_prefix (3),
 *                    remove_extra_whitespaces (4), escape_whitespaces (5)
 *
 * Absent fields take the .proto defaults. The reader is bounded by the
 * bytes it is given: a damaged file is reported (bad), never over-read. */
#ifndef CAL_TOK_SPM_PROTO_H
#define CAL_TOK_SPM_PROTO_H

#include <stddef.h>
#include <stdint.h>

/* ---- the wire format ---- */
typedef struct {
    const uint8_t *p, *end;
    int bad;
} pb_reader;

/* What pb_walk does with each field of one message: varints to on_varint,
 * 32-bit fixed fields to on_fixed32, length-delimited ones (strings,
 * submessages) to on_bytes; NULL callbacks skip the field. */
typedef struct {
    void (*on_varint)(void *ctx, uint64_t field, uint64_t v);
    void (*on_fixed32)(void *ctx, uint64_t field, uint32_t v);
    void (*on_bytes)(void *ctx, uint64_t field, pb_reader *sub);
    void *ctx;
} pb_visit;

/* Walks the fields of the message r holds; r->bad is set on a malformed
 * message (a varint or length past the end, a group). */
void pb_walk(pb_reader *r, const pb_visit *v);

/* ---- the ModelProto ---- */
enum { SPM_P_NORMAL = 1, SPM_P_UNKNOWN, SPM_P_CONTROL, SPM_P_USER, SPM_P_UNUSED, SPM_P_BYTE };

typedef struct {
    const char *text;  /* into the model's bytes */
    uint32_t len;
    float score;
    int type;          /* SPM_P_* */
} spm_piece;

typedef struct {
    spm_piece *pieces;        /* malloc'd; texts point into the model's bytes */
    size_t n;
    uint64_t model_type;      /* UNIGRAM 1, BPE 2 */
    int byte_fallback, suffix;
    int dummy_prefix, remove_extra, escape;
    const uint8_t *charsmap;  /* NULL when none; into the model's bytes */
    size_t charsmap_len;
    const char *norm_name;    /* the normalizer's name ("nmt_nfkc"), or "" */
    size_t norm_name_len;
} spm_model;

/* Reads the model data[0..len) (which must outlive m). 0, or -1 with the
 * reason in err when the protobuf is malformed. */
int spm_model_read(spm_model *m, const void *data, size_t len, char *err, size_t errlen);
void spm_model_free(spm_model *m);

#endif
