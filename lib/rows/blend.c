/* blend.c - see blend.h. */
#include "rows/blend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/num.h"
#include "rows/alloc.h"
#include "stream/stream.h"

void cal_blend_parse(cal_blend_spec *s, const char *spec) {
    memset(s, 0, sizeof *s);
    s->spec = spec;
    s->rows = -1;
    s->weight = -1;
    char *p = cal_xstrdup(spec);
    for (char *c; (c = strrchr(p, ':')); *c = 0) {
        char *kv = c + 1;
        if (!strncmp(kv, "rows=", 5)) {
            if (s->rows >= 0) cal_usage_error("%s: rows= given twice", spec);
            s->rows = (int64_t)cal_parse_u64("rows=", kv + 5, 0, INT64_MAX);
        } else if (!strncmp(kv, "weight=", 7)) {
            if (s->weight >= 0) cal_usage_error("%s: weight= given twice", spec);
            s->weight = cal_parse_double("weight=", kv + 7);
            if (!(s->weight >= 0)) cal_usage_error("%s: weight must be >= 0", spec);
        } else if (!strncmp(kv, "label=", 6)) {
            if (s->label) cal_usage_error("%s: label= given twice", spec);
            char err[512];
            if (cal_label_check(kv + 6, strlen(kv + 6), err, sizeof err)) cal_usage_error("%s", err);
            s->label = cal_xstrdup(kv + 6);
        } else {
            break;
        }
    }
    if (s->rows >= 0 && s->weight >= 0) cal_usage_error("%s: give rows= or weight=, not both", spec);
    if (!*p) cal_usage_error("%s: no file name", spec);
    s->path = p;
}

void cal_blend_spec_free(cal_blend_spec *s) {
    free(s->path);
    free(s->label);
    s->path = s->label = NULL;
}

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

int cal_blend_allocate(cal_blend_spec *s, size_t n, int have_total, uint64_t total, int grouped, char *err,
                       size_t errlen) {
    uint64_t fixed = 0;
    size_t nweighted = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i].rows >= 0) fixed += (uint64_t)s[i].rows, s[i].want = (uint64_t)s[i].rows;
        else nweighted++;
    }
    if (!have_total) {
        for (size_t i = 0; i < n; i++) {
            if (s[i].weight >= 0) FAIL("%s: weight= needs -n TOTAL", s[i].spec);
            if (s[i].rows < 0) {
                if (!grouped) FAIL("%s: needs rows= (or give -n TOTAL, or --grouped to take all)", s[i].spec);
                s[i].want = CAL_BLEND_ALL;
            }
        }
        return 0;
    }
    if (fixed > total)
        FAIL("rows= add up to %llu, more than -n %llu", (unsigned long long)fixed, (unsigned long long)total);
    if (!nweighted) {
        if (fixed != total) FAIL("rows= add up to %llu, not -n %llu", (unsigned long long)fixed, (unsigned long long)total);
        return 0;
    }
    double *wt = cal_xmalloc(nweighted * sizeof *wt), sum = 0;
    uint64_t *cnt = cal_xmalloc(nweighted * sizeof *cnt);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i].rows < 0) sum += wt[k++] = s[i].weight >= 0 ? s[i].weight : 1;
    if (!(sum > 0) && total > fixed) {
        free(wt), free(cnt);
        FAIL("the weights add up to 0");
    }
    cal_alloc_largest_remainder(total - fixed, wt, nweighted, cnt);
    k = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i].rows < 0) s[i].want = cnt[k++];
    free(wt), free(cnt);
    return 0;
}

void cal_blend_schedule_init(cal_blend_schedule *s, const uint64_t *counts, size_t n, uint64_t seed) {
    cal_rng_init2(&s->rng, seed, "blend");
    s->left = cal_xmalloc((n ? n : 1) * sizeof *s->left);
    s->n = n;
    s->rem = 0;
    for (size_t i = 0; i < n; i++) s->rem += s->left[i] = counts[i];
}

long cal_blend_schedule_next(cal_blend_schedule *s) {
    if (!s->rem) return -1;
    uint64_t x = cal_rng_below(&s->rng, s->rem);
    size_t i = 0;
    while (x >= s->left[i]) x -= s->left[i++];
    s->left[i]--;
    s->rem--;
    return (long)i;
}

void cal_blend_schedule_free(cal_blend_schedule *s) {
    free(s->left);
    s->left = NULL;
}
