/* test_io_parquet_shrink.c - a Parquet file cut short after cal_pq_open
 * mapped it: the rest of its last page reads as zeros (not SIGBUS, which
 * mapguard reports), so what fails next is not corrupt data but "the file
 * shrank while it was read", at the offset that failed; and a file read to
 * its end that shrank under the reader is said too, not read as what the
 * zeros make of it. Cuts at every 7th byte of a small file (one page). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/parquet.h"
#include "io/pqwrite.h"
#include "scratch.h"
#include "test.h"

int main(void) {
    if (!mkdtemp(t_dir)) return 1;
    const char *path = t_path("t.parquet");
    char s[32];
    cal_pqw *w = cal_pqw_open(path, "text");
    for (int i = 0; i < 60; i++) {
        int n = snprintf(s, sizeof s, "document %d", i);
        cal_pqw_add(w, s, (size_t)n);
    }
    cal_pqw_close(w);
    FILE *f = fopen(path, "rb");
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fclose(f);
    CHECK(size > 0 && size < 4096, "a file of one page (%ld bytes)", size);
    int said = 0, cuts = 0, wrong = 0;
    char first_wrong[600] = "";
    for (long cut = 4; cut < size; cut += 7) {
        char err[512] = "";
        cal_pq *q = cal_pq_open(path, "text", err, sizeof err);
        if (!q || truncate(path, cut) != 0) break;
        const uint8_t *p;
        size_t len;
        uint64_t off;
        int r;
        while ((r = cal_pq_next(q, &p, &len, &off, err, sizeof err)) == 1) {}
        cal_pq_close(q);
        cuts++;
        if (r == -1 && strstr(err, ": the file shrank while it was read")) said++;
        else if (!wrong++) snprintf(first_wrong, sizeof first_wrong, "cut at %ld: %d, %s", cut, r, err);
        w = cal_pqw_open(path, "text"); /* whole again */
        for (int i = 0; i < 60; i++) {
            int n = snprintf(s, sizeof s, "document %d", i);
            cal_pqw_add(w, s, (size_t)n);
        }
        cal_pqw_close(w);
    }
    CHECK(cuts > 100 && said == cuts, "%d of %d cuts said the file shrank; the first other: %s", said, cuts, first_wrong);
    remove(path);
    remove(t_dir);
    TEST_END();
}
