/* pack.h - cal-pack's recipes: documents (token ids) in, ROWs of exactly
 * LENGTH ids out, by the row-making rules of the common quantization tools
 * (man/cal-pack.1 says which mode mirrors which peer).
 *
 *     cal_pack_opts o;  cal_pack_opts_init(&o);  o.len = 2048; ...
 *     if (cal_pack_check(&o, err, sizeof err)) usage error;
 *     ... resolve o.bos_id/eos_id/pad_id from the header, then
 *     if (cal_pack_check_ids(&o, err, sizeof err)) usage error;
 *     cal_packer *p = cal_packer_new(&o, sink, ctx);
 *     while (cal_packer_wants(p) && a document is read)
 *         cal_packer_add(p, ids, n, id, label, label_len);
 *     if (cal_packer_finish(p, err, sizeof err)) too little data;
 *
 * Rows go to the sink as they are made. Every random choice comes from the
 * generator o.rng (base/anyrng.h: calkit's documented one by default, or a
 * peer's, drawn in the peer's order) seeded with o.seed; a row's id is
 * XXH3-64 (seed LENGTH) of the source document id and the token offset the
 * row starts at, so the same input and options give the same rows.
 *
 * Memory does not grow with the input in any mode: the streaming modes hold
 * a row or a document; those that draw from the whole input (window,
 * --stratify, --sort) keep what their draws need, and the documents, in
 * stores of at most o.mem bytes of memory each that spill to a temporary
 * file beyond it, and make the same rows whatever o.mem. */
#ifndef CAL_ROWS_PACK_H
#define CAL_ROWS_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "base/anyrng.h"
#include "stream/drops.h"
#include "rows/sink.h"

/* llama: llama-imatrix's chunks (tools/imatrix/imatrix.cpp compute_imatrix):
 * the documents one after another (normally one: the whole text), with BOS
 * first when a BOS id is known and the first document lacks it (as
 * llama.cpp's tokenizer adds it), the first skip rows skipped, then rows of LENGTH whose first
 * token is replaced by BOS (when a BOS id is known), the rest dropped; an
 * input under 2 rows after the skip is refused, as llama-imatrix refuses it. */
enum { CAL_PACK_CONCAT, CAL_PACK_WINDOW, CAL_PACK_DOC, CAL_PACK_ARTICLE, CAL_PACK_LLAMA };
/* BOS/EOS policies: none, every row, every document, the second half of
 * the rows (EXL2 wiki), even rows (EXL3). */
enum { CAL_POL_NONE, CAL_POL_ROW, CAL_POL_DOC, CAL_POL_HALF, CAL_POL_ALT };
enum { CAL_SEP_NONE, CAL_SEP_EOS, CAL_SEP_BOS };

/* NULL-terminated, indexed by the enums above: "concat", "none", ... */
extern const char *const cal_pack_mode_names[];
extern const char *const cal_pack_policy_names[];
extern const char *const cal_pack_sep_names[];
extern const char *const cal_pack_sort_names[]; /* "input", "asc", "desc" */

typedef struct {
    uint32_t len;            /* row length in tokens */
    int mode, sep, bos, eos; /* CAL_PACK_*, CAL_SEP_*, CAL_POL_* */
    int tail_pad;            /* concat/article: pad the last partial row */
    int per_doc;             /* window: windows inside documents */
    int truncate;            /* doc: -1 not given, 0 cut the tail, 1 the head */
    int pad_side;            /* doc: -1 not given, 0 pad right, 1 left, 2 none
                              * (each row its document's own length) */
    int have_n;              /* exactly n data rows */
    uint64_t n;
    int allow_short;         /* fewer rows (even none) are no error */
    uint64_t seed;
    cal_rng_kind rng;        /* whose generator draws (default calkit) */
    int to_end;              /* window: a window may end at the last token */
    int sort;                /* doc: 0 input order, 1 ascending, 2 descending length */
    uint64_t docs;           /* use only the first `docs` documents past the filters; 0 = all */
    uint64_t max_repeat;     /* doc: drop a row whose last token occurs more often; 0 = off */
    uint64_t skip;           /* llama: rows of LENGTH skipped first (llama-imatrix --chunk) */
    uint64_t min_tokens, max_tokens; /* document filters; max 0 = none */
    const uint64_t *strata;  /* doc: bucket bounds, increasing */
    size_t nstrata;
    int64_t bos_id, eos_id, pad_id; /* -1 = none */
    size_t mem;              /* window, --stratify, --sort: memory of each store of
                              * the input before it spills to $TMPDIR (0: CAL_PACK_MEM) */
    const uint32_t *sep_ids; /* concat/window: ids between documents (a text's
                              * tokens: GPTQModel's calibration_concat_separator) */
    size_t nsep;
} cal_pack_opts;

#define CAL_PACK_MEM (64u << 20) /* cal-pack -S's default */

/* The defaults: concat, no policies, no filters, ids unknown (-1). */
void cal_pack_opts_init(cal_pack_opts *o);
/* Whether the options fit together (before the ids are known): 0, or -1
 * with a usage message in err. */
int cal_pack_check(const cal_pack_opts *o, char *err, size_t errlen);
/* After bos_id/eos_id/pad_id are resolved: every policy has its id, the
 * row has room for tokens besides BOS/EOS. 0, or -1 with a usage message. */
int cal_pack_check_ids(const cal_pack_opts *o, char *err, size_t errlen);
/* Whether the rows may be padded (so the pad id is used). */
int cal_pack_pads(const cal_pack_opts *o);
/* Parses --stratify's "B1,B2,..." (increasing, each in [1, 2^32 - 1]) into
 * a new array of *n bounds; a bad list is a usage error (exit 2). */
uint64_t *cal_pack_parse_strata(const char *s, size_t *n);

typedef struct {
    uint64_t docs, tokens; /* documents and tokens read */
    uint64_t rows;         /* data rows made */
    cal_drops drops;       /* filtered documents, cut or unused tokens */
} cal_pack_stats;

typedef struct cal_packer cal_packer;

/* A document as the packer takes it. */
typedef struct {
    const uint32_t *ids;
    size_t n;
    uint64_t id;
    const char *label;  /* label_len bytes, not NUL-terminated */
    size_t label_len;
    const uint8_t *role; /* n bytes: the record's role mask (CAL_TOKENS_ROLE), or NULL */
} cal_pack_doc;

cal_packer *cal_packer_new(const cal_pack_opts *o, cal_row_sink sink, void *ctx);
/* Says, before the first document, that the input can be read again (a
 * regular file): the modes that draw from the whole input then keep no
 * copy of the documents and read them again, from the first, through
 * rewind(ctx) and next(ctx, &doc) (1 per document, 0 at the end), which
 * must give the documents cal_packer_add took, filtered ones included, in
 * the same order. */
void cal_packer_reread(cal_packer *p, void (*rewind)(void *ctx), int (*next)(void *ctx, cal_pack_doc *d), void *ctx);
/* 1 while the packer takes documents: 0 once -n rows are out in a mode
 * that makes rows as it reads (the rest of the input need not be read). */
int cal_packer_wants(const cal_packer *p);
void cal_packer_add(cal_packer *p, const uint32_t *ids, size_t n, uint64_t id, const char *label,
                    size_t label_len);
/* The same with the document's role mask (n bytes, 1: the assistant's
 * output), or NULL: --mode doc (without --sort or --stratify) puts it in the
 * row's role mask (0 for BOS, EOS and padding); the other modes leave it out
 * and count the documents whose mask they left out. */
void cal_packer_add_role(cal_packer *p, const uint32_t *ids, const uint8_t *role, size_t n, uint64_t id,
                         const char *label, size_t label_len);
/* End of input: makes the rows still owed (the last partial row, windows,
 * stratified draws). 0, or -1 with a one-line message in err when the input
 * is too short for -n rows (or, without -n, for any row) and allow_short
 * is off. */
int cal_packer_finish(cal_packer *p, char *err, size_t errlen);
const cal_pack_stats *cal_packer_stats(const cal_packer *p);
void cal_packer_free(cal_packer *p);

/* Synthetic rows after the data rows: `random` rows of ids uniform in
 * [0, vocab) (label "random"; one generator of kind `kind` seeded by seed
 * draws them row by row, so kind torch gives torch.manual_seed(seed) then
 * torch.randint(0, vocab, (1, len)) per row), then `noise` rows of id 0
 * flagged CAL_ROW_NOISE (label "noise"). */
void cal_pack_synthetic(uint32_t len, cal_rng_kind kind, uint64_t seed, uint64_t random, uint64_t vocab,
                        uint64_t noise, cal_row_sink sink, void *ctx);

#endif
