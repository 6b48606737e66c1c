/* find.c - -t NAME lookup and the list of fetched tokenizers (see find.h). */
#include "tok/find.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/buf.h"
#include "base/datadir.h"
#include "base/err.h"

static int is_file(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static char *join(const char *dir, const char *name, const char *tail) {
    int n = snprintf(NULL, 0, "%s/%s%s", dir, name, tail);
    char *p = cal_xmalloc((size_t)n + 1);
    snprintf(p, (size_t)n + 1, "%s/%s%s", dir, name, tail);
    return p;
}

/* DIR/NAME as a model folder, DIR/NAME.model, DIR/NAME: the first that exists. */
static char *in_dir(const char *dir, const char *name) {
    static const char *const folder[] = {"/tokenizer.json", "/tokenizer.model"};
    for (size_t i = 0; i < 2; i++) {
        char *p = join(dir, name, folder[i]);
        int ok = is_file(p);
        free(p);
        if (ok) return join(dir, name, "");
    }
    static const char *const file[] = {".model", ""};
    for (size_t i = 0; i < 2; i++) {
        char *p = join(dir, name, file[i]);
        if (is_file(p)) return p;
        free(p);
    }
    return NULL;
}

char *cal_tok_find(const char *arg) {
    struct stat st;
    if (stat(arg, &st) == 0 || strchr(arg, '/') || !*arg) return cal_xstrdup(arg);
    char **dirs = cal_data_dirs("tokenizers", "CAL_TOKENIZERS"), *p = NULL;
    for (size_t i = 0; dirs[i] && !p; i++) p = in_dir(dirs[i], arg);
    cal_data_dirs_free(dirs);
    return p ? p : cal_xstrdup(arg);
}

static int by_name(const void *a, const void *b) {
    return strcmp(((const cal_tok_entry *)a)->name, ((const cal_tok_entry *)b)->name);
}

/* NAME's source in DIR/index.tsv ("NAME<TAB>SOURCE" lines), or NULL. */
static char *source_of(const char *dir, const char *name) {
    char *p = join(dir, "index.tsv", "");
    FILE *f = fopen(p, "r");
    free(p);
    if (!f) return NULL;
    char line[1024], *r = NULL;
    size_t nl = strlen(name);
    while (!r && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (!strncmp(line, name, nl) && line[nl] == '\t') r = cal_xstrdup(line + nl + 1);
    }
    fclose(f);
    return r;
}

cal_tok_entry *cal_tok_entries(size_t *n) {
    char **dirs = cal_data_dirs("tokenizers", "CAL_TOKENIZERS");
    cal_tok_entry *v = NULL;
    *n = 0;
    for (size_t d = 0; dirs[d]; d++) {
        DIR *dp = opendir(dirs[d]);
        if (!dp) continue;
        size_t first = *n;
        for (struct dirent *e; (e = readdir(dp));) {
            char name[256];
            size_t len = strlen(e->d_name);
            if (e->d_name[0] == '.' || len >= sizeof name || !strcmp(e->d_name, "index.tsv")) continue;
            memcpy(name, e->d_name, len + 1);
            if (len > 6 && !strcmp(name + len - 6, ".model")) name[len - 6] = 0;
            char *p = in_dir(dirs[d], name);
            int seen = !p;
            for (size_t k = 0; k < *n && !seen; k++) seen = !strcmp(v[k].name, name);
            if (seen) {
                free(p);
                continue;
            }
            v = cal_xrealloc(v, (*n + 1) * sizeof *v);
            v[*n] = (cal_tok_entry){cal_xstrdup(name), p, source_of(dirs[d], name)};
            (*n)++;
        }
        closedir(dp);
        if (*n > first) qsort(v + first, *n - first, sizeof *v, by_name);
    }
    cal_data_dirs_free(dirs);
    return v;
}

void cal_tok_entries_free(cal_tok_entry *v, size_t n) {
    for (size_t i = 0; i < n; i++) free(v[i].name), free(v[i].path), free(v[i].source);
    free(v);
}

char *cal_tok_names(void) {
    size_t n;
    cal_tok_entry *v = cal_tok_entries(&n);
    cal_buf b = {0};
    for (size_t i = 0; i < n; i++) cal_buf_addf(&b, "%s%s", i ? ", " : "", v[i].name);
    cal_buf_addc(&b, 0);
    cal_tok_entries_free(v, n);
    return b.p;
}
