/* rolemask.c - see rolemask.h. */
#include "tok/rolemask.h"

#include <string.h>

#define PROBE 64 /* bytes probed back from an edge: longer than any token */

/* Whether text[0..x) encodes to a prefix of ids: 1 with its length in *m. */
static int boundary(const cal_tok *t, const char *text, size_t x, unsigned flags, const uint32_t *ids, size_t n,
                    size_t *m, cal_ids *p, char *err, size_t errlen, int *bad) {
    p->n = 0;
    if (cal_tok_encode(t, text, x, flags, p, err, errlen)) {
        *bad = 1;
        return 0;
    }
    if (p->n > n || (p->n && memcmp(p->v, ids, 4 * p->n))) return 0;
    *m = p->n;
    return 1;
}

/* The index of the token of ids that holds byte b: the token after the last
 * token boundary at or before b (a boundary x: text[0..x) encodes to the
 * first tokens of ids, which then cover exactly those bytes). -1 on an
 * encoding error; n when no boundary is found within PROBE bytes. */
static long holder(const cal_tok *t, const char *text, size_t b, unsigned flags, const uint32_t *ids, size_t n,
                   cal_ids *p, char *err, size_t errlen) {
    int bad = 0;
    size_t m;
    for (size_t k = 0; k <= PROBE && k <= b; k++) {
        if (boundary(t, text, b - k, flags, ids, n, &m, p, err, errlen, &bad)) return (long)m;
        if (bad) return -1;
    }
    return (long)n;
}

int cal_tok_role_mask(const cal_tok *t, const char *text, size_t len, unsigned flags, const uint32_t *ids, size_t n,
                      const uint32_t *spans, size_t nspans, uint8_t *role, cal_ids *scratch, char *err, size_t errlen) {
    memset(role, 0, n);
    for (size_t s = 0; s < nspans; s++) {
        size_t a0 = spans[2 * s], b0 = spans[2 * s + 1], m;
        if (a0 >= b0 || b0 > len) continue;
        long a = holder(t, text, a0, flags, ids, n, scratch, err, errlen), b;
        int bad = 0;
        if (a < 0) return -1;
        if (boundary(t, text, b0, flags, ids, n, &m, scratch, err, errlen, &bad)) b = (long)m; /* the span ends a token */
        else if (bad) return -1;
        else if ((b = holder(t, text, b0 - 1, flags, ids, n, scratch, err, errlen)) < 0) return -1;
        else b++; /* through the token that holds the span's last byte */
        for (long i = a; i < b && i < (long)n; i++) role[i] = 1;
    }
    return 0;
}
