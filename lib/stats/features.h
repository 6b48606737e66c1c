/* features.h - a fixed-width vector per document, for choosing documents by
 * their content (cal-select): model-free hashed TF-IDF, or mean-pooled rows
 * of a model's embedding table; both l2-normalised and brought to width D
 * by a seeded sparse random projection.
 *
 * Why model-free by default: a prototype on a small model found TF-IDF over
 * token ids selecting calibration rows as well as the model's embeddings or
 * hidden states, and it needs no weights. Every step is specified here so a
 * reference can recompute the vectors (tests/py/selectref.py does, with
 * numpy and scikit-learn's TfidfTransformer):
 *
 *   terms     TOKENS: each token id t, as its 4 little-endian bytes. TEXT:
 *             each word, a maximal run of bytes that are ASCII letters or
 *             digits or >= 0x80, with A-Z lowered to a-z.
 *   buckets   a term's bucket is XXH3-64(term bytes) mod 2^20.
 *   df        over every document given to cal_feat_count (those with at
 *             least one term), the number holding each bucket; N of them.
 *   weight    w_b = (1 + ln c_b) (ln((1 + N) / (1 + df_b)) + 1), c_b the
 *             count of bucket b in the document (sublinear tf, smooth idf:
 *             TfidfTransformer(sublinear_tf=True, smooth_idf=True)); the
 *             vector w is divided by its l2 norm.
 *   project   bucket (or embedding coordinate) b adds s_bi w_b to K
 *             distinct output coordinates o_bi (K = min(8, D)): a generator
 *             seeded with XXH3-64(b as 8 little-endian bytes, seed
 *             seed ^ XXH3-64("cal-select projection")) draws, for i = 0 ..
 *             K-1, o_bi below D (drawn again while equal to an earlier
 *             o_bj), then s_bi = -1 when its next output's top bit is set,
 *             else +1 (calkit's generator, man/cal-stream.5).
 *   normalise the projected vector is divided by its l2 norm.
 *   embed     the sum of the embedding rows E[t] over the document's tokens
 *             (float64), divided by its l2 norm, then projected as above
 *             unless D is the embedding's width (then kept as it is).
 * A document without terms (or whose vector is 0) has no features. */
#ifndef CAL_STATS_FEATURES_H
#define CAL_STATS_FEATURES_H

#include <stddef.h>
#include <stdint.h>

#include "stats/embed.h"
#include "stream/stream.h"

#define CAL_FEAT_BUCKETS (1u << 20)
#define CAL_FEAT_MAX_DIM 32768u

typedef struct cal_feat cal_feat;

/* Hashed TF-IDF of width dim (1 .. CAL_FEAT_MAX_DIM) with projection seed. */
cal_feat *cal_feat_tfidf(size_t dim, uint64_t seed);
/* Pooled rows of embedding table e (not owned; stays open) brought to width
 * dim (its own width: no projection). */
cal_feat *cal_feat_embed(const cal_embed *e, size_t dim, uint64_t seed);
size_t cal_feat_dim(const cal_feat *f);

/* Pass 1, on one thread, for every document (TEXT or TOKENS record) in
 * order: counts the document's buckets into df (tfidf) or checks its ids
 * against the embedding table. Returns its number of terms (0: it has no
 * features), or -1 with err ("token id T is outside ...") for an id the
 * embedding table does not hold. */
long cal_feat_count(cal_feat *f, const cal_rec *rec, char *err, size_t errlen);
/* After pass 1: the idf table and the projection (embed: checks every
 * embedding row counted for NaN and Inf, ending the program if one holds
 * them). */
void cal_feat_finish(cal_feat *f);
/* Documents counted with at least one term. */
uint64_t cal_feat_docs(const cal_feat *f);

/* Pass 2, on any thread: the document's features into out[0 .. dim), as
 * float32; 1, or 0 when it has none (out is then zero). */
int cal_feat_row(cal_feat *f, const cal_rec *rec, float *out);

void cal_feat_free(cal_feat *f);

#endif
