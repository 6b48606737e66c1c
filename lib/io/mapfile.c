/* mapfile.c - see mapfile.h. */
#include "io/mapfile.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/mapguard.h"
#include "base/modelfile.h"
#include "base/outfile.h"

int cal_mapfile_open(cal_mapfile *m, const char *path, char *err, size_t errlen) {
    struct stat st;
    return cal_mapfile_open_stat(m, path, &st, err, errlen);
}

int cal_mapfile_open_stat(cal_mapfile *m, const char *path, struct stat *stp, char *err, size_t errlen) {
    memset(m, 0, sizeof *m);
    m->p = "";
    /* Not opened unless regular: opening a FIFO waits for its writer, and
     * closing it again could end that writer with SIGPIPE before a caller
     * falls back to reading the stream. */
    struct stat st;
    char kind[4200];
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: %s, not a regular file", path, cal_path_kind(path, kind, sizeof kind));
        return 0;
    }
    int fd = open(path, O_RDONLY);
    const char *why = fd < 0 ? cal_open_error(path, errno, kind, sizeof kind)
                      : fstat(fd, &st) != 0 ? strerror(errno)
                      : !S_ISREG(st.st_mode)        ? "not a regular file"
                                                    : NULL;
    if (why) {
        snprintf(err, errlen, "%s: %s", path, why);
        if (fd >= 0) close(fd);
        return 0;
    }
    size_t n = (size_t)st.st_size;
    if (n && (m->map = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
        snprintf(err, errlen, "%s: mmap: %s", path, strerror(errno));
        m->map = NULL;
        close(fd);
        return 0;
    }
    close(fd);
    *stp = st;
    m->len = n;
    if (m->map) {
        m->p = m->map;
        cal_map_guard(m->map, n, path);
    }
    return 1;
}

void cal_mapfile_close(cal_mapfile *m) {
    if (m->map) {
        cal_map_unguard(m->map);
        munmap(m->map, m->len);
    }
    memset(m, 0, sizeof *m);
}
