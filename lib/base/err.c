/* err.c - the one error convention: messages, exit codes, cleanup hooks,
 * allocation that dies on failure. */
#include "base/err.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *progname = "calkit";
/* Cleanup hooks run in reverse order of registration on error exits (e.g.
 * wait for a BLAS worker, then remove temp files). */
#define MAX_CLEANUPS 8
static void (*cleanup_fns[MAX_CLEANUPS])(void);
static int n_cleanups;

void cal_set_progname(const char *argv0) {
    const char *s = strrchr(argv0, '/');
    progname = s ? s + 1 : argv0;
}

const char *cal_progname(void) { return progname; }

void cal_atexit_cleanup(void (*fn)(void)) {
    for (int i = 0; i < n_cleanups; i++)
        if (cleanup_fns[i] == fn) return;
    if (n_cleanups == MAX_CLEANUPS) {
        fprintf(stderr, "%s: too many cleanup hooks\n", progname);
        abort();
    }
    cleanup_fns[n_cleanups++] = fn;
}

static CAL_NORETURN void die_exit(int code) {
    fflush(stderr);
    while (n_cleanups > 0) {
        void (*fn)(void) = cleanup_fns[--n_cleanups];
        fn(); /* popped first, so a hook that dies again does not loop */
    }
    exit(code);
}

void cal_die(const char *fmt, ...) {
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "%s: ", progname);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    die_exit(CAL_EXIT_DATA);
}

void cal_die_at(const char *file, uint64_t off, const char *fmt, ...) {
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "%s: %s: byte %llu: ", progname, file, (unsigned long long)off);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    die_exit(CAL_EXIT_DATA);
}

int cal_err_at(char *err, size_t errlen, const char *file, uint64_t off, const char *fmt, ...) {
    int k = snprintf(err, errlen, "%s: byte %llu: ", file, (unsigned long long)off);
    if (k >= 0 && (size_t)k < errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err + k, errlen - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return 0;
}

int cal_errf(char *err, size_t errlen, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

void cal_usage_error(const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "%s: ", progname);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(" (see --help)\n", stderr);
    die_exit(CAL_EXIT_USAGE);
}

void cal_warn(const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "%s: ", progname);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

void cal_print_version(void) {
    printf("%s (calkit) %s\n", progname, CAL_VERSION);
    if (fflush(stdout) != 0) die_exit(CAL_EXIT_DATA);
    exit(0);
}

static CAL_NORETURN void oom(size_t n) {
    cal_die("out of memory (allocating %zu bytes)", n);
}

void *cal_xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) oom(n);
    return p;
}

void *cal_xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) oom(n * size);
    return p;
}

void *cal_xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) oom(n);
    return q;
}

char *cal_xstrdup(const char *s) {
    size_t n = strlen(s) + 1;
    return memcpy(cal_xmalloc(n), s, n);
}

