/* pyrandom.c - CPython's random.Random from its published algorithms. */
#include "base/pyrandom.h"

#include <math.h>
#include <stdlib.h>

#include "base/buf.h"
#include "base/err.h"

void cal_py_seed_words(cal_pyrandom *r, const uint32_t *words, size_t n) {
    /* CPython keys init_by_array with |a|'s 32-bit words, at least one. */
    while (n > 1 && words[n - 1] == 0) n--;
    uint32_t zero = 0;
    if (n == 0) words = &zero, n = 1;
    cal_mt_init_array(&r->mt, words, n);
}

void cal_py_seed(cal_pyrandom *r, uint64_t seed) {
    uint32_t w[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    cal_py_seed_words(r, w, 2);
}

void cal_py_getrandbits_words(cal_pyrandom *r, uint64_t k, uint32_t *out) {
    /* Words fill from the least significant; the last, partial word keeps
     * the high bits of its draw. */
    for (size_t i = 0; k; i++) {
        uint32_t x = cal_mt_next(&r->mt);
        if (k < 32) {
            out[i] = x >> (32 - k);
            break;
        }
        out[i] = x;
        k -= 32;
    }
}

uint64_t cal_py_getrandbits(cal_pyrandom *r, unsigned k) {
    if (k == 0) return 0;
    if (k <= 32) return cal_mt_next(&r->mt) >> (32 - k);
    uint32_t w[2] = {0, 0};
    cal_py_getrandbits_words(r, k, w);
    return (uint64_t)w[1] << 32 | w[0];
}

static unsigned bit_length(uint64_t n) { return n ? 64 - (unsigned)__builtin_clzll(n) : 0; }

uint64_t cal_py_randbelow(cal_pyrandom *r, uint64_t n) {
    unsigned k = bit_length(n); /* of n, not n - 1: n = 1 still draws */
    uint64_t x;
    do x = cal_py_getrandbits(r, k);
    while (x >= n);
    return x;
}

int64_t cal_py_randrange(cal_pyrandom *r, int64_t start, int64_t stop) {
    uint64_t width = (uint64_t)stop - (uint64_t)start;
    return (int64_t)((uint64_t)start + cal_py_randbelow(r, width));
}

int64_t cal_py_randint(cal_pyrandom *r, int64_t a, int64_t b) {
    return (int64_t)((uint64_t)a + cal_py_randbelow(r, (uint64_t)b - (uint64_t)a + 1));
}

double cal_py_random(cal_pyrandom *r) {
    uint32_t a = cal_mt_next(&r->mt) >> 5, b = cal_mt_next(&r->mt) >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

void cal_py_shuffle(cal_pyrandom *r, void *base, size_t n, size_t size) {
    unsigned char *x = base;
    for (size_t i = n ? n - 1 : 0; i >= 1; i--) {
        size_t j = (size_t)cal_py_randbelow(r, (uint64_t)i + 1);
        cal_swap_bytes(x + i * size, x + j * size, size);
    }
}

/* An open-addressing set of indices (stored + 1, 0 = empty) for sample(). */
typedef struct {
    uint64_t *slot;
    size_t mask;
} idxset;

static int idxset_add(idxset *s, uint64_t v) {
    size_t h = (size_t)((v + 1) * 0x9e3779b97f4a7c15ull) & s->mask;
    while (s->slot[h]) {
        if (s->slot[h] == v + 1) return 0;
        h = (h + 1) & s->mask;
    }
    s->slot[h] = v + 1;
    return 1;
}

void cal_py_sample(cal_pyrandom *r, uint64_t n, size_t k, uint64_t *out) {
    /* CPython picks by comparing n with the size of a k-element set:
     * 21 + 4 ** ceil(log(3k, 4)) when k > 5 (math.log(x, b) = log(x) / log(b)). */
    uint64_t setsize = 21;
    if (k > 5) {
        double e = ceil(log((double)k * 3) / log(4.0));
        setsize = e >= 31 ? UINT64_MAX : setsize + ((uint64_t)1 << (2 * (unsigned)e));
    }
    if (n <= setsize) {
        uint64_t *pool = cal_xmalloc((size_t)(n ? n : 1) * sizeof *pool);
        for (uint64_t i = 0; i < n; i++) pool[i] = i;
        for (size_t i = 0; i < k; i++) {
            uint64_t j = cal_py_randbelow(r, n - i);
            out[i] = pool[j];
            pool[j] = pool[n - i - 1]; /* the unpicked stay in pool[0, n - i - 1) */
        }
        free(pool);
        return;
    }
    size_t cap = 16;
    while (cap < 2 * k) cap *= 2;
    idxset s = {cal_xcalloc(cap, sizeof *s.slot), cap - 1};
    for (size_t i = 0; i < k; i++) {
        uint64_t j;
        do j = cal_py_randbelow(r, n);
        while (!idxset_add(&s, j));
        out[i] = j;
    }
    free(s.slot);
}
