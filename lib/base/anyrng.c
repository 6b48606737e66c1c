/* anyrng.c - dispatch of the uniform RNG interface to each kind's module. */
#include "base/anyrng.h"

#include <string.h>

#include "base/buf.h"
#include "base/err.h"

static const char *const names[] = {"calkit", "python", "numpy", "torch"};

int cal_rng_kind_parse(const char *name, cal_rng_kind *kind) {
    for (int k = 0; k < (int)(sizeof names / sizeof *names); k++)
        if (name && !strcmp(name, names[k])) {
            *kind = (cal_rng_kind)k;
            return 0;
        }
    return -1;
}

cal_rng_kind cal_rng_kind_opt(const char *opt, const char *name) {
    cal_rng_kind k;
    if (cal_rng_kind_parse(name, &k))
        cal_usage_error("%s: unknown generator '%s' (one of %s)", opt, name ? name : "", CAL_RNG_KIND_NAMES);
    return k;
}

const char *cal_rng_kind_name(cal_rng_kind kind) { return names[kind]; }

void cal_anyrng_init(cal_anyrng *r, cal_rng_kind kind, uint64_t seed, const char *purpose) {
    r->kind = kind;
    switch (kind) {
    case CAL_RNG_CALKIT: cal_rng_init2(&r->g.calkit, seed, purpose); break;
    case CAL_RNG_PYTHON: cal_py_seed(&r->g.py, seed); break;
    case CAL_RNG_NUMPY: cal_np_seed(&r->g.np, seed); break;
    case CAL_RNG_TORCH: cal_torch_manual_seed(&r->g.torch, seed); break;
    }
}

uint64_t cal_anyrng_below(cal_anyrng *r, uint64_t n) {
    switch (r->kind) {
    case CAL_RNG_PYTHON: return cal_py_randbelow(&r->g.py, n);
    case CAL_RNG_NUMPY: return cal_np_bounded(&r->g.np, 0, n - 1);
    case CAL_RNG_TORCH: return (uint64_t)cal_torch_randint(&r->g.torch, 0, (int64_t)n);
    default: return cal_rng_below(&r->g.calkit, n);
    }
}

int64_t cal_anyrng_randint(cal_anyrng *r, int64_t a, int64_t b) {
    return (int64_t)((uint64_t)a + cal_anyrng_below(r, (uint64_t)b - (uint64_t)a + 1));
}

void cal_anyrng_shuffle(cal_anyrng *r, void *base, size_t n, size_t size) {
    switch (r->kind) {
    case CAL_RNG_PYTHON: cal_py_shuffle(&r->g.py, base, n, size); break;
    case CAL_RNG_NUMPY: cal_np_shuffle(&r->g.np, base, n, size); break;
    case CAL_RNG_TORCH: cal_torch_shuffle(&r->g.torch, base, n, size); break;
    default:
        for (size_t i = 0; i + 1 < n; i++) {
            size_t j = i + (size_t)cal_rng_below(&r->g.calkit, n - i);
            cal_swap_bytes((char *)base + i * size, (char *)base + j * size, size);
        }
    }
}

void cal_anyrng_permutation(cal_anyrng *r, size_t n, uint64_t *out) {
    for (size_t i = 0; i < n; i++) out[i] = i;
    cal_anyrng_shuffle(r, out, n, sizeof *out);
}
