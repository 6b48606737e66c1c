/* docstore.c - see docstore.h. */
#include "rows/docstore.h"

#include <stdlib.h>
#include <string.h>

#include "base/err.h"

void cal_docstore_add(cal_docstore *s, const uint32_t *ids, size_t n, uint64_t id, const char *label,
                      size_t label_len) {
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 1024;
        s->docs = cal_xrealloc(s->docs, s->cap * sizeof *s->docs);
    }
    s->docs[s->n++] = (cal_doc){id, s->all.n, n, s->labels.n};
    cal_buf_add(&s->labels, label, label_len);
    cal_buf_addc(&s->labels, 0);
    cal_ids_reserve(&s->all, s->all.n + n);
    if (n) memcpy(s->all.v + s->all.n, ids, n * sizeof *ids);
    s->all.n += n;
}

size_t cal_docstore_at(const cal_docstore *s, size_t pos) {
    size_t lo = 0, hi = s->n;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->docs[mid].start <= pos) lo = mid;
        else hi = mid;
    }
    return lo;
}

void cal_docstore_free(cal_docstore *s) {
    cal_ids_free(&s->all);
    free(s->docs);
    cal_buf_free(&s->labels);
    memset(s, 0, sizeof *s);
}
