/* test_stream_recstore.c - lib/stream/recstore.c: records read back byte
 * for byte from a regular file (in place) and from a pipe (spilled), records
 * larger than the spill buffer, several sources, reads from threads, and a
 * file changed between the passes reported, not returned. */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/rng.h"
#include "scratch.h"
#include "stream/recstore.h"
#include "test.h"

/* A stream of n TOKENS records of pseudo-random lengths (one of 300 000 ids:
 * larger than the 1 MiB spill buffer). */
static void make_stream(const char *path, int n, uint64_t seed) {
    cal_writer *w = cal_writer_open(path);
    cal_rng r;
    cal_rng_init(&r, seed);
    uint32_t *ids = malloc(300000 * sizeof *ids);
    for (int i = 0; i < n; i++) {
        size_t len = i == n / 2 ? 300000 : (size_t)cal_rng_below(&r, 200);
        for (size_t j = 0; j < len; j++) ids[j] = (uint32_t)cal_rng_next(&r);
        cal_write_tokens(w, i % 2 ? "odd" : "even", (uint64_t)i * 7, ids, len);
    }
    cal_writer_close(w);
    free(ids);
}

typedef struct {
    cal_recstore *s;
    cal_buf *want; /* the raw bytes of each record */
    size_t n, bad;
} check_ctx;

static void *check_all(void *arg) {
    check_ctx *c = arg;
    cal_buf b = {0};
    cal_rec rec;
    char err[256];
    for (size_t i = c->n; i-- > 0;) /* backwards: not the order they were read */
        if (cal_recstore_get(c->s, i, &b, &rec, err, sizeof err) || rec.raw_len != c->want[i].n ||
            memcmp(rec.raw, c->want[i].p, rec.raw_len) || rec.id != (uint64_t)(i % 40) * 7 || rec.kind != CAL_TOKENS)
            __atomic_fetch_add(&c->bad, 1, __ATOMIC_RELAXED);
    cal_buf_free(&b);
    return NULL;
}

int main(void) {
    if (!mkdtemp(t_dir)) return 1;
    make_stream(t_path("a.cal"), 40, 1);
    make_stream(t_path("b.cal"), 40, 2);
    /* a.cal read in place; b.cal through a FIFO (spilled). */
    mkfifo(t_path("fifo"), 0600);
    if (fork() == 0) {
        int in = open(t_path("b.cal"), O_RDONLY), out = open(t_path("fifo"), O_WRONLY);
        char buf[65536];
        for (ssize_t k; (k = read(in, buf, sizeof buf)) > 0;)
            if (write(out, buf, (size_t)k) != k) _exit(1);
        _exit(0);
    }
    cal_recstore *s = cal_recstore_new();
    check_ctx c = {s, calloc(80, sizeof(cal_buf)), 0, 0};
    const char *paths[] = {t_path("a.cal"), t_path("fifo")};
    for (int f = 0; f < 2; f++) {
        int src = cal_recstore_source(s, paths[f]);
        CHECK(cal_recstore_spilled(s, src) == (f == 1), "%s is %s", f ? "a FIFO" : "a regular file", f ? "spilled" : "read in place");
        cal_reader *r = cal_reader_open(paths[f]);
        cal_rec rec;
        while (cal_read(r, &rec)) {
            cal_buf_add(&c.want[c.n++], rec.raw, rec.raw_len);
            cal_recstore_add(s, src, &rec);
        }
        cal_reader_close(r);
    }
    cal_recstore_end(s);
    CHECK(cal_recstore_count(s) == 80, "80 records kept");
    uint64_t fifo_bytes = 0;
    for (int i = 40; i < 80; i++) fifo_bytes += c.want[i].n;
    CHECK(cal_recstore_spill_bytes(s) == fifo_bytes && fifo_bytes > 1200000,
          "the spill holds the FIFO's records, one larger than its buffer (%llu bytes)",
          (unsigned long long)cal_recstore_spill_bytes(s));
    pthread_t th[3];
    for (int i = 0; i < 3; i++) pthread_create(&th[i], NULL, check_all, &c);
    for (int i = 0; i < 3; i++) pthread_join(th[i], NULL);
    CHECK(c.bad == 0, "every record back byte for byte, from 3 threads at once (%zu bad)", c.bad);
    /* A byte of a.cal changed after the first pass: an error, not a record. */
    int fd = open(t_path("a.cal"), O_WRONLY);
    cal_buf b = {0};
    cal_rec rec;
    char err[256];
    cal_recstore_get(s, 3, &b, &rec, err, sizeof err);
    uint64_t off = rec.offset;
    if (pwrite(fd, "\xff", 1, (off_t)off + 20) != 1) return 1;
    close(fd);
    int rc = cal_recstore_get(s, 3, &b, &rec, err, sizeof err);
    CHECK(rc == -1 && strstr(err, "a.cal: byte ") && strstr(err, "changed since it was read"), "a changed record: %s", err);
    cal_buf_free(&b);
    for (int i = 0; i < 80; i++) cal_buf_free(&c.want[i]);
    free(c.want);
    cal_recstore_free(s);
    wait(NULL);
    unlink(t_path("a.cal")), unlink(t_path("b.cal")), unlink(t_path("fifo")), rmdir(t_dir);
    TEST_END();
}
