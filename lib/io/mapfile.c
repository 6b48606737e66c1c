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
#include "base/modelfile.h"
#include "base/outfile.h"

/* The live mappings, for the SIGBUS handler: a page of a mapped file that
 * was cut short after it was mapped faults with SIGBUS, which would end
 * the program with a crash and no word about which file. */
#define MAX_MAPS 64
static struct {
    char *volatile addr; /* NULL: a free slot */
    size_t len;
    char *path;
} maps[MAX_MAPS];

static void put(const char *s) {
    ssize_t k = write(2, s, strlen(s));
    (void)k;
}

/* Async-signal-safe: "PROG: PATH: byte OFF: the file shrank while it was
 * read", the temp outputs removed, exit 1. */
static void on_sigbus(int sig, siginfo_t *si, void *ctx) {
    (void)ctx;
    char *a = si->si_addr;
    for (int i = 0; i < MAX_MAPS; i++) {
        char *m = maps[i].addr;
        if (!m || a < m || a >= m + maps[i].len) continue;
        char num[24], *e = num + sizeof num - 1;
        *e = 0;
        uintptr_t off = (uintptr_t)(a - m);
        do *--e = (char)('0' + off % 10); while (off /= 10);
        put(cal_progname()), put(": "), put(maps[i].path), put(": byte "), put(e);
        put(": the file shrank while it was read (it changed under the program)\n");
        cal__remove_temps();
        _exit(1);
    }
    signal(sig, SIG_DFL); /* not one of ours: the crash it would have been */
    raise(sig);
}

static void track(void *addr, size_t len, const char *path) {
    static int installed;
    if (!installed) {
        installed = 1;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_sigbus;
        sa.sa_flags = SA_SIGINFO;
        sigaction(SIGBUS, &sa, NULL);
    }
    for (int i = 0; i < MAX_MAPS; i++)
        if (!maps[i].addr) {
            maps[i].len = len;
            maps[i].path = cal_xstrdup(path);
            maps[i].addr = addr; /* last: the handler reads a whole slot */
            return;
        }
}

static void untrack(void *addr) {
    for (int i = 0; i < MAX_MAPS; i++)
        if (maps[i].addr == addr) {
            maps[i].addr = NULL;
            free(maps[i].path);
            maps[i].path = NULL;
            return;
        }
}

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
        track(m->map, n, path);
    }
    return 1;
}

void cal_mapfile_close(cal_mapfile *m) {
    if (m->map) {
        untrack(m->map);
        munmap(m->map, m->len);
    }
    memset(m, 0, sizeof *m);
}
