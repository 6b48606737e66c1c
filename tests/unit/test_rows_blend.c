/* test_rows_blend.c - lib/rows/blend.c: SPEC parsing, the allocation of
 * counts (rows=, weights, -n) and the seeded schedule (as the Python model
 * tests/py/packref.py draws it). */
#include <stdlib.h>

#include "rows/blend.h"
#include "test.h"

static char err[256];

int main(void) {
    cal_blend_spec s[3];
    cal_blend_parse(&s[0], "a:b.cal:rows=7:label=web");
    CHECK(!strcmp(s[0].path, "a:b.cal") && s[0].rows == 7 && !strcmp(s[0].label, "web") && s[0].weight < 0,
          "options read from the right: the file name keeps its ':'");
    cal_blend_parse(&s[1], "x.cal:weight=0.5");
    CHECK(!strcmp(s[1].path, "x.cal") && s[1].weight == 0.5 && s[1].rows < 0 && !s[1].label, "weight=");
    cal_blend_parse(&s[2], "y.cal:size=3");
    CHECK(!strcmp(s[2].path, "y.cal:size=3"), "an unknown option is part of the name");
    CHECK(cal_blend_allocate(s, 3, 1, 20, 0, err, sizeof err) == 0 && s[0].want == 7 && s[1].want == 4 &&
              s[2].want == 9,
          "-n 20: 7 fixed, 13 by weight 0.5 : 1 -> 4 (4.33) and 9 (8.67) by largest remainder");
    CHECK(cal_blend_allocate(s, 3, 1, 5, 0, err, sizeof err) == -1 && !strcmp(err, "rows= add up to 7, more than -n 5"),
          "rows= over -n: %s", err);
    CHECK(cal_blend_allocate(s, 3, 0, 0, 0, err, sizeof err) == -1 && !strcmp(err, "x.cal:weight=0.5: weight= needs -n TOTAL"),
          "weight= without -n: %s", err);
    CHECK(cal_blend_allocate(s + 2, 1, 0, 0, 1, err, sizeof err) == 0 && s[2].want == CAL_BLEND_ALL,
          "--grouped without counts: the whole source");
    CHECK(cal_blend_allocate(s + 2, 1, 0, 0, 0, err, sizeof err) == -1 && strstr(err, "needs rows="),
          "interleaved without counts: %s", err);
    CHECK(cal_blend_allocate(s, 1, 1, 8, 0, err, sizeof err) == -1 && !strcmp(err, "rows= add up to 7, not -n 8"),
          "only rows=, not -n: %s", err);
    for (int i = 0; i < 3; i++) cal_blend_spec_free(&s[i]);

    uint64_t counts[] = {3, 2, 1};
    cal_blend_schedule sc;
    cal_blend_schedule_init(&sc, counts, 3, CAL_RNG_CALKIT, 11);
    long want[] = {0, 0, 1, 2, 0, 1}, got[8];
    size_t n = 0;
    for (long i; (i = cal_blend_schedule_next(&sc)) >= 0 && n < 8;) got[n++] = i;
    cal_blend_schedule_free(&sc);
    CHECK(n == 6 && !memcmp(got, want, sizeof want), "schedule 3/2/1, seed 11: 0 0 1 2 0 1");
    uint64_t many[] = {500, 0, 1500};
    cal_blend_schedule_init(&sc, many, 3, CAL_RNG_CALKIT, 5);
    size_t c[3] = {0}, first_half0 = 0, k = 0;
    for (long i; (i = cal_blend_schedule_next(&sc)) >= 0; k++) {
        c[i]++;
        if (k < 1000 && i == 0) first_half0++;
    }
    cal_blend_schedule_free(&sc);
    CHECK(c[0] == 500 && c[1] == 0 && c[2] == 1500, "every count spent exactly, a zero count never drawn");
    CHECK(first_half0 > 200 && first_half0 < 300, "interleaved: %zu of 500 in the first half", first_half0);
    TEST_END();
}
