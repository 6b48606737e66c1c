/* test_rows_docin.c - lib/rows/docin.c: a regular file gives its documents
 * again, as often as asked, also when standard input is the file opened
 * past a prefix; a pipe cannot be read again; a record that is not TOKENS
 * ends the program; a file that changed between the reads (another record,
 * or fewer documents) ends it with a message, never with other rows. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rows/docin.h"
#include "scratch.h"
#include "test.h"

/* A stream of n TOKENS records: document i holds i+1 ids 1000*i + j + bump. */
static void write_stream(const char *path, size_t n, uint32_t bump, int row_at) {
    cal_writer *w = cal_writer_open(path);
    cal_meta_set(cal_writer_meta(w), "vocab", "100000");
    uint32_t ids[64];
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j <= i; j++) ids[j] = (uint32_t)(1000 * i + j + bump);
        if ((int)i == row_at) cal_write_row(w, "r", i, ids, NULL, (uint32_t)i + 1, 0);
        else cal_write_tokens(w, i % 2 ? "odd" : "even", 500 + i, ids, i + 1);
    }
    cal_writer_close(w);
}

/* Reads every document; 1 when they are the n of write_stream. */
static int reads_all(cal_docin *in, size_t n, uint32_t bump) {
    cal_pack_doc d;
    size_t k = 0;
    int ok = 1;
    while (cal_docin_next(in, &d)) {
        ok &= d.n == k + 1 && d.id == 500 + k && d.label_len == (k % 2 ? 3u : 4u);
        for (size_t j = 0; j < d.n; j++) ok &= d.ids[j] == 1000 * k + j + bump;
        k++;
    }
    return ok && k == n;
}

static const char *changed_how; /* "record" or "shorter" */

/* Copies from's bytes into to in place (the same file, as an editor that
 * rewrites it would), not by a rename. */
static void overwrite(const char *from, const char *to) {
    static char b[1 << 16];
    int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_TRUNC);
    ssize_t n = read(in, b, sizeof b);
    if (n <= 0 || write(out, b, (size_t)n) != n) exit(9);
    close(in);
    close(out);
}

static void read_changed(void *arg) {
    (void)arg;
    cal_docin *in = cal_docin_open(t_path("s.cal"), 0); /* checksums in the file at once */
    reads_all(in, 20, 0);
    if (!strcmp(changed_how, "record")) write_stream(t_path("n.cal"), 20, 1, -1);
    else write_stream(t_path("n.cal"), 12, 0, -1);
    overwrite(t_path("n.cal"), t_path("s.cal"));
    cal_docin_rewind(in);
    while (reads_all(in, 20, 0)) continue;
    cal_docin_close(in);
}

static void read_rows(void *arg) {
    (void)arg;
    cal_docin *in = cal_docin_open(t_path("r.cal"), 1 << 20);
    reads_all(in, 20, 0);
    cal_docin_close(in);
}

int main(void) {
    if (!mkdtemp(t_dir)) return 1;
    write_stream(t_path("s.cal"), 20, 0, -1);
    cal_docin *in = cal_docin_open(t_path("s.cal"), 1 << 20);
    CHECK(reads_all(in, 20, 0) && cal_docin_rereadable(in), "a regular file: 20 documents, and it can be read again");
    int again = 1;
    for (int k = 0; k < 3; k++) {
        cal_docin_rewind(in);
        again &= reads_all(in, 20, 0);
    }
    CHECK(again, "read again three times: the same 20 documents each time");
    CHECK(cal_meta_get(cal_reader_meta(cal_docin_reader(in)), "vocab") != NULL, "the first read's metadata");
    cal_docin_close(in);

    /* a second read stops where the first stopped (-n, --docs) */
    in = cal_docin_open(t_path("s.cal"), 1 << 20);
    cal_pack_doc d;
    for (int k = 0; k < 5; k++) cal_docin_next(in, &d);
    cal_docin_rewind(in);
    CHECK(reads_all(in, 5, 0), "a first read of 5 documents: the second gives those 5");
    cal_docin_close(in);

    /* standard input redirected from a file whose stream starts past a
     * prefix that was read already: read again from the stream's start */
    char buf[8192];
    int fd = open(t_path("s.cal"), O_RDONLY);
    ssize_t n = read(fd, buf, sizeof buf);
    close(fd);
    FILE *f = fopen(t_path("p.cal"), "wb");
    int ok = n > 0 && n < (ssize_t)sizeof buf && f && fwrite("junk", 1, 4, f) == 4 && fwrite(buf, 1, (size_t)n, f) == (size_t)n;
    if (f) fclose(f);
    fd = open(t_path("p.cal"), O_RDONLY);
    int saved = dup(0);
    char junk[4];
    ok &= fd >= 0 && read(fd, junk, 4) == 4 && dup2(fd, 0) == 0;
    in = cal_docin_open("-", 1 << 20);
    ok &= reads_all(in, 20, 0) && cal_docin_rereadable(in);
    cal_docin_rewind(in);
    ok &= reads_all(in, 20, 0);
    cal_docin_close(in);
    dup2(saved, 0);
    close(fd);
    close(saved);
    CHECK(ok, "standard input from the file: read twice");

    /* a pipe cannot be read again */
    int p[2];
    ok = pipe(p) == 0;
    ok &= write(p[1], buf, (size_t)n) == n;
    close(p[1]);
    saved = dup(0);
    dup2(p[0], 0);
    in = cal_docin_open(NULL, 1 << 20);
    ok &= reads_all(in, 20, 0) && !cal_docin_rereadable(in);
    cal_docin_close(in);
    dup2(saved, 0);
    close(p[0]);
    close(saved);
    CHECK(ok, "a pipe: 20 documents, not rereadable");

    char msg[512];
    write_stream(t_path("r.cal"), 20, 0, 7);
    int rc = t_child(read_rows, NULL, msg, sizeof msg);
    CHECK(rc == 1 && strstr(msg, "r.cal: byte ") && strstr(msg, ": expected TOKENS records, got ROW"),
          "a ROW record: %s", msg);
    changed_how = "record";
    rc = t_child(read_changed, NULL, msg, sizeof msg);
    CHECK(rc == 1 && strstr(msg, "this record is not the one the first read found here"),
          "the file rewritten between the reads: %s", msg);
    changed_how = "shorter";
    write_stream(t_path("s.cal"), 20, 0, -1);
    rc = t_child(read_changed, NULL, msg, sizeof msg);
    CHECK(rc == 1 && strstr(msg, "the input ended after 12 of the 20 documents its first read gave"),
          "the file cut short between the reads: %s", msg);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", t_dir);
    if (system(cmd)) return 1;
    TEST_END();
}
