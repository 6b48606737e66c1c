/* test_io_pqwrite.c - lib/io/pqwrite.c: files of 0, 1 and many rows (empty
 * strings, every byte length across a page's end, several pages), read back
 * by calkit's own Parquet reader (io/parquet.h) string for string; the
 * footer's key/value pair and the magic at both ends. DuckDB and hyparquet
 * read the same files in tests/sh/test_cat_parquet.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "io/mapfile.h"
#include "io/parquet.h"
#include "io/pqwrite.h"
#include "scratch.h"
#include "test.h"

/* Writes n strings (string i: i % 97 bytes of 'a' + i % 26, every 1000th
 * 300 KB long) and reads them back: the number read right, or -1. */
static long roundtrip(const char *path, size_t n) {
    cal_pqw *w = cal_pqw_open(path, "text");
    cal_buf s = {0};
    for (size_t i = 0; i < n; i++) {
        size_t len = i % 1000 == 999 ? 300000 : i % 97;
        s.n = 0;
        for (size_t k = 0; k < len; k++) cal_buf_addc(&s, (char)('a' + i % 26));
        cal_pqw_add(w, s.p ? s.p : "", s.n);
    }
    cal_pqw_meta(w, "calkit.stream", "stage=test\\n");
    cal_pqw_close(w);
    char err[512];
    cal_pq *q = cal_pq_open(path, "text", err, sizeof err);
    if (!q) {
        printf("# %s\n", err);
        return -1;
    }
    const uint8_t *p;
    size_t len;
    uint64_t off;
    long right = 0, got = 0;
    for (int r; (r = cal_pq_next(q, &p, &len, &off, err, sizeof err)) == 1; got++) {
        size_t i = (size_t)got, want = i % 1000 == 999 ? 300000 : i % 97;
        int same = len == want;
        for (size_t k = 0; same && k < len; k++) same = p[k] == 'a' + i % 26;
        right += same;
    }
    cal_pq_close(q);
    cal_buf_free(&s);
    return got == (long)n ? right : -1;
}

int main(void) {
    if (!mkdtemp(t_dir)) return 1;
    const char *path = t_path("t.parquet");
    CHECK(roundtrip(path, 0) == 0, "no rows");
    CHECK(roundtrip(path, 1) == 1, "one (empty) row");
    CHECK(roundtrip(path, 5000) == 5000, "5000 rows over several 1 MiB pages, read back by io/parquet");
    cal_mapfile m;
    char err[256];
    int ok = cal_mapfile_open(&m, path, err, sizeof err);
    CHECK(ok && m.len > 12 && !memcmp(m.p, "PAR1", 4) && !memcmp(m.p + m.len - 4, "PAR1", 4), "PAR1 at both ends");
    int kv = 0;
    for (size_t i = 0; ok && i + 13 <= m.len; i++) kv |= !memcmp(m.p + i, "calkit.stream", 13);
    CHECK(kv, "the footer holds the key/value pair");
    if (ok) cal_mapfile_close(&m);
    remove(path);
    remove(t_dir);
    TEST_END();
}
