/* spm_dl.h - the table of functions that libcal-spm.so (spm_shim.cc, the
 * C++ side over libsentencepiece) hands to the programs (spm_dl.c, which
 * implements spm_shim.h over it).
 *
 * Why a separate shared object: linking libsentencepiece and libstdc++
 * into every program costs each process about 1 ms of dynamic linking
 * (a third of a cached cal-encode run), though only a SentencePiece .model
 * parsed afresh (not restored from its cached image) and decoding through
 * libsentencepiece use them. So the C++ shim is its own object, loaded by
 * path on first use. It calls nothing of calkit's: results come back in
 * malloc'd arrays that the caller frees. */
#ifndef CAL_TOK_SPM_DL_H
#define CAL_TOK_SPM_DL_H

#include <stddef.h>
#include <stdint.h>

/* Raised whenever the table changes; a shim of another build is refused. */
#define SPM_DL_ABI 1
/* The one symbol the shared object exports: a function returning its table. */
#define SPM_DL_SYMBOL "cal_spm_shim_table"
#define SPM_DL_FILE "libcal-spm.so"

typedef struct spm_dl_table {
    int abi;
    size_t size; /* sizeof(spm_dl_table) as the shim was built */
    /* as spm_shim.h, with opaque handles */
    void *(*load)(const void *data, size_t len, char *err, size_t errlen);
    void (*free)(void *s);
    /* *ids: malloc'd (free() it), *n of them; 0 or -1 with err */
    int (*encode)(const void *s, const char *text, size_t len, uint32_t **ids, size_t *n, char *err, size_t errlen);
    /* *text: malloc'd (free() it), *len bytes; 0 or -1 with err */
    int (*decode)(const void *s, const uint32_t *ids, size_t n, char **text, size_t *len, char *err, size_t errlen);
    uint32_t (*vocab_size)(const void *s);
    int64_t (*bos)(const void *s);
    int64_t (*eos)(const void *s);
    int64_t (*pad)(const void *s);
    int64_t (*unk)(const void *s);
    int (*is_special)(const void *s, uint32_t id);
    const char *(*piece)(const void *s, uint32_t id, size_t *len);
    int (*type)(const void *s, uint32_t id);
    float (*score)(const void *s, uint32_t id);
} spm_dl_table;

typedef const spm_dl_table *(*spm_dl_entry)(void);

#endif
