/* torchrandom.c - torch's CPU generator draws from the published algorithms. */
#include "base/torchrandom.h"

#include "base/buf.h"

void cal_torch_manual_seed(cal_torchgen *g, uint64_t seed) { cal_mt_init(&g->mt, (uint32_t)seed); }

uint32_t cal_torch_random(cal_torchgen *g) { return cal_mt_next(&g->mt); }

uint64_t cal_torch_random64(cal_torchgen *g) {
    uint64_t hi = cal_mt_next(&g->mt);
    return hi << 32 | cal_mt_next(&g->mt);
}

int64_t cal_torch_randint(cal_torchgen *g, int64_t low, int64_t high) {
    uint64_t range = (uint64_t)high - (uint64_t)low;
    uint64_t v = range >= (uint64_t)1 << 32 ? cal_torch_random64(g) : cal_torch_random(g);
    return (int64_t)(v % range + (uint64_t)low);
}

void cal_torch_shuffle(cal_torchgen *g, void *base, size_t n, size_t size) {
    unsigned char *x = base;
    for (size_t i = 0; i + 1 < n; i++) {
        size_t z = (size_t)(cal_torch_random(g) % (uint64_t)(n - i));
        cal_swap_bytes(x + i * size, x + (i + z) * size, size);
    }
}

void cal_torch_randperm(cal_torchgen *g, size_t n, uint64_t *out) {
    for (size_t i = 0; i < n; i++) out[i] = i;
    cal_torch_shuffle(g, out, n, sizeof *out);
}
