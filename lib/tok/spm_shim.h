/* spm_shim.h - C interface to libsentencepiece (spm_shim.cc, the one C++
 * file in calkit, built as the shared object libcal-spm.so that spm_dl.c
 * loads on the first spm_shim_load). Thin: load a .model from memory,
 * encode to ids, decode, and the facts cal-encode records (vocabulary
 * size, special ids). */
#ifndef CAL_SPM_SHIM_H
#define CAL_SPM_SHIM_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct spm_shim spm_shim;

/* 1 when libcal-spm.so is loaded (loading it on the first call), or 0
 * with a one-line reason (where it was looked for) in err. */
int spm_shim_available(char *err, size_t errlen);

/* Parses a serialized ModelProto. NULL with a one-line reason on failure
 * (also when libcal-spm.so cannot be loaded: spm_shim_available's). */
spm_shim *spm_shim_load(const void *data, size_t len, char *err, size_t errlen);
void spm_shim_free(spm_shim *s);

/* Appends the ids of text[0..len) (spm_encode --output_format=id: no BOS/EOS)
 * to out. Thread-safe. Returns 0, or -1 with err filled. */
int spm_shim_encode(const spm_shim *s, const char *text, size_t len, cal_ids *out, char *err,
                    size_t errlen);
/* Appends the decoded text of ids (all < spm_shim_vocab_size) to out. */
int spm_shim_decode(const spm_shim *s, const uint32_t *ids, size_t n, cal_buf *out, char *err,
                    size_t errlen);

uint32_t spm_shim_vocab_size(const spm_shim *s);
/* -1 when the model has none. */
int64_t spm_shim_bos(const spm_shim *s);
int64_t spm_shim_eos(const spm_shim *s);
int64_t spm_shim_pad(const spm_shim *s);
int64_t spm_shim_unk(const spm_shim *s);
/* Control (<s>, </s>, <pad>, ...) or unknown (<unk>) pieces: the ones that
 * ordinary text never produces; their piece text is in *piece. */
int spm_shim_is_special(const spm_shim *s, uint32_t id);
const char *spm_shim_piece(const spm_shim *s, uint32_t id, size_t *len);
/* A piece's kind (SPM_NORMAL also for user-defined pieces, which the
 * library does not tell apart) and score. */
enum { SPM_NORMAL, SPM_UNKNOWN, SPM_CONTROL, SPM_BYTE, SPM_UNUSED };
int spm_shim_type(const spm_shim *s, uint32_t id);
float spm_shim_score(const spm_shim *s, uint32_t id);

#ifdef __cplusplus
}
#endif
#endif
