/* test_tok_hf_cache.c - the pre-token cache's buckets: words whose keys
 * fall in one bucket are all kept up to its size (a direct-mapped cache
 * kept the last one only, and words that took turns evicted each other on
 * every use), the words first kept stay when later ones take turns in the
 * last slot, and every encode gives the exact ids, also with threads that
 * take turns on one bucket at once. The tokenizer has no merges: a word's
 * ids are its bytes' ids, known in advance. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "test.h"
#include "tok/hf.h"
#include "tok/hf_int.h"

#define G "\xc4\xa0" /* byte-level space */
#define NW 12        /* colliding words wanted (more than any bucket holds) */
#define LEN 6        /* bytes of a word: the space and 5 letters */

static tok_hf *load(void)
{
    char j[2048], err[256];
    size_t n = (size_t)snprintf(j, sizeof j,
        "{\"pre_tokenizer\":{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"trim_offsets\":true,\"use_regex\":true},"
        "\"model\":{\"type\":\"BPE\",\"vocab\":{\"" G "\":0");
    for (int c = 'a'; c <= 'z'; c++) n += (size_t)snprintf(j + n, sizeof j - n, ",\"%c\":%d", c, c - 'a' + 1);
    snprintf(j + n, sizeof j - n, "},\"merges\":[]}}");
    tok_hf *t = tok_hf_load(j, strlen(j), "cache.json", err, sizeof err);
    if (!t) printf("# %s\n", err);
    return t;
}

/* word i: a space and 5 letters (the digits of i in base 26) */
static void word(uint32_t i, char *w)
{
    w[0] = ' ';
    for (int k = 1; k < LEN; k++, i /= 26) w[k] = (char)('a' + i % 26);
}

/* 1 when encoding w gives its bytes' ids */
static int exact(const tok_hf *t, const char *w)
{
    cal_ids ids = { 0 };
    char err[128];
    int ok = !tok_hf_encode(t, w, LEN, 0, &ids, err, sizeof err) && ids.n == LEN && ids.v[0] == 0;
    for (size_t k = 1; ok && k < LEN; k++) ok = ids.v[k] == (uint32_t)(w[k] - 'a' + 1);
    cal_ids_free(&ids);
    return ok;
}

static char words[NW][LEN];

typedef struct { const tok_hf *t; int first, ok; } thr_arg;

static void *hammer(void *p)
{
    thr_arg *a = p;
    a->ok = 1;
    for (int r = 0; r < 20000 && a->ok; r++) a->ok = exact(a->t, words[(a->first + r * 7 + r / 5) % NW]);
    return NULL;
}

int main(void)
{
    tok_hf *t = load();
    CHECK(t != NULL, "a byte-level tokenizer without merges loads");
    if (!t) TEST_END();
    /* NW words with the bucket of word 0 */
    char w[LEN];
    word(0, w);
    size_t b = th_bpe_cache_bucket(w, LEN);
    int nw = 0;
    for (uint32_t i = 0; i < 11881376u && nw < NW; i++) { /* 26^5 */
        word(i, w);
        if (th_bpe_cache_bucket(w, LEN) == b) memcpy(words[nw++], w, LEN);
    }
    CHECK(nw == NW, "%d words share a cache bucket", nw);
    if (nw < NW) TEST_END();
    CHECK(!th_bpe_cache_has(t, words[0], LEN), "the cache starts empty");

    /* one word after the other: how many are kept together */
    int held = 0, ok = 1;
    for (; held < NW - 1; held++) {
        ok &= exact(t, words[held]);
        int all = 1;
        for (int k = 0; k <= held; k++) all &= th_bpe_cache_has(t, words[k], LEN);
        if (!all) break;
    }
    CHECK(ok, "each word encodes to its bytes' ids");
    CHECK(held >= 2 && held < NW - 1, "a bucket keeps %d words together (a direct-mapped cache kept 1)", held);
    /* words[held] replaced one word: the last kept, the first held - 1 stay */
    int stay = 1;
    for (int k = 0; k < held - 1; k++) stay &= th_bpe_cache_has(t, words[k], LEN);
    CHECK(stay && !th_bpe_cache_has(t, words[held - 1], LEN) && th_bpe_cache_has(t, words[held], LEN),
          "the next word took the last slot; the first %d words stay", held - 1);
    /* words taking turns in the last slot: the first ones still stay, every id exact */
    for (int r = 0; r < 100; r++) ok &= exact(t, words[held + r % (NW - held)]);
    for (int r = 0; r < 100; r++) ok &= exact(t, words[r % NW]);
    stay = 1;
    for (int k = 0; k < held - 1; k++) stay &= th_bpe_cache_has(t, words[k], LEN);
    CHECK(ok && stay, "after %d words took turns in the bucket, the first %d stay and every encode is exact",
          NW - held + 1, held - 1);

    /* threads taking turns on the bucket at once (each fill rewrites a slot another may be reading) */
    tok_hf *u = load();
    if (u) {
        pthread_t th[4];
        thr_arg a[4];
        for (int i = 0; i < 4; i++) {
            a[i] = (thr_arg){ u, i * 5, 0 };
            pthread_create(&th[i], NULL, hammer, &a[i]);
        }
        ok = 1;
        for (int i = 0; i < 4; i++) { pthread_join(th[i], NULL); ok &= a[i].ok; }
        CHECK(ok, "4 threads encoding %d words of one bucket at once get the exact ids", NW);
        tok_hf_free(u);
    }
    tok_hf_free(t);

    /* a small input's table (tok_hf_expect: 2 MB, 2^14 buckets of 2 slots):
     * words of different buckets of the full table share one of it, so the
     * third takes the second's slot there and not in a full table; ids exact */
    tok_hf *v = load(), *f = load();
    if (v && f) {
        tok_hf_expect(v, 25000);
        tok_hf_expect(f, 0); /* unknown: the full table */
        char sw[3][LEN];
        int ns = 0;
        word(0, w);
        size_t sb = th_bpe_cache_bucket(w, LEN) & ((1u << 14) - 1);
        size_t seen[3];
        for (uint32_t i = 0; i < 11881376u && ns < 3; i++) {
            word(i, w);
            size_t fb = th_bpe_cache_bucket(w, LEN);
            if ((fb & ((1u << 14) - 1)) != sb) continue;
            int dup = 0;
            for (int k = 0; k < ns; k++) dup |= seen[k] == fb;
            if (!dup) seen[ns] = fb, memcpy(sw[ns++], w, LEN);
        }
        ok = ns == 3;
        for (int k = 0; k < ns; k++) ok &= exact(v, sw[k]) && exact(f, sw[k]);
        CHECK(ok && th_bpe_cache_has(v, sw[0], LEN) && !th_bpe_cache_has(v, sw[1], LEN) && th_bpe_cache_has(v, sw[2], LEN) &&
                  th_bpe_cache_has(f, sw[1], LEN),
              "a small input's table: 3 words of 3 full-table buckets share a bucket of it (the third took the last slot), ids exact");
        tok_hf_expect(v, 0);
        CHECK(exact(v, sw[0]) && exact(v, sw[1]) && exact(v, sw[2]) && th_bpe_cache_has(v, sw[0], LEN) && th_bpe_cache_has(v, sw[2], LEN),
              "the hint changed back to unknown: a new full table, ids exact");
    }
    if (v) tok_hf_free(v);
    if (f) tok_hf_free(f);
    TEST_END();
}
