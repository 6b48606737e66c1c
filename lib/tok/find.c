/* find.c - -t NAME lookup (see find.h). */
#include "tok/find.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/datadir.h"
#include "base/err.h"

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

char *cal_tok_find(const char *arg) {
    if (is_file(arg) || strchr(arg, '/') || !*arg) return cal_xstrdup(arg);
    char **dirs = cal_data_dirs("tokenizers", "CAL_TOKENIZERS"), *p = NULL;
    for (size_t i = 0; dirs[i] && !p; i++) p = in_dir(dirs[i], strlen(dirs[i]), arg);
    cal_data_dirs_free(dirs);
    return p ? p : cal_xstrdup(arg);
}
