/* outfile.c - atomic output files (temp + fsync + rename), cleanup of temp
 * files on error exits and signals, and write(2) with the EPIPE convention. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/outfile.h"

#include <stdio.h>

#include "base/buf.h"
#include "base/err.h"

#define MAX_TEMPS 32
static char *temps[MAX_TEMPS];

static void remove_temps(void) {
    for (int i = 0; i < MAX_TEMPS; i++)
        if (temps[i]) unlink(temps[i]);
}

static void on_signal(int sig) {
    remove_temps(); /* unlink is async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig);
}

void cal__temp_register(const char *path) {
    static int installed;
    if (!installed) {
        installed = 1;
        cal_atexit_cleanup(remove_temps);
        int sigs[] = {SIGINT, SIGTERM, SIGHUP};
        for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = on_signal;
            sigaction(sigs[i], &sa, NULL);
        }
    }
    for (int i = 0; i < MAX_TEMPS; i++)
        if (!temps[i]) {
            temps[i] = cal_xstrdup(path);
            return;
        }
    cal_die("too many open output files");
}

void cal__temp_unregister(const char *path) {
    for (int i = 0; i < MAX_TEMPS; i++)
        if (temps[i] && !strcmp(temps[i], path)) {
            char *p = temps[i];
            temps[i] = NULL;
            free(p);
        }
}

void cal__write_all(int fd, const void *p, size_t n, const char *name) {
    const char *c = p;
    while (n) {
        ssize_t k = write(fd, c, n);
        if (k < 0) {
            if (errno == EINTR) continue;
            if (errno == EPIPE) {
                remove_temps();
                _exit(0); /* downstream closed (| head): quiet success */
            }
            cal_die("%s: write error: %s", name, strerror(errno));
        }
        c += k;
        n -= (size_t)k;
    }
}

struct cal_file {
    int fd;
    char *path, *tmp;
    cal_buf buf;
};

/* Opens PATH.tmp.PID beside PATH (same file system, so rename is atomic). */
int cal__open_temp(const char *path, char **tmp_out) {
    cal_buf b = {0};
    cal_buf_addf(&b, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(b.p, O_WRONLY | O_CREAT | O_TRUNC | O_EXCL, 0666);
    if (fd < 0) cal_die("%s: cannot create: %s", b.p, strerror(errno));
    cal__temp_register(b.p);
    *tmp_out = b.p;
    return fd;
}

void cal__commit_temp(int fd, const char *tmp, const char *path) {
    if (fsync(fd) != 0 && errno != EINVAL) cal_die("%s: fsync: %s", path, strerror(errno));
    if (close(fd) != 0) cal_die("%s: close: %s", path, strerror(errno));
    if (rename(tmp, path) != 0) cal_die("%s: rename from %s: %s", path, tmp, strerror(errno));
    cal__temp_unregister(tmp);
}

void cal__ignore_sigpipe(void) {
    signal(SIGPIPE, SIG_IGN);
}

cal_file *cal_file_create(const char *path) {
    cal_file *f = cal_xcalloc(1, sizeof *f);
    if (!path || !strcmp(path, "-")) {
        cal__ignore_sigpipe();
        f->fd = 1;
        f->path = cal_xstrdup("stdout");
    } else {
        f->path = cal_xstrdup(path);
        f->fd = cal__open_temp(path, &f->tmp);
    }
    cal_buf_reserve(&f->buf, 1u << 20);
    return f;
}

void cal_file_write(cal_file *f, const void *p, size_t n) {
    if (f->buf.n + n > f->buf.cap) {
        cal__write_all(f->fd, f->buf.p, f->buf.n, f->path);
        f->buf.n = 0;
        if (n >= f->buf.cap / 2) {
            cal__write_all(f->fd, p, n, f->path);
            return;
        }
    }
    memcpy(f->buf.p + f->buf.n, p, n);
    f->buf.n += n;
}

void cal_file_printf(cal_file *f, const char *fmt, ...) {
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (k < 0) return;
    if ((size_t)k < sizeof small) {
        cal_file_write(f, small, (size_t)k);
        return;
    }
    char *big = cal_xmalloc((size_t)k + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)k + 1, fmt, ap);
    va_end(ap);
    cal_file_write(f, big, (size_t)k);
    free(big);
}

static void file_free(cal_file *f) {
    free(f->tmp);
    free(f->path);
    cal_buf_free(&f->buf);
    free(f);
}

void cal_file_commit(cal_file *f) {
    cal__write_all(f->fd, f->buf.p, f->buf.n, f->path);
    if (f->tmp) cal__commit_temp(f->fd, f->tmp, f->path);
    file_free(f);
}

void cal_file_commit_all(cal_file **f, size_t n) {
    for (size_t i = 0; i < n; i++) {
        cal__write_all(f[i]->fd, f[i]->buf.p, f[i]->buf.n, f[i]->path);
        if (f[i]->tmp && fsync(f[i]->fd) != 0 && errno != EINVAL)
            cal_die("%s: fsync: %s", f[i]->path, strerror(errno));
    }
    for (size_t i = 0; i < n; i++) {
        if (f[i]->tmp) cal__commit_temp(f[i]->fd, f[i]->tmp, f[i]->path); /* synced: only renames remain */
        file_free(f[i]);
    }
}
