/* scratch.h - for unit tests that write files and test error exits: a
 * scratch folder, and a function expected to end the program (cal_die) run
 * in a child process. */
#ifndef CAL_TEST_SCRATCH_H
#define CAL_TEST_SCRATCH_H
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* The scratch folder: mkdtemp(t_dir) once in main. */
static char t_dir[] = "/tmp/calunit.XXXXXX";

/* t_dir/name (four buffers in turn, so a few can be used at once). */
static const char *t_path(const char *name) {
    static char buf[4][300];
    static int k;
    k = (k + 1) & 3;
    snprintf(buf[k], sizeof buf[k], "%s/%s", t_dir, name);
    return buf[k];
}

/* Runs fn(arg) in a child with stderr to a pipe; returns its exit status
 * (0 when fn returned) and the start of what it wrote in msg. */
static int t_child(void (*fn)(void *), void *arg, char *msg, size_t n) {
    int p[2];
    if (pipe(p) != 0) return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        dup2(p[1], 2);
        fn(arg);
        exit(0);
    }
    close(p[1]);
    size_t got = 0;
    for (ssize_t k; got < n - 1 && (k = read(p[0], msg + got, n - 1 - got)) > 0;) got += (size_t)k;
    while (got && msg[got - 1] == '\n') got--;
    msg[got] = 0;
    close(p[0]);
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#endif
