/* spm_chunk.h - bounded memory for SentencePiece on long texts.
 *
 * libsentencepiece needs about 100 bytes of memory per byte of text it
 * encodes in one call (its lattice or merge queue over the whole string):
 * 4.7 GiB for one 50 MB document. A long text is therefore encoded in
 * pieces, but only where the result is provably the ids of the whole text:
 *
 *  - a BPE model (merges never reach across a piece boundary that no
 *    vocabulary piece spans; a unigram model's float32 Viterbi scores
 *    depend on everything before them, so its ids can change anywhere);
 *  - whitespace escaped as U+2581 at the start of pieces (not as a suffix),
 *    and no vocabulary piece holding an ASCII letter or digit followed by
 *    U+2581 or a space: a U+2581 after such a character starts a token;
 *  - cut at a single space between two ASCII letters or digits, where the
 *    normalizer changes nothing: with add_dummy_prefix the space is dropped
 *    (the next piece's dummy prefix is that U+2581), without it (and
 *    without remove_extra_whitespaces) the next piece starts with it.
 *
 * Texts that cannot be cut (other model types, no such space) are encoded
 * whole up to CAL_SPM_MAX_WHOLE bytes and refused beyond, with a message. */
#ifndef CAL_SPM_CHUNK_H
#define CAL_SPM_CHUNK_H

#include <stddef.h>

#include "tok/spm_shim.h"

#define CAL_SPM_MAX_WHOLE ((size_t)8 << 20) /* bytes encoded in one call at most */
#define CAL_SPM_PIECE ((size_t)64 << 10)    /* a cut is sought after this many bytes */

typedef struct {
    int can_cut;    /* pieces give the whole text's ids */
    int drop_space; /* the space at a cut is left out (add_dummy_prefix) */
    const char *why; /* when !can_cut: the reason, for the limit message */
} spm_chunking;

/* Reads the model's type and normalizer settings from the serialized
 * ModelProto (data, len: the .model file) and checks its vocabulary. */
spm_chunking spm_chunking_of(const spm_shim *s, const void *data, size_t len);

/* The few ModelProto fields that decide how a model can be encoded, read
 * from its protobuf wire format (libsentencepiece does not export its
 * protobuf classes); absent fields take the .proto defaults. */
typedef struct {
    uint64_t model_type;      /* TrainerSpec.model_type: UNIGRAM 1, BPE 2 */
    uint64_t suffix;          /* treat_whitespace_as_suffix */
    uint64_t dummy_prefix, remove_extra, escape; /* NormalizerSpec */
    uint64_t byte_fallback;   /* TrainerSpec.byte_fallback */
    uint64_t charsmap;        /* bytes of NormalizerSpec.precompiled_charsmap */
    uint64_t user_defined, unused; /* pieces of those types */
    int bad;                  /* the settings could not be read */
} spm_settings;
spm_settings spm_settings_of(const void *data, size_t len);

/* Appends the ids of text[0..len), encoded in pieces when c allows and the
 * text is long. 0, or -1 with err (a piece over CAL_SPM_MAX_WHOLE). */
int spm_chunk_encode(const spm_shim *s, const spm_chunking *c, const char *text, size_t len, cal_ids *out,
                     char *err, size_t errlen);

#endif
