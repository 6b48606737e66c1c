/* test.h - minimal TAP-like checks for the C unit tests (see tests/run.sh). */
#ifndef CAL_TEST_H
#define CAL_TEST_H
#include <stdio.h>
#include <string.h>

static int t_failed;
#define CHECK(cond, ...) do { \
    if (cond) { printf("ok - "); printf(__VA_ARGS__); printf("\n"); } \
    else { t_failed = 1; printf("not ok - "); printf(__VA_ARGS__); \
           printf("\n# %s:%d: %s\n", __FILE__, __LINE__, #cond); } \
    fflush(stdout); } while (0)
#define TEST_END() return t_failed ? 1 : 0
#endif
