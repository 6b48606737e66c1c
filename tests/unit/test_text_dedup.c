/* test_text_dedup.c - lib/text/dedup.c against sorting: 200,000 ids (a
 * third sharing their low 20 bits, so probes collide and wrap; the id 0;
 * every 5th a repeat) are "seen" exactly when an earlier one was equal. */
#include <stdlib.h>

#include "test.h"
#include "text/dedup.h"

typedef struct {
    uint64_t id;
    size_t at;
} entry;

static int by_id_then_at(const void *a, const void *b) {
    const entry *x = a, *y = b;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

int main(void) {
    enum { N = 200000 };
    uint64_t *ids = malloc(N * sizeof *ids);
    entry *e = malloc(N * sizeof *e);
    unsigned char *repeat = calloc(N, 1);
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        ids[i] = i % 3 == 0 ? (x << 20) | 0xABCDE : i % 1000 == 1 ? 0 : i % 5 == 4 ? ids[x % i] : x;
        e[i] = (entry){ids[i], i};
    }
    /* the reference: after sorting by (id, position), all but the first of
     * each run of equal ids are repeats */
    qsort(e, N, sizeof *e, by_id_then_at);
    size_t repeats = 0;
    for (size_t i = 1; i < N; i++)
        if (e[i].id == e[i - 1].id) repeat[e[i].at] = 1, repeats++;
    cal_dedup d = {0};
    size_t wrong = 0;
    for (size_t i = 0; i < N; i++) wrong += cal_dedup_seen(&d, ids[i]) != repeat[i];
    CHECK(wrong == 0 && repeats > N / 10, "%d ids: seen exactly for the %zu repeats (%zu wrong)", N, repeats, wrong);
    CHECK(d.cap >= 2 * d.n && (d.cap & (d.cap - 1)) == 0, "the table stays at most half full (%zu of %zu)", d.n, d.cap);
    cal_dedup_free(&d);
    CHECK(!cal_dedup_seen(&d, 0) && cal_dedup_seen(&d, 0) && !cal_dedup_seen(&d, 5) && cal_dedup_seen(&d, 5),
          "after free: a fresh set");
    cal_dedup_free(&d);
    free(ids), free(e), free(repeat);
    TEST_END();
}
