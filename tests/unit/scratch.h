/* scratch.h - for unit tests that write files and test error exits: a
 * scratch folder, and (child.h) a function expected to end the program
 * (cal_die) run in a child process. */
#ifndef CAL_TEST_SCRATCH_H
#define CAL_TEST_SCRATCH_H
#include <stdio.h>

#include "child.h" /* t_child */

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

#endif
