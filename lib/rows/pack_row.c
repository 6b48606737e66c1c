/* pack_row.c - what every packing mode shares: the document filters and
 * wrapping, the BOS/EOS policies of a row, row ids, handing rows to the
 * sink, and the one-row-per-document layout (doc mode and stratified
 * samples). */
#include <string.h>

#include "base/hash.h"
#include "base/err.h"
#include "base/num.h"
#include "rows/pack_internal.h"

int cal_pack_passes(const cal_packer *p, size_t n) {
    return n >= p->o.min_tokens && !(p->o.max_tokens && n > p->o.max_tokens);
}

void cal_pack_wrap(cal_packer *p, const uint32_t *ids, size_t n, int first) {
    cal_ids *t = &p->doc;
    t->n = 0;
    if (!first && p->o.sep == CAL_SEP_EOS) cal_ids_push(t, (uint32_t)p->o.eos_id);
    if (!first && p->o.sep == CAL_SEP_BOS) cal_ids_push(t, (uint32_t)p->o.bos_id);
    for (size_t i = 0; !first && i < p->o.nsep; i++) cal_ids_push(t, p->o.sep_ids[i]);
    if (p->o.bos == CAL_POL_DOC) cal_ids_push(t, (uint32_t)p->o.bos_id);
    cal_ids_reserve(t, t->n + n + 1);
    if (n) memcpy(t->v + t->n, ids, n * 4);
    t->n += n;
    if (p->o.eos == CAL_POL_DOC) cal_ids_push(t, (uint32_t)p->o.eos_id);
}

int cal_pack_row_has(const cal_packer *p, int pol, uint64_t r) {
    if (pol == CAL_POL_ROW || (pol == CAL_POL_DOC && p->o.mode == CAL_PACK_DOC)) return 1;
    if (pol == CAL_POL_HALF) return r >= p->o.n / 2;
    if (pol == CAL_POL_ALT) return r % 2 == 0;
    return 0;
}

uint64_t cal_pack_row_id(uint32_t len, uint64_t src, uint64_t off) {
    uint8_t b[16];
    cal_st64(b, src);
    cal_st64(b + 8, off);
    return cal_hash_seed(b, 16, len);
}

void cal_pack_emit(cal_packer *p, const uint32_t *ids, const uint8_t *mask, const char *label, uint64_t id) {
    cal_pack_emit_role(p, ids, mask, NULL, p->o.len, label, id);
}

void cal_pack_emit_len(cal_packer *p, const uint32_t *ids, uint32_t len, const char *label, uint64_t id) {
    cal_pack_emit_role(p, ids, NULL, NULL, len, label, id);
}

void cal_pack_emit_role(cal_packer *p, const uint32_t *ids, const uint8_t *mask, const uint8_t *role, uint32_t len,
                        const char *label, uint64_t id) {
    if (mask) { /* padding is said too: a set of mostly padding is no surprise */
        uint64_t pad = 0;
        for (uint32_t i = 0; i < len; i++) pad += !mask[i];
        if (pad) cal_drops_note(&p->st.drops, "rows", p->padded, 1, pad, "tokens");
    }
    cal_row_out r = {ids, mask, len, 0, label, id, role};
    p->sink(p->ctx, &r);
    p->st.rows++;
}

/* Whether the last of the row's n real ids occurs more than max times in them. */
static int repetitive(const uint32_t *ids, size_t n, uint64_t max) {
    if (!max || !n) return 0;
    uint64_t c = 0;
    for (size_t i = 0; i < n; i++) c += ids[i] == ids[n - 1];
    return c > max;
}

void cal_pack_doc_row(cal_packer *p, const uint32_t *t, size_t n, uint64_t src, const char *label) {
    cal_pack_doc_row_part(p, t, n, n, 0, src, label);
}

void cal_pack_doc_row_part(cal_packer *p, const uint32_t *t, size_t have, size_t n0, size_t first, uint64_t src,
                           const char *label) {
    (void)have; /* every id the row takes is there (the caller's promise) */
    int b = cal_pack_row_has(p, p->o.bos, p->st.rows), e = cal_pack_row_has(p, p->o.eos, p->st.rows);
    size_t len = p->o.len, room = len - (size_t)b - (size_t)e, skip = 0, n = n0;
    if (n > room) {
        if (p->o.truncate == 1) skip = n - room;
        n = room;
    }
    size_t real = (size_t)b + n + (size_t)e, pad = len - real, at = p->o.pad_side == 1 ? pad : 0;
    if (p->o.pad_side == 2) { /* --pad none: the row is as long as its document */
        if (!real) {
            cal_drops_count(&p->st.drops, CAL_DROP_EMPTY, 1, 0);
            return;
        }
        len = real, pad = at = 0;
    }
    for (size_t i = 0; i < len; i++) {
        p->ids[i] = (uint32_t)p->o.pad_id;
        p->mask[i] = i >= at && i < at + real;
    }
    if (b) p->ids[at] = (uint32_t)p->o.bos_id;
    if (n) memcpy(p->ids + at + b, t + (skip - first), n * 4);
    if (e) p->ids[at + b + n] = (uint32_t)p->o.eos_id;
    if (p->role) { /* the document's role mask follows its tokens; BOS, EOS and padding are not output */
        if (!p->rrole) p->rrole = cal_xmalloc((size_t)p->o.len + 1);
        memset(p->rrole, 0, len);
        if (n) memcpy(p->rrole + at + b, p->role + skip, n);
    }
    /* auto-round: a row whose last token repeats through it is left out */
    if (repetitive(p->ids + at, real, p->o.max_repeat)) {
        cal_drops_count(&p->st.drops, CAL_DROP_REPEAT, 1, n0);
        return;
    }
    if (n0 > n) cal_drops_cut(&p->st.drops, CAL_DROP_TRUNC, 1, n0 - n); /* a chat that lost its end is said */
    cal_pack_emit_role(p, p->ids, pad ? p->mask : NULL, p->role ? p->rrole : NULL, (uint32_t)len, label,
                       cal_pack_row_id(p->o.len, src, skip));
}
