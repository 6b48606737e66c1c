/* test_base_rng_peers.c - the peers' generators (base/pyrandom, nprandom,
 * torchrandom, behind base/anyrng).
 *
 * Without arguments: published known answers (the MT19937 reference vectors,
 * the first outputs CPython, numpy and torch give for seeds 0 and 42) and the
 * interface's calkit kind against base/rng.h.
 * With "dump": reads commands on standard input and prints one line of
 * values per command, which tests/sh/test_rng_peers.sh compares with the
 * real CPython, numpy and torch:
 *   KIND SEEDHEX seq TOKEN...   TOKEN[*COUNT]: b:N below(n) | ri:A:B randint |
 *                               i:L:H integers/randrange/randint(L,H) (peer's
 *                               exclusive call) | r random() | g:K getrandbits
 *   KIND SEEDHEX perm N | shuffle N | sample N K | state NWORDS
 * KIND is calkit, python, numpy or torch; python and numpy seeds may exceed
 * 64 bits. Doubles are printed as their 64-bit patterns, getrandbits in hex. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/anyrng.h"
#include "base/err.h"
#include "test.h"

#define MAXW 16

static size_t parse_hex_words(const char *s, uint32_t *w) {
    size_t len = strlen(s), n = 0;
    while (len && n < MAXW) {
        size_t take = len < 8 ? len : 8;
        char part[9];
        memcpy(part, s + len - take, take);
        part[take] = 0;
        w[n++] = (uint32_t)strtoul(part, NULL, 16);
        len -= take;
    }
    return n;
}

static void put_u(uint64_t v, int *first) {
    printf(*first ? "%" PRIu64 : " %" PRIu64, v);
    *first = 0;
}

static void put_i(int64_t v, int *first) {
    printf(*first ? "%" PRId64 : " %" PRId64, v);
    *first = 0;
}

static void put_d(double d, int *first) {
    uint64_t b;
    memcpy(&b, &d, 8);
    put_u(b, first);
}

/* One seq token (without its *COUNT). */
static void token(cal_anyrng *r, const char *t, int *first) {
    unsigned long long x, y;
    long long a, b;
    if (sscanf(t, "b:%llu", &x) == 1) return put_u(cal_anyrng_below(r, x), first);
    if (sscanf(t, "ri:%lld:%lld", &a, &b) == 2) return put_i(cal_anyrng_randint(r, a, b), first);
    if (sscanf(t, "i:%lld:%lld", &a, &b) == 2) {
        switch (r->kind) {
        case CAL_RNG_PYTHON: return put_i(cal_py_randrange(&r->g.py, a, b), first);
        case CAL_RNG_NUMPY: return put_i(cal_np_integers(&r->g.np, a, b), first);
        case CAL_RNG_TORCH: return put_i(cal_torch_randint(&r->g.torch, a, b), first);
        default: break;
        }
    }
    if (!strcmp(t, "r") && r->kind == CAL_RNG_PYTHON) return put_d(cal_py_random(&r->g.py), first);
    if (!strcmp(t, "r") && r->kind == CAL_RNG_NUMPY) return put_d(cal_np_random(&r->g.np), first);
    if (sscanf(t, "g:%llu", &y) == 1 && r->kind == CAL_RNG_PYTHON) {
        uint32_t *w = cal_xcalloc(y / 32 + 1, 4);
        cal_py_getrandbits_words(&r->g.py, y, w);
        size_t n = (size_t)(y + 31) / 32, top = n;
        while (top > 1 && !w[top - 1]) top--;
        printf(*first ? "%" PRIx32 : " %" PRIx32, n ? w[top - 1] : 0);
        for (size_t i = top - 1; n && i-- > 0;) printf("%08" PRIx32, w[i]);
        *first = 0;
        free(w);
        return;
    }
    cal_die("bad token '%s' for this kind", t);
}

static void command(char *line) {
    char *save, *kind = strtok_r(line, " \n", &save), *seed = strtok_r(NULL, " \n", &save),
                *cmd = strtok_r(NULL, " \n", &save);
    if (!kind || !seed || !cmd) cal_die("bad command");
    cal_rng_kind k = cal_rng_kind_opt("KIND", kind);
    uint32_t w[MAXW] = {0};
    size_t nw = parse_hex_words(seed, w);
    cal_anyrng r;
    cal_anyrng_init(&r, k, (uint64_t)w[1] << 32 | w[0], "test");
    if (k == CAL_RNG_PYTHON) cal_py_seed_words(&r.g.py, w, nw);
    if (k == CAL_RNG_NUMPY) cal_np_seed_words(&r.g.np, w, nw);
    int first = 1;
    unsigned long long n = 0, m = 0;
    if (!strcmp(cmd, "seq")) {
        for (char *t; (t = strtok_r(NULL, " \n", &save));) {
            char *star = strchr(t, '*');
            unsigned long count = star ? strtoul(star + 1, NULL, 10) : 1;
            if (star) *star = 0;
            while (count--) token(&r, t, &first);
        }
    } else if (!strcmp(cmd, "perm") || !strcmp(cmd, "shuffle")) {
        n = strtoull(strtok_r(NULL, " \n", &save), NULL, 10);
        if (!strcmp(cmd, "perm")) {
            uint64_t *p = cal_xmalloc((n + 1) * 8);
            cal_anyrng_permutation(&r, n, p);
            for (size_t i = 0; i < n; i++) put_u(p[i], &first);
            free(p);
        } else { /* wide elements: the swaps move every byte */
            struct el { char label[24]; uint64_t v; } *e = cal_xcalloc(n + 1, sizeof *e);
            for (size_t i = 0; i < n; i++) snprintf(e[i].label, sizeof e[i].label, "s%zu", i), e[i].v = i;
            cal_anyrng_shuffle(&r, e, n, sizeof *e);
            for (size_t i = 0; i < n; i++) {
                if (strtoull(e[i].label + 1, NULL, 10) != e[i].v) cal_die("torn element");
                put_u(e[i].v, &first);
            }
            free(e);
        }
    } else if (!strcmp(cmd, "sample") && k == CAL_RNG_PYTHON) {
        n = strtoull(strtok_r(NULL, " \n", &save), NULL, 10);
        m = strtoull(strtok_r(NULL, " \n", &save), NULL, 10);
        uint64_t *p = cal_xmalloc((m + 1) * 8);
        cal_py_sample(&r.g.py, n, m, p);
        for (size_t i = 0; i < m; i++) put_u(p[i], &first);
        free(p);
    } else if (!strcmp(cmd, "state") && k == CAL_RNG_NUMPY) {
        n = strtoull(strtok_r(NULL, " \n", &save), NULL, 10);
        uint32_t *s = cal_xmalloc((n + 1) * 4);
        cal_np_seedseq_state(w, nw, s, n);
        for (size_t i = 0; i < n; i++) put_u(s[i], &first);
        free(s);
    } else {
        cal_die("bad command '%s'", cmd);
    }
    printf("\n");
}

static int dump(void) {
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, stdin) > 0) command(line);
    free(line);
    return 0;
}

static void known_answers(void) {
    cal_mt19937 mt;
    cal_mt_init(&mt, 5489);
    uint32_t x = 0;
    for (int i = 0; i < 10000; i++) x = cal_mt_next(&mt);
    CHECK(x == 4123659995u, "MT19937 seeded 5489: the 10000th output is 4123659995 (C++ std::mt19937)");
    static const uint32_t key[] = {0x123, 0x234, 0x345, 0x456};
    cal_mt_init_array(&mt, key, 4);
    uint32_t a = cal_mt_next(&mt), b = cal_mt_next(&mt);
    CHECK(a == 1067595299u && b == 955945823u, "MT19937 init_by_array reference (mt19937ar.out): %u %u", a, b);

    static const struct { cal_rng_kind kind; uint64_t seed; double first; const char *call; } firsts[] = {
        {CAL_RNG_PYTHON, 0, 0.8444218515250481, "random.seed(0); random.random()"},
        {CAL_RNG_PYTHON, 42, 0.6394267984578837, "random.seed(42); random.random()"},
        {CAL_RNG_NUMPY, 42, 0.7739560485559633, "default_rng(42).random()"},
        {CAL_RNG_NUMPY, 0, 0.6369616873214543, "default_rng(0).random()"},
    };
    for (size_t i = 0; i < sizeof firsts / sizeof *firsts; i++) {
        cal_anyrng r;
        cal_anyrng_init(&r, firsts[i].kind, firsts[i].seed, "unused");
        double d = firsts[i].kind == CAL_RNG_PYTHON ? cal_py_random(&r.g.py) : cal_np_random(&r.g.np);
        CHECK(d == firsts[i].first, "%s = %.17g (%.17g)", firsts[i].call, firsts[i].first, d);
    }

    cal_torchgen tg;
    cal_torch_manual_seed(&tg, 0);
    uint32_t t0 = cal_torch_random(&tg);
    CHECK(t0 == 2357136044u, "torch.manual_seed(0): the engine's first output is std::mt19937(0)'s, 2357136044 (%u)", t0);
    cal_torch_manual_seed(&tg, (uint64_t)1 << 32);
    CHECK(cal_torch_random(&tg) == t0, "torch.manual_seed keeps only the seed's low 32 bits");
}

/* The calkit kind is base/rng.h: cal_rng_init2(seed, purpose), Lemire below,
 * forward Fisher-Yates. */
static void calkit_kind(void) {
    cal_anyrng r;
    cal_rng ref;
    int same = 1;
    for (uint64_t seed = 0; seed < 20; seed++) {
        cal_anyrng_init(&r, CAL_RNG_CALKIT, seed, "window");
        cal_rng_init2(&ref, seed, "window");
        for (uint64_t n = 1; n < 300; n += 7) same &= cal_anyrng_below(&r, n) == cal_rng_below(&ref, n);
        same &= cal_anyrng_randint(&r, -3, 3) == -3 + (int64_t)cal_rng_below(&ref, 7);
        uint64_t p[50], q[50];
        cal_anyrng_permutation(&r, 50, p);
        for (size_t i = 0; i < 50; i++) q[i] = i;
        for (size_t i = 0; i + 1 < 50; i++) {
            size_t j = i + (size_t)cal_rng_below(&ref, 50 - i);
            uint64_t t = q[i];
            q[i] = q[j], q[j] = t;
        }
        same &= !memcmp(p, q, sizeof p);
    }
    CHECK(same, "kind calkit = cal_rng_init2 + cal_rng_below + forward Fisher-Yates");
    cal_rng_kind k = CAL_RNG_CALKIT;
    int names = 1;
    for (int i = 0; i < 4; i++) {
        const char *nm = cal_rng_kind_name((cal_rng_kind)i);
        names &= !cal_rng_kind_parse(nm, &k) && k == (cal_rng_kind)i;
    }
    names &= cal_rng_kind_parse("Python", &k) == -1 && cal_rng_kind_parse("", &k) == -1 &&
             cal_rng_kind_parse(NULL, &k) == -1;
    CHECK(names, "kind names round-trip (%s); others are refused", CAL_RNG_KIND_NAMES);
}

int main(int argc, char **argv) {
    cal_set_progname(argv[0]);
    if (argc > 1 && !strcmp(argv[1], "dump")) return dump();
    known_answers();
    calkit_kind();
    TEST_END();
}
