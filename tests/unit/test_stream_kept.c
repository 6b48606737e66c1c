/* test_stream_kept.c - cal_write_raw_kept (records referenced where they
 * stay valid, written together by writev) writes the bytes cal_write_raw
 * writes: records of two streams in memory taken in a seeded interleave
 * (never next to each other in memory), runs of neighbours (coalesced),
 * more records than one writev takes (1024), records of 0 bytes to 300 kB,
 * the writer's own headers and END records between kept records (new
 * metadata mid-stream), into a file and into a pipe read in small pieces;
 * small records of two streams taken in turn (a writev of the most parts
 * it may have: no writev refused); a long run of neighbours goes out as it
 * is written, not at the close (a reader gets bytes before the writer has
 * been given them all). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/rng.h"
#include "scratch.h"
#include "stream/internal.h"
#include "stream/stream.h"
#include "test.h"

static uint8_t *make_n(const char *path, uint64_t seed, int count, size_t most, size_t *n) {
    cal_rng r;
    cal_rng_init(&r, seed);
    cal_writer *w = cal_writer_open(path);
    cal_meta_set(cal_writer_meta(w), "vocab", "1000");
    static uint32_t ids[80000];
    for (size_t i = 0; i < sizeof ids / 4; i++) ids[i] = (uint32_t)(i * 40503u + seed);
    for (int k = 0; k < count; k++) {
        size_t len = most ? (size_t)cal_rng_below(&r, most) : k % 211 == 3 ? 70000 : (size_t)cal_rng_below(&r, 300);
        cal_write_tokens(w, k % 2 ? "x" : "", (uint64_t)k, ids + k % 3, len);
    }
    cal_writer_close(w);
    FILE *f = fopen(path, "rb");
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc(*n);
    if (fread(p, 1, *n, f) != *n) *n = 0;
    fclose(f);
    return p;
}

static uint8_t *make(const char *path, uint64_t seed, size_t *n) { return make_n(path, seed, 1500, 0, n); }

static uint8_t *in[2];
static size_t nin[2];

/* Interleaves the two streams' records (runs of 1 to 40 from one) into out,
 * kept or copied; new metadata every 700 records. */
static void blend(const char *out, int kept) {
    cal_reader *r[2] = {cal_reader_mem(in[0], nin[0], "a"), cal_reader_mem(in[1], nin[1], "b")};
    cal_writer *w = cal_writer_open(out);
    cal_meta_set(cal_writer_meta(w), "vocab", "1000");
    cal_rng g;
    cal_rng_init(&g, 5);
    cal_rec rec;
    int live[2] = {1, 1};
    uint64_t n = 0;
    while (live[0] || live[1]) {
        int i = live[0] && live[1] ? (int)cal_rng_below(&g, 2) : live[1];
        for (uint64_t run = 1 + cal_rng_below(&g, 40); run-- && live[i];) {
            char err[300];
            if (cal_read_soft(r[i], &rec, err, sizeof err) != 1) {
                live[i] = 0;
                break;
            }
            if (++n % 700 == 0) cal_meta_setf(cal_writer_meta(w), "part", "%llu", (unsigned long long)n);
            if (kept) cal_write_raw_kept(w, &rec);
            else cal_write_raw(w, &rec);
        }
    }
    cal_writer_close(w);
    cal_reader_close(r[0]);
    cal_reader_close(r[1]);
}

static void blend_kept(void *out) { blend(out, 1); }

/* The records of in[0] and in[1] taken in turn, one each, no new metadata. */
static void alternate(const char *out, int kept) {
    cal_reader *r[2] = {cal_reader_mem(in[0], nin[0], "a"), cal_reader_mem(in[1], nin[1], "b")};
    cal_writer *w = cal_writer_open(out);
    cal_meta_set(cal_writer_meta(w), "vocab", "1000");
    cal_rec rec;
    char err[300];
    for (int live = 2, i = 0; live; i ^= 1) {
        if (!r[i]) continue;
        if (cal_read_soft(r[i], &rec, err, sizeof err) != 1) {
            cal_reader_close(r[i]), r[i] = NULL, live--;
            continue;
        }
        if (kept) cal_write_raw_kept(w, &rec);
        else cal_write_raw(w, &rec);
    }
    cal_writer_close(w);
}

/* The records of `one` (in memory, in order) written kept to stdout; *given
 * counts those handed to the writer so far. */
static uint8_t *one;
static size_t none;
static volatile uint64_t *given;
static void run_kept(void *unused) {
    (void)unused;
    cal_reader *r = cal_reader_mem(one, none, "one");
    cal_writer *w = cal_writer_open("-");
    cal_meta_set(cal_writer_meta(w), "vocab", "1000");
    cal_rec rec;
    while (cal_read(r, &rec) == 1) {
        cal_write_raw_kept(w, &rec);
        ++*given;
    }
    cal_writer_close(w);
    cal_reader_close(r);
}

static int same(const char *a, const char *b) {
    char cmd[700];
    snprintf(cmd, sizeof cmd, "cmp -s %s %s", a, b);
    return system(cmd) == 0;
}

int main(void) {
    if (!mkdtemp(t_dir)) return 1;
    in[0] = make(t_path("a.cal"), 1, &nin[0]);
    in[1] = make(t_path("b.cal"), 2, &nin[1]);
    blend(t_path("copied.cal"), 0);
    blend(t_path("kept.cal"), 1);
    CHECK(same(t_path("copied.cal"), t_path("kept.cal")), "into a file: kept records, the bytes of copied ones");

    /* into a pipe drained 1000 bytes at a time */
    int p[2];
    if (pipe(p)) return 1;
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        dup2(p[1], 1);
        blend_kept("-");
        _exit(0);
    }
    close(p[1]);
    FILE *f = fopen(t_path("piped.cal"), "wb");
    char b[1000];
    for (ssize_t k; (k = read(p[0], b, sizeof b)) > 0;) fwrite(b, 1, (size_t)k, f);
    fclose(f);
    int st;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && !WEXITSTATUS(st) && same(t_path("copied.cal"), t_path("piped.cal")),
          "into a pipe: the same bytes, status 0");

    CHECK(cal__writev_fallbacks == 0, "no writev refused (%llu went on by write)",
          (unsigned long long)cal__writev_fallbacks);

    /* small records in turn: every record a part of its own, so writev
     * gets the most parts it may have (more than IOV_MAX: EINVAL) */
    free(in[0]), free(in[1]);
    in[0] = make_n(t_path("sa.cal"), 3, 3000, 12, &nin[0]);
    in[1] = make_n(t_path("sb.cal"), 4, 3000, 12, &nin[1]);
    alternate(t_path("alt_copied.cal"), 0);
    uint64_t before = cal__writev_fallbacks;
    alternate(t_path("alt_kept.cal"), 1);
    CHECK(same(t_path("alt_copied.cal"), t_path("alt_kept.cal")), "small records in turn: the same bytes");
    CHECK(cal__writev_fallbacks == before, "small records in turn: no writev refused (%llu went on by write)",
          (unsigned long long)(cal__writev_fallbacks - before));

    /* 16 MB of neighbours into a pipe the parent has read one byte of: the
     * writer must have written before it was given the last record (it
     * waits on the full pipe), not held them all to the close */
    one = make_n(t_path("one.cal"), 5, 4000, 2000, &none);
    given = mmap(NULL, sizeof *given, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    *given = 0;
    int q[2];
    if (pipe(q)) return 1;
    pid = fork();
    if (pid == 0) {
        close(q[0]);
        dup2(q[1], 1);
        run_kept(NULL);
        _exit(0);
    }
    close(q[1]);
    f = fopen(t_path("flow.cal"), "wb");
    ssize_t k0 = read(q[0], b, 1);
    uint64_t at_first = *given;
    CHECK(k0 == 1 && at_first < 4000, "the first byte came when %llu of 4000 records were given",
          (unsigned long long)at_first);
    if (k0 == 1) fwrite(b, 1, 1, f);
    for (ssize_t k; (k = read(q[0], b, sizeof b)) > 0;) fwrite(b, 1, (size_t)k, f);
    fclose(f);
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && !WEXITSTATUS(st) && same(t_path("one.cal"), t_path("flow.cal")),
          "neighbours into a pipe: the input's bytes, status 0");
    free(one);

    char msg[300];
    CHECK(t_child(blend_kept, (void *)t_path("no/such/dir/out.cal"), msg, sizeof msg) == 1,
          "an output that cannot be made: exit 1 (%s)", msg);
    free(in[0]);
    free(in[1]);
    TEST_END();
}
