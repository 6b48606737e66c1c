/* test_text_corpus.c - lib/text/corpus.c: names and aliases, the lookup in
 * $CAL_CORPORA (and the directories it searched when a corpus is missing),
 * the exact --list table from index.tsv, and a failed write reported. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "test.h"
#include "text/corpus.h"

static void put(const char *dir, const char *name, const char *text) {
    cal_buf p = {0};
    cal_buf_addf(&p, "%s/%s", dir, name);
    FILE *f = fopen(p.p, "w");
    if (f) fputs(text, f), fclose(f);
    cal_buf_free(&p);
}

int main(void) {
    const char *names[][2] = {{"wiki", "wiki"},       {"foldoc", "wiki"},   {"web", "web"},
                              {"prose", "web"},      {"c4", "web"},        {"pile", "web"},
                              {"code", "code"},      {"stories", "stories"}, {"tiny", "stories"},
                              {"multilingual", "multilingual"}, {"technical", "technical"}};
    int ok = 1;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        ok &= cal_corpus_canon(names[i][0]) && !strcmp(cal_corpus_canon(names[i][0]), names[i][1]);
    CHECK(ok, "names and aliases (foldoc = wiki; prose = web = c4 = pile; tiny = stories)");
    CHECK(!cal_corpus_canon("Wiki") && !cal_corpus_canon("c5") && !cal_corpus_canon("") && !cal_corpus_canon("wiki.txt") &&
              !cal_corpus_canon("web c4") && !cal_corpus_canon("c") && !cal_corpus_canon("pil"),
          "other names are no corpus");

    char dir[] = "/tmp/test_text_corpus.XXXXXX";
    if (!mkdtemp(dir) || chdir(dir) != 0) return 1; /* away from ./build/corpora */
    setenv("CAL_CORPORA", dir, 1);
    put(dir, "wiki.jsonl.zst", "");
    put(dir, "code.jsonl.zst", "");
    put(dir, "index.tsv", "wiki\t2\t17\tFOLDOC (Debian foldoc)\nwikix\t9\t9\tno\ncode\t5\t1234567\tGo, Rust\n");
    cal_buf looked = {0};
    char *f = cal_corpus_file("wiki", &looked);
    cal_buf want = {0};
    cal_buf_addf(&want, "%s/wiki.jsonl.zst", dir);
    CHECK(f && !strcmp(f, want.p) && looked.n == 0, "found in $CAL_CORPORA: %s", f ? f : "(none)");
    free(f);
    f = cal_corpus_file("web", &looked);
    CHECK(!f && looked.p && !strncmp(looked.p, dir, strlen(dir)) && strstr(looked.p, "/../build/corpora") &&
              !strstr(looked.p, ", build/corpora"),
          "missing: the directories searched, $CAL_CORPORA first, never the current directory: %s",
          looked.p ? looked.p : "");

    char *buf = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&buf, &n);
    int r = cal_corpus_list(m);
    fclose(m);
    cal_buf t = {0};
    cal_buf_addf(&t, "NAME          ALIASES           DOCS        BYTES  SOURCES\n"
                     "foldoc        wiki                 2           17  FOLDOC (Debian foldoc)\n"
                     "prose         web c4 pile          -            -  not built (run 'make corpora')\n"
                     "code                               5      1234567  Go, Rust\n"
                     "stories       tiny                 -            -  not built (run 'make corpora')\n"
                     "multilingual                       -            -  not built (run 'make corpora')\n"
                     "technical                          -            -  not built (run 'make corpora')\n");
    CHECK(r == 0 && !strcmp(buf, t.p), "--list table from index.tsv");
    if (strcmp(buf, t.p)) printf("# got:\n%s", buf);
    free(buf);
    FILE *full = fopen("/dev/full", "w");
    CHECK(full && cal_corpus_list(full) == -1, "a failed write is reported");
    if (full) fclose(full);
    for (const char *x = "wiki.jsonl.zst\0code.jsonl.zst\0index.tsv\0"; *x; x += strlen(x) + 1) unlink(x);
    if (chdir("/") == 0) rmdir(dir);
    cal_buf_free(&looked), cal_buf_free(&want), cal_buf_free(&t);
    TEST_END();
}
