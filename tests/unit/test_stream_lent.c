/* test_stream_lent.c - cal_write_raw_lent with cal_reader_on_refill (the
 * records written straight from the reader's buffer, not copied) writes the
 * bytes cal_write_raw writes: records of 0 bytes to 3 MB (across every
 * refill of the 1 MiB reads, and larger than the buffer, which then grows),
 * new headers mid-stream (the writer's own END and header between lent
 * records), from a file and from a pipe fed in pieces of odd sizes. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/rng.h"
#include "scratch.h"
#include "stream/stream.h"
#include "test.h"

static void make_input(const char *path) {
    cal_rng r;
    cal_rng_init(&r, 30);
    cal_writer *w = cal_writer_open(path);
    cal_meta_set(cal_writer_meta(w), "vocab", "1000");
    static uint32_t ids[1 << 20];
    for (size_t i = 0; i < sizeof ids / 4; i++) ids[i] = (uint32_t)i;
    for (int k = 0; k < 900; k++) {
        size_t n = (size_t)cal_rng_below(&r, 3000);
        if (k % 97 == 5) n = (1 << 19) + (size_t)cal_rng_below(&r, 1 << 19); /* 2-4 MB records */
        if (k % 150 == 149) cal_meta_setf(cal_writer_meta(w), "part", "%d", k); /* a new header */
        cal_write_tokens(w, k % 3 ? "a" : "bb", (uint64_t)k, ids + (k % 7), n);
    }
    cal_writer_close(w);
}

static void flush_writer(void *w) { cal_writer_flush(w); }

/* Copies path (or fd) to out, lent or copied. */
static void pass(const char *in, int fd, const char *out, int lent) {
    cal_reader *r = fd >= 0 ? cal_reader_fdopen(fd, "pipe") : cal_reader_open(in);
    cal_writer *w = cal_writer_open(out);
    if (lent) cal_reader_on_refill(r, flush_writer, w);
    cal_rec rec;
    unsigned seen = 0;
    while (cal_read(r, &rec)) {
        if (cal_reader_headers(r) != seen) {
            seen = cal_reader_headers(r);
            cal_meta_copy(cal_writer_meta(w), cal_reader_meta(r));
        }
        if (lent) cal_write_raw_lent(w, &rec);
        else cal_write_raw(w, &rec);
    }
    cal_reader_close(r);
    cal_writer_close(w);
}

static int same_files(const char *a, const char *b) {
    char cmd[700];
    snprintf(cmd, sizeof cmd, "cmp -s %s %s", a, b);
    return system(cmd) == 0;
}

int main(void) {
    if (!mkdtemp(t_dir)) return 1;
    make_input(t_path("in.cal"));
    pass(t_path("in.cal"), -1, t_path("copied.cal"), 0);
    pass(t_path("in.cal"), -1, t_path("lent.cal"), 1);
    CHECK(same_files(t_path("copied.cal"), t_path("lent.cal")), "from a file: lent records, the bytes of copied ones");

    /* from a pipe, written in pieces of 1 to 200000 bytes */
    int p[2];
    if (pipe(p)) return 1;
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        int f = open(t_path("in.cal"), O_RDONLY);
        static char b[200000];
        cal_rng r;
        cal_rng_init(&r, 7);
        for (ssize_t n; (n = read(f, b, 1 + (size_t)cal_rng_below(&r, sizeof b))) > 0;)
            if (write(p[1], b, (size_t)n) != n) _exit(1);
        _exit(0);
    }
    close(p[1]);
    pass(NULL, p[0], t_path("piped.cal"), 1);
    close(p[0]);
    waitpid(pid, NULL, 0);
    CHECK(same_files(t_path("copied.cal"), t_path("piped.cal")), "from a pipe in odd pieces: the same bytes");
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", t_dir);
    if (system(cmd)) return 1;
    TEST_END();
}
