/* err.h - errors, exit codes, allocation.
 *
 * Conventions every calkit program follows:
 *   exit 0 success, 1 bad data or I/O failure, 2 usage error.
 *   Errors are one line: "PROGRAM: FILE: byte OFFSET: what is wrong".
 * Every error goes through these functions, so there is one wording. */
#ifndef CAL_BASE_ERR_H
#define CAL_BASE_ERR_H

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
/* The soft form of cal_die_at, for library code that returns its errors:
 * "FILE: byte OFF: msg" into err; returns 0. */
int cal_err_at(char *err, size_t errlen, const char *file, uint64_t off, const char *fmt, ...) CAL_PRINTF(5, 6);
/* The message alone into err, for code that returns -1 on an error: returns -1. */
int cal_errf(char *err, size_t errlen, const char *fmt, ...) CAL_PRINTF(3, 4);
/* "PROG: msg\nTry 'PROG --help'." and exit 2. */
CAL_NORETURN void cal_usage_error(const char *fmt, ...) CAL_PRINTF(1, 2);
/* "PROG: msg" without exiting. */
void cal_warn(const char *fmt, ...) CAL_PRINTF(1, 2);
/* Prints "PROG (calkit) VERSION" and exits 0. */
CAL_NORETURN void cal_print_version(void);

void *cal_xmalloc(size_t n);
void *cal_xcalloc(size_t n, size_t size);
void *cal_xrealloc(void *p, size_t n);
char *cal_xstrdup(const char *s);

#endif
