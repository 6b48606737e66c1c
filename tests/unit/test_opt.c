/* test_opt.c - lib/base/opt.c: every accepted form of an option, operands in
 * GNU order, "--", bundles, the stage line, usage made from the table, and the
 * one wording of each usage error (checked in a child process). */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/err.h"
#include "base/opt.h"
#include "test.h"

enum { O_SEED = 256, O_PROGRESS };
static const cal_opt opts[] = {
    {'l', "length", "N", CAL_STAGE, "row length", 0},
    {'o', "output", "FILE", 0, "write to FILE", 0},
    {'v', "verbose", NULL, 0, "summary", 0},
    {'x', NULL, NULL, CAL_STAGE, "a short-only flag", 0},
    {0, "seed", "S", CAL_STAGE, "seed of every random choice\n(default 0)", O_SEED},
    {0, "progress", NULL, 0, "progress", O_PROGRESS},
    {0},
};
static const cal_prog prog = {"prog -l N [FILE]", "Test program.", opts, "Footer.\n"};

typedef struct {
    long len, seed;
    int verbose, x, progress;
    const char *out;
} got;

static got parse(int argc, char **argv, cal_args *a) {
    got g = {0, -1, 0, 0, 0, NULL};
    cal_args_init(a, &prog, argc, argv);
    for (int c; (c = cal_args_next(a)) != -1;) switch (c) {
        case 'l': g.len = atol(a->val); break;
        case 'o': g.out = a->val; break;
        case 'v': g.verbose++; break;
        case 'x': g.x++; break;
        case O_SEED: g.seed = atol(a->val); break;
        case O_PROGRESS: g.progress++; break;
        }
    return g;
}

static char *stage(cal_args *a) {
    static char s[512];
    int n;
    char **v = cal_args_stage(a, &n);
    s[0] = 0;
    for (int i = 0; i < n; i++) {
        if (i) strcat(s, " ");
        strcat(s, v[i]);
    }
    return s;
}

/* Runs parse() in a child with stderr to a pipe; returns the exit status and
 * the first line written to stderr. */
static int child(int argc, char **argv, char *msg, size_t n) {
    int p[2];
    if (pipe(p) != 0) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(p[1], 2);
        dup2(p[1], 1);
        cal_args a;
        parse(argc, argv, &a);
        exit(0);
    }
    close(p[1]);
    size_t got = 0;
    for (ssize_t k; got < n - 1 && (k = read(p[0], msg + got, n - 1 - got)) > 0;) got += (size_t)k;
    msg[got] = 0;
    close(p[0]);
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#define ARGV(...) (char *[]){"prog", __VA_ARGS__, NULL}, (int)(sizeof((char *[]){"prog", __VA_ARGS__}) / sizeof(char *))

int main(void) {
    cal_set_progname("prog");
    cal_args a;
    struct { char **v; int n; } forms[] = {
        {ARGV("-l", "7")}, {ARGV("-l7")}, {ARGV("--length", "7")}, {ARGV("--length=7")}};
    for (size_t i = 0; i < 4; i++) {
        got g = parse(forms[i].n, forms[i].v, &a);
        CHECK(g.len == 7 && a.noperands == 0, "form %zu of -l gives 7", i);
        cal_args_free(&a);
    }
    char **v = (char *[]){"prog", "in1", "-v", "--seed=3", "-o", "out", "-", "--progress", "-l", "5", "--", "-x", "--seed", NULL};
    got g = parse(13, v, &a);
    CHECK(g.len == 5 && g.seed == 3 && g.verbose == 1 && g.progress == 1 && g.x == 0 && !strcmp(g.out, "out"),
          "options anywhere, '--' ends them");
    CHECK(a.noperands == 4 && !strcmp(a.operands[0], "in1") && !strcmp(a.operands[1], "-") &&
              !strcmp(a.operands[2], "-x") && !strcmp(a.operands[3], "--seed"),
          "operands in order: in1 - -x --seed");
    CHECK(!strcmp(stage(&a), "prog in1 --seed=3 - -l 5 -- -x --seed"), "stage line drops -v -o --progress: %s", stage(&a));
    CHECK(cal_args_given(&a, O_SEED) && cal_args_given(&a, 'l') && !cal_args_given(&a, 'x'), "given");
    int pn;
    char **pv = cal_args_stage_options_first(&a, &pn), joined[256] = "";
    for (int i = 0; i < pn; i++) snprintf(joined + strlen(joined), sizeof joined - strlen(joined), "%s%s", i ? " " : "", pv[i]);
    CHECK(pn == 9 && !pv[pn] && !strcmp(joined, "prog --seed=3 -l 5 -- in1 - -x --seed"),
          "stage in getopt_long's order (options, --, operands): %s", joined);
    cal_args_free(&a);
    g = parse(5, (char *[]){"prog", "a", "-l", "--", "b", NULL}, &a);
    pv = cal_args_stage_options_first(&a, &pn);
    CHECK(pn == 5 && !strcmp(pv[1], "-l") && !strcmp(pv[2], "--") && !strcmp(pv[3], "a") && !strcmp(pv[4], "b") && a.noperands == 2,
          "a value '--' is no separator: prog -l -- a b");
    cal_args_free(&a);

    g = parse(4, (char *[]){"prog", "-vxv", "-xl9", "f", NULL}, &a);
    CHECK(g.verbose == 2 && g.x == 2 && g.len == 9 && a.noperands == 1, "bundles -vxv -xl9");
    cal_args_free(&a);
    g = parse(5, (char *[]){"prog", "-vxv", "-l9", "-vl", "4", NULL}, &a);
    CHECK(g.len == 4 && !strcmp(stage(&a), "prog -x -l9 -l 4"), "bundles in the stage line: %s", stage(&a));
    cal_args_free(&a);

    char msg[2048];
    struct { char **v; int n; const char *want; } errs[] = {
        {ARGV("--bogus"), "prog: unknown option '--bogus' (see --help)\n"},
        {ARGV("--bogus=1"), "prog: unknown option '--bogus' (see --help)\n"},
        {ARGV("-q"), "prog: unknown option '-q' (see --help)\n"},
        {ARGV("-vq"), "prog: unknown option '-q' (see --help)\n"},
        {ARGV("--len", "3"), "prog: unknown option '--len' (see --help)\n"},
        {ARGV("-l"), "prog: option '-l' needs a value (N) (see --help)\n"},
        {ARGV("--length"), "prog: option '--length' needs a value (N) (see --help)\n"},
        {ARGV("--verbose=1"), "prog: option '--verbose' takes no value (see --help)\n"},
        {ARGV("-vl"), "prog: option '-l' needs a value (N) (see --help)\n"},
    };
    for (size_t i = 0; i < sizeof errs / sizeof *errs; i++) {
        int st = child(errs[i].n, errs[i].v, msg, sizeof msg);
        CHECK(st == 2 && !strcmp(msg, errs[i].want), "usage error %zu: exit %d, '%s'", i, st, msg);
    }
    int st = child(2, (char *[]){"prog", "--version", NULL}, msg, sizeof msg);
    CHECK(st == 0 && !strcmp(msg, "prog (calkit) " CAL_VERSION "\n"), "--version");
    const char *want =
        "Usage: prog -l N [FILE]\nTest program.\n\n"
        "  -l, --length N          row length\n"
        "  -o, --output FILE       write to FILE\n"
        "  -v, --verbose           summary\n"
        "  -x                      a short-only flag\n"
        "      --seed S            seed of every random choice\n"
        "                          (default 0)\n"
        "      --progress          progress\n"
        "  -h, --help              show this help and exit\n"
        "      --version           show the version and exit\n"
        "\nFooter.\n";
    st = child(2, (char *[]){"prog", "-h", NULL}, msg, sizeof msg);
    CHECK(st == 0 && !strcmp(msg, want), "-h prints the usage from the table:\n%s", msg);
    st = child(2, (char *[]){"prog", "--help", NULL}, msg, sizeof msg);
    CHECK(st == 0 && !strcmp(msg, want), "--help too");
    TEST_END();
}
