/* pack_internal.h - the packer's state, shared by pack.c (the streaming
 * modes), pack_draw.c (the modes that draw from the whole input) and
 * pack_row.c (what every mode needs to make a row). */
#ifndef CAL_ROWS_PACK_INTERNAL_H
#define CAL_ROWS_PACK_INTERNAL_H

#include "base/buf.h"
#include "base/anyrng.h"
#include "rows/extsort.h"
#include "rows/pack.h"
#include "base/spill.h"
#include "stream/stream.h"

/* the drop reasons, in the order cal_packer_new adds (and reports) them */
enum { CAL_DROP_MIN, CAL_DROP_MAX, CAL_DROP_TRUNC, CAL_DROP_REST, CAL_DROP_TAIL, CAL_DROP_REPEAT, CAL_DROP_SKIP,
       CAL_DROP_BOS, CAL_DROP_EMPTY, CAL_DROP_ROLE };

struct cal_packer {
    cal_pack_opts o;
    cal_row_sink sink;
    void *ctx;
    cal_pack_stats st;
    uint64_t kept;           /* documents past the filters */
    cal_anyrng rng;
    uint32_t *ids;           /* the row being built: LENGTH ids (+2 spare) */
    uint8_t *mask;
    uint32_t fill, cap;      /* concat: tokens in the row / its content room */
    uint64_t skip_left;      /* llama: tokens still to skip (--skip-chunks) */
    int started;             /* llama: a token has been read */
    int row_eos;             /* concat: the row ends with the row-level EOS */
    uint64_t src, off;       /* where the row being built starts */
    char label[CAL_MAX_LABEL + 1];
    cal_ids doc;             /* the current document, wrapped */
    cal_ids art;             /* article: whole documents of the row being built */
    /* The modes that draw from the whole input hold what their draws need,
     * never more than o.mem bytes in memory each (pack_draw.c): */
    cal_spill *log;          /* window, stratify: the kept documents (pass 1) */
    cal_spill *lens;         /* window --per-doc: each kept document's length, u32 */
    uint64_t total;          /* window: tokens of the concatenation */
    uint64_t *counts;        /* stratify: kept documents per length bucket */
    cal_extsort *sorted;     /* --sort: each kept document's row material */
    void (*rewind)(void *);  /* the input read again instead of the log (cal_packer_reread) */
    int (*next)(void *, cal_pack_doc *);
    void *rctx;
    char padded[48];         /* the cause of padded rows: "padded to -l N" */
    uint64_t reread, rekept; /* documents of the current reread so far, and kept */
    const uint8_t *role;     /* doc: the current document's role mask, or NULL */
    uint8_t *rrole;          /* doc: the row's role mask */
};


/* The document as it enters a concatenation (separator, BOS, ids, EOS), in
 * p->doc; first: no separator before it. */
void cal_pack_wrap(cal_packer *p, const uint32_t *ids, size_t n, int first);
/* Whether a document of n ids passes --min-tokens and --max-tokens. */
int cal_pack_passes(const cal_packer *p, size_t n);
/* Row-level BOS/EOS under policy pol for data row r. */
int cal_pack_row_has(const cal_packer *p, int pol, uint64_t r);
/* XXH3-64 (seed len) of the source document id and the row's token offset. */
uint64_t cal_pack_row_id(uint32_t len, uint64_t src, uint64_t off);
void cal_pack_emit(cal_packer *p, const uint32_t *ids, const uint8_t *mask, const char *label, uint64_t id);
/* The same for a row of len ids (--pad none: a document's own length). */
void cal_pack_emit_len(cal_packer *p, const uint32_t *ids, uint32_t len, const char *label, uint64_t id);
/* Either, with the row's role mask (or NULL). */
void cal_pack_emit_role(cal_packer *p, const uint32_t *ids, const uint8_t *mask, const uint8_t *role, uint32_t len,
                        const char *label, uint64_t id);
/* doc mode: one row from n ids, truncated, and padded unless --pad none. */
void cal_pack_doc_row(cal_packer *p, const uint32_t *t, size_t n, uint64_t src, const char *label);
/* The same from part of a document of n0 ids: t holds its ids [first,
 * first + have), which must hold every id the row takes. */
void cal_pack_doc_row_part(cal_packer *p, const uint32_t *t, size_t have, size_t n0, size_t first, uint64_t src,
                           const char *label);
/* pack_draw.c. Pass 1: what a kept document leaves for the draws (window:
 * ids as wrapped; stratify: as read; --sort: its row material). */
void cal_pack_hold(cal_packer *p, const uint32_t *ids, size_t n, uint64_t id, const char *label, size_t label_len);
/* At the end: the draws, then the rows. 0, or -1 with the message in err. */
int cal_pack_window(cal_packer *p, char *err, size_t errlen);
int cal_pack_stratify(cal_packer *p, char *err, size_t errlen);
/* doc --sort: every held document's row, stably ordered by its length. */
void cal_pack_sorted(cal_packer *p);
void cal_pack_hold_free(cal_packer *p);

#endif
