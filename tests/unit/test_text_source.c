/* test_text_source.c - lib/text/source.c: what a SOURCE names (a corpus,
 * a file of the same name first, stdin, a path), its label, the one-line
 * errors for a missing corpus or file, and a directory's files in sorted
 * order (hidden ones skipped, subdirectories where they sort, stopping). */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "child.h"
#include "test.h"
#include "text/source.h"

static void touch(const char *p) {
    FILE *f = fopen(p, "w");
    if (f) fclose(f);
}

static const char *open_arg;
static void open_run(void *arg) {
    (void)arg;
    cal_source s;
    cal_source_open(&s, open_arg, NULL);
    printf("%s|%s|%d", s.path, s.label, s.corpus);
    cal_source_close(&s);
}
static const char *opened(const char *src, int *st) {
    static char msg[512];
    open_arg = src;
    *st = t_child(open_run, NULL, msg, sizeof msg);
    return msg;
}

typedef struct {
    cal_buf seen;
    int stop_at, calls;
} walk;
static int on_file(void *ctx, const char *f) {
    walk *w = ctx;
    cal_buf_addf(&w->seen, "%s;", f);
    return ++w->calls == w->stop_at;
}

int main(void) {
    cal_set_progname("t");
    char dir[] = "/tmp/test_text_source.XXXXXX";
    if (!mkdtemp(dir) || chdir(dir) != 0) return 1;
    mkdir("corp", 0755), mkdir("d", 0755), mkdir("d/sub", 0755), mkdir("data", 0755);
    touch("corp/wiki.jsonl.zst"), touch("data/x.jsonl.gz");
    touch("d/b.txt"), touch("d/a.txt"), touch("d/.hidden"), touch("d/sub/c.txt"), touch("d/B.txt"), touch("d/sub/.h");
    setenv("CAL_CORPORA", "corp", 1);
    int st;
    const char *m = opened("wiki", &st);
    CHECK(st == 0 && !strcmp(m, "corp/wiki.jsonl.zst|wiki|1"), "a corpus name: the built file: %s", m);
    m = opened("c4", &st);
    CHECK(st == 1 && !strncmp(m, "t: corpus 'c4' is not built (looked in corp, ", 45) && strstr(m, "): run 'make corpora'") &&
              !strchr(m, '\n'),
          "a corpus not built: %s", m);
    touch("wiki");
    m = opened("wiki", &st);
    CHECK(st == 0 && !strcmp(m, "wiki|wiki|0"), "a file of the corpus's name comes first: %s", m);
    m = opened("-", &st);
    CHECK(st == 0 && !strcmp(m, "-|stdin|0"), "- is stdin: %s", m);
    m = opened("data/x.jsonl.gz", &st);
    CHECK(st == 0 && !strcmp(m, "data/x.jsonl.gz|x|0"), "a file: its label: %s", m);
    m = opened("d", &st);
    CHECK(st == 0 && !strcmp(m, "d|d|0"), "a directory: %s", m);
    m = opened("wikki", &st);
    CHECK(st == 1 && !strcmp(m, "t: wikki: no such file, and not a built-in corpus (foldoc|wiki, prose|web|c4|pile, "
                                "code, stories|tiny, multilingual, technical)"),
          "a name like a corpus's: %s", m);
    m = opened("no/such.txt", &st);
    CHECK(st == 1 && !strcmp(m, "t: no/such.txt: No such file or directory"), "a missing path: %s", m);
    cal_source s;
    cal_source_open(&s, "wiki", "mine");
    CHECK(!strcmp(s.label, "mine") && !s.corpus, "-L gives the label");
    cal_source_close(&s);
    unlink("wiki");
    cal_source_open(&s, "wiki", "mine");
    CHECK(!strcmp(s.label, "mine") && s.corpus, "-L gives a corpus's label too");
    cal_source_close(&s);

    walk w = {{0}, 0, 0};
    int r = cal_source_files("d", on_file, &w, NULL);
    CHECK(r == 0 && !strcmp(w.seen.p, "d/B.txt;d/a.txt;d/b.txt;d/sub/c.txt;"), "a directory's files: %s", w.seen.p);
    w.seen.n = 0, w.calls = 0, w.stop_at = 2;
    r = cal_source_files("d", on_file, &w, NULL);
    CHECK(r == 1 && !strcmp(w.seen.p, "d/B.txt;d/a.txt;"), "stops when the callback says so");
    w.seen.n = 0, w.calls = 0, w.stop_at = 0;
    r = cal_source_files("data/x.jsonl.gz", on_file, &w, NULL) + cal_source_files("-", on_file, &w, NULL);
    CHECK(r == 0 && !strcmp(w.seen.p, "data/x.jsonl.gz;-;"), "a file or - is itself");
    cal_buf_free(&w.seen);
    const char *rm[] = {"corp/wiki.jsonl.zst", "data/x.jsonl.gz", "d/b.txt", "d/a.txt", "d/.hidden", "d/sub/c.txt",
                        "d/B.txt", "d/sub/.h", "d/sub", "d", "corp", "data"};
    for (size_t i = 0; i < sizeof rm / sizeof *rm; i++) remove(rm[i]);
    if (chdir("/") == 0) rmdir(dir);
    TEST_END();
}
