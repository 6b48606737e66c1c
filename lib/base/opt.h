/* opt.h - the one option parser of every calkit program.
 *
 * A program is an option table plus flow. The table gives each option's
 * short and long name, its value (if any), one line of help, and whether the
 * option enters the stage line of the stream's metadata. The parser accepts
 * "-l 2048", "-l2048", "--length 2048", "--length=2048", bundled short flags
 * ("-vq"), options after operands (GNU order), "--" (only operands follow)
 * and "-" (an operand: standard input). It answers -h/--help with usage made
 * from the table and --version with the version, and rejects a bad option
 * with one wording, "PROG: unknown option '--x' (see --help)", exit 2.
 *
 *     static const cal_opt opts[] = {
 *         {'l', "length", "N", CAL_STAGE, "row length in tokens (required)"},
 *         {'v', "verbose", NULL, 0, "one-line summary on standard error"},
 *         {0},
 *     };
 *     static const cal_prog prog = {"cal-pack -l LENGTH [OPTION]... [FILE]",
 *                                   "Read TOKENS records ...", opts, NULL};
 *     cal_args a;
 *     cal_args_init(&a, &prog, argc, argv);
 *     for (int c; (c = cal_args_next(&a)) != -1;)
 *         switch (c) {
 *         case 'l': len = cal_parse_u64(a.name, a.val, 1, UINT32_MAX); break;
 *         case 'v': verbose = 1; break;
 *         }
 *     // a.operands[0 .. a.noperands), then cal_args_stage(&a, &argc2) for the
 *     // stage line: argv without every option whose table entry lacks CAL_STAGE.
 *
 * An option's id (what cal_args_next returns) is its short name, or for a
 * long-only option the `id` field (use values >= 256). Options that cannot
 * change the records (-o, -v, --progress, -j, -S) never carry CAL_STAGE, so a
 * command writes the same bytes with and without them. */
#ifndef CAL_BASE_OPT_H
#define CAL_BASE_OPT_H

#include <stddef.h>
#include <stdio.h>

#define CAL_STAGE 1 /* the option enters the stage line */

typedef struct {
    char shrt;        /* 'l', or 0 for a long-only option */
    const char *lng;  /* "length", or NULL for a short-only option */
    const char *arg;  /* the value's name in the usage ("N"); NULL: a flag */
    int flags;        /* CAL_STAGE or 0 */
    const char *help; /* help text; '\n' continues on an indented line */
    int id;           /* for long-only options: the id returned (>= 256) */
} cal_opt;

typedef struct {
    const char *synopsis; /* "cal-pack -l LENGTH [OPTION]... [FILE]" (may hold '\n') */
    const char *about;    /* what the program does, a few lines */
    const cal_opt *opts;  /* ends with an entry whose shrt and lng are 0/NULL */
    const char *footer;   /* printed after the options, or NULL */
} cal_prog;

typedef struct {
    const cal_prog *prog;
    int argc;
    char **argv;
    /* the option cal_args_next returned last */
    const char *val;  /* its value, or NULL for a flag */
    const char *name; /* as written on the command line: "--length" or "-l" */
    const cal_opt *opt;
    /* operands, in order (pointers into argv) */
    char **operands;
    int noperands;
    /* private */
    int i, only_operands;
    const char *bundle; /* rest of a short-flag bundle */
    char long_name[128];
    char **stage;
    unsigned char *stage_kind; /* option word, operand or "--" */
    char **permuted;
    int nstage;
    unsigned char *given;
} cal_args;

void cal_args_init(cal_args *a, const cal_prog *prog, int argc, char **argv);
/* The next option's id, or -1 when every argument has been read. */
int cal_args_next(cal_args *a);
/* Whether option id was given anywhere on the command line (after
 * cal_args_next returned -1): only options left to their default need their
 * resolved value added to the stage line. */
int cal_args_given(const cal_args *a, int id);
/* argv for the stage line: argv[0], every option whose table entry has
 * CAL_STAGE (with its value, in the words it was written), and every operand,
 * in command-line order. NULL-terminated; valid until cal_args_free. */
char **cal_args_stage(const cal_args *a, int *argc);
/* The same words in the order getopt_long's permutation left argv in, for
 * the programs whose stage lines were written from it and must stay
 * byte-identical: argv[0], the CAL_STAGE options (with their values) in
 * order, "--" when given, then the operands in order. NULL-terminated;
 * valid until the next call or cal_args_free. */
char **cal_args_stage_options_first(cal_args *a, int *argc);
/* Usage text made from the table (what -h/--help prints). */
void cal_args_usage(const cal_prog *prog, FILE *out);
void cal_args_free(cal_args *a);

#endif
