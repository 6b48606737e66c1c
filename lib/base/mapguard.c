/* mapguard.c - see mapguard.h (moved from io/mapfile.c, so that the stream
 * reader below io can map its input too). */
#include "base/mapguard.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/outfile.h"

/* The live mappings, for the SIGBUS handler: a page of a mapped file that
 * was cut short after it was mapped faults with SIGBUS, which would end
 * the program with a crash and no word about which file. A fixed table (the
 * handler may not lock or allocate), large enough for cal-blend's one
 * mapping per input file (64 left a blend of more inputs unguarded). */
#define MAX_MAPS 4096
static struct {
    char *volatile addr; /* NULL: a free slot */
    size_t len;
    char *path;
} maps[MAX_MAPS];

static struct sigaction prev; /* SIGBUS's action before ours */

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
        put(": " CAL_MAP_SHRANK_WHY "\n");
        cal__remove_temps();
        _exit(1);
    }
    /* Not one of ours: the action there was before (base/outfile's: its
     * temp files removed), else the crash it would have been. */
    if ((prev.sa_flags & SA_SIGINFO) && prev.sa_sigaction) {
        prev.sa_sigaction(sig, si, ctx);
        return;
    }
    if (!(prev.sa_flags & SA_SIGINFO) && prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN) {
        prev.sa_handler(sig);
        return;
    }
    signal(sig, SIG_DFL);
    if (si->si_code > 0) return; /* the kernel's fault: runs again, under the default action */
    raise(sig);
}

int cal_map_guarded(const void *addr) {
    const char *a = addr;
    for (int i = 0; i < MAX_MAPS; i++) {
        char *m = maps[i].addr;
        if (m && a >= m && a < m + maps[i].len) return 1;
    }
    return 0;
}

/* Guards and unguards come from several threads (cal-blend's readers). */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

void cal_map_guard(void *addr, size_t len, const char *path) {
    static int installed;
    pthread_mutex_lock(&mu);
    if (!installed) {
        installed = 1;
        cal__map_guarded = cal_map_guarded; /* outfile's handler and writes ask */
        cal__map_shrank = cal_map_shrank;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_sigbus;
        sa.sa_flags = SA_SIGINFO;
        sigaction(SIGBUS, &sa, &prev);
    }
    for (int i = 0; i < MAX_MAPS; i++)
        if (!maps[i].addr) {
            maps[i].len = len;
            maps[i].path = cal_xstrdup(path);
            maps[i].addr = addr; /* last: the handler reads a whole slot */
            break;
        }
    pthread_mutex_unlock(&mu);
}

void cal_map_unguard(void *addr) {
    pthread_mutex_lock(&mu);
    for (int i = 0; i < MAX_MAPS; i++)
        if (maps[i].addr == addr) {
            maps[i].addr = NULL;
            free(maps[i].path);
            maps[i].path = NULL;
            break;
        }
    pthread_mutex_unlock(&mu);
}

int cal_map_shrank(const void *p, size_t n, char *path, size_t pathlen, uint64_t *off) {
    const char *a = p;
    int found = 0;
    pthread_mutex_lock(&mu);
    for (int i = 0; i < MAX_MAPS && !found; i++) {
        char *m = maps[i].addr;
        if (!m || !n || a >= m + maps[i].len || a + n <= m) continue;
        uint64_t lo = (uint64_t)((a > m ? a : m) - m), hi = (uint64_t)((a + n < m + maps[i].len ? a + n : m + maps[i].len) - m);
        struct stat st;
        if (stat(maps[i].path, &st) || (uint64_t)st.st_size >= hi) continue;
        *off = (uint64_t)st.st_size > lo ? (uint64_t)st.st_size : lo;
        if (path) snprintf(path, pathlen, "%s", maps[i].path);
        found = 1;
    }
    pthread_mutex_unlock(&mu);
    return found;
}
