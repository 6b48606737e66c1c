/* corpus.c - see corpus.h. */
#include "text/corpus.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/datadir.h"

/* {file, name, aliases}: the built file FILE.jsonl.zst, the name that says
 * what the corpus is, and the names of the peers' datasets it stands in for
 * (space-separated). The files keep their first names (wiki, web) so that
 * scripts reading build/corpora/NAME.jsonl.zst go on working. */
static const char *const CORPORA[][3] = {
    {"wiki", "foldoc", "wiki"},   {"web", "prose", "web c4 pile"}, {"code", "code", ""},
    {"stories", "stories", "tiny"}, {"multilingual", "multilingual", ""}, {"technical", "technical", ""}};
#define N_CORPORA (sizeof CORPORA / sizeof *CORPORA)

/* 1 when name is one of the space-separated words of list. */
static int in_list(const char *list, const char *name) {
    size_t n = strlen(name);
    for (const char *p = list; n && *p;) {
        size_t w = strcspn(p, " ");
        if (w == n && !strncmp(p, name, n)) return 1;
        p += w + (p[w] == ' ');
    }
    return 0;
}

const char *cal_corpus_canon(const char *name) {
    for (size_t i = 0; i < N_CORPORA; i++)
        if (!strcmp(name, CORPORA[i][1]) || in_list(CORPORA[i][2], name)) return CORPORA[i][0];
    return NULL;
}

char *cal_corpus_file(const char *canon, cal_buf *looked) {
    char **dirs = cal_data_dirs("corpora", "CAL_CORPORA");
    char *found = NULL;
    for (size_t i = 0; dirs[i] && !found; i++) {
        cal_buf p = {0};
        cal_buf_addf(&p, "%s/%s.jsonl.zst", dirs[i], canon);
        if (access(p.p, R_OK) == 0) {
            found = p.p;
            break;
        }
        cal_buf_free(&p);
        if (looked) cal_buf_addf(looked, "%s%s", i ? ", " : "", dirs[i]);
    }
    cal_data_dirs_free(dirs);
    return found;
}

/* Fills docs, bytes and srcs from the line of index.tsv (NAME \t DOCS \t
 * BYTES \t SOURCES) for name, when there is one. */
static void index_entry(const char *idx, const char *name, char *docs, char *bytes, char *srcs, size_t cap) {
    FILE *fp = fopen(idx, "r");
    char line[2048];
    while (fp && fgets(line, sizeof line, fp)) {
        line[strcspn(line, "\n")] = 0;
        char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL, *t3 = t2 ? strchr(t2 + 1, '\t') : NULL;
        if (!t3 || (size_t)(t1 - line) != strlen(name) || strncmp(line, name, (size_t)(t1 - line))) continue;
        *t1 = *t2 = *t3 = 0;
        snprintf(docs, 32, "%s", t1 + 1);
        snprintf(bytes, 32, "%s", t2 + 1);
        snprintf(srcs, cap, "%s", t3 + 1);
    }
    if (fp) fclose(fp);
}

int cal_corpus_list(FILE *out) {
    fprintf(out, "%-13s %-12s %9s %12s  %s\n", "NAME", "ALIASES", "DOCS", "BYTES", "SOURCES");
    for (size_t i = 0; i < N_CORPORA; i++) {
        const char *name = CORPORA[i][0];
        char *f = cal_corpus_file(name, NULL);
        char docs[32] = "-", bytes[32] = "-", srcs[1024] = "not built (run 'make corpora')";
        if (f) {
            snprintf(srcs, sizeof srcs, "%s", f);
            cal_buf idx = {0};
            cal_buf_addf(&idx, "%.*s/index.tsv", (int)(strrchr(f, '/') - f), f);
            index_entry(idx.p, name, docs, bytes, srcs, sizeof srcs);
            cal_buf_free(&idx);
            free(f);
        }
        fprintf(out, "%-13s %-12s %9s %12s  %s\n", CORPORA[i][1], CORPORA[i][2], docs, bytes, srcs);
    }
    return fflush(out) != 0 || ferror(out) ? -1 : 0;
}
