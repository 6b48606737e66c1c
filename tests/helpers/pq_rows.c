/* pq_rows.c - Parquet rows as cal-read assembles them (io/parquet_rec.h),
 * for tests/sh/test_read_parquet_nested.sh. With one FILE it prints each row
 * as a line of JSON (the columns named, comma-separated, in COLS); with -c
 * it prints "FILE: N rows" or "FILE: error: MESSAGE" for each FILE, and a
 * message that is not one line "byte OFF: ..." as "FILE: bad message: ..."
 * (exit status 1). A crash or an out-of-bounds access (SANITIZE=1) ends it
 * early, which the test sees.
 *
 *     pq_rows [-c] COLS FILE...
 */
#include <jansson.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>

#include "io/parquet_rec.h"

int main(int argc, char **argv) {
    int count = argc > 1 && !strcmp(argv[1], "-c");
    if (argc < 3 + count) {
        fprintf(stderr, "usage: pq_rows [-c] COLS FILE...\n");
        return 2;
    }
    char cols_buf[1024];
    snprintf(cols_buf, sizeof cols_buf, "%s", argv[1 + count]);
    const char *cols[32];
    size_t nc = 0;
    for (char *t = strtok(cols_buf, ","); t && nc < 32; t = strtok(NULL, ",")) cols[nc++] = t;
    regex_t re;
    if (regcomp(&re, "^byte [0-9]+: [^\n]+$", REG_EXTENDED | REG_NOSUB)) return 2;
    int status = 0;
    for (int i = 2 + count; i < argc; i++) {
        char err[512] = "";
        size_t rows = 0;
        int r = -1;
        cal_pqrec *q = cal_pqrec_open(argv[i], cols, nc, err, sizeof err);
        if (q) {
            json_t *row;
            uint64_t off;
            while ((r = cal_pqrec_next(q, &row, &off, err, sizeof err)) == 1) {
                rows++;
                if (count) continue;
                char *s = json_dumps(row, JSON_COMPACT | JSON_ENSURE_ASCII);
                puts(s ? s : "?");
                free(s);
            }
            cal_pqrec_close(q);
        }
        if (r == 0) {
            if (count) printf("%s: %zu rows\n", argv[i], rows);
        } else if (!regexec(&re, err, 0, NULL, 0)) {
            printf("%s: error: %s\n", argv[i], err);
            if (!count) status = 1;
        } else {
            printf("%s: bad message: %s\n", argv[i], err), status = 1;
        }
    }
    regfree(&re);
    return status;
}
