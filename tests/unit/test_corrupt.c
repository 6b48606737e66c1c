/* test_corrupt.c - every damaged form of one stream, read in memory: each of
 * the 534 one-byte flips and each of the 534 truncations is an error (never a
 * clean end, never a crash; under SANITIZE=1 never an out-of-bounds read),
 * and a truncation names its exact cause and offset. The stream comes from
 * the independent writer examples/calstream.py (the stream of test_cat.sh);
 * cal-cat --check prints exactly "cal-cat: " + the cal_read_soft message, and
 * tests/sh/test_corrupt.sh checks that wording and exit status for a few
 * cases as a process. Run from the repository root (tests/run.sh does). */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>

#include "stream/stream.h"
#include "test.h"

#define NAME "t.cal"

/* The stream of tests/data/sample.jsonl, written by examples/calstream.py. */
static uint8_t *python_stream(size_t *n) {
    FILE *p = popen("/usr/bin/python3 examples/calstream.py json <tests/data/sample.jsonl", "r");
    if (!p) return NULL;
    uint8_t *b = malloc(1 << 16);
    *n = fread(b, 1, 1 << 16, p);
    if (pclose(p) != 0) *n = 0;
    return b;
}

/* Reads all of p[0..n) from an exact-size copy (so ASan sees any read past
 * the end). Returns -1 with the message in err, or the record count at a
 * clean end. */
static long read_all(const uint8_t *p, size_t n, char *err, size_t errlen) {
    uint8_t *copy = malloc(n ? n : 1);
    memcpy(copy, p, n);
    cal_reader *r = cal_reader_mem(copy, n, NAME);
    cal_rec rec;
    long count = 0;
    int rc;
    err[0] = 0;
    while ((rc = cal_read_soft(r, &rec, err, errlen)) == 1) count++;
    cal_reader_close(r);
    free(copy);
    return rc < 0 ? -1 : count;
}

/* err is one line matching the extended regex "^NAME: " PAT. */
static int matches(const char *err, const char *pat) {
    char full[512];
    snprintf(full, sizeof full, "^" NAME ": %s", pat);
    regex_t re;
    if (regcomp(&re, full, REG_EXTENDED | REG_NOSUB)) return 0;
    int ok = !regexec(&re, err, 0, NULL, 0) && !strchr(err, '\n');
    regfree(&re);
    return ok;
}

/* The expected message of the stream cut to n bytes. Records start at 105,
 * 223, 291, 347, 400 and 459; the END record at 502; the end at 534. */
static void cut_pattern(size_t n, char *pat, size_t len) {
    static const size_t bounds[] = {105, 223, 291, 347, 400, 459, 502};
    for (size_t k = 0; k < sizeof bounds / sizeof *bounds; k++)
        if (n == bounds[k]) {
            snprintf(pat, len, "byte %zu: truncated stream: no end record after %zu records \\(did the producer fail\\?\\)$",
                     n, k);
            return;
        }
    if (n == 0) snprintf(pat, len, "byte 0: empty input: not a cal-stream$");
    else if (n < 105) snprintf(pat, len, "byte %zu: truncated stream header", n);
    else
        snprintf(pat, len, "byte %zu: truncated (record header \\([0-9]+ of 16 bytes\\)|"
                           "(TEXT|TOKENS|ROW|VECTORS|END) record \\([0-9]+ of [0-9]+ bytes\\))$", n);
}

int main(void) {
    size_t n = 0;
    uint8_t *s = python_stream(&n);
    CHECK(s && n == 534, "the test stream from examples/calstream.py has the expected layout (%zu bytes)", n);
    if (!s || n != 534) TEST_END();
    char err[768];
    CHECK(read_all(s, n, err, sizeof err) == 6, "the intact stream reads as 6 records (%s)", err);

    /* Every single-byte change anywhere is caught: all bytes are under a checksum. */
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        s[i] ^= 0x20;
        long rc = read_all(s, n, err, sizeof err);
        s[i] ^= 0x20;
        if (rc != -1 || !matches(err, "byte [0-9]+: ")) {
            if (bad++ < 5) printf("# flip at %zu: rc %ld: %s\n", i, rc, err);
        }
    }
    CHECK(bad == 0, "each of 534 one-byte flips is an error of one line naming the byte (%d not)", bad);

    /* Truncation: inside the header, inside each record, and at record boundaries. */
    bad = 0;
    for (size_t cut = 0; cut < n; cut++) {
        char pat[256];
        cut_pattern(cut, pat, sizeof pat);
        long rc = read_all(s, cut, err, sizeof err);
        if (rc != -1 || !matches(err, pat)) {
            if (bad++ < 5) printf("# cut at %zu: rc %ld: %s\n#   want /%s/\n", cut, rc, err, pat);
        }
    }
    CHECK(bad == 0, "truncation at each of 534 lengths, record boundaries included: the exact error (%d not)", bad);
    free(s);
    TEST_END();
}
