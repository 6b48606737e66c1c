/* nprandom.c - numpy's SeedSequence, PCG64 and Generator draws, from the
 * published algorithms (O'Neill's PCG paper, numpy's SeedSequence notes and
 * Lemire 2019). */
#include "base/nprandom.h"

#include "base/buf.h"

/* SeedSequence's hash constants (32-bit words, XSHIFT = 16). */
#define INIT_A 0x43b0d7e5u
#define MULT_A 0x931e8875u
#define INIT_B 0x8b51f9ddu
#define MULT_B 0x58f38dedu
#define MIX_MULT_L 0xca01f9ddu
#define MIX_MULT_R 0x4973f715u
#define POOL 4

static uint32_t hashmix(uint32_t v, uint32_t *hc) {
    v ^= *hc;
    *hc *= MULT_A;
    v *= *hc;
    return v ^ (v >> 16);
}

static uint32_t mix(uint32_t x, uint32_t y) {
    uint32_t r = MIX_MULT_L * x - MIX_MULT_R * y;
    return r ^ (r >> 16);
}

void cal_np_seedseq_state(const uint32_t *entropy, size_t n, uint32_t *out, size_t nwords) {
    uint32_t pool[POOL], hc = INIT_A;
    for (size_t i = 0; i < POOL; i++) pool[i] = hashmix(i < n ? entropy[i] : 0, &hc);
    for (size_t s = 0; s < POOL; s++)
        for (size_t d = 0; d < POOL; d++)
            if (s != d) pool[d] = mix(pool[d], hashmix(pool[s], &hc));
    for (size_t s = POOL; s < n; s++)
        for (size_t d = 0; d < POOL; d++) pool[d] = mix(pool[d], hashmix(entropy[s], &hc));
    hc = INIT_B;
    for (size_t i = 0; i < nwords; i++) {
        uint32_t v = pool[i % POOL] ^ hc;
        hc *= MULT_B;
        v *= hc;
        out[i] = v ^ (v >> 16);
    }
}

#define PCG_MULT ((unsigned __int128)2549297995355413924ull << 64 | 4865540595714422341ull)

static void pcg_step(cal_pcg64 *g) { g->state = g->state * PCG_MULT + g->inc; }

void cal_np_seed_words(cal_pcg64 *g, const uint32_t *words, size_t n) {
    /* The int's words, at least one (0 is [0]); four uint64 from eight
     * uint32 of state, low word first: seed = v0:v1, increment = v2:v3. */
    while (n > 1 && words[n - 1] == 0) n--;
    uint32_t zero = 0, w[8];
    if (n == 0) words = &zero, n = 1;
    cal_np_seedseq_state(words, n, w, 8);
    uint64_t v[4];
    for (int i = 0; i < 4; i++) v[i] = (uint64_t)w[2 * i + 1] << 32 | w[2 * i];
    unsigned __int128 seed = (unsigned __int128)v[0] << 64 | v[1], seq = (unsigned __int128)v[2] << 64 | v[3];
    g->state = 0;
    g->inc = seq << 1 | 1;
    pcg_step(g);
    g->state += seed;
    pcg_step(g);
    g->has32 = 0;
    g->u32 = 0;
}

void cal_np_seed(cal_pcg64 *g, uint64_t seed) {
    uint32_t w[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    cal_np_seed_words(g, w, 2);
}

uint64_t cal_pcg64_next64(cal_pcg64 *g) {
    /* Step, then XSL-RR: the xor of the halves rotated right by the top 6 bits. */
    pcg_step(g);
    uint64_t x = (uint64_t)(g->state >> 64) ^ (uint64_t)g->state;
    unsigned rot = (unsigned)(g->state >> 122);
    return (x >> rot) | (x << ((64 - rot) & 63));
}

uint32_t cal_pcg64_next32(cal_pcg64 *g) {
    if (g->has32) {
        g->has32 = 0;
        return g->u32;
    }
    uint64_t x = cal_pcg64_next64(g);
    g->has32 = 1;
    g->u32 = (uint32_t)(x >> 32);
    return (uint32_t)x;
}

double cal_np_random(cal_pcg64 *g) { return (double)(cal_pcg64_next64(g) >> 11) * (1.0 / 9007199254740992.0); }

static uint32_t lemire32(cal_pcg64 *g, uint32_t rng) {
    uint32_t excl = rng + 1;
    uint64_t m = (uint64_t)cal_pcg64_next32(g) * excl;
    if ((uint32_t)m < excl) {
        uint32_t threshold = (UINT32_MAX - rng) % excl;
        while ((uint32_t)m < threshold) m = (uint64_t)cal_pcg64_next32(g) * excl;
    }
    return (uint32_t)(m >> 32);
}

static uint64_t lemire64(cal_pcg64 *g, uint64_t rng) {
    uint64_t excl = rng + 1;
    unsigned __int128 m = (unsigned __int128)cal_pcg64_next64(g) * excl;
    if ((uint64_t)m < excl) {
        uint64_t threshold = (UINT64_MAX - rng) % excl;
        while ((uint64_t)m < threshold) m = (unsigned __int128)cal_pcg64_next64(g) * excl;
    }
    return (uint64_t)(m >> 64);
}

uint64_t cal_np_bounded(cal_pcg64 *g, uint64_t off, uint64_t rng) {
    if (rng == 0) return off;
    if (rng < UINT32_MAX) return off + lemire32(g, (uint32_t)rng);
    if (rng == UINT32_MAX) return off + cal_pcg64_next32(g);
    if (rng == UINT64_MAX) return off + cal_pcg64_next64(g);
    return off + lemire64(g, rng);
}

int64_t cal_np_integers(cal_pcg64 *g, int64_t low, int64_t high) {
    /* numpy draws on the closed interval [low, high - 1]. */
    return (int64_t)cal_np_bounded(g, (uint64_t)low, (uint64_t)high - 1 - (uint64_t)low);
}

uint64_t cal_np_interval(cal_pcg64 *g, uint64_t max) {
    if (max == 0) return 0;
    uint64_t mask = max; /* the smallest 2^k - 1 >= max */
    for (unsigned s = 1; s < 64; s *= 2) mask |= mask >> s;
    uint64_t v;
    if (max <= UINT32_MAX) {
        do v = cal_pcg64_next32(g) & mask;
        while (v > max);
    } else {
        do v = cal_pcg64_next64(g) & mask;
        while (v > max);
    }
    return v;
}

void cal_np_shuffle(cal_pcg64 *g, void *base, size_t n, size_t size) {
    unsigned char *x = base;
    for (size_t i = n ? n - 1 : 0; i >= 1; i--) {
        size_t j = (size_t)cal_np_interval(g, i);
        cal_swap_bytes(x + i * size, x + j * size, size);
    }
}

void cal_np_permutation(cal_pcg64 *g, size_t n, uint64_t *out) {
    for (size_t i = 0; i < n; i++) out[i] = i;
    cal_np_shuffle(g, out, n, sizeof *out);
}
