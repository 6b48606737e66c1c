/* tok_find.c - -t NAME lookup (see tok_find.h). */
#include "tok_find.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util.h"

#ifndef CAL_DATADIR
#define CAL_DATADIR "/usr/local/share/calkit"
#endif

static int is_file(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* DIR/NAME/tokenizer.json, DIR/NAME.model, DIR/NAME: the first that exists. */
static char *in_dir(const char *dir, size_t dlen, const char *name) {
    static const char *const form[] = {"%.*s/%s/tokenizer.json", "%.*s/%s.model", "%.*s/%s"};
    for (size_t i = 0; i < sizeof form / sizeof *form; i++) {
        int n = snprintf(NULL, 0, form[i], (int)dlen, dir, name);
        char *p = cal_xmalloc((size_t)n + 1);
        snprintf(p, (size_t)n + 1, form[i], (int)dlen, dir, name);
        if (is_file(p)) return p;
        free(p);
    }
    return NULL;
}

char *cal_tok_find(const char *arg, const char *argv0) {
    if (is_file(arg) || strchr(arg, '/') || !*arg) return cal_xstrdup(arg);
    char *p = NULL;
    const char *env = getenv("CAL_TOKENIZERS");
    if (env && *env && (p = in_dir(env, strlen(env), arg))) return p;
    if ((p = in_dir("build/tokenizers", strlen("build/tokenizers"), arg))) return p;
    /* bin/cal-encode -> bin/../build/tokenizers, wherever it was run from */
    char *exe = cal_exe_dir();
    if (!exe && argv0 && strrchr(argv0, '/')) {
        exe = cal_xstrdup(argv0);
        *strrchr(exe, '/') = 0;
    }
    if (exe) {
        /* bin/ beside build/, or build/bin-san/ inside it */
        static const char *const rel[] = {"/../build/tokenizers", "/../tokenizers"};
        for (size_t i = 0; i < 2 && !p; i++) {
            cal_buf d = {0};
            cal_buf_add(&d, exe, strlen(exe));
            cal_buf_add(&d, rel[i], strlen(rel[i]));
            p = in_dir(d.p, d.n, arg);
            cal_buf_free(&d);
        }
        free(exe);
        if (p) return p;
    }
    if ((p = in_dir(CAL_DATADIR "/tokenizers", strlen(CAL_DATADIR "/tokenizers"), arg))) return p;
    return cal_xstrdup(arg);
}
