/* child.h - runs a function that may end the program (cal_die and friends)
 * in a child process, for the unit tests of library code that reports
 * errors by exiting. */
#ifndef CAL_TEST_CHILD_H
#define CAL_TEST_CHILD_H

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs fn(arg) in a child with stdout and stderr into msg (NUL-terminated,
 * at most n - 1 bytes, without a last newline); returns its exit status (0 when fn returns), or -1
 * when it did not exit normally. */
static inline int t_child(void (*fn)(void *), void *arg, char *msg, size_t n) {
    int p[2];
    if (pipe(p) != 0) return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(p[1], 1);
        dup2(p[1], 2);
        close(p[0]);
        fn(arg);
        fflush(stdout);
        _exit(0);
    }
    close(p[1]);
    size_t got = 0;
    for (ssize_t k; got < n - 1 && (k = read(p[0], msg + got, n - 1 - got)) > 0;) got += (size_t)k;
    if (got && msg[got - 1] == '\n') got--;
    msg[got] = 0;
    close(p[0]);
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#endif
