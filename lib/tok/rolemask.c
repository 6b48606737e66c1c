/* rolemask.c - see rolemask.h. */
#include "tok/rolemask.h"

#include <string.h>

/* The index of the token of ids that holds byte `edge` of the text, or the
 * number of tokens before `edge` when one ends there (after: 1 for the end
 * of a span, whose last byte is edge - 1). */
static int edge_token(const cal_tok *t, const char *text, size_t edge, unsigned flags, const uint32_t *ids, size_t n,
                      int after, size_t *at, cal_ids *p, char *err, size_t errlen) {
    p->n = 0;
    if (cal_tok_encode(t, text, edge, flags, p, err, errlen)) return -1;
    size_t k = 0;
    while (k < p->n && k < n && p->v[k] == ids[k]) k++;
    *at = k == p->n ? k : k + (size_t)after; /* the prefix's tokens, or the one that straddles the edge */
    return 0;
}

int cal_tok_role_mask(const cal_tok *t, const char *text, size_t len, unsigned flags, const uint32_t *ids, size_t n,
                      const uint32_t *spans, size_t nspans, uint8_t *role, cal_ids *scratch, char *err, size_t errlen) {
    memset(role, 0, n);
    for (size_t s = 0; s < nspans; s++) {
        size_t a, b;
        if (spans[2 * s] >= spans[2 * s + 1] || spans[2 * s + 1] > len) continue;
        if (edge_token(t, text, spans[2 * s], flags, ids, n, 0, &a, scratch, err, errlen) ||
            edge_token(t, text, spans[2 * s + 1], flags, ids, n, 1, &b, scratch, err, errlen))
            return -1;
        for (size_t i = a; i < b && i < n; i++) role[i] = 1;
    }
    return 0;
}
