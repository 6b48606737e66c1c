/* source.c - see source.h. */
#include "text/source.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/buf.h"
#include "base/err.h"
#include "text/corpus.h"
#include "text/format.h"

void cal_source_open(cal_source *s, const char *src, const char *label) {
    struct stat sb;
    int std = !strcmp(src, "-"), exists = std || stat(src, &sb) == 0;
    const char *canon = cal_corpus_canon(src);
    *s = (cal_source){.path = src};
    if (canon && !exists) {
        cal_buf looked = {0};
        s->owned = cal_corpus_file(canon, &looked);
        if (!s->owned) cal_die("corpus '%s' is not built (looked in %s): run 'make corpora'", src, looked.p);
        cal_buf_free(&looked);
        s->path = s->owned, s->corpus = 1;
    } else if (!exists) {
        if (!strchr(src, '/') && !strchr(src, '.'))
            cal_die("%s: no such file, and not a built-in corpus (foldoc|wiki, prose|web|c4|pile, code, "
                    "stories|tiny, multilingual, technical)", src);
        cal_die("%s: %s", src, strerror(errno));
    }
    if (label || s->corpus) snprintf(s->label, sizeof s->label, "%s", label ? label : src);
    else if (std) snprintf(s->label, sizeof s->label, "stdin");
    else cal_label_from_path(src, s->label, sizeof s->label);
}

void cal_source_close(cal_source *s) {
    free(s->owned);
    s->owned = NULL;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int cal_source_files(const char *path, int (*fn)(void *ctx, const char *file), void *ctx) {
    struct stat sb;
    if (strcmp(path, "-") == 0 || stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) return fn(ctx, path);
    DIR *d = opendir(path);
    if (!d) cal_die("%s: %s", path, strerror(errno));
    char **names = NULL;
    size_t n = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.') continue;
        if (n == cap) names = cal_xrealloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names);
        names[n++] = cal_xstrdup(e->d_name);
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, by_name);
    int stop = 0;
    for (size_t i = 0; i < n && !stop; i++) {
        cal_buf p = {0};
        cal_buf_addf(&p, "%s/%s", path, names[i]);
        stop = cal_source_files(p.p, fn, ctx);
        cal_buf_free(&p);
    }
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
    return stop;
}
