/* test_stream_relay.c - records passed lent through cal_writer_lend_from
 * (base/relay.h: tee and splice from a pipe, splice or sendfile from a
 * file, write otherwise) give the bytes that copying them gives, for every
 * input kind (regular file, pipe, socket) x output kind (regular file,
 * pipe, /dev/null, socket): records of 0 bytes to 700 kB (across the 1 MiB
 * reads and the relay's 256 KiB pipe), headers mid-stream, a trailer, a
 * pipe fed in pieces of 1 byte to 200 kB. Bad input (a checksum broken at
 * several offsets, the stream cut at several offsets) ends with the message
 * of the copying pass, and what went out is a prefix of the good output
 * that holds no byte of the bad record: nothing unverified goes downstream.
 * Where both ends allow it (file or pipe into a pipe), bytes must have been
 * spliced: a relay that silently falls back to copying fails. A named file
 * of 4 MiB or more is mapped, not read (stream/read.c): one more input
 * kind, and a mapped input cut short while read ends with one line naming
 * it: cut before records were passed on lent (the relay's splice finds the
 * file's end) or kept (writev from the mapping: EFAULT), not "stdout: write
 * error"; cut inside a page, whose tail then reads as zeros, not a checksum
 * mismatch. */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/mapguard.h"
#include "base/rng.h"
#include "scratch.h"
#include "stream/stream.h"
#include "test.h"

enum { IN_FILE, IN_NAMED, IN_PIPE, IN_SOCK, N_IN };
enum { OUT_FILE, OUT_PIPE, OUT_NULL, OUT_SOCK, N_OUT };
static const char *in_name[] = {"file", "named file (mapped)", "pipe", "socket"}, *out_name[] = {"file", "pipe", "/dev/null", "socket"};

static uint8_t *good;
static size_t ngood;

static void make_input(const char *path, int small) {
    cal_rng r;
    cal_rng_init(&r, 31);
    cal_writer *w = cal_writer_open(path);
    cal_meta_set(cal_writer_meta(w), "vocab", "1000");
    static uint32_t ids[180000];
    for (size_t i = 0; i < sizeof ids / 4; i++) ids[i] = (uint32_t)(i * 2654435761u);
    int n = small ? 150 : 400;
    for (int k = 0; k < n; k++) {
        size_t len = (size_t)cal_rng_below(&r, 3000);
        if (k % 61 == 7) len = 70000 + (size_t)cal_rng_below(&r, 100000); /* 280-680 kB: more than the relay's pipe */
        if (k % 90 == 89) { /* a new header (a new key: a reader's merged metadata keeps a key's first value) */
            char key[16];
            snprintf(key, sizeof key, "part%d", k);
            cal_meta_set(cal_writer_meta(w), key, "x");
        }
        static const char *labels[] = {"a", "wiki", "", "a-longer-label"};
        cal_write_tokens(w, labels[k % 4], (uint64_t)k, ids + (k % 5), len);
    }
    cal_meta_set(cal_writer_meta(w), "drop", "test: a trailer"); /* a trailer at the end */
    cal_writer_close(w);
}

static uint8_t *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc((size_t)len + 1);
    *n = fread(p, 1, (size_t)len, f);
    fclose(f);
    return p;
}

static void spit(const char *path, const uint8_t *p, size_t n) {
    FILE *f = fopen(path, "wb");
    fwrite(p, 1, n, f);
    fclose(f);
}

/* The pass: records lent (through the relay) or copied, from standard input
 * or from the file path (opened by name: mapped when large); standard
 * output is out. Reports the bytes spliced on fd 3. */
static void pass(const char *path, int lend) {
    cal_reader *r = path ? cal_reader_open(path) : cal_reader_fdopen(0, "input");
    cal_writer *w = cal_writer_open("-");
    if (lend) cal_writer_lend_from(w, r);
    cal_rec rec;
    unsigned seen = 0;
    while (cal_read(r, &rec)) {
        if (cal_reader_headers(r) != seen) {
            seen = cal_reader_headers(r);
            cal_meta_copy(cal_writer_meta(w), cal_reader_meta(r));
        }
        if (lend) cal_write_raw_lent(w, &rec);
        else cal_write_raw(w, &rec);
    }
    if (!cal_meta_equal(cal_writer_meta(w), cal_reader_meta(r))) cal_meta_copy(cal_writer_meta(w), cal_reader_meta(r));
    dprintf(3, "%llu", (unsigned long long)cal_reader_spliced(r));
    cal_reader_close(r);
    cal_writer_close(w);
}

/* Writes p[0..n) to fd in pieces of 1 byte to 200 kB, then closes it. */
static void feed(int fd, const uint8_t *p, size_t n) {
    cal_rng r;
    cal_rng_init(&r, n);
    for (size_t at = 0; at < n;) {
        size_t k = cal_rng_below(&r, 3) ? 1 + (size_t)cal_rng_below(&r, 200000) : 1 + (size_t)cal_rng_below(&r, 64);
        if (k > n - at) k = n - at;
        ssize_t g = write(fd, p + at, k);
        if (g <= 0) break;
        at += (size_t)g;
    }
    close(fd);
}

/* Copies fd to path until its end. */
static void drain(int fd, const char *path) {
    int o = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    static char b[100000];
    for (ssize_t k; (k = read(fd, b, sizeof b)) > 0;)
        if (write(o, b, (size_t)k) != k) break;
    close(o);
}

typedef struct {
    int status;
    char err[600];
    uint64_t spliced;
} result;

/* Runs pass on input bytes p[0..n) (through a file of that name) from
 * input kind ik to output kind ok; the output lands in out_path. */
static result run(const uint8_t *p, size_t n, int ik, int ok, int lend, const char *out_path) {
    result res = {0};
    const char *in_path = t_path("cur.cal");
    spit(in_path, p, n);
    int in_fd[2] = {-1, -1}, out_fd[2] = {-1, -1};
    pid_t feeder = -1, drainer = -1;
    if (ik == IN_PIPE && pipe(in_fd)) return res;
    if (ik == IN_SOCK && socketpair(AF_UNIX, SOCK_STREAM, 0, in_fd)) return res;
    if (ik != IN_FILE) {
        if ((feeder = fork()) == 0) {
            close(in_fd[0]);
            feed(in_fd[1], p, n);
            _exit(0);
        }
        close(in_fd[1]);
    } else {
        in_fd[0] = open(in_path, O_RDONLY);
    }
    const char *in_path_named = ik == IN_NAMED ? t_path("input") : NULL;
    if (in_path_named) {
        unlink(in_path_named);
        if (symlink(in_path, in_path_named)) return res;
    }
    if (ok == OUT_PIPE && pipe(out_fd)) return res;
    if (ok == OUT_SOCK && socketpair(AF_UNIX, SOCK_STREAM, 0, out_fd)) return res;
    if (ok == OUT_PIPE || ok == OUT_SOCK) {
        if ((drainer = fork()) == 0) {
            close(out_fd[1]);
            close(in_fd[0]);
            drain(out_fd[0], out_path);
            _exit(0);
        }
        close(out_fd[0]);
    } else {
        out_fd[1] = ok == OUT_NULL ? open("/dev/null", O_WRONLY) : open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    }
    int side[2], errp[2];
    if (pipe(side) || pipe(errp)) return res;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(in_fd[0], 0);
        dup2(out_fd[1], 1);
        dup2(errp[1], 2);
        dup2(side[1], 3);
        for (int fd = 4; fd < 64; fd++) close(fd);
        if (in_path_named && chdir(t_dir)) _exit(9); /* named "input" in messages, as the others */
        pass(in_path_named ? "input" : NULL, lend);
        _exit(0);
    }
    close(in_fd[0]), close(out_fd[1]), close(side[1]), close(errp[1]);
    size_t got = 0;
    for (ssize_t k; got < sizeof res.err - 1 && (k = read(errp[0], res.err + got, sizeof res.err - 1 - got)) > 0;)
        got += (size_t)k;
    if (got && res.err[got - 1] == '\n') got--;
    res.err[got] = 0;
    char num[32] = "";
    ssize_t k = read(side[0], num, sizeof num - 1);
    num[k > 0 ? k : 0] = 0;
    res.spliced = strtoull(num, NULL, 10);
    close(side[0]), close(errp[0]);
    int st;
    waitpid(pid, &st, 0);
    res.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    if (feeder > 0) waitpid(feeder, NULL, 0); /* EPIPE ends it when the pass died */
    if (drainer > 0) waitpid(drainer, NULL, 0);
    return res;
}

/* The offset of the record holding byte at (its start), by walking the stream. */
static size_t record_start(const uint8_t *p, size_t n, size_t at) {
    size_t o = 0, last = 0;
    while (o < n && o <= at) {
        last = o;
        if (p[o] == 0x89) o += 16 + (p[o + 12] | (size_t)p[o + 13] << 8 | (size_t)p[o + 14] << 16) + 8;
        else o += 16 + (p[o + 2] | (size_t)p[o + 3] << 8) + cal_ld32(p + o + 4) + 8;
    }
    return last;
}

/* A mapped input cut short while it is read: the reader reads a few
 * records, the file is cut, the next records are past its end. */
static void read_shrinking(void *path) {
    cal_reader *r = cal_reader_open(path);
    cal_rec rec;
    while (cal_read(r, &rec) && rec.offset < (1u << 20)) continue;
    if (truncate(path, 2u << 20)) _exit(5);
    while (cal_read(r, &rec)) continue;
    cal_reader_close(r);
}

/* stdout: a pipe read to its end by a process of its own (the relay
 * splices only into a pipe; t_child's pipe takes only the message). */
static void stdout_drained(void) {
    int p[2];
    if (pipe(p)) _exit(6);
    if (fork() == 0) {
        close(p[1]);
        char b[65536];
        while (read(p[0], b, sizeof b) > 0) continue;
        _exit(0);
    }
    close(p[0]);
    dup2(p[1], 1);
    close(p[1]);
}

/* Records from 3 MiB on passed lent (held by the writer), the file cut to
 * 100000 bytes, then the writer closed: they are sent from a file that no
 * longer has them. */
static void lent_shrinking(void *path) {
    stdout_drained();
    cal_reader *r = cal_reader_open(path);
    cal_writer *w = cal_writer_open("-");
    cal_meta_set(cal_writer_meta(w), "vocab", "1000");
    cal_writer_lend_from(w, r);
    cal_rec rec;
    while (cal_read(r, &rec) && rec.offset < (3u << 20)) cal_write_raw_lent(w, &rec);
    if (truncate(path, 100000)) _exit(5);
    cal_writer_close(w);
    cal_reader_close(r);
}

/* The same with records kept where they lie in a guarded mapping (as
 * cal-blend keeps them): written by writev from pages now gone. */
static void kept_shrinking(void *path) {
    stdout_drained();
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st)) _exit(5);
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) _exit(5);
    close(fd);
    cal_map_guard(m, (size_t)st.st_size, path);
    cal_reader *r = cal_reader_mem(m, (size_t)st.st_size, path);
    cal_writer *w = cal_writer_open("-");
    cal_meta_set(cal_writer_meta(w), "vocab", "1000");
    cal_rec rec;
    while (cal_read(r, &rec) && rec.offset < (3u << 20)) cal_write_raw_kept(w, &rec);
    if (truncate(path, 100000)) _exit(5);
    cal_writer_close(w);
    cal_reader_close(r);
}

/* Cut at cut_at, inside a page past 1 MiB, while read: the page's tail
 * reads as zeros, the record there as bad. */
static uint64_t cut_at;
static void cut_in_page(void *path) {
    cal_reader *r = cal_reader_open(path);
    cal_rec rec;
    while (cal_read(r, &rec) && rec.offset < (1u << 20)) continue;
    if (truncate(path, (off_t)cut_at)) _exit(5);
    while (cal_read(r, &rec)) continue;
    cal_reader_close(r);
}

static void make_shrink(const char *path) {
    FILE *f = fopen(path, "wb");
    for (size_t k = 0; k < 3 + (5u << 20) / ngood; k++) fwrite(good, 1, ngood, f); /* streams concatenate */
    fclose(f);
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    if (!mkdtemp(t_dir)) return 1;
    int small = getenv("CAL_SANITIZE") && *getenv("CAL_SANITIZE");
    make_input(t_path("in.cal"), small);
    good = slurp(t_path("in.cal"), &ngood);

    /* The reference: the copying pass, file to file. */
    result ref = run(good, ngood, IN_FILE, OUT_FILE, 0, t_path("refgood.cal"));
    size_t nref;
    uint8_t *refout = slurp(t_path("refgood.cal"), &nref);
    CHECK(ref.status == 0 && nref == ngood && !memcmp(refout, good, ngood),
          "the copying pass re-emits the %zu-byte stream unchanged (status %d: %s)", ngood, ref.status, ref.err);

    /* Every input kind x output kind, good input. */
    for (int ik = 0; ik < N_IN; ik++)
        for (int ok = 0; ok < N_OUT; ok++) {
            result res = run(good, ngood, ik, ok, 1, t_path("out.cal"));
            size_t n = 0;
            uint8_t *o = ok == OUT_NULL ? NULL : slurp(t_path("out.cal"), &n);
            int same = ok == OUT_NULL || (n == ngood && !memcmp(o, good, ngood));
            CHECK(res.status == 0 && same, "%s to %s: status 0 and the same %zu bytes (status %d, %zu bytes: %s)",
                  in_name[ik], out_name[ok], ngood, res.status, n, res.err);
            /* From a file every verified byte can be spliced; from a pipe the
             * share depends on timing (the relay's pipe fills while the
             * reader reads ahead, under load or the sanitizers most): some. */
            if (ok == OUT_PIPE && ik != IN_SOCK)
                CHECK(ik == IN_PIPE ? res.spliced > 0 : res.spliced > ngood / 2, "%s to %s: %llu of %zu bytes spliced",
                      in_name[ik], out_name[ok], (unsigned long long)res.spliced, ngood);
            free(o);
        }

    /* Bad input: a checksum broken, the stream cut; at offsets in the first
     * read, past it, inside a large record, in the last record and in the
     * trailer. */
    const double where[] = {0.05, 0.55, 0.97, 0.3, 0.8};
    size_t nwhere = small ? 3 : sizeof where / sizeof *where; /* sanitized: fewer (each case is 16 runs) */
    uint8_t *bad = malloc(ngood);
    for (int cut = 0; cut < 2; cut++)
        for (size_t wi = 0; wi < nwhere; wi++) {
            size_t at = (size_t)(where[wi] * (double)ngood), n = ngood;
            memcpy(bad, good, ngood);
            if (cut) n = at;
            else bad[at] ^= 0x40;
            size_t rec = record_start(good, ngood, at);
            result want = run(bad, n, IN_FILE, OUT_FILE, 0, t_path("ref.cal"));
            for (int ik = 0; ik < N_IN; ik++)
                for (int ok = 0; ok < N_OUT; ok++) {
                    result res = run(bad, n, ik, ok, 1, t_path("out.cal"));
                    size_t got = 0;
                    uint8_t *o = ok == OUT_NULL ? NULL : slurp(t_path("out.cal"), &got);
                    int prefix = ok == OUT_NULL || (got <= rec && !memcmp(o, good, got));
                    CHECK(res.status == 1 && !strcmp(res.err, want.err) && prefix,
                          "%s at byte %zu, %s to %s: exit 1, the copying pass's message, %zu bytes out, a prefix "
                          "before the record at %zu (status %d: %s)",
                          cut ? "cut" : "checksum broken", at, in_name[ik], out_name[ok], got, rec, res.status,
                          res.err);
                    free(o);
                }
        }
    free(bad);

    /* A mapped input (a named file of 4 MiB or more) cut short while read. */
    FILE *f = fopen(t_path("shrink.cal"), "wb");
    for (size_t k = 0; k < 3 + (5u << 20) / ngood; k++) fwrite(good, 1, ngood, f); /* streams concatenate */
    fclose(f);
    char msg[600];
    int st = t_child(read_shrinking, (void *)t_path("shrink.cal"), msg, sizeof msg);
    CHECK(st == 1 && strstr(msg, "shrink.cal: byte ") && strstr(msg, ": the file shrank while it was read"),
          "a mapped input cut short while read: exit 1, one line naming it (status %d: %s)", st, msg);
    const char *sp = t_path("shrink.cal");
    void (*const cutters[])(void *) = {lent_shrinking, kept_shrinking};
    const char *cutter_name[] = {"lent (relayed)", "kept (writev)"};
    for (int c = 0; c < 2; c++) {
        make_shrink(sp);
        st = t_child(cutters[c], (void *)sp, msg, sizeof msg);
        CHECK(st == 1 && strstr(msg, "shrink.cal: byte ") && strstr(msg, ": the file shrank while it was read") &&
                  !strchr(msg, '\n') && !strstr(msg, "stdout"),
              "records %s from a mapped input cut before they went out: exit 1, one line naming the input "
              "(status %d: %s)", cutter_name[c], st, msg);
    }
    make_shrink(sp);
    cal_reader *cr = cal_reader_open(sp);
    cal_rec crec;
    while (cal_read(cr, &crec)) {
        uint64_t end = crec.offset + crec.raw_len;
        if (crec.offset > (2u << 20) && end % 4096 >= 100 && crec.raw_len > 60) {
            cut_at = end - 50;
            break;
        }
    }
    cal_reader_close(cr);
    st = cut_at ? t_child(cut_in_page, (void *)sp, msg, sizeof msg) : -2;
    CHECK(st == 1 && strstr(msg, "shrink.cal: byte ") && strstr(msg, ": the file shrank while it was read") &&
              !strchr(msg, '\n'),
          "a mapped input cut at byte %llu, inside a page: exit 1, one line naming it, not a bad record (status %d: %s)",
          (unsigned long long)cut_at, st, msg);
    free(refout);
    free(good);
    TEST_END();
}
