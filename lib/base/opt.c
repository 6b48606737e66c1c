/* opt.c - see opt.h. */
#include "base/opt.h"

#include <stdlib.h>
#include <string.h>

#include "base/err.h"

enum { STAGE_OPTION, STAGE_OPERAND, STAGE_DASHDASH }; /* stage_kind[] */

static int opt_id(const cal_opt *o) { return o->shrt ? (unsigned char)o->shrt : o->id; }

static size_t n_opts(const cal_opt *t) {
    size_t n = 0;
    while (t[n].shrt || t[n].lng) n++;
    return n;
}

void cal_args_init(cal_args *a, const cal_prog *prog, int argc, char **argv) {
    memset(a, 0, sizeof *a);
    a->prog = prog;
    a->argc = argc;
    a->argv = argv;
    a->i = 1;
    a->operands = cal_xcalloc((size_t)argc + 1, sizeof *a->operands);
    size_t words = 1; /* a bundle "-xyl9" gives up to one stage word a byte */
    for (int k = 0; k < argc; k++) words += strlen(argv[k]) + 1;
    a->stage = cal_xcalloc(words, sizeof *a->stage);
    a->stage_kind = cal_xcalloc(words, 1);
    a->given = cal_xcalloc(n_opts(prog->opts) + 1, 1);
    if (argc > 0) a->stage[a->nstage++] = argv[0];
}

void cal_args_free(cal_args *a) {
    free(a->operands);
    free(a->stage);
    free(a->stage_kind);
    free(a->permuted);
    free(a->given);
    memset(a, 0, sizeof *a);
}

static CAL_NORETURN void bad(const char *fmt, const char *what) {
    cal_usage_error(fmt, what);
}

/* "-c" for a short option c, as a word of its own (for bundles). */
static char *short_word(char c) {
    static char words[256][3];
    unsigned char u = (unsigned char)c;
    words[u][0] = '-';
    words[u][1] = c;
    return words[u];
}

/* Option o was given in the words argv[first..last] (or, inside a bundle,
 * as the word `word`): keep them for the stage line when o enters it. */
static void took(cal_args *a, const cal_opt *o, int first, int last, char *word) {
    a->opt = o;
    a->given[o - a->prog->opts] = 1;
    if (!(o->flags & CAL_STAGE)) return;
    if (word) a->stage[a->nstage++] = word;
    for (int k = first; !word && k <= last; k++) a->stage[a->nstage++] = a->argv[k];
}

static const cal_opt *find_long(const cal_prog *p, const char *name, size_t n) {
    for (const cal_opt *o = p->opts; o->shrt || o->lng; o++)
        if (o->lng && strlen(o->lng) == n && !strncmp(o->lng, name, n)) return o;
    return NULL;
}

static const cal_opt *find_short(const cal_prog *p, char c) {
    for (const cal_opt *o = p->opts; o->shrt || o->lng; o++)
        if (o->shrt == c) return o;
    return NULL;
}

static CAL_NORETURN void help(const cal_prog *p) {
    cal_args_usage(p, stdout);
    if (fflush(stdout) != 0 || ferror(stdout)) cal_die("standard output: write error");
    exit(0);
}

/* The next short option of a bundle like "-vq" or "-vl9": flags, then
 * perhaps one option whose value is the rest of the word or the next word. */
static int next_in_bundle(cal_args *a) {
    char c = *a->bundle++;
    if (!*a->bundle) a->bundle = NULL;
    const cal_opt *o = find_short(a->prog, c);
    a->name = short_word(c);
    if (!o && c == 'h') help(a->prog);
    if (!o) bad("unknown option '%s'", a->name);
    took(a, o, 0, -1, short_word(c));
    if (o->arg) {
        if (a->bundle) {
            a->val = a->bundle;
            a->bundle = NULL;
        } else {
            if (a->i >= a->argc) cal_usage_error("option '%s' needs a value (%s)", a->name, o->arg);
            a->val = a->argv[a->i++];
        }
        if (o->flags & CAL_STAGE) a->stage[a->nstage++] = (char *)a->val;
    }
    return opt_id(o);
}

int cal_args_next(cal_args *a) {
    a->val = NULL;
    a->opt = NULL;
    if (a->bundle) return next_in_bundle(a);
    while (a->i < a->argc) {
        int first = a->i;
        char *w = a->argv[a->i++];
        if (a->only_operands || w[0] != '-' || !w[1]) {
            a->operands[a->noperands++] = w;
            a->stage_kind[a->nstage] = STAGE_OPERAND;
            a->stage[a->nstage++] = w;
            continue;
        }
        if (!strcmp(w, "--")) {
            a->only_operands = 1;
            a->stage_kind[a->nstage] = STAGE_DASHDASH;
            a->stage[a->nstage++] = w;
            continue;
        }
        if (w[1] != '-') { /* -x, -xVALUE, -x VALUE, -xyz (flags) */
            const cal_opt *o = find_short(a->prog, w[1]);
            if (!o || !o->arg) {
                a->bundle = w + 1;
                return next_in_bundle(a);
            }
            a->name = short_word(w[1]);
            if (w[2]) {
                a->val = w + 2;
            } else {
                if (a->i >= a->argc) cal_usage_error("option '%s' needs a value (%s)", a->name, o->arg);
                a->val = a->argv[a->i++];
            }
            took(a, o, first, a->i - 1, NULL);
            return opt_id(o);
        }
        /* --name, --name=value, --name value */
        const char *name = w + 2, *eq = strchr(name, '=');
        size_t n = eq ? (size_t)(eq - name) : strlen(name);
        const cal_opt *o = find_long(a->prog, name, n);
        if (!o && !eq && !strcmp(name, "help")) help(a->prog);
        if (!o && !eq && !strcmp(name, "version")) cal_print_version();
        if (!o) cal_usage_error("unknown option '%.*s'", (int)(n + 2), w);
        snprintf(a->long_name, sizeof a->long_name, "--%s", o->lng);
        a->name = a->long_name;
        if (!o->arg) {
            if (eq) cal_usage_error("option '%s' takes no value", a->name);
        } else if (eq) {
            a->val = eq + 1;
        } else {
            if (a->i >= a->argc) cal_usage_error("option '%s' needs a value (%s)", a->name, o->arg);
            a->val = a->argv[a->i++];
        }
        took(a, o, first, a->i - 1, NULL);
        return opt_id(o);
    }
    return -1;
}

int cal_args_given(const cal_args *a, int id) {
    const cal_opt *t = a->prog->opts;
    for (size_t k = 0; t[k].shrt || t[k].lng; k++)
        if (opt_id(&t[k]) == id && a->given[k]) return 1;
    return 0;
}

char **cal_args_stage(const cal_args *a, int *argc) {
    *argc = a->nstage;
    a->stage[a->nstage] = NULL;
    return a->stage;
}

char **cal_args_stage_options_first(cal_args *a, int *argc) {
    free(a->permuted);
    a->permuted = cal_xcalloc((size_t)a->nstage + 1, sizeof *a->permuted);
    int n = 0;
    if (a->nstage) a->permuted[n++] = a->stage[0];
    static const unsigned char order[] = {STAGE_OPTION, STAGE_DASHDASH, STAGE_OPERAND};
    for (size_t p = 0; p < sizeof order; p++)
        for (int k = 1; k < a->nstage; k++)
            if (a->stage_kind[k] == order[p]) a->permuted[n++] = a->stage[k];
    *argc = n;
    return a->permuted;
}

/* "  -l, --length N", "      --seed S", "  -x" */
static int left(const cal_opt *o, char *buf, size_t n) {
    char sh[8] = "    ";
    if (o->shrt) snprintf(sh, sizeof sh, "-%c%s", o->shrt, o->lng ? ", " : "");
    return snprintf(buf, n, "  %s%s%s%s%s", sh, o->lng ? "--" : "", o->lng ? o->lng : "",
                    o->arg ? " " : "", o->arg ? o->arg : "");
}

static void put_help(FILE *out, const char *h, int col) {
    for (const char *s = h; *s; s++) {
        fputc(*s, out);
        if (*s == '\n' && s[1]) fprintf(out, "%*s", col, "");
    }
    fputc('\n', out);
}

void cal_args_usage(const cal_prog *p, FILE *out) {
    enum { COL = 26 };
    fprintf(out, "Usage: ");
    put_help(out, p->synopsis, 7);
    if (p->about) fprintf(out, "%s\n", p->about);
    fputc('\n', out);
    static const cal_opt std[] = {
        {'h', "help", NULL, 0, "show this help and exit", 0},
        {0, "version", NULL, 0, "show the version and exit", 0},
    };
    size_t n = n_opts(p->opts);
    for (size_t k = 0; k < n + 2; k++) {
        const cal_opt *o = k < n ? &p->opts[k] : &std[k - n];
        char l[160];
        int w = left(o, l, sizeof l);
        if (w < COL - 1) {
            fprintf(out, "%-*s", COL, l);
        } else {
            fprintf(out, "%s\n%*s", l, COL, "");
        }
        put_help(out, o->help ? o->help : "", COL);
    }
    if (p->footer) fprintf(out, "\n%s", p->footer);
}
