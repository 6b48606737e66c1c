/* util.c - errors, allocation, option parsing, growable arrays, progress. */
#include "util.h"

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

void cal_usage_error(const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "%s: ", progname);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (try '%s --help')\n", progname);
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

char *cal_exe_dir(void) {
    char exe[4096];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k <= 0) return NULL;
    exe[k] = 0;
    char *sl = strrchr(exe, '/');
    if (!sl) return NULL;
    *sl = 0;
    return cal_xstrdup(exe);
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

uint64_t cal_parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max) {
    char *end;
    if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
        cal_usage_error("%s: expected a whole number, got '%s'", opt, s ? s : "");
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        cal_usage_error("%s: expected a whole number, got '%s'", opt, s);
    if (v < min || v > max)
        cal_usage_error("%s: %llu is out of range [%llu, %llu]", opt, v, (unsigned long long)min,
                        (unsigned long long)max);
    return v;
}

double cal_parse_double(const char *opt, const char *s) {
    char *end;
    if (!s || !*s) cal_usage_error("%s: expected a number", opt);
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v))
        cal_usage_error("%s: expected a finite number, got '%s'", opt, s);
    return v;
}

uint64_t cal_parse_size(const char *opt, const char *s) {
    char *end;
    if (!s || !*s || *s == '-' || *s == '+')
        cal_usage_error("%s: expected a size such as 512M, got '%s'", opt, s ? s : "");
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    unsigned shift = 0;
    if (end == s || errno) cal_usage_error("%s: expected a size such as 512M, got '%s'", opt, s);
    switch (*end) {
    case 0: break;
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    case 't': case 'T': shift = 40; end++; break;
    default: cal_usage_error("%s: bad size suffix in '%s' (use K, M, G or T)", opt, s);
    }
    if (*end == 'B' || *end == 'b') end++;
    if (*end) cal_usage_error("%s: bad size '%s'", opt, s);
    if (shift && v > (UINT64_MAX >> shift)) cal_usage_error("%s: size '%s' is too large", opt, s);
    return (uint64_t)v << shift;
}

void cal_ids_reserve(cal_ids *a, size_t cap) {
    if (cap <= a->cap) return;
    size_t c = a->cap ? a->cap : 64;
    while (c < cap) c *= 2;
    a->v = cal_xrealloc(a->v, c * sizeof *a->v);
    a->cap = c;
}

void cal_ids_push(cal_ids *a, uint32_t x) {
    if (a->n == a->cap) cal_ids_reserve(a, a->n + 1);
    a->v[a->n++] = x;
}

void cal_ids_free(cal_ids *a) {
    free(a->v);
    a->v = NULL;
    a->n = a->cap = 0;
}

void cal_buf_reserve(cal_buf *b, size_t cap) {
    if (cap <= b->cap) return;
    size_t c = b->cap ? b->cap : 256;
    while (c < cap) c *= 2;
    b->p = cal_xrealloc(b->p, c);
    b->cap = c;
}

void cal_buf_add(cal_buf *b, const void *p, size_t n) {
    cal_buf_reserve(b, b->n + n + 1);
    if (n) memcpy(b->p + b->n, p, n);
    b->n += n;
    b->p[b->n] = 0;
}

void cal_buf_addc(cal_buf *b, char c) { cal_buf_add(b, &c, 1); }

void cal_buf_addf(cal_buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (k < 0) return;
    cal_buf_reserve(b, b->n + (size_t)k + 1);
    va_start(ap, fmt);
    vsnprintf(b->p + b->n, (size_t)k + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)k;
}

void cal_buf_free(cal_buf *b) {
    free(b->p);
    b->p = NULL;
    b->n = b->cap = 0;
}

double cal_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cal_progress_init(cal_progress *p, int enabled) {
    memset(p, 0, sizeof *p);
    p->enabled = enabled;
    p->t0 = p->last = cal_now();
}

static void progress_print(cal_progress *p, double now, int final) {
    double dt = now - p->t0;
    double mb = (double)p->bytes / 1e6;
    fprintf(stderr, "\r%s: %llu records, %.1f MB, %.1f MB/s%s", progname,
            (unsigned long long)p->records, mb, dt > 0 ? mb / dt : 0.0, final ? "\n" : "   ");
}

void cal_progress_tick(cal_progress *p, uint64_t records, uint64_t bytes) {
    p->records = records;
    p->bytes = bytes;
    if (!p->enabled || (++p->calls & 4095) != 0) return;
    double now = cal_now();
    if (now - p->last < 0.5) return;
    p->last = now;
    progress_print(p, now, 0);
}

void cal_progress_done(cal_progress *p) {
    if (p->enabled) progress_print(p, cal_now(), 1);
}
