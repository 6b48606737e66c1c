/* hostile.h - helpers of the hostile-input suite (tests/hostile/): run a
 * piece of library code in a forked child and check how it ends (status,
 * the one error line), and build cal-stream bytes by hand (man/cal-stream.5,
 * checksums from libxxhash), so that lying lengths can be written. */
#ifndef CAL_HOSTILE_H
#define CAL_HOSTILE_H

#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xxhash.h>

#include "base/buf.h"
#include "base/err.h"
#include "test.h"

/* ---- running code that may die ----------------------------------------- */

typedef struct {
    int status;      /* exit status, or 128 + signal */
    char err[2048];  /* what it wrote on stderr */
    int lines;       /* lines of err */
} h_outcome;

/* Set to keep the child's stdout (a test of writing to it). */
static int h_keep_stdout;

/* Runs fn(arg) in a child (stdout to /dev/null, stderr captured; files of
 * at most 256 MiB, 120 s); a child that returns exits 0. Sanitizer reports show up as their exit codes
 * (tests/run.sh sets 99 and 98) and in err. */
static inline h_outcome h_run(void (*fn)(void *), void *arg) {
    h_outcome o;
    memset(&o, 0, sizeof o);
    int p[2];
    fflush(stdout);
    fflush(stderr);
    if (pipe(p) != 0) abort();
    pid_t pid = fork();
    if (pid == 0) {
        /* A broken build must fail the test, not hang it or fill the disk
         * (2^40 empty rows were once written until ENOSPC). */
        struct rlimit fsize = {256u << 20, 256u << 20};
        setrlimit(RLIMIT_FSIZE, &fsize);
        signal(SIGXFSZ, SIG_IGN); /* writes past it fail with EFBIG */
        alarm(120);
        close(p[0]);
        dup2(p[1], 2);
        close(p[1]);
        if (!h_keep_stdout && !freopen("/dev/null", "w", stdout)) _exit(97);
        fn(arg);
        exit(0);
    }
    close(p[1]);
    size_t n = 0;
    ssize_t k;
    while ((k = read(p[0], o.err + n, sizeof o.err - 1 - n)) > 0) n += (size_t)k;
    char sink[512];
    while (read(p[0], sink, sizeof sink) > 0) {}
    close(p[0]);
    o.err[n] = 0;
    for (size_t i = 0; i < n; i++) o.lines += o.err[i] == '\n';
    if (n && o.err[n - 1] == '\n') o.err[n - 1] = 0; /* so that $ ends the one line */
    int st;
    waitpid(pid, &st, 0);
    o.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return o;
}

static inline int h_match(const char *s, const char *pattern) {
    regex_t re;
    if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB)) return 0;
    int ok = regexec(&re, s, 0, NULL, 0) == 0;
    regfree(&re);
    return ok;
}

/* fn(arg) ends with `status` and one line of stderr matching `pattern`. */
#define EXPECT_DIE(status_, pattern, fn, arg, ...) do { \
    h_outcome o_ = h_run(fn, arg); \
    CHECK(o_.status == (status_) && o_.lines == 1 && h_match(o_.err, pattern), __VA_ARGS__); \
    if (!(o_.status == (status_) && o_.lines == 1 && h_match(o_.err, pattern))) \
        printf("# status %d, want %d; stderr: %.600s\n", o_.status, status_, o_.err); \
} while (0)

/* fn(arg) returns normally, printing nothing on stderr. */
#define EXPECT_OK(fn, arg, ...) do { \
    h_outcome o_ = h_run(fn, arg); \
    CHECK(o_.status == 0 && o_.lines == 0, __VA_ARGS__); \
    if (o_.status || o_.lines) printf("# status %d; stderr: %.600s\n", o_.status, o_.err); \
} while (0)

/* ---- cal-stream bytes by hand ------------------------------------------- */

static inline void h_le(cal_buf *b, uint64_t x, int n) {
    for (int i = 0; i < n; i++) cal_buf_addc(b, (char)(x >> (8 * i)));
}

/* A stream header with metadata text (lines "key=value\n"). */
static inline void h_header(cal_buf *b, const char *meta) {
    size_t start = b->n, m = strlen(meta);
    cal_buf_add(b, "\x89" "CAL\r\n\x1a\n", 8);
    h_le(b, 1, 2);
    h_le(b, 0, 2);
    h_le(b, m, 4);
    cal_buf_add(b, meta, m);
    h_le(b, XXH3_64bits(b->p + start, b->n - start), 8);
}

/* A record with the given label and payload bytes (lengths as given). */
static inline void h_record(cal_buf *b, int kind, const char *label, size_t llen, uint64_t id, const void *payload,
                     size_t plen) {
    size_t start = b->n;
    cal_buf_addc(b, (char)kind);
    cal_buf_addc(b, 0);
    h_le(b, llen, 2);
    h_le(b, plen, 4);
    h_le(b, id, 8);
    cal_buf_add(b, label, llen);
    cal_buf_add(b, payload, plen);
    h_le(b, XXH3_64bits(b->p + start, b->n - start), 8);
}

static inline void h_end(cal_buf *b, uint64_t count) {
    uint8_t c[8];
    for (int i = 0; i < 8; i++) c[i] = (uint8_t)(count >> (8 * i));
    h_record(b, 5, "", 0, 0, c, 8);
}

/* DIR/NAME in one of 8 static buffers. */
static inline const char *h_path(const char *dir, const char *name) {
    static char path[8][512];
    static int k;
    k = (k + 1) & 7;
    snprintf(path[k], sizeof path[k], "%s/%s", dir, name);
    return path[k];
}

/* The whole of a (small) file, malloc'd; NULL when it cannot be read. */
static inline uint8_t *h_slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    uint8_t *p = malloc(1 << 20);
    *n = p ? fread(p, 1, 1 << 20, f) : 0;
    fclose(f);
    return p;
}

/* Removes the test's temp dir; 0 on success. */
static inline int h_rmdir(const char *dir) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd);
}

/* Writes bytes to a file (the test's temp dir); returns the path. */
static inline const char *h_file(const char *dir, const char *name, const void *p, size_t n) {
    const char *path = h_path(dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n || fclose(f)) abort();
    return path;
}

#endif
