/* datadir.c - see datadir.h. */
#include "base/datadir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"

#ifndef CAL_LIBDIR
#define CAL_LIBDIR "/usr/local/lib/calkit"
#endif
#ifndef CAL_DATADIR
#define CAL_DATADIR "/usr/local/share/calkit"
#endif

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

const char *cal_datadir(void) { return CAL_DATADIR; }
const char *cal_libdir(void) { return CAL_LIBDIR; }

static char *join(const char *a, const char *b, const char *c) {
    cal_buf p = {0};
    cal_buf_addf(&p, "%s%s%s", a, b, c);
    return p.p;
}

char **cal_data_dirs(const char *kind, const char *env) {
    char **d = cal_xcalloc(6, sizeof *d);
    size_t n = 0;
    const char *e = env ? getenv(env) : NULL;
    if (e && *e) d[n++] = cal_xstrdup(e);
    /* Never the current directory: a folder there named build/KIND would
     * shadow the real data without a word. */
    char *exe = cal_exe_dir();
    if (exe) {
        d[n++] = join(exe, "/../build/", kind);
        d[n++] = join(exe, "/../", kind);
        free(exe);
    }
    d[n++] = join(CAL_DATADIR, "/", kind);
    return d;
}

void cal_data_dirs_free(char **dirs) {
    for (size_t i = 0; dirs && dirs[i]; i++) free(dirs[i]);
    free(dirs);
}
