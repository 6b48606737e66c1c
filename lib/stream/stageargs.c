/* stageargs.c - see stageargs.h. */
#include "stream/stageargs.h"

#include "base/err.h"

#include <stdlib.h>
#include <string.h>

/* 1: argv[i] is opt with its value attached; 2: the value is the next word. */
static int match(const char *a, const char *opt) {
    size_t n = strlen(opt);
    if (strncmp(a, opt, n)) return 0;
    if (a[n] == 0) return 2;
    if (opt[1] == '-') return a[n] == '=';
    return 1;
}

void cal_add_stage_without(cal_meta *m, int argc, char **argv, const char *extra, const char *const *drop) {
    char **v = cal_xmalloc(((size_t)argc + 1) * sizeof *v);
    int n = 0;
    for (int i = 0; i < argc; i++) {
        if (i > 0 && !strcmp(argv[i], "--")) { /* operands from here on */
            while (i < argc) v[n++] = argv[i++];
            break;
        }
        int k = 0;
        for (const char *const *d = drop; i > 0 && *d && !k; d++) k = match(argv[i], *d);
        if (k == 2) i++;
        if (!k) v[n++] = argv[i];
    }
    v[n] = NULL;
    cal_meta_add_stage(m, n, v, extra);
    free(v);
}

int cal_arg_given(int argc, char **argv, const char *lng, const char *shrt) {
    size_t n = strlen(lng);
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if ((!strncmp(argv[i], lng, n) && (argv[i][n] == 0 || argv[i][n] == '=')) ||
            (shrt && !strncmp(argv[i], shrt, 2)))
            return 1;
    return 0;
}
