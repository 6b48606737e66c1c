/* datadir.h - where calkit's data (built-in corpora, fetched tokenizers) is
 * found: the build tree beside the running program, or the installed prefix.
 * The prefix is compiled into datadir.o alone, so a new PREFIX rebuilds one
 * object. */
#ifndef CAL_BASE_DATADIR_H
#define CAL_BASE_DATADIR_H

#include <stddef.h>

/* Directory of the running executable (/proc/self/exe); NULL when it cannot
 * be told. Caller frees. */
char *cal_exe_dir(void);

/* The installed data directory, PREFIX/share/calkit. */
const char *cal_datadir(void);
/* The installed directory of calkit's own shared objects (the
 * libsentencepiece shim, tok/spm_dl.h), PREFIX/lib/calkit. */
const char *cal_libdir(void);

/* The directories that may hold data of one KIND ("corpora", "tokenizers"),
 * in search order: $ENV when set and non-empty, EXE/../build/KIND (bin/
 * beside build/), EXE/../KIND (build/bin-san/ inside build/), and
 * cal_datadir()/KIND; never the current directory. A NULL-terminated
 * malloc'd list (cal_data_dirs_free). */
char **cal_data_dirs(const char *kind, const char *env);
void cal_data_dirs_free(char **dirs);

#endif
