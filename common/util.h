/* util.h - errors, exit codes, allocation, number parsing, progress.
 *
 * Conventions every calkit program follows:
 *   exit 0 success, 1 bad data or I/O failure, 2 usage error.
 *   Errors are one line: "PROGRAM: FILE: byte OFFSET: what is wrong". */
#ifndef CAL_UTIL_H
#define CAL_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CAL_VERSION "0.1.0"
#define CAL_EXIT_DATA 1
#define CAL_EXIT_USAGE 2

#if defined(__GNUC__)
#define CAL_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define CAL_NORETURN __attribute__((noreturn))
#else
#define CAL_PRINTF(a, b)
#define CAL_NORETURN
#endif

/* Set once from main(argv[0]); used as the prefix of every message. */
void cal_set_progname(const char *argv0);
const char *cal_progname(void);

/* Adds a hook run before any error exit (e.g. to remove a temp file); hooks
 * run newest first, each once; registering the same hook twice is a no-op. */
void cal_atexit_cleanup(void (*fn)(void));

/* "PROG: msg" and exit 1. */
CAL_NORETURN void cal_die(const char *fmt, ...) CAL_PRINTF(1, 2);
/* "PROG: FILE: byte OFF: msg" and exit 1. */
CAL_NORETURN void cal_die_at(const char *file, uint64_t off, const char *fmt, ...)
    CAL_PRINTF(3, 4);
/* "PROG: msg\nTry 'PROG --help'." and exit 2. */
CAL_NORETURN void cal_usage_error(const char *fmt, ...) CAL_PRINTF(1, 2);
/* "PROG: msg" without exiting. */
void cal_warn(const char *fmt, ...) CAL_PRINTF(1, 2);
/* Prints "PROG (calkit) VERSION" and exits 0. */
CAL_NORETURN void cal_print_version(void);

/* Directory of the running executable (/proc/self/exe), for finding the
 * build tree's data beside bin/; NULL when it cannot be told. Caller frees. */
char *cal_exe_dir(void);

void *cal_xmalloc(size_t n);
void *cal_xcalloc(size_t n, size_t size);
void *cal_xrealloc(void *p, size_t n);
char *cal_xstrdup(const char *s);

/* Strict parsers for option values: the whole string must be a number in
 * range, else a usage error naming OPT. Sizes accept K/M/G suffixes. */
uint64_t cal_parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max);
double cal_parse_double(const char *opt, const char *s);
uint64_t cal_parse_size(const char *opt, const char *s);

/* Growable array of 32-bit token ids. */
typedef struct {
    uint32_t *v;
    size_t n, cap;
} cal_ids;
void cal_ids_push(cal_ids *a, uint32_t x);
void cal_ids_reserve(cal_ids *a, size_t cap);
void cal_ids_free(cal_ids *a);

/* Growable byte buffer. */
typedef struct {
    char *p;
    size_t n, cap;
} cal_buf;
void cal_buf_add(cal_buf *b, const void *p, size_t n);
void cal_buf_addc(cal_buf *b, char c);
void cal_buf_addf(cal_buf *b, const char *fmt, ...) CAL_PRINTF(2, 3);
void cal_buf_reserve(cal_buf *b, size_t cap);
void cal_buf_free(cal_buf *b);

/* Progress on stderr (--progress) and a final summary (-v).
 * cal_progress_tick is cheap: it looks at the clock every 4096 calls. */
typedef struct {
    int enabled;
    double t0, last;
    uint64_t records, bytes;
    unsigned calls;
} cal_progress;
void cal_progress_init(cal_progress *p, int enabled);
void cal_progress_tick(cal_progress *p, uint64_t records, uint64_t bytes);
void cal_progress_done(cal_progress *p);
double cal_now(void);

#endif
