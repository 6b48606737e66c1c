/* test_hostile_out.c - -o never destroys what is at the path: a character
 * device, a FIFO with a reader, a descriptor name (/proc/self/fd/N as from
 * `-o >(cmd)`, a /dev/stdout-like link) are written in place; a symlink
 * keeps pointing at its (atomically replaced) target; a 255-byte name
 * works; "" and a directory fail before anything is written; a full disk
 * (a full device, a 64 KiB tmpfs when one may be mounted) fails with one
 * line and leaves the old file; closed descriptors 0-2, a small RLIMIT_NOFILE
 * and an inherited SIG_IGN are handled. Devices are private nodes made with
 * mknod in the test's directory (never /dev itself: a broken writer must
 * not be able to replace a system file), and skipped where mknod is refused. */
/* mknod is XSI */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "base/outfile.h"
#include "hostile.h"
#include "stream/stream.h"

static char dir[] = "/tmp/test_hostile_out.XXXXXX";
static const char *target;

/* A stream of two records to `target`. */
static void write_stream(void *arg) {
    (void)arg;
    cal_writer *w = cal_writer_open(target);
    cal_meta_add(cal_writer_meta(w), "stage", "hostile");
    cal_write_text(w, "a", 1, "one", 3);
    cal_write_text(w, "b", 2, "two", 3);
    cal_writer_close(w);
}

static size_t count_records(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) return (size_t)-1;
    cal_reader *r = cal_reader_open(path);
    cal_rec rec;
    size_t n = 0;
    while (cal_read(r, &rec)) n++;
    cal_reader_close(r);
    return n;
}

static const char *rec_path;
static void check_records(void *want) {
    if (count_records(rec_path) != *(size_t *)want) exit(3);
}

/* The file holds a valid stream of n records (read in a child: it may die). */
static int holds(const char *path, size_t n) {
    rec_path = path;
    return h_run(check_records, &n).status == 0;
}

static int temps_left(void) {
    char cmd[700];
    snprintf(cmd, sizeof cmd, "ls -a %s | grep -q '\\.tmp\\.'", dir);
    return system(cmd) == 0;
}

static int is_type(const char *p, mode_t type) {
    struct stat st;
    return lstat(p, &st) == 0 && (st.st_mode & S_IFMT) == type;
}

static void test_special(void) {
    const char *dev = h_path(dir, "null");
    if (mknod(dev, S_IFCHR | 0666, makedev(1, 3)) != 0) {
        printf("skip - a character device: mknod refused (%s)\n", strerror(errno));
    } else {
        target = dev;
        EXPECT_OK(write_stream, NULL, "-o a character device (1,3 like /dev/null) writes");
        CHECK(is_type(dev, S_IFCHR) && !temps_left(), "the device is still a device, no temp file beside it");
    }
    const char *full = h_path(dir, "full");
    if (mknod(full, S_IFCHR | 0666, makedev(1, 7)) == 0) {
        target = full;
        EXPECT_DIE(1, "^hostile: .*/full: write error: No space left on device$", write_stream, NULL,
                   "-o a full device: ENOSPC is one line, exit 1");
        CHECK(is_type(full, S_IFCHR), "the full device is still a device");
    }
    /* a FIFO with a reader waiting on it */
    const char *fifo = h_path(dir, "fifo"), *got = h_path(dir, "from-fifo");
    mkfifo(fifo, 0600);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "timeout 60 cat %s > %s", fifo, got); /* a writer that replaced the FIFO never opens it */
    fflush(stdout);
    pid_t reader = fork();
    if (reader == 0) _exit(system(cmd) == 0 ? 0 : 1);
    target = fifo;
    EXPECT_OK(write_stream, NULL, "-o a FIFO writes into it");
    int st;
    waitpid(reader, &st, 0);
    CHECK(is_type(fifo, S_IFIFO) && holds(got, 2), "the FIFO stays a FIFO and its reader got the whole stream");
    /* a descriptor name: what bash passes for -o >(gzip > x) */
    int p[2];
    if (pipe(p) != 0) abort();
    char fdname[64];
    snprintf(fdname, sizeof fdname, "/proc/self/fd/%d", p[1]);
    target = fdname;
    h_outcome o = h_run(write_stream, NULL);
    close(p[1]);
    cal_buf b = {0};
    char buf[4096];
    ssize_t k;
    while ((k = read(p[0], buf, sizeof buf)) > 0) cal_buf_add(&b, buf, (size_t)k);
    close(p[0]);
    const char *sub = h_file(dir, "procsub.cal", b.p, b.n);
    CHECK(o.status == 0 && holds(sub, 2), "-o /proc/self/fd/N (process substitution) writes through the pipe (%s)", o.err);
    cal_buf_free(&b);
    /* a link like /dev/stdout -> /proc/self/fd/1, with stdout appending to a log */
    const char *so = h_path(dir, "stdout"), *log = h_path(dir, "log.cal");
    target = log;
    write_stream(NULL);
    if (symlink("/proc/self/fd/1", so) != 0) abort();
    int saved = dup(1), fd = open(log, O_WRONLY | O_APPEND);
    dup2(fd, 1);
    close(fd);
    target = so;
    h_keep_stdout = 1;
    o = h_run(write_stream, NULL);
    h_keep_stdout = 0;
    dup2(saved, 1);
    close(saved);
    CHECK(o.status == 0 && is_type(so, S_IFLNK) && holds(log, 4),
          "-o /dev/stdout with stdout appended to a log (>>): the link stays, the log has both streams (%s)", o.err);
}

static void test_names(void) {
    const char *real = h_path(dir, "real.cal"), *link = h_path(dir, "link.cal");
    target = real;
    write_stream(NULL);
    chmod(real, 0604);
    if (symlink("real.cal", link) != 0) abort();
    target = link;
    EXPECT_OK(write_stream, NULL, "-o a symlink to a regular file");
    struct stat st;
    CHECK(is_type(link, S_IFLNK) && stat(real, &st) == 0 && (st.st_mode & 07777) == 0604 && holds(real, 2),
          "the link stays a link, its target is replaced and keeps its mode 0604");
    const char *dangling = h_path(dir, "dangling.cal");
    if (symlink("made-by-link.cal", dangling) != 0) abort();
    target = dangling;
    EXPECT_OK(write_stream, NULL, "-o a dangling symlink");
    CHECK(is_type(dangling, S_IFLNK) && holds(h_path(dir, "made-by-link.cal"), 2), "its target is created");
    for (int len = 254; len <= 255; len++) {
        char name[256];
        memset(name, 'n', (size_t)len);
        memcpy(name + len - 4, ".cal", 4);
        name[len] = 0;
        target = h_path(dir, name);
        EXPECT_OK(write_stream, NULL, "-o a %d-byte name (the temp name is cut to NAME_MAX)", len);
        CHECK(holds(target, 2) && !temps_left(), "the %d-byte file holds the stream, no temp is left", len);
    }
}

static void check_only(void *path) { cal_output_check(path); }

static void test_refused(void) {
    EXPECT_DIE(2, "^hostile: the output name is empty \\(see --help\\)$", check_only, "", "-o '' is a usage error");
    EXPECT_DIE(2, "^hostile: /tmp: output is a directory \\(see --help\\)$", check_only, "/tmp", "-o DIR is a usage error");
    EXPECT_DIE(2, "output is a directory", check_only, dir, "-o DIR/ ... also when named through the check");
    target = "";
    EXPECT_DIE(2, "the output name is empty", write_stream, NULL, "cal_writer_open checks the name too");
    EXPECT_DIE(1, "^hostile: /nonexistent/x.cal: cannot write: /nonexistent: No such file or directory$", check_only,
               "/nonexistent/x.cal", "a missing directory is an error before any work");
    EXPECT_DIE(1, "cannot write: descriptor 987 is not open for writing", check_only, "/proc/self/fd/987",
               "a descriptor name that is not open");
    EXPECT_OK(check_only, "-", "- is stdout");
}

/* An ignored SIGINT stays ignored once a temp file is registered; SIGTERM
 * removes the temp file. */
static void ignore_sigint(void *arg) {
    (void)arg;
    signal(SIGINT, SIG_IGN);
    cal_writer *w = cal_writer_open(target);
    cal_write_text(w, "a", 1, "one", 3);
    raise(SIGINT); /* nohup and `cmd &` in a script ignore it: carry on */
    cal_writer_close(w);
}

static void killed(void *arg) {
    (void)arg;
    cal_writer *w = cal_writer_open(target);
    cal_write_text(w, "a", 1, "one", 3);
    cal_writer_flush(w);
    raise(SIGTERM);
}

/* Every signal that ends a program, sent while a temp file is open: it is
 * removed, one line says what happened, the program ends by that signal. */
static int sent_sig;
static void killed_by(void *arg) {
    (void)arg;
    /* a job started in the background by a shell inherits SIGINT and SIGQUIT
     * ignored, which the writer keeps so: the default, as from a terminal */
    signal(sent_sig, SIG_DFL);
    cal_writer *w = cal_writer_open(target);
    cal_write_text(w, "a", 1, "one", 3);
    cal_writer_flush(w);
    raise(sent_sig);
    exit(0);
}

/* A write past ulimit -f (SIGXFSZ, as the shell leaves it): one line, the
 * temp file removed. */
static void too_big(void *arg) {
    (void)arg;
    signal(SIGXFSZ, SIG_DFL);
    struct rlimit r = {1 << 16, 1 << 16};
    setrlimit(RLIMIT_FSIZE, &r);
    cal_writer *w = cal_writer_open(target);
    static char text[4096];
    memset(text, 'x', sizeof text);
    for (int i = 0; i < 100; i++) cal_write_text(w, "a", (uint64_t)i, text, sizeof text);
    cal_writer_close(w);
}

static void test_fatal_signals(void) {
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGXCPU, SIGALRM, SIGVTALRM, SIGPROF, SIGUSR1,
                               SIGUSR2, SIGPIPE, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS, SIGTRAP};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        sent_sig = sigs[i];
        target = h_path(dir, "sig.cal");
        h_outcome o = h_run(killed_by, NULL);
        struct stat st;
        int ok = o.status == 128 + sigs[i] && stat(target, &st) != 0 && !temps_left() && o.lines == 1 &&
                 h_match(o.err, "^hostile: .*; removed the unfinished .*/sig\\.cal\\.tmp\\.[0-9]+$");
        CHECK(ok, "signal %d (%s): the temp file removed, one line, the signal's status", sigs[i], strsignal(sigs[i]));
        if (!ok) printf("# status %d, stderr: %s\n", o.status, o.err);
    }
    target = h_path(dir, "big.cal");
    EXPECT_DIE(1, "big\\.cal: write error: the file size limit is reached \\(ulimit -f; SIGXFSZ\\)$", too_big, NULL,
               "a write past ulimit -f (SIGXFSZ): one line, exit 1");
    CHECK(!temps_left(), "  and no temp file is left");
}

static void test_signals(void) {
    test_fatal_signals();
    target = h_path(dir, "sigint.cal");
    EXPECT_OK(ignore_sigint, NULL, "an inherited SIG_IGN for SIGINT is kept by the cleanup handler");
    CHECK(holds(target, 1), "the output was completed");
    target = h_path(dir, "sigterm.cal");
    h_outcome o = h_run(killed, NULL);
    struct stat st;
    CHECK(o.status == 128 + SIGTERM && stat(target, &st) != 0 && !temps_left(),
          "SIGTERM ends it by the signal and leaves neither output nor temp file (status %d)", o.status);
}

/* With stdout and stderr closed, open() hands out 1 and 2: an output there
 * would receive what is printed on stdout/stderr. */
static void closed_stdio(void *arg) {
    (void)arg;
    close(1), close(2);
    cal_writer *w = cal_writer_open(target);
    cal_write_text(w, "a", 1, "one", 3);
    cal_writer_flush(w);
    printf("this goes nowhere\n");
    fflush(stdout);
    fprintf(stderr, "this goes nowhere\n");
    fflush(stderr);
    cal_write_text(w, "b", 2, "two", 3);
    cal_writer_close(w);
}

/* Every descriptor under a small RLIMIT_NOFILE taken; given back by an
 * error-exit hook, so that LeakSanitizer can still read /proc at exit. */
static int hogs[16], nhogs;
static void give_back(void) {
    while (nhogs) close(hogs[--nhogs]);
}

static void few_files(void *arg) {
    (void)arg;
    struct rlimit rl = {16, 16};
    setrlimit(RLIMIT_NOFILE, &rl);
    int fd;
    while (nhogs < 16 && (fd = open("/dev/null", O_RDONLY)) >= 0) hogs[nhogs++] = fd;
    cal_atexit_cleanup(give_back);
    write_stream(NULL);
}

static void test_limits(void) {
    target = h_path(dir, "closed.cal");
    EXPECT_OK(closed_stdio, NULL, "stdout and stderr closed");
    CHECK(holds(target, 2), "the output holds exactly the two records (nothing printed landed in it)");
    target = h_path(dir, "nofile.cal");
    EXPECT_DIE(1, "^hostile: .*nofile\\.cal.*: cannot create: Too many open files$", few_files, NULL,
               "no descriptor left (ulimit -n): one line, exit 1");
}

/* ENOSPC on a real file system: the old file stays, no temp is left. */
static void big_stream(void *arg) {
    (void)arg;
    cal_writer *w = cal_writer_open(target);
    static char text[8192];
    memset(text, 'x', sizeof text);
    for (int i = 0; i < 64; i++) cal_write_text(w, "big", (uint64_t)i, text, sizeof text);
    cal_writer_close(w);
}

static void test_enospc(void) {
    const char *mnt = h_path(dir, "small");
    mkdir(mnt, 0700);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "mount -t tmpfs -o size=64k tmpfs %s 2>/dev/null", mnt);
    if (system(cmd) != 0) {
        printf("skip - ENOSPC on a 64 KiB tmpfs: mount refused (needs root and CAP_SYS_ADMIN)\n");
        return;
    }
    char old[700];
    snprintf(old, sizeof old, "%s/out.cal", mnt);
    target = old;
    write_stream(NULL);
    EXPECT_DIE(1, "out\\.cal.*No space left on device$", big_stream, NULL, "a full tmpfs: one line, exit 1");
    char ls[1400];
    snprintf(ls, sizeof ls, "test \"$(ls -a %s | wc -l)\" = 3", mnt);
    CHECK(holds(old, 2) && system(ls) == 0, "the old output is intact and no temp file is left");
    snprintf(cmd, sizeof cmd, "umount %s", mnt);
    if (system(cmd) != 0) printf("# umount %s failed\n", mnt);
}

int main(void) {
    cal_set_progname("hostile");
    if (!mkdtemp(dir)) return 1;
    /* First: a child inherits whether this process installed the cleanup
     * handler, and the other tests write from this process too. */
    test_signals();
    test_special();
    test_names();
    test_refused();
    test_limits();
    test_enospc();
    if (h_rmdir(dir)) return 1;
    TEST_END();
}
