/* test_text_sample.c - lib/text/sample.c: --shard I/N parsing and its
 * partition, and the bottom-k sample against sorting every document by its
 * keyed hash: the same documents in the same order, whatever order they are
 * offered in, for k = 0, 1, 37, all and more than all. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/hash.h"
#include "base/num.h"
#include "child.h"
#include "test.h"
#include "text/sample.h"

static const char *shard_arg;
static void shard_run(void *arg) {
    (void)arg;
    uint64_t i, n;
    cal_shard_parse("--shard", shard_arg, &i, &n);
    printf("%llu/%llu", (unsigned long long)i, (unsigned long long)n);
}
static int shard(const char *v, char *msg, size_t n) {
    shard_arg = v;
    return t_child(shard_run, NULL, msg, n);
}

enum { N = 500 };
static uint64_t key[N];

static int by_key(const void *a, const void *b) {
    uint64_t x = key[*(const int *)a], y = key[*(const int *)b];
    return x < y ? -1 : x > y;
}

/* Samples k of the N documents "doc I" (id I * 7919), offered forwards or
 * backwards; 1 when the result is the k smallest keys in order. */
static int sample_ok(size_t k, uint64_t seed, int backwards) {
    int order[N];
    for (int i = 0; i < N; i++) {
        uint8_t b[8];
        cal_st64(b, (uint64_t)i * 7919);
        key[i] = cal_hash_seed(b, 8, seed);
        order[i] = i;
    }
    qsort(order, N, sizeof *order, by_key);
    cal_sample s;
    cal_sample_init(&s, k, seed);
    for (int j = 0; j < N; j++) {
        int i = backwards ? N - 1 - j : j;
        char text[32];
        snprintf(text, sizeof text, "doc %d", i);
        cal_sample_add(&s, i % 2 ? "odd" : "even", (uint64_t)i * 7919, text, strlen(text), 0);
    }
    cal_sample_sort(&s);
    int ok = s.n == (k < N ? k : N);
    for (size_t j = 0; ok && j < s.n; j++) {
        int i = order[j];
        char text[32];
        snprintf(text, sizeof text, "doc %d", i);
        ok = s.doc[j].id == (uint64_t)i * 7919 && s.doc[j].key == key[i] && s.doc[j].n == strlen(text) &&
             !memcmp(s.doc[j].text, text, s.doc[j].n) && !strcmp(s.doc[j].label, i % 2 ? "odd" : "even");
    }
    cal_sample_free(&s);
    return ok;
}

int main(void) {
    cal_set_progname("t");
    char msg[256];
    CHECK(shard("0/4", msg, sizeof msg) == 0 && !strcmp(msg, "0/4") && shard("3/4", msg, sizeof msg) == 0 &&
              !strcmp(msg, "3/4") && shard("0/1", msg, sizeof msg) == 0,
          "--shard I/N");
    CHECK(shard("4/4", msg, sizeof msg) == 2 && !strcmp(msg, "t: --shard: 4 is out of range [0, 3] (see --help)"),
          "I out of range: %s", msg);
    CHECK(shard("2", msg, sizeof msg) == 2 && !strcmp(msg, "t: --shard wants I/N, e.g. 0/4 (see --help)"),
          "no slash: %s", msg);
    CHECK(shard("0/0", msg, sizeof msg) == 2 && shard("/3", msg, sizeof msg) == 2 && shard("1/x", msg, sizeof msg) == 2,
          "N of 0, an empty I, a bad N");
    int part = 1;
    for (uint64_t id = 0; id < 1000; id++) {
        int in = 0;
        for (uint64_t i = 0; i < 7; i++) in += cal_shard_keeps(id * 0x9E3779B97F4A7C15ull, i, 7);
        part &= in == 1 && cal_shard_keeps(id, 0, 0);
    }
    CHECK(part, "the shards of N partition the ids; N = 0 keeps everything");

    size_t ks[] = {0, 1, 37, N, N + 10};
    int ok = 1;
    for (size_t j = 0; j < sizeof ks / sizeof *ks; j++)
        for (int back = 0; back < 2; back++) ok &= sample_ok(ks[j], 42, back) && sample_ok(ks[j], 0, back);
    CHECK(ok, "bottom-k: the k smallest keyed hashes in ascending order, in either input order");
    TEST_END();
}
