/* pq_scan.c - the Parquet reader over many files in one process, for
 * tests/sh/test_read_parquet.sh (cal-read's reader, without a process per
 * file). For each FILE it reads every value of COLUMN as cal-read does
 * (cal_pq_open, cal_pq_next) and prints "FILE: N values" or "FILE: error:
 * MESSAGE"; a message that is not one line "byte OFF: ..." is printed as
 * "FILE: bad message: ..." and makes the exit status 1. A crash or an
 * out-of-bounds access (SANITIZE=1) ends it early, which the test sees.
 *
 *     pq_scan COLUMN FILE...
 */
#include <regex.h>
#include <stdio.h>
#include <string.h>

#include "io/parquet.h"

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: pq_scan COLUMN FILE...\n");
        return 2;
    }
    regex_t re;
    if (regcomp(&re, "^byte [0-9]+: [^\n]+$", REG_EXTENDED | REG_NOSUB)) return 2;
    int status = 0;
    for (int i = 2; i < argc; i++) {
        char err[512] = "";
        size_t values = 0, sum = 0;
        int r = -1;
        cal_pq *q = cal_pq_open(argv[i], argv[1], err, sizeof err);
        if (q) {
            const uint8_t *p;
            size_t n;
            uint64_t off;
            while ((r = cal_pq_next(q, &p, &n, &off, err, sizeof err)) == 1) {
                values++;
                if (n) sum += p[0] + p[n - 1]; /* touch both ends of every value */
            }
            cal_pq_close(q);
        }
        if (r == 0) printf("%s: %zu values (%zu)\n", argv[i], values, sum & 1);
        else if (!regexec(&re, err, 0, NULL, 0)) printf("%s: error: %s\n", argv[i], err);
        else printf("%s: bad message: %s\n", argv[i], err), status = 1;
    }
    regfree(&re);
    return status;
}
