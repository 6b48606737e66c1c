/* outfile.h - atomic output files (temp + fsync + rename), removal of temp
 * files on error exits and signals, write(2) with the EPIPE convention. */
#ifndef CAL_BASE_OUTFILE_H
#define CAL_BASE_OUTFILE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* Writes bytes to a named file atomically (temp + rename), or stdout for
 * NULL/"-". For converters (safetensors, npy, jsonl). */
typedef struct cal_file cal_file;
/* Checks an output name before any work (call it when options are parsed):
 * "" and a directory are usage errors; a name whose directory is missing or
 * not writable, or a descriptor name that is not open, ends the program
 * with "PROG: PATH: cannot write: why". NULL and "-" (stdout) pass. */
void cal_output_check(const char *path);
cal_file *cal_file_create(const char *path);
void cal_file_write(cal_file *f, const void *p, size_t n);
void cal_file_printf(cal_file *f, const char *fmt, ...) CAL_PRINTF(2, 3);
void cal_file_commit(cal_file *f);
/* Commits files that belong together (an array and its mask): all are
 * written and synced before the first is renamed into place, so an error
 * leaves none of them behind. */
void cal_file_commit_all(cal_file **f, size_t n);

/* Remove registered temp files (atomic outputs) on error exits and on the
 * signals that end a program (saying which ended it; see outfile.c). */
void cal__temp_register(const char *path);
void cal__temp_unregister(const char *path);
/* Removes the registered temp files now; async-signal-safe (for a signal
 * handler that ends the program with _exit). */
void cal__remove_temps(void);
/* write(2) all bytes; EPIPE on a pipe exits quietly with status 0; EFAULT
 * from a mapped input cut short says that file shrank (cal__map_shrank). */
void cal__write_all(int fd, const void *p, size_t n, const char *name);
/* Set by base/mapguard when it guards its first mapping (hooks, so that
 * this module does not depend on it): cal_map_guarded (async-signal-safe:
 * the SIGBUS handler leaves faults in guarded mappings to mapguard's) and
 * cal_map_shrank. NULL while nothing is mapped. */
extern int (*cal__map_guarded)(const void *addr);
extern int (*cal__map_shrank)(const void *p, size_t n, char *path, size_t pathlen, uint64_t *off);
/* Opens PATH for writing: a new or regular file (also through a symlink,
 * which stays) as a temp file beside it (*tmp_out, registered for removal)
 * that cal__commit_out fsyncs and renames onto *final_out; a device, FIFO
 * or descriptor name (/dev/stdout, /dev/fd/N from `-o >(cmd)`) in place,
 * with *tmp_out = NULL. Runs cal_output_check first. Dies on failure. */
int cal__open_out(const char *path, char **tmp_out, char **final_out);
/* Closes fd; for a temp file fsyncs and renames it into place first. name
 * is the output's name for messages. */
void cal__commit_out(int fd, const char *tmp, const char *final, const char *name);
/* SIGPIPE ignored (EPIPE then ends the program quietly) and SIGXFSZ caught
 * (a write past ulimit -f fails with EFBIG, which is reported): for stdout
 * and outputs written in place. */
void cal__ignore_sigpipe(void);

#endif
