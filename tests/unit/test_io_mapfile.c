/* test_io_mapfile.c - lib/io/mapfile.c: a mapped file cut short under the
 * program ends it with a one-line error naming the file and the byte it
 * could not read, exit 1, and its temp outputs removed, not with a SIGBUS
 * crash; a SIGBUS that is not about a mapped file still kills. Both orders
 * of mapping the input and making the temp output (whichever handler comes
 * first): a cut mapped file is that one line alone (not outfile's "crashed"
 * line too), and a fault outside a guarded mapping still removes the temp
 * output and says so. The 100th of 100 mapped files (cal-blend maps one
 * per input) is guarded too. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/err.h"
#include "base/outfile.h"
#include "io/mapfile.h"
#include "test.h"

/* Runs f in a child with stderr into a pipe: its wait status, and what it
 * wrote in out. */
static int in_child(void (*f)(const char *), const char *dir, char *out, size_t cap) {
    int p[2];
    if (pipe(p)) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(p[1], 2);
        close(p[0]);
        f(dir);
        _exit(0);
    }
    close(p[1]);
    size_t n = 0;
    ssize_t k;
    while (n + 1 < cap && (k = read(p[0], out + n, cap - 1 - n)) > 0) n += (size_t)k;
    out[n] = 0;
    close(p[0]);
    int st;
    waitpid(pid, &st, 0);
    return st;
}

static void cut_short(const char *dir) {
    char path[512], out[512];
    snprintf(path, sizeof path, "%s/in.bin", dir);
    snprintf(out, sizeof out, "%s/out.st", dir);
    FILE *f = fopen(path, "wb");
    for (int i = 0; i < 3 * 4096; i++) fputc('x', f);
    fclose(f);
    cal_file *o = cal_file_create(out); /* a temp output, never committed */
    cal_file_write(o, "partial", 7);
    char err[600];
    cal_mapfile m;
    if (!cal_mapfile_open(&m, path, err, sizeof err)) _exit(3);
    if (truncate(path, 4096)) _exit(4);
    volatile const char *b = m.p;
    char c = b[2 * 4096 + 5]; /* past the new end: SIGBUS */
    (void)c;
    _exit(5);
}

static void stray(const char *dir) {
    (void)dir;
    char path[] = "/proc/self/exe", err[600];
    cal_mapfile m;
    cal_mapfile_open(&m, path, err, sizeof err); /* the handler is installed */
    raise(SIGBUS);
    _exit(6);
}

/* Maps in.bin (guarded) and makes a temp output, in the order `temp_first`;
 * then cuts in.bin and reads past its end, or (stray_fault) faults in
 * other.bin, mapped without a guard. */
static int temp_first, stray_fault;
static void ordered(const char *dir) {
    char path[512], other[512], out[512], err[600];
    snprintf(path, sizeof path, "%s/in.bin", dir);
    snprintf(other, sizeof other, "%s/other.bin", dir);
    snprintf(out, sizeof out, "%s/out.st", dir);
    const char *files[] = {path, other};
    for (int i = 0; i < 2; i++) {
        FILE *f = fopen(files[i], "wb");
        for (int j = 0; j < 3 * 4096; j++) fputc('x', f);
        fclose(f);
    }
    cal_file *o = temp_first ? cal_file_create(out) : NULL;
    cal_mapfile m;
    if (!cal_mapfile_open(&m, path, err, sizeof err)) _exit(3);
    if (!o) o = cal_file_create(out);
    cal_file_write(o, "partial", 7);
    volatile const char *b = m.p;
    if (stray_fault) {
        FILE *f = fopen(other, "rb");
        b = mmap(NULL, 3 * 4096, PROT_READ, MAP_PRIVATE, fileno(f), 0);
        if (b == MAP_FAILED) _exit(3);
        if (truncate(other, 4096)) _exit(4);
    } else if (truncate(path, 4096)) {
        _exit(4);
    }
    char c = b[2 * 4096 + 5]; /* past the new end: SIGBUS */
    (void)c;
    _exit(5);
}

/* 100 files mapped at once; the last one cut and read past its end. */
static void many(const char *dir) {
    char path[512], err[600];
    cal_mapfile m[100];
    for (int i = 0; i < 100; i++) {
        snprintf(path, sizeof path, "%s/m%d.bin", dir, i);
        FILE *f = fopen(path, "wb");
        for (int j = 0; j < 3 * 4096; j++) fputc('x', f);
        fclose(f);
        if (!cal_mapfile_open(&m[i], path, err, sizeof err)) _exit(3);
    }
    if (truncate(path, 4096)) _exit(4);
    volatile const char *b = m[99].p;
    char c = b[2 * 4096 + 5];
    (void)c;
    _exit(5);
}

static int temp_left(const char *dir) {
    DIR *dd = opendir(dir);
    int left = 0;
    struct dirent *e;
    while (dd && (e = readdir(dd)))
        if (strncmp(e->d_name, "out.st", 6) == 0) left++;
    if (dd) closedir(dd);
    return left;
}

int main(void) {
    cal_set_progname("test_io_mapfile");
    char dir[] = "/tmp/calmapXXXXXX";
    CHECK(mkdtemp(dir) != NULL, "temp dir");
    char msg[1024], want[700];
    int st = in_child(cut_short, dir, msg, sizeof msg);
    snprintf(want, sizeof want, "test_io_mapfile: %s/in.bin: byte 8197: the file shrank while it was read", dir);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1, "cut short: exit 1 (status %#x)", st);
    CHECK(strncmp(msg, want, strlen(want)) == 0 && strchr(msg, '\n') == msg + strlen(msg) - 1,
          "one line naming the file and byte: %s", msg);
    int left = temp_left(dir);
    CHECK(left == 0, "the temp output is removed, no out.st made (%d left)", left);

    st = in_child(stray, dir, msg, sizeof msg);
    /* under the sanitizers the action before ours is AddressSanitizer's: it reports the signal */
    int sanitized = getenv("CAL_SANITIZE") && *getenv("CAL_SANITIZE");
    CHECK((WIFSIGNALED(st) && WTERMSIG(st) == SIGBUS) || (sanitized && st != 0 && strstr(msg, "AddressSanitizer")),
          "a SIGBUS not about a mapped file still kills (status %#x)", st);

    for (temp_first = 0; temp_first < 2; temp_first++) {
        const char *order = temp_first ? "temp output, then mapped input" : "mapped input, then temp output";
        stray_fault = 0;
        st = in_child(ordered, dir, msg, sizeof msg);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1 && strncmp(msg, want, strlen(want)) == 0 &&
                  strchr(msg, '\n') == msg + strlen(msg) - 1 && temp_left(dir) == 0,
              "%s, the input cut: exit 1, mapguard's line alone, the temp removed (status %#x: %s)", order, st, msg);
        stray_fault = 1;
        st = in_child(ordered, dir, msg, sizeof msg);
        CHECK(!(WIFEXITED(st) && WEXITSTATUS(st) == 0) && strstr(msg, "crashed (SIGBUS); removed the unfinished ") &&
                  !strstr(msg, "shrank") && temp_left(dir) == 0,
              "%s, a fault outside the mapping: a crash, said, the temp removed (status %#x: %s)", order, st, msg);
    }

    st = in_child(many, dir, msg, sizeof msg);
    snprintf(want, sizeof want, "test_io_mapfile: %s/m99.bin: byte 8197: the file shrank while it was read", dir);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1 && strncmp(msg, want, strlen(want)) == 0,
          "the 100th of 100 mapped files cut: exit 1, its line (status %#x: %s)", st, msg);

    char path[600];
    for (int i = 0; i < 100; i++) {
        snprintf(path, sizeof path, "%s/m%d.bin", dir, i);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/in.bin", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/other.bin", dir);
    unlink(path);
    rmdir(dir);
    TEST_END();
}
