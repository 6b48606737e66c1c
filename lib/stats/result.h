/* result.h - cal-hessian's result file: Hessians and activation statistics
 * in a .safetensors file, written and merged exactly (man/cal-hessian.1).
 *
 * A result holds entries; each is one accumulator: its statistics
 * (stats/hessian.h) and counts. An unlabelled entry (label "") is written
 * with the plain tensor names: hessian [d, d], sum, sumsq, abssum, absmean,
 * absmax [d] (f64), tokens, rows, padding, noise_rows, skipped (i64 [1]),
 * hessian_inv_chol with the GPTQ inverse, and the metadata
 * hessian.scale_factor and hessian.d. A labelled entry (the weight its
 * inputs feed) writes the same names after "LABEL.". The metadata also
 * holds the input's (repeated keys joined with newlines), hessian.scale and,
 * with the inverse, hessian.damp.
 *
 * An entry with percentile sketches (stats/sketch.h) also has min, max
 * [d] (exact, f64), sketch [d, CAL_SKETCH_STRIDE] (i64, the mergeable
 * state), and, computed from it for each percentile p of the list:
 * pct_x_lo (percentile 100 - p of x), pct_x_hi (percentile p of x),
 * pct_absx (percentile p of |x|), all [P, d] f64, and the same of all the
 * entry's values (the whole tensor) in pct_x_lo_tensor, pct_x_hi_tensor,
 * pct_absx_tensor [P]; the metadata hessian.percentiles (the list) and
 * hessian.sketch (the layout, CAL_SKETCH_FORMAT).
 *
 * Only the hessian is scaled, on output; every other tensor is a raw sum or
 * count, so results add up: cal_result_add_file undoes the scale and adds
 * each entry into the one with the same label. */
#ifndef CAL_STATS_RESULT_H
#define CAL_STATS_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "base/outfile.h"
#include "io/safetensors.h"
#include "stats/hessian.h"
#include "stats/imatrix.h"
#include "stream/stream.h"

typedef struct {
    uint64_t rows, padding, noise_rows, skipped;
} cal_result_counts;

typedef struct {
    char *label;      /* "" for the plain names */
    cal_hess_stats *s;
    cal_result_counts c;
} cal_result_entry;

typedef struct {
    cal_result_entry *e;
    size_t n, cap;
    cal_meta meta;
    char *percentiles;     /* hessian.percentiles of the files added, or NULL */
    int percentiles_differ; /* files added hold different lists */
} cal_result;

/* How the hessian is written. */
typedef struct {
    const char *scale; /* "sum", "mean" (/ tokens) or "gptq" (2 / rows) */
    int f64;           /* F64 hessian, else F32 */
    int gptq_inverse;  /* also hessian_inv_chol */
    double damp;
    const double *pct; /* percentiles written for entries with sketches */
    size_t npct;
} cal_result_form;

/* Parses a percentile list "99.9,99.99" (1 to CAL_RESULT_MAX_PCT values in
 * [0, 100]) into pct; returns the count, 0 on a bad list. */
#define CAL_RESULT_MAX_PCT 32
size_t cal_result_parse_percentiles(const char *list, double *pct);

/* Adds an entry that takes ownership of s; returns it. */
cal_result_entry *cal_result_add(cal_result *r, const char *label, cal_hess_stats *s, const cal_result_counts *c);
cal_result_entry *cal_result_find(cal_result *r, const char *label);
/* Adds every entry of a result file into r (undoing its hessian scale);
 * the first file's metadata (without the hessian.* keys) becomes r's.
 * Dies with "FILE: ..." on a file that is no result, entries of another d,
 * and values no accumulation makes: NaN or Inf, negative sums of squares,
 * absolute sums or maxima, negative counts, sketches that disagree with
 * the counts, absmax, min or max, or that some inputs of a label have and
 * others lack. */
void cal_result_add_file(cal_result *r, const cal_st_file *f);
/* Writes r to f (not committed). Scales each hessian in place; dies when
 * the damped hessian of the GPTQ inverse is not positive definite. */
void cal_result_write(cal_result *r, const cal_result_form *form, cal_file *f);
/* Adds every entry to an importance matrix: sumsq as in_sum2, sum as
 * in_sum, tokens as the count, under the entry's label (with gguf_names,
 * llama.cpp's name for it, stats/names.h: the experts of a layer become the
 * rows of one weight, as many as the highest expert seen + 1, those without
 * a label empty) or, for the unlabelled entry, under name. The chunk count
 * grows by the most rows of an entry. Returns 0 with the reason in err for
 * an unlabelled entry without a name, a label gguf_names does not know, a
 * name that without gguf_names is a transformers module name (llama-quantize
 * would ignore the entry), a name too long for ggml, or a shape clash. */
int cal_result_to_imatrix(const cal_result *r, const char *name, int gguf_names, cal_imatrix *m, char *err,
                          size_t errlen);
void cal_result_free(cal_result *r);

/* A result file's stream metadata (what cal-hessian kept of its input:
 * stage, input and drop lines...), repeated keys split back into lines. */
void cal_result_file_meta(const cal_st_file *f, cal_meta *out);

#endif
