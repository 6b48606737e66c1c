/* unigram.h - a unigram language model's segmentation: the Viterbi path
 * over the pieces' scores, as libsentencepiece's Model::EncodeOptimized
 * (unigram_model.cc, 0.1.97) and the Rust Hugging Face tokenizers'
 * Unigram::encode_optimized (models/unigram/model.rs, 0.22.2) compute it.
 *
 * Why a module: the two references share the algorithm but not its
 * arithmetic, and calkit encodes both kinds of file (spm_unigram.h for a
 * .model, hf for a tokenizer.json "Unigram" model) with one engine.
 *
 * The algorithm, for a normalized text s: best[0] = 0; for each character
 * start p in order (a character's length from its lead byte, cut at the end
 * of s), every piece that is a prefix of s[p..] (shortest first) is a
 * candidate for the node ending at p + its length, with score
 * best[p] + score(piece); it replaces that node's when the node has none or
 * it is strictly greater (so the first of equal candidates stays). When no
 * piece is exactly the character at p, an unknown node of that character
 * competes the same way with the unknown score. The path is read back from
 * the end.
 *
 * Where they differ (UG_SPM, UG_HF):
 *  - pieces matched: SPM the normal, user-defined and unused pieces (unused
 *    ones skipped when found); HF every vocabulary entry (the text of a
 *    repeated entry has its last id, as a map filled in order keeps it);
 *  - arithmetic: SPM keeps best[] in float, adds a piece's score in double
 *    (its float score, or a user-defined piece's length * max_score - 0.1,
 *    where length is in bytes and max_score is the largest normal score or
 *    FLT_MIN) and compares in double before storing the float; an unknown
 *    node is added and compared in float, with min - 10 over the normal
 *    pieces' scores. HF does everything in double, its unknown score being
 *    min - 10 over every entry's score;
 *  - unknown characters: SPM writes one unknown id per run of unknown nodes,
 *    or with byte_fallback each node's bytes as <0xXX> pieces. HF joins a
 *    run of nodes whose id is the unknown id (a matched entry of the
 *    unknown token's text too) into one string: its id when the vocabulary
 *    holds it, else with byte_fallback its bytes' <0xXX> ids when all exist,
 *    else the unknown id (an error when there is none).
 *
 * Memory: 12 (SPM) or 16 (HF) bytes per byte of text for one call. */
#ifndef CAL_TOK_UNIGRAM_H
#define CAL_TOK_UNIGRAM_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "tok/image.h"

#define UG_NONE UINT32_MAX
enum { UG_SPM = 0, UG_HF = 1 };
/* What a piece is to the search: matched and scored; matched with the
 * user-defined bonus (SPM); matched and skipped (SPM's unused); not matched. */
enum { UG_K_NORMAL = 0, UG_K_USER = 1, UG_K_UNUSED = 2, UG_K_OUT = 3 };

typedef struct ug_model {
    int mode;                 /* UG_SPM or UG_HF */
    uint32_t n;               /* pieces: ids 0..n-1 */
    uint32_t unk;             /* the unknown id, UG_NONE when none */
    int byte_fallback;
    uint32_t byte_id[256];    /* the <0xXX> pieces' ids, UG_NONE when absent */
    double unk_score;         /* SPM: a float's value */
    float max_score;          /* SPM: the user-defined bonus's base */
    const double *score;      /* [n] */
    const uint8_t *kind;      /* [n] UG_K_* */
    /* the trie of matched pieces as a double array: slot 0 is the root; the
     * child of slot s by byte c is t = base[s] + c when t < nslot and
     * check[t] == s, and id[t] is the piece ending there (UG_NONE: none) */
    const struct ug_slot { uint32_t base, check, id; } *slot;
    size_t nslot;
    double *own_score;        /* built here (freed by ug_free); NULL when mapped */
    uint8_t *own_kind;
    struct ug_slot *own_slot;
} ug_model;

/* The child of trie node s by byte c (0 when none), the id of the piece
 * ending there in *id. */
static inline uint32_t ug_child(const ug_model *m, uint32_t s, uint8_t c, uint32_t *id) {
    uint64_t t = (uint64_t)m->slot[s].base + c;
    if (t >= m->nslot || m->slot[t].check != s) return 0;
    *id = m->slot[t].id;
    return (uint32_t)t;
}

/* Builds the model of n pieces: text[i][0..len[i]), score[i], kind[i]
 * (copied). unk, byte_fallback, byte_id, unk_score and max_score as
 * described above (the caller computes them by its reference's rules). */
void ug_build(ug_model *m, int mode, uint32_t n, const char *const *text, const uint32_t *len, const double *score,
              const uint8_t *kind, uint32_t unk, int byte_fallback, const uint32_t *byte_id, double unk_score,
              float max_score);
void ug_free(ug_model *m);

/* The id of the matched piece whose text is exactly s[0..n), or UG_NONE. */
uint32_t ug_lookup(const ug_model *m, const char *s, size_t n);

/* Buffers a caller reuses between calls (zero-initialized; ug_scratch_free). */
typedef struct {
    void *node;
    size_t cap;
    uint32_t *path;
    size_t pcap;
} ug_scratch;
void ug_scratch_free(ug_scratch *sc);

/* Appends the ids of s[0..n) to out. 0, or -1 with err (HF: an unknown
 * character and no unknown token). */
int ug_encode(const ug_model *m, const char *s, size_t n, ug_scratch *sc, cal_ids *out, char *err, size_t errlen);

/* The model's tables as image sections tag0 .. tag0+3 (they point
 * into m, and the first into num[UG_IMAGE_NUMS], which the caller keeps
 * until the image is written); and m from a verified image's sections
 * (every index bounded): 0, or -1 with err. The restored model points into
 * the image. */
#define UG_IMAGE_NUMS (6 + 256)
void ug_image_parts(const ug_model *m, tok_image_parts *w, uint32_t tag0, uint64_t *num);
int ug_image_restore(ug_model *m, const tok_image *im, uint32_t tag0, char *err, size_t errlen);

#endif
