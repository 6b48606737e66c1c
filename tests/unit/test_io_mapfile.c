/* test_io_mapfile.c - lib/io/mapfile.c: a mapped file cut short under the
 * program ends it with a one-line error naming the file and the byte it
 * could not read, exit 1, and its temp outputs removed, not with a SIGBUS
 * crash; a SIGBUS that is not about a mapped file still kills. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    DIR *dd = opendir(dir);
    int left = 0;
    struct dirent *e;
    while (dd && (e = readdir(dd)))
        if (strncmp(e->d_name, "out.st", 6) == 0) left++;
    if (dd) closedir(dd);
    CHECK(left == 0, "the temp output is removed, no out.st made (%d left)", left);

    st = in_child(stray, dir, msg, sizeof msg);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGBUS, "a SIGBUS not about a mapped file still kills (status %#x)", st);

    char path[600];
    snprintf(path, sizeof path, "%s/in.bin", dir);
    unlink(path);
    rmdir(dir);
    TEST_END();
}
