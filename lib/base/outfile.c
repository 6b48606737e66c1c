/* outfile.c - atomic output files (temp + fsync + rename), cleanup of temp
 * files on error exits and signals, and write(2) with the EPIPE convention.
 *
 * Signals: while a temp file exists, every signal that would end the
 * program (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGXCPU under ulimit -t,
 * SIGALRM, SIGUSR1/2, ..., and the faults SIGSEGV, SIGBUS, SIGFPE, SIGILL,
 * SIGABRT) first removes the temp files and says on stderr what ended the
 * program, then ends it as the signal would (a fault goes on to the handler
 * there was before, AddressSanitizer's in SANITIZE builds; a SIGBUS in a
 * mapped input goes to base/mapguard, whose one line says it). SIGXFSZ (a write
 * past ulimit -f) is caught wherever the program writes: the write then
 * fails with EFBIG, and the error path says so and removes the temp files. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/outfile.h"

#include <stdio.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/mapguard.h" /* its message only: the functions come through hooks */
#include "base/oshint.h"

int (*cal__map_guarded)(const void *addr);
int (*cal__map_shrank)(const void *p, size_t n, char *path, size_t pathlen, uint64_t *off);

#define MAX_TEMPS 32
static char *temps[MAX_TEMPS];

void cal__remove_temps(void) {
    for (int i = 0; i < MAX_TEMPS; i++)
        if (temps[i]) unlink(temps[i]);
}

/* The signals that end a program, what they mean, and the actions there
 * were before ours. */
static const struct {
    int sig;
    const char *what;
} fatal[] = {
    {SIGINT, "interrupted (SIGINT)"},
    {SIGTERM, "terminated (SIGTERM)"},
    {SIGHUP, "hung up (SIGHUP)"},
    {SIGQUIT, "quit (SIGQUIT)"},
    {SIGXCPU, "out of CPU time (SIGXCPU: the ulimit -t limit)"},
    {SIGALRM, "timed out (SIGALRM)"},
    {SIGVTALRM, "timed out (SIGVTALRM)"},
    {SIGPROF, "profiling timer expired (SIGPROF)"},
    {SIGUSR1, "killed by SIGUSR1"},
    {SIGUSR2, "killed by SIGUSR2"},
    {SIGPIPE, "killed by SIGPIPE (a reader closed its pipe)"},
    {SIGSEGV, "crashed (SIGSEGV)"},
    {SIGBUS, "crashed (SIGBUS)"},
    {SIGFPE, "crashed (SIGFPE)"},
    {SIGILL, "crashed (SIGILL)"},
    {SIGABRT, "aborted (SIGABRT)"},
    {SIGSYS, "crashed (SIGSYS)"},
    {SIGTRAP, "trapped (SIGTRAP)"},
};
#define NFATAL (sizeof fatal / sizeof fatal[0])
static struct sigaction before[NFATAL];
static volatile sig_atomic_t handling;

static size_t add(char *b, size_t k, size_t cap, const char *s) {
    while (*s && k + 1 < cap) b[k++] = *s++;
    return k;
}

/* Removes the temp files, says so in one line (async-signal-safe: only
 * write(2) and unlink(2)), then lets the signal end the program. */
static void on_signal(int sig, siginfo_t *info, void *uctx) {
    (void)uctx;
    size_t i = 0;
    while (i < NFATAL && fatal[i].sig != sig) i++;
    if (sig == SIGBUS && info && info->si_code > 0 && i < NFATAL && cal__map_guarded && cal__map_guarded(info->si_addr)) {
        /* a mapped input cut short: base/mapguard's handler (installed
         * before ours) says so in its one line and removes the temps */
        sigaction(sig, &before[i], NULL);
        return;
    }
    if (!handling) {
        handling = 1;
        char line[1024];
        size_t k = add(line, 0, sizeof line, cal_progname());
        k = add(line, k, sizeof line, ": ");
        k = add(line, k, sizeof line, i < NFATAL ? fatal[i].what : "killed by a signal");
        int n = 0;
        for (int t = 0; t < MAX_TEMPS; t++)
            if (temps[t]) {
                k = add(line, k, sizeof line, n++ ? ", " : "; removed the unfinished ");
                k = add(line, k, sizeof line, temps[t]);
                unlink(temps[t]);
            }
        k = add(line, k, sizeof line, "\n");
        ssize_t w = write(2, line, k);
        (void)w;
    }
    /* A fault of this program's own (si_code > 0: the kernel's) returns to
     * run the faulting instruction again under the action there was before
     * (AddressSanitizer's, in SANITIZE builds); a signal sent (kill, raise)
     * is raised again with the default action. */
    int fault = (sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL || sig == SIGSYS || sig == SIGTRAP) &&
                info && info->si_code > 0;
    if (fault && i < NFATAL) {
        sigaction(sig, &before[i], NULL);
        return;
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void on_xfsz(int sig) { (void)sig; } /* the write returns EFBIG instead */

static void catch_xfsz(void) {
    struct sigaction sa, old;
    if (sigaction(SIGXFSZ, NULL, &old) == 0 && old.sa_handler == SIG_IGN) return; /* EFBIG already */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_xfsz;
    sigaction(SIGXFSZ, &sa, NULL);
}

void cal__temp_register(const char *path) {
    static int installed;
    if (!installed) {
        installed = 1;
        cal_atexit_cleanup(cal__remove_temps);
        catch_xfsz();
        for (size_t i = 0; i < NFATAL; i++) {
            struct sigaction sa;
            /* An ignored signal stays ignored (nohup, `cmd &` in a script):
             * the handler would turn it into a kill. */
            if (sigaction(fatal[i].sig, NULL, &before[i]) != 0 || before[i].sa_handler == SIG_IGN) continue;
            memset(&sa, 0, sizeof sa);
            sa.sa_sigaction = on_signal;
            sa.sa_flags = SA_SIGINFO;
            sigemptyset(&sa.sa_mask);
            sigaction(fatal[i].sig, &sa, NULL);
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
                cal__remove_temps();
                _exit(0); /* downstream closed (| head): quiet success */
            }
            if (errno == EFBIG) cal_die("%s: write error: the file size limit is reached (ulimit -f; SIGXFSZ)", name);
            char from[1024];
            uint64_t off;
            if (errno == EFAULT && cal__map_shrank && cal__map_shrank(c, n, from, sizeof from, &off)) /* the input's fault, not name's */
                cal_die_at(from, off, "%s", CAL_MAP_SHRANK_WHY);
            cal_die("%s: write error: %s", name, strerror(errno));
        }
        c += k;
        n -= (size_t)k;
    }
}

struct cal_file {
    int fd;
    char *path, *tmp, *final;
    int named; /* not stdout */
    cal_buf buf;
};

/* ---- where an output name leads ----------------------------------------- */

enum { OUT_ATOMIC, OUT_IN_PLACE, OUT_DUP };

typedef struct {
    int how;
    cal_buf path; /* ATOMIC: the file to replace; IN_PLACE: what to open */
    int fd;       /* DUP: our descriptor the name stands for */
    mode_t mode;  /* ATOMIC over an existing file: its permissions */
    int exists;
} out_target;

static void split(const char *path, cal_buf *dir, const char **base) {
    const char *slash = strrchr(path, '/');
    dir->n = 0;
    if (!slash) cal_buf_add(dir, ".", 1);
    else if (slash == path) cal_buf_add(dir, "/", 1);
    else cal_buf_add(dir, path, (size_t)(slash - path));
    cal_buf_addc(dir, 0);
    dir->n--;
    *base = slash ? slash + 1 : path;
}

/* Follows PATH to what writing it should touch: a symlink is followed (its
 * target is written, the link stays); a name of one of our descriptors
 * (/dev/stdout, /dev/fd/N, /proc/self/fd/N: process substitution) is that
 * descriptor; an existing device, FIFO or socket is written in place; a
 * regular or new file is replaced atomically. 0, or -1 with err. */
static int resolve(const char *path, out_target *t, char *err, size_t errlen) {
    cal_buf cur = {0}, dir = {0};
    cal_buf_add(&cur, path, strlen(path) + 1);
    /* Our descriptors' directory and the proc file system, by inode: no
     * realpath in POSIX's base, and /dev/fd is a link to /proc/self/fd. */
    struct stat fds, proc_fs, ds;
    int have_fds = stat("/proc/self/fd", &fds) == 0, have_proc = stat("/proc", &proc_fs) == 0;
    int rc = -1;
    int hops;
    for (hops = 0; hops < 40; hops++) {
        const char *base;
        split(cur.p, &dir, &base);
        if (!*base) {
            snprintf(err, errlen, "is a directory");
            goto out;
        }
        if (stat(dir.p, &ds) != 0) {
            snprintf(err, errlen, "%s: %s", dir.p, strerror(errno));
            goto out;
        }
        int fdname = have_fds && ds.st_dev == fds.st_dev && ds.st_ino == fds.st_ino;
        int proc = have_proc && ds.st_dev == proc_fs.st_dev;
        if (fdname) {
            char *end;
            long fd = strtol(base, &end, 10);
            int fl = *end || fd < 0 || fd > 1 << 30 ? -1 : fcntl((int)fd, F_GETFL);
            if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY) {
                snprintf(err, errlen, "descriptor %s is not open for writing", base);
                goto out;
            }
            t->how = OUT_DUP, t->fd = (int)fd;
            rc = 0;
            goto out;
        }
        struct stat st;
        if (lstat(cur.p, &st) != 0) {
            if (errno != ENOENT) {
                snprintf(err, errlen, "%s", strerror(errno));
                goto out;
            }
            t->how = proc ? OUT_IN_PLACE : OUT_ATOMIC;
            break;
        }
        if (S_ISLNK(st.st_mode) && !proc) {
            char link[4096];
            ssize_t k = readlink(cur.p, link, sizeof link - 1);
            if (k < 0) {
                snprintf(err, errlen, "%s", strerror(errno));
                goto out;
            }
            link[k] = 0;
            cal_buf next = {0};
            if (link[0] != '/') cal_buf_addf(&next, "%s/", dir.p);
            cal_buf_add(&next, link, (size_t)k + 1);
            cal_buf_free(&cur);
            cur = next;
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "is a directory");
            goto out;
        }
        t->exists = 1;
        t->mode = st.st_mode & 07777;
        t->how = S_ISREG(st.st_mode) && !proc ? OUT_ATOMIC : OUT_IN_PLACE;
        break;
    }
    if (hops == 40) goto out;
    if (t->how == OUT_ATOMIC && access(dir.p, W_OK | X_OK) != 0) {
        snprintf(err, errlen, "cannot create files in %s: %s", dir.p, strerror(errno));
        goto out;
    }
    t->path = cur;
    cur.p = NULL;
    rc = 0;
out:
    if (rc && !err[0]) snprintf(err, errlen, "too many levels of symbolic links");
    cal_buf_free(&cur);
    cal_buf_free(&dir);
    return rc;
}

void cal_output_check(const char *path) {
    if (!path || !strcmp(path, "-")) return;
    if (!*path) cal_usage_error("the output name is empty");
    out_target t = {0};
    char err[512] = "";
    if (resolve(path, &t, err, sizeof err)) {
        if (!strcmp(err, "is a directory")) cal_usage_error("%s: output is a directory", path);
        cal_die("%s: cannot write: %s", path, err);
    }
    cal_buf_free(&t.path);
}

/* PATH's temp name beside it: "BASE.tmp.PID", BASE cut so that the name
 * fits the directory's NAME_MAX (a valid 255-byte name stays writable). */
static void temp_name(const char *path, int attempt, cal_buf *out) {
    cal_buf dir = {0};
    const char *base;
    split(path, &dir, &base);
    char suffix[48];
    snprintf(suffix, sizeof suffix, attempt ? ".tmp.%ld.%d" : ".tmp.%ld", (long)getpid(), attempt);
    long max = pathconf(dir.p, _PC_NAME_MAX);
    if (max <= 0 || max > 4096) max = 255;
    size_t keep = strlen(base), room = (size_t)max - strlen(suffix);
    if (keep > room) keep = room;
    out->n = 0;
    cal_buf_add(out, path, (size_t)(base - path) + keep);
    cal_buf_add(out, suffix, strlen(suffix) + 1);
    out->n--;
    cal_buf_free(&dir);
}

/* Moves fd above 2: with stdout or stderr closed, open() would return 1
 * or 2, and messages or "stdout" writes would land in the output. */
static int above_stdio(int fd, const char *name) {
    if (fd > 2) return fd;
    int hi = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (hi < 0) cal_die("%s: %s", name, strerror(errno));
    close(fd);
    return hi;
}

int cal__open_out(const char *path, char **tmp_out, char **final_out) {
    cal_output_check(path);
    out_target t = {0};
    char err[512] = "";
    if (resolve(path, &t, err, sizeof err)) cal_die("%s: cannot write: %s", path, err);
    int fd = -1;
    *tmp_out = *final_out = NULL;
    if (t.how == OUT_DUP) {
        fd = fcntl(t.fd, F_DUPFD_CLOEXEC, 3); /* shares the offset: `-o /dev/stdout >>log` appends */
        if (fd < 0) cal_die("%s: %s", path, strerror(errno));
    } else if (t.how == OUT_IN_PLACE) {
        fd = open(t.path.p, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        if (fd < 0) cal_die("%s: cannot open for writing: %s", path, strerror(errno));
        fd = above_stdio(fd, path);
    } else {
        cal_buf tmp = {0};
        for (int attempt = 0; fd < 0; attempt++) {
            temp_name(t.path.p, attempt, &tmp);
            fd = open(tmp.p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
            if (fd < 0 && (errno != EEXIST || attempt == 100)) cal_die("%s: cannot create: %s", tmp.p, strerror(errno));
        }
        fd = above_stdio(fd, tmp.p);
        cal__temp_register(tmp.p);
        if (t.exists && fchmod(fd, t.mode) != 0) cal_die("%s: chmod: %s", tmp.p, strerror(errno));
        *tmp_out = tmp.p;
        *final_out = t.path.p;
        return fd;
    }
    if (t.how != OUT_ATOMIC) cal__ignore_sigpipe(); /* a pipe's reader may go: EPIPE as on stdout */
    cal_buf_free(&t.path);
    return fd;
}

static void sync_out(int fd, const char *name) {
    if (fsync(fd) != 0 && errno != EINVAL) cal_die("%s: fsync: %s", name, strerror(errno));
}

/* Closes, and moves a synced temp file into place. */
static void close_out(int fd, const char *tmp, const char *final, const char *name) {
    if (close(fd) != 0) cal_die("%s: close: %s", name, strerror(errno));
    if (!tmp) return;
    if (rename(tmp, final) != 0) cal_die("%s: rename from %s: %s", final, tmp, strerror(errno));
    cal__temp_unregister(tmp);
}

void cal__commit_out(int fd, const char *tmp, const char *final, const char *name) {
    if (tmp) sync_out(fd, name);
    close_out(fd, tmp, final, name);
}

void cal__ignore_sigpipe(void) {
    signal(SIGPIPE, SIG_IGN);
    catch_xfsz();
}

cal_file *cal_file_create(const char *path) {
    int named = path && strcmp(path, "-");
    char *tmp = NULL, *final = NULL;
    int fd = named ? cal__open_out(path, &tmp, &final) : 1; /* before allocating: see cal_writer_open */
    if (!named) cal__ignore_sigpipe();
    cal_file *f = cal_xcalloc(1, sizeof *f);
    f->fd = fd, f->tmp = tmp, f->final = final, f->named = named;
    f->path = cal_xstrdup(named ? path : "stdout");
    cal_buf_reserve(&f->buf, 1u << 20);
    return f;
}

void cal_file_write(cal_file *f, const void *p, size_t n) {
    if (f->buf.n + n > f->buf.cap) {
        cal__write_all(f->fd, f->buf.p, f->buf.n, f->path);
        f->buf.n = 0;
        int direct = n >= f->buf.cap / 2;
        if (direct) cal__write_all(f->fd, p, n, f->path);
        if (f->tmp) cal_writeback(f->fd); /* the commit's fsync waits less */
        if (direct) return;
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
    free(f->final);
    free(f->path);
    cal_buf_free(&f->buf);
    free(f);
}

void cal_file_commit(cal_file *f) {
    cal__write_all(f->fd, f->buf.p, f->buf.n, f->path);
    if (f->named) cal__commit_out(f->fd, f->tmp, f->final, f->path);
    file_free(f);
}

void cal_file_commit_all(cal_file **f, size_t n) {
    for (size_t i = 0; i < n; i++) {
        cal__write_all(f[i]->fd, f[i]->buf.p, f[i]->buf.n, f[i]->path);
        if (f[i]->tmp) sync_out(f[i]->fd, f[i]->path);
    }
    for (size_t i = 0; i < n; i++) {
        if (f[i]->named) close_out(f[i]->fd, f[i]->tmp, f[i]->final, f[i]->path); /* synced: only renames remain */
        file_free(f[i]);
    }
}
