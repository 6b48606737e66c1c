/* sample.c - see sample.h. */
#include "text/sample.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/hash.h"
#include "base/num.h"

void cal_shard_parse(const char *opt, const char *v, uint64_t *i, uint64_t *n) {
    const char *sl = strchr(v, '/');
    if (!sl) cal_usage_error("%s wants I/N, e.g. 0/4", opt);
    char ib[32];
    snprintf(ib, sizeof ib, "%.*s", (int)(sl - v < 31 ? sl - v : 31), v);
    *n = cal_parse_u64(opt, sl + 1, 1, UINT32_MAX);
    *i = cal_parse_u64(opt, ib, 0, *n - 1);
}

void cal_sample_init(cal_sample *s, size_t k, uint64_t seed) {
    *s = (cal_sample){.k = k, .seed = seed};
}

static void swap(cal_sampled *a, cal_sampled *b) {
    cal_sampled t = *a;
    *a = *b, *b = t;
}

static void down(cal_sample *s, size_t i) {
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < s->n && s->doc[l].key > s->doc[m].key) m = l;
        if (r < s->n && s->doc[r].key > s->doc[m].key) m = r;
        if (m == i) return;
        swap(&s->doc[i], &s->doc[m]);
        i = m;
    }
}

static void up(cal_sample *s, size_t i) {
    for (; i > 0 && s->doc[(i - 1) / 2].key < s->doc[i].key; i = (i - 1) / 2) swap(&s->doc[i], &s->doc[(i - 1) / 2]);
}

void cal_sample_add(cal_sample *s, const char *label, uint64_t id, const char *text, size_t n, unsigned flags) {
    uint8_t b[8];
    cal_st64(b, id);
    uint64_t key = cal_hash_seed(b, 8, s->seed);
    if (s->n == s->k) { /* full: replace the largest key when this one is smaller */
        if (s->k == 0 || key >= s->doc[0].key) return;
        free(s->doc[0].label), free(s->doc[0].text);
        s->doc[0] = s->doc[--s->n];
        down(s, 0);
    }
    if (s->n == s->cap) /* grown as documents come: k may be far more than the input holds */
        s->doc = cal_xrealloc(s->doc, sizeof *s->doc * (s->cap = s->cap ? 2 * s->cap : 64));
    cal_sampled d = {key, id, cal_xstrdup(label), cal_xmalloc(n + 1), n, flags};
    memcpy(d.text, text, n);
    s->doc[s->n] = d;
    up(s, s->n++);
}

static int by_key(const void *a, const void *b) {
    const cal_sampled *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

void cal_sample_sort(cal_sample *s) {
    if (s->n) qsort(s->doc, s->n, sizeof *s->doc, by_key);
}

void cal_sample_free(cal_sample *s) {
    for (size_t i = 0; i < s->n; i++) free(s->doc[i].label), free(s->doc[i].text);
    free(s->doc);
    *s = (cal_sample){0};
}
