/* test_rows_source.c - lib/rows/source.c: sources read by threads of their
 * own; records in order, --cycle, payloads for relabelling, and every error
 * of a reader thread (a missing file, a bad record) handed to the caller as
 * one message naming the file and byte offset, the first one only, while
 * the process goes on (no thread ends it); a mapped file's records, kept
 * where they lie, count their bytes in the queue limit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rows/source.h"
#include "test.h"

static char dir[] = "/tmp/calsrcXXXXXX", path[4][300];

static void write_stream(const char *p, int n) {
    cal_writer *w = cal_writer_open(p);
    cal_meta_set(cal_writer_meta(w), "vocab", "100");
    for (int i = 0; i < n; i++) {
        uint32_t ids[3] = {(uint32_t)i, (uint32_t)i + 1, 7};
        cal_write_tokens(w, "doc", (uint64_t)i, ids, 3);
    }
    cal_writer_close(w);
}

/* A copy of src with one payload byte of record k flipped; its offset. */
static uint64_t corrupt(const char *src, const char *dst, int k) {
    cal_reader *r = cal_reader_open(src);
    cal_rec rec;
    uint64_t off = 0, at = 0;
    for (int i = 0; i <= k && cal_read(r, &rec); i++) off = rec.offset, at = (uint64_t)(rec.payload - rec.raw);
    cal_reader_close(r);
    FILE *f = fopen(src, "rb");
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    buf[off + at] ^= 1;
    f = fopen(dst, "wb");
    fwrite(buf, 1, n, f);
    fclose(f);
    return off;
}

/* Record i of a stream of sizes that cross slabs (256 KiB): ids k*i+j. */
static uint32_t size_of(int i) { return i % 7 == 3 ? 70000u + (uint32_t)i : (uint32_t)(i * 37 % 5000); }

static void write_sized(const char *p, int n) {
    cal_writer *w = cal_writer_open(p);
    cal_meta_set(cal_writer_meta(w), "vocab", "4000000000");
    uint32_t *ids = malloc(80000 * sizeof *ids);
    for (int i = 0; i < n; i++) {
        for (uint32_t j = 0; j < size_of(i); j++) ids[j] = (uint32_t)i * 100003u + j;
        cal_write_tokens(w, "doc", (uint64_t)i, ids, size_of(i));
    }
    free(ids);
    cal_writer_close(w);
}

/* Every record of source 0 (payloads, cycled up to want) holds what
 * write_sized wrote, in order, while it stays valid until the next call. */
static int check_sized(cal_sources *s, int n, uint64_t want, char *err) {
    const cal_source_rec *r;
    uint64_t k = 0;
    int rc;
    while ((rc = cal_sources_next(s, 0, &r, err, 512)) == 1) {
        int i = (int)(k++ % (uint64_t)n);
        if (r->id != (uint64_t)i || r->len != 4 * (size_t)size_of(i)) return 0;
        for (uint32_t j = 0; j < size_of(i); j++) {
            uint32_t v;
            memcpy(&v, cal_source_data(r) + 4 * j, 4);
            if (v != (uint32_t)i * 100003u + j) return 0;
        }
    }
    return rc == 0 && k == want;
}

static int drain(cal_sources *s, size_t i, uint64_t *ids, size_t max, char *err) {
    const cal_source_rec *r;
    int n = 0, rc;
    while ((rc = cal_sources_next(s, i, &r, err, 512)) == 1) {
        if ((size_t)n < max) ids[n] = r->id;
        n++;
    }
    return rc < 0 ? -1 : n;
}

int main(void) {
    cal_set_progname("test");
    if (!mkdtemp(dir)) return 1;
    for (int i = 0; i < 4; i++) snprintf(path[i], sizeof path[i], "%s/s%d.cal", dir, i);
    write_stream(path[0], 5);
    write_stream(path[1], 2);
    uint64_t off = corrupt(path[0], path[2], 3);
    corrupt(path[0], path[3], 1);
    char err[512];
    uint64_t ids[16];
    int rc;

    cal_sources *s = cal_sources_new(2, 1 << 20);
    cal_sources_start(s, 0, path[0], 3, 0, 0);
    cal_sources_start(s, 1, path[1], 5, 1, 1);
    const cal_meta *m = cal_sources_meta(s, 0, err, sizeof err);
    CHECK(m && !strcmp(cal_meta_get(m, "vocab"), "100"), "the header, once read");
    CHECK(drain(s, 0, ids, 16, err) == 3 && ids[0] == 0 && ids[2] == 2, "want 3: the first 3 records, in order");
    const cal_source_rec *r;
    CHECK(cal_sources_next(s, 1, &r, err, sizeof err) == 1 && r->len == 12 && cal_source_data(r)[0] == 0 && cal_source_data(r)[8] == 7,
          "payload only: the 12 bytes of 3 ids");
    CHECK(drain(s, 1, ids, 16, err) == 4 && ids[0] == 1 && ids[1] == 0 && ids[3] == 0 && cal_sources_got(s, 1) == 2,
          "--cycle: 2 records repeated up to 5");
    CHECK(cal_sources_join(s, err, sizeof err) == 0, "all threads ended cleanly");
    cal_sources_free(s);

    char missing[320];
    snprintf(missing, sizeof missing, "%s/nope.cal", dir);
    s = cal_sources_new(2, 1 << 20);
    cal_sources_start(s, 0, path[0], 5, 0, 0);
    cal_sources_start(s, 1, missing, 5, 0, 0);
    char want[400];
    snprintf(want, sizeof want, "%s: No such file or directory", missing);
    CHECK(cal_sources_meta(s, 1, err, sizeof err) == NULL && !strcmp(err, want), "a missing file: %s", err);
    CHECK(cal_sources_meta(s, 0, err, sizeof err) == NULL && !strcmp(err, want),
          "every later call returns that first error");
    cal_sources_free(s);

    s = cal_sources_new(1, 1 << 20);
    cal_sources_start(s, 0, path[2], 5, 0, 0);
    snprintf(want, sizeof want, "%s: byte %llu: TOKENS record checksum mismatch", path[2], (unsigned long long)off);
    /* the thread may meet the bad record before or after the header is asked for */
    rc = cal_sources_meta(s, 0, err, sizeof err) ? drain(s, 0, ids, 16, err) : -1;
    CHECK(rc == -1 && !strcmp(err, want), "a bad record: file and byte offset: %s", err);
    CHECK(cal_sources_join(s, err, sizeof err) == -1 && !strcmp(err, want), "join reports it too");
    cal_sources_free(s);

    /* two bad sources at once: one message, the process still running */
    s = cal_sources_new(2, 1 << 20);
    cal_sources_start(s, 0, path[2], 5, 0, 0);
    cal_sources_start(s, 1, path[3], 5, 0, 0);
    rc = cal_sources_join(s, err, sizeof err);
    CHECK(rc == -1 && strstr(err, ": byte ") && strstr(err, "checksum mismatch") && !strchr(err, '\n'),
          "two failing threads: one error, one line: %s", err);
    cal_sources_free(s);

    /* records from 0 to 280 KB: packed into slabs, larger ones alone, the
     * slabs reused, all under a queue of 1 MiB; and cycled */
    write_sized(path[1], 200);
    s = cal_sources_new(1, 1 << 20);
    cal_sources_start(s, 0, path[1], UINT64_MAX, 0, 1);
    CHECK(cal_sources_meta(s, 0, err, sizeof err) && check_sized(s, 200, 200, err), "200 records across slabs, intact");
    cal_sources_free(s);
    s = cal_sources_new(1, 1 << 20);
    cal_sources_start(s, 0, path[1], 450, 1, 1);
    CHECK(cal_sources_meta(s, 0, err, sizeof err) && check_sized(s, 200, 450, err) && cal_sources_got(s, 0) == 200,
          "--cycle over records across slabs: 200 repeated up to 450");
    cal_sources_free(s);
    /* a mapped file's records are kept where they lie, not copied, but the
     * queue (1 MiB) still counts their bytes: left unread, the reader stops
     * near the limit (one slab and one record over it at most), not at the
     * end of the file (about 9.8 MB) */
    s = cal_sources_new(1, 1 << 20);
    cal_sources_start(s, 0, path[1], UINT64_MAX, 0, 1);
    CHECK(cal_sources_meta(s, 0, err, sizeof err) != NULL, "a mapped file: the header");
    uint64_t ahead = 0;
    for (int still = 0; still < 10 && ahead < 200; still++) { /* until it has waited a while */
        nanosleep(&(struct timespec){0, 20000000}, NULL);
        uint64_t g = cal_sources_got(s, 0);
        if (g != ahead) ahead = g, still = 0;
    }
    uint64_t bytes = 0;
    for (uint64_t i = 0; i < ahead; i++) bytes += 4ull * size_of((int)i);
    CHECK(ahead < 200 && bytes <= (1u << 20) + (256u << 10) + 300000,
          "a mapped file left unread: %llu records, %llu bytes queued (1 MiB limit)", (unsigned long long)ahead,
          (unsigned long long)bytes);
    CHECK(check_sized(s, 200, 200, err), "then drained: 200 records, intact");
    cal_sources_free(s);
    int fd[2];
    char pipe_path[64];
    if (pipe(fd)) return 1;
    pid_t pid = fork();
    if (pid == 0) { /* the writer of the pipe */
        close(fd[0]);
        FILE *f = fopen(path[1], "rb");
        char buf[1 << 16];
        for (size_t k; f && (k = fread(buf, 1, sizeof buf, f)) > 0;)
            if (write(fd[1], buf, k) != (ssize_t)k) _exit(1);
        _exit(0);
    }
    close(fd[1]);
    snprintf(pipe_path, sizeof pipe_path, "/dev/fd/%d", fd[0]);
    s = cal_sources_new(1, 1 << 20);
    cal_sources_start(s, 0, pipe_path, UINT64_MAX, 0, 1);
    CHECK(cal_sources_meta(s, 0, err, sizeof err) && check_sized(s, 200, 200, err),
          "a pipe (the whole queue limit, not a file's): intact");
    cal_sources_free(s);
    close(fd[0]);
    waitpid(pid, NULL, 0);

    for (int i = 0; i < 4; i++) unlink(path[i]);
    rmdir(dir);
    TEST_END();
}
