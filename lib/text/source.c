/* source.c - see source.h. */
#include "text/source.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/modelfile.h"

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>
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
        char why[4200];
        if (cal_path_kind(src, why, sizeof why)) cal_die("%s: %s", src, why); /* a link loop or a dangling link */
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

/* The folders being walked, outermost first: a link back to one is a cycle. */
typedef struct ancestor {
    dev_t dev;
    ino_t ino;
    const struct ancestor *up;
} ancestor;

static int walk(const char *path, const ancestor *up, int (*fn)(void *ctx, const char *file), void *ctx,
                cal_drops *drops) {
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
        struct stat st;
        if (stat(p.p, &st) != 0) {
            /* a broken link is an error that says what the name is */
            char kind[4200];
            const char *k = cal_path_kind(p.p, kind, sizeof kind);
            cal_die("%s: %s", p.p, k ? k : strerror(errno));
        }
        if (S_ISDIR(st.st_mode)) {
            int cycle = 0;
            for (const ancestor *a = up; a && !cycle; a = a->up) cycle = a->dev == st.st_dev && a->ino == st.st_ino;
            if (cycle) {
                cal_drops_note(drops, "folders", "skipped as links back to a folder above them (a cycle)", 1, 0, NULL);
            } else {
                ancestor me = {st.st_dev, st.st_ino, up};
                stop = walk(p.p, &me, fn, ctx, drops);
            }
        } else if (S_ISREG(st.st_mode)) {
            stop = fn(ctx, p.p);
        } else {
            /* opening a FIFO would wait for a writer, a device may never
             * end: only regular files are read from folders */
            const char *why = S_ISFIFO(st.st_mode)   ? "skipped in folders as FIFOs (not regular files)"
                              : S_ISSOCK(st.st_mode) ? "skipped in folders as sockets (not regular files)"
                                                     : "skipped in folders as devices (not regular files)";
            cal_drops_note(drops, "files", why, 1, 0, NULL);
        }
        cal_buf_free(&p);
    }
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
    return stop;
}

int cal_source_files(const char *path, int (*fn)(void *ctx, const char *file), void *ctx, cal_drops *drops) {
    struct stat sb;
    static cal_drops none; /* counts nobody reads, for callers without */
    if (!drops) drops = &none;
    if (strcmp(path, "-") == 0) return fn(ctx, path);
    if (stat(path, &sb) != 0) {
        char kind[4200];
        if (errno == ELOOP && cal_path_kind(path, kind, sizeof kind)) cal_die("%s: %s", path, kind);
        return fn(ctx, path);
    }
    if (!S_ISDIR(sb.st_mode)) return fn(ctx, path); /* named by the user: a FIFO or /dev/stdin is read */
    ancestor top = {sb.st_dev, sb.st_ino, NULL};
    return walk(path, &top, fn, ctx, drops);
}

/* A file's bytes, hashed by reading it (a Parquet file, which is mapped,
 * not streamed). */
uint64_t cal_source_file_hash(const char *file, uint64_t *bytes) {
    uint64_t h = 0;
    *bytes = 0;
    struct stat sb;
    int fd = stat(file, &sb) == 0 && S_ISREG(sb.st_mode) ? open(file, O_RDONLY) : -1; /* never a FIFO: no hang */
    if (fd < 0) return 0;
    XXH3_state_t *st = XXH3_createState();
    char *buf = cal_xmalloc(1 << 20);
    if (!st) cal_die("out of memory");
    XXH3_64bits_reset(st);
    for (ssize_t k; (k = read(fd, buf, 1 << 20)) != 0;) {
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) cal_die("%s: %s", file, strerror(errno));
        XXH3_64bits_update(st, buf, (size_t)k);
        *bytes += (uint64_t)k;
    }
    close(fd);
    h = XXH3_64bits_digest(st);
    XXH3_freeState(st);
    free(buf);
    return h;
}

void cal_source_fp_begin(cal_source_fp *f, const char *operand) {
    memset(f, 0, sizeof *f);
    f->whole = 1;
    f->skip = strlen(operand) + 1;
    if (!(f->st = XXH3_createState())) cal_die("out of memory");
    XXH3_64bits_reset(f->st);
}

void cal_source_fp_file(cal_source_fp *f, const char *file, uint64_t fp, uint64_t bytes, int whole) {
    const char *rel = strlen(file) > f->skip ? file + f->skip : file;
    uint8_t le[8];
    for (int i = 0; i < 8; i++) le[i] = (uint8_t)(fp >> (8 * i));
    XXH3_64bits_update(f->st, rel, strlen(rel) + 1);
    XXH3_64bits_update(f->st, le, 8);
    f->fp = fp, f->bytes += bytes, f->whole &= whole;
    f->files++;
}

void cal_source_fp_end(cal_source_fp *f, const char *operand, int dir, cal_buf *line) {
    line->n = 0;
    if (!f->whole || !f->files) cal_buf_add(line, "- -", 3);
    else cal_buf_addf(line, "%016llx %llu", (unsigned long long)(dir ? XXH3_64bits_digest(f->st) : f->fp),
                      (unsigned long long)f->bytes);
    cal_buf_addc(line, ' ');
    cal_meta_quote_arg(line, operand);
    XXH3_freeState(f->st);
    f->st = NULL;
}
