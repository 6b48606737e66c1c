/* jinja_int.h - the insides of the Jinja interpreter (jinja/jinja.h): memory,
 * values, the syntax tree and the run-time state shared by its files.
 *
 * Files, each depending only on those before it (no cycles):
 *   jinja_mem.c     arena (with marks a loop's iteration releases to),
 *                   growable buffers, errors (setjmp/longjmp), the work
 *                   budget, the constructors of simple values
 *   jinja_bigint.c  Python's unbounded integers beyond 64 bits (GMP's mpn
 *                   layer over arena memory)
 *   jinja_ustr.c    Python str semantics over UTF-8 (isspace, strip, split,
 *                   case mapping, code point indexing)
 *   jinja_value.c   values: make, truth, ==, <, str(), repr(), dicts, JSON in
 *   jinja_gc.c      what a loop iteration leaves behind: the values it
 *                   stored outside itself are moved out, the rest released
 *   jinja_json.c    the tojson filter (Python json.dumps)
 *   jinja_attr.c    attribute/item access as the sandbox does it, methods of
 *                   str/dict/list, the global functions
 *   jinja_format.c  printf-style % and format(value, spec), as Python
 *   jinja_html.c    striptags, urlize, urlencode, xmlattr
 *   jinja_pylib.c   textwrap.wrap (wordwrap) and pprint.pformat (pprint)
 *   jinja_filters.c filters and tests
 *   jinja_lex.c     the lexer (trim_blocks, lstrip_blocks, -/+ markers)
 *   jinja_parse.c   the parser (Jinja's grammar and precedence)
 *   jinja_eval.c    statements and expressions
 *   jinja.c         the public API
 *
 * All memory of a render lives in one arena freed at its end, so an error
 * anywhere unwinds with longjmp and leaks nothing. Each iteration of a loop
 * marks the arena and releases it to that mark at the iteration's end
 * (jinja_gc.c), after moving out what the iteration stored where it
 * outlives it: the output, namespace attributes, loop.changed()'s memory. */
#ifndef CAL_TEXT_JINJA_INT_H
#define CAL_TEXT_JINJA_INT_H

#include "base/buf.h"
#include <gmp.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "base/err.h"
#include "base/pyrandom.h"

struct json_t;

/* ---- memory and errors (jinja_mem.c) ---- */

/* A block of arena memory; blocks are carved from its start. */
typedef struct jj_chunk {
    struct jj_chunk *next;
    size_t cap, used;
    uint64_t seq;       /* its number in the arena: newer chunks have larger ones */
    char mem[];
} jj_chunk;
typedef struct jj_err {
    jmp_buf jb;
    char *msg;          /* the caller's error buffer */
    size_t cap;
    const char *name;   /* template name for messages */
    int fatal;          /* a limit of calkit's (budget, memory, output): never deferred */
    char bare[512];     /* the last message without "NAME: line N: " */
} jj_err;

typedef struct jj_arena {
    jj_chunk *head;     /* every chunk, newest first */
    jj_chunk *cur;      /* the chunk small blocks come from */
    size_t total, limit;
    struct jj_arena *owner; /* whose limit counts this arena's chunks too (or NULL) */
    uint64_t seq;       /* chunks made so far (a chunk's number) */
    jj_err *err;
    const int *line;    /* the line errors name, or NULL */
    /* The work budget (max_work 0: none): every block charges its size,
     * jj_charge and jj_charge_bytes the rest. */
    uint64_t work, max_work, work_bytes;
} jj_arena;

void *jj_alloc(jj_arena *a, size_t n);
char *jj_strndup(jj_arena *a, const char *s, size_t n);
void jj_arena_free(jj_arena *a);

/* A point in the arena's allocations; releasing to it frees every block
 * allocated since (and the chunks that held only those). */
typedef struct {
    jj_chunk *cur;
    size_t used;
    uint64_t seq;
} jj_mark;
jj_mark jj_arena_mark(const jj_arena *a);
void jj_arena_release(jj_arena *a, jj_mark m);
/* The address ranges [lo, hi) allocated since m (every chunk for m =
 * {0}), appended to *r (malloc'd, n entries of 3: lo, hi, tag); returns
 * the new count, or SIZE_MAX when malloc fails. */
size_t jj_arena_since(const jj_arena *a, jj_mark m, uintptr_t (**r)[3], size_t n, uintptr_t tag);
/* Moves every chunk of from to the head of a, as newest (from is empty
 * after). */
void jj_arena_adopt(jj_arena *a, jj_arena *from);

/* Work units: a loop iteration or a call is one, as is every element a
 * filter or comparison goes through and every 256 bytes of text built,
 * copied, compared or searched. Raises when the budget is spent. */
void jj_charge(jj_arena *a, uint64_t units);
void jj_charge_bytes(jj_arena *a, size_t bytes);
/* Formats "NAME: line N: msg" (control characters escaped) and unwinds. */
CAL_NORETURN void jj_raise(jj_err *e, int line, const char *fmt, ...) CAL_PRINTF(3, 4);

/* Growable byte buffer inside an arena. */
typedef struct {
    char *p;
    size_t n, cap;
} jj_buf;

/* ---- values ---- */

/* JJ_BIG: an int outside int64_t (Python's int is unbounded); an int in
 * int64_t's range is always JJ_INT, so the two never compare equal.
 * JJ_COMPLEX: what a negative number to a fractional power gives. */
typedef enum {
    JJ_UNDEF, JJ_NONE, JJ_BOOL, JJ_INT, JJ_FLOAT, JJ_STR,
    JJ_LIST, JJ_TUPLE, JJ_DICT, JJ_NS, JJ_MACRO, JJ_LOOP, JJ_FUNC, JJ_BIG, JJ_COMPLEX
} jj_type;

/* flags */
#define JJ_MARKUP 1      /* JJ_STR: a Markup string (|safe, |escape) */
#define JJ_GENERATOR 2   /* JJ_LIST: made by a filter that returns a generator */
#define JJ_RANGE 4       /* JJ_LIST: made by range() */
#define JJ_DICT_ITEMS 8  /* JJ_LIST: dict.items() / keys() / values() views */
#define JJ_DICT_KEYS 16
#define JJ_DICT_VALUES 32
#define JJ_GROUP 64      /* JJ_TUPLE: groupby's (grouper, list), a namedtuple */

typedef struct jj_str jj_str;
typedef struct jj_list jj_list;
typedef struct jj_dict jj_dict;
typedef struct jj_macro jj_macro;
typedef struct jj_loop jj_loop;
typedef struct jj_func jj_func;
typedef struct jj_undef jj_undef;
typedef struct jj_big jj_big;
typedef struct jj_complex {
    double re, im;
} jj_complex;

typedef struct jj_val {
    uint8_t t, flags;
    union {
        int64_t i;      /* JJ_BOOL (0/1), JJ_INT */
        double f;
        jj_str *s;
        jj_list *l;     /* JJ_LIST, JJ_TUPLE */
        jj_dict *d;     /* JJ_DICT, JJ_NS */
        jj_macro *m;
        jj_loop *lp;
        jj_func *fn;
        jj_undef *u;    /* may be NULL: plain undefined */
        jj_big *z;      /* JJ_BIG */
        jj_complex *c;  /* JJ_COMPLEX */
    } u;
} jj_val;

/* A JJ_BIG's magnitude in GMP limbs (least significant first, d[n - 1] !=
 * 0) and its sign. */
struct jj_big {
    int neg;
    size_t n;
    mp_limb_t d[];
};

struct jj_str {
    size_t n;       /* bytes */
    size_t ncp;     /* code points; SIZE_MAX until counted */
    char s[];       /* NUL-terminated UTF-8 */
};
struct jj_list {
    size_t n;
    jj_val *v;
    size_t pos;     /* JJ_GENERATOR: items before pos are consumed */
    jj_val r[3];    /* JJ_RANGE: start, stop, step (ints; for printing and slicing) */
    const char *err;  /* JJ_GENERATOR: the error after its items (Python's
                       * generators fail when consumed that far), or NULL */
};
struct jj_dict {
    size_t n, cap;
    jj_val *k, *v;
    uint32_t *idx;  /* open addressing index (n > 8); slot = entry + 1 */
    size_t idxcap;
    uint64_t epoch; /* rt->epoch when made (jinja_gc.c) */
    uint64_t rem;   /* the frame epoch it was last remembered in */
    size_t rem_idx; /* and the entry (SIZE_MAX: all) */
};
struct jj_undef {
    const char *hint;     /* a message, or NULL */
    const char *name;     /* the name or attribute */
    const char *objtype;  /* "dict object" etc. when from an attribute */
    int element;          /* name is an item (repr'd) rather than attribute */
    int unsafe;           /* from an unsafe attribute (SecurityError) */
};

struct jj_node;
struct jj_scope;
struct jj_macro {
    const char *name;           /* "caller" for call blocks */
    struct jj_node *node;       /* the macro or call block */
    struct jj_scope *closure;
};
struct jj_loop {
    const jj_list *items;
    size_t i;
    int depth0;
    struct jj_node *node;       /* the for node, for loop(...) */
    struct jj_scope *scope;     /* the scope the loop runs in */
    jj_val last_changed;
    int has_changed;
    int consumed;               /* the template iterated the loop itself */
    uint64_t epoch, rem;        /* as a dict's (loop.changed() writes) */
};

/* Built-in callables: global functions and bound methods. */
typedef enum {
    JF_RANGE, JF_DICT, JF_NAMESPACE, JF_RAISE, JF_STRFTIME, JF_JOINER_NEW, JF_CYCLER_NEW,
    JF_JOINER, JF_LOOP_CYCLE, JF_LOOP_CHANGED, JF_CYCLER_NEXT, JF_CYCLER_RESET,
    /* str methods */
    JF_S_CAPITALIZE, JF_S_CENTER, JF_S_COUNT, JF_S_ENDSWITH, JF_S_FIND, JF_S_FORMAT,
    JF_S_INDEX, JF_S_ISALNUM, JF_S_ISALPHA, JF_S_ISDIGIT, JF_S_ISLOWER, JF_S_ISSPACE,
    JF_S_ISUPPER, JF_S_JOIN, JF_S_LJUST, JF_S_LOWER, JF_S_LSTRIP, JF_S_PARTITION,
    JF_S_REMOVEPREFIX, JF_S_REMOVESUFFIX, JF_S_REPLACE, JF_S_RFIND, JF_S_RINDEX,
    JF_S_RJUST, JF_S_RPARTITION, JF_S_RSPLIT, JF_S_RSTRIP, JF_S_SPLIT, JF_S_SPLITLINES,
    JF_S_STARTSWITH, JF_S_STRIP, JF_S_SWAPCASE, JF_S_TITLE, JF_S_UPPER, JF_S_ZFILL,
    /* dict methods */
    JF_D_GET, JF_D_ITEMS, JF_D_KEYS, JF_D_VALUES, JF_D_COPY,
    /* list and tuple methods */
    JF_L_COUNT, JF_L_INDEX,
    JF_COUNT_
} jj_func_kind;

struct jj_func {
    jj_func_kind kind;
    jj_val self;
    const char *name;
    jj_dict *state;   /* joiner/cycler state */
};

/* ---- syntax tree ---- */

typedef struct jj_node jj_node;
typedef struct {
    jj_node **v;
    size_t n;
} jj_nodes;

typedef enum {
    /* expressions */
    N_CONST, N_NAME, N_GETATTR, N_GETITEM, N_SLICE, N_CALL, N_FILTER, N_TEST,
    N_NEG, N_POS, N_NOT, N_BINOP, N_AND, N_OR, N_CONCAT, N_COMPARE, N_OPERAND,
    N_CONDEXPR, N_LIST, N_TUPLE, N_DICT, N_KEYWORD, N_NSREF,
    /* statements */
    N_DATA, N_OUTPUT, N_FOR, N_IF, N_ASSIGN, N_ASSIGNBLOCK, N_MACRO, N_CALLBLOCK,
    N_FILTERBLOCK, N_WITH, N_BREAK, N_CONTINUE, N_SCOPE
} jj_kind;

/* Operators (N_BINOP, N_OPERAND). */
enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_FLOORDIV, OP_MOD, OP_POW,
       OP_EQ, OP_NE, OP_LT, OP_LTEQ, OP_GT, OP_GTEQ, OP_IN, OP_NOTIN };

struct jj_node {
    uint8_t kind, op;
    uint8_t soft;        /* filter/test: unknown name is a run-time error */
    uint8_t recursive;   /* N_FOR */
    uint16_t depth;      /* expressions: height of the subtree (bounded) */
    int line;
    int id;              /* filter/test id, or -1 when unknown */
    const char *name;    /* N_NAME, N_GETATTR, N_FILTER, N_TEST, N_KEYWORD, N_MACRO, N_NSREF */
    const char *attr;    /* N_NSREF */
    jj_val val;          /* N_CONST, N_DATA */
    jj_node *a, *b, *c, *d;
    jj_nodes k1, k2, k3;
};
/* Field use by kind:
 *   N_GETATTR a.name; N_GETITEM a[b]; N_SLICE k1 = start, stop, step (NULLs)
 *   N_CALL a(k1 args, k2 keywords, *c, **d); N_FILTER/N_TEST a|name(same)
 *   N_NEG/N_POS/N_NOT a; N_BINOP/N_AND/N_OR a op b; N_CONCAT k1
 *   N_COMPARE a then k1 operands (op, a); N_CONDEXPR a if b else c
 *   N_LIST/N_TUPLE k1; N_DICT k1 keys, k2 values; N_KEYWORD name=a
 *   N_OUTPUT k1 (N_DATA or expressions)
 *   N_FOR for a in b if c: k1 else k2; N_IF if a: k1 else k2
 *   N_ASSIGN a = b; N_ASSIGNBLOCK a = (k1 rendered) | b (filter chain)
 *   N_MACRO name(k2 params, k3 defaults): k1; N_CALLBLOCK call a with
 *   caller(k2 params, k3 defaults): k1; N_FILTERBLOCK a (filter chain): k1
 *   N_WITH k2 targets = k3 values: k1; N_SCOPE k1 (generation blocks) */

typedef struct jj_template {
    jj_arena ar;
    jj_err err;
    const char *name;
    jj_nodes body;
    int has_generation; /* a {% generation %} block was parsed (jj_parse) */
} jj_template;

/* ---- run time ---- */

typedef struct jj_scope {
    struct jj_scope *parent;
    jj_dict vars;       /* str keys */
} jj_scope;

/* Loops' memory (jinja_gc.c). A write into an object older than the
 * running iteration, remembered for the collections it can matter to. */
typedef struct {
    uint8_t kind;   /* JJ_DICT (a jj_dict) or JJ_LOOP (a jj_loop) */
    uint8_t left;   /* collections it is looked at again (2 after the write) */
    void *p;
    size_t idx;     /* a dict's entry written (SIZE_MAX: all) */
} jj_written;
/* A loop: what its iterations left (survived one iteration's end: young;
 * two: old), and the writes that may reach them. */
typedef struct {
    jj_arena young, old;
    jj_written *w;          /* malloc'd */
    size_t nw, capw;
} jj_loopmem;
/* An iteration: the arena's mark at its start and its output. */
typedef struct {
    jj_mark mark;
    uint64_t epoch;
    jj_buf *out;            /* or NULL */
    size_t loop;            /* its loop, in rt->loops */
    size_t wrote;           /* writes remembered in it */
} jj_frame;
struct jj_gc;

typedef struct jj_rt {
    jj_arena ar;
    jj_err err;
    int line;              /* line of the node being evaluated */
    size_t max_output;
    int depth, max_depth;
    struct tm now;
    const jj_buf *root_out; /* the template's own output */
    cal_buf *spans;         /* {% generation %} spans of root_out (u32 pairs), or NULL */
    uint64_t unspanned;     /* generation blocks with output that went elsewhere (captured) */
    uint64_t epoch;        /* frames begun so far */
    jj_frame *frames;      /* the loop iterations running, innermost last (malloc'd) */
    size_t nframes, capframes;
    jj_loopmem *loops;     /* the loops running, innermost last (malloc'd) */
    size_t nloops, caploops;
    struct jj_gc *gc;      /* a collection's scratch, freed with the runtime */
    cal_pyrandom rng;      /* the random filter's (seeded 0 at its first use) */
    int rng_seeded;
    jj_list **lazy;        /* where a generator filter being run keeps its list (jinja_filters.c) */
    const char *(*literal)(void *ctx, const struct json_t *node); /* cal_jinja_opts' */
    void *literal_ctx;
} jj_rt;

CAL_NORETURN void jj_fail(jj_rt *rt, const char *fmt, ...) CAL_PRINTF(2, 3);
/* jj_fail for calkit's own limits (output size, memory): the render ends
 * even inside a filter whose errors Python would defer. */
CAL_NORETURN void jj_limit(jj_rt *rt, const char *fmt, ...) CAL_PRINTF(2, 3);
/* Counts one unit of work (loop iteration, call); fails past the budget. */
void jj_step(jj_rt *rt);

void jj_buf_add(jj_rt *rt, jj_buf *b, const void *p, size_t n);
void jj_buf_adds(jj_rt *rt, jj_buf *b, const char *s);
void jj_buf_addc(jj_rt *rt, jj_buf *b, char c);
void jj_buf_addf(jj_rt *rt, jj_buf *b, const char *fmt, ...) CAL_PRINTF(3, 4);

/* Simple values (jinja_mem.c). */
extern const jj_val jj_undefined;
extern const jj_val jj_none;
jj_val jj_bool(int b);
jj_val jj_int(int64_t i);
jj_val jj_float(double f);
jj_val jj_strv(jj_str *s);
jj_val jj_listv(jj_list *l, int tuple);
jj_list *jj_list_new(jj_rt *rt, size_t n);
/* Appends to a list being built (cap tracked by the caller in *cap). */
void jj_list_push(jj_rt *rt, jj_list *l, size_t *cap, jj_val v);

/* ---- loops' memory (jinja_gc.c) ---- */

/* A loop begins and ends (its iterations' leftovers then belong to the
 * enclosing iteration); each iteration, writing to out (or NULL), is a
 * frame: what it allocates is released by jj_frame_end, but for what it
 * stored in older objects (and out's text), which the loop keeps. */
void jj_loop_begin(jj_rt *rt);
void jj_loop_end(jj_rt *rt);
void jj_frame_begin(jj_rt *rt, jj_buf *out);
void jj_frame_end(jj_rt *rt);
/* The write barrier: entry idx of the dict d (SIZE_MAX: any of them, or
 * its index), or a loop's loop.changed() memory (kind JJ_LOOP), is about
 * to change; remembered when older than the iteration running. */
void jj_gc_written(jj_rt *rt, int kind, void *p, size_t idx);
static inline void jj_dict_written(jj_rt *rt, jj_dict *d, size_t idx) {
    if (rt->nframes && d->epoch < rt->frames[rt->nframes - 1].epoch) jj_gc_written(rt, JJ_DICT, d, idx);
}
/* Frees the scratch, frames and loops (the runtime's end). */
void jj_gc_free(jj_rt *rt);

/* ---- integers (jinja_bigint.c): JJ_BOOL, JJ_INT and JJ_BIG alike ---- */

#define JJ_BIG_MAX_LIMBS 16384   /* 2^20 bits */
int jj_is_int(jj_val v);
jj_val jj_int_add(jj_rt *rt, jj_val a, jj_val b);
jj_val jj_int_sub(jj_rt *rt, jj_val a, jj_val b);
jj_val jj_int_mul(jj_rt *rt, jj_val a, jj_val b);
jj_val jj_int_neg(jj_rt *rt, jj_val a);
jj_val jj_int_abs(jj_rt *rt, jj_val a);
/* Python's divmod (floor); ZeroDivisionError for b == 0; q or r may be NULL. */
void jj_int_divmod(jj_rt *rt, jj_val a, jj_val b, jj_val *q, jj_val *r);
/* a ** b for b >= 0. */
jj_val jj_int_pow(jj_rt *rt, jj_val a, jj_val b);
int jj_int_cmp(jj_val a, jj_val b);             /* -1, 0, 1 */
int jj_int_cmp_float(jj_val a, double f);       /* exact; 2 for NaN */
int jj_int_sign(jj_val a);
int jj_int_odd(jj_val a);
/* float(a), int / int (correctly rounded, Python's OverflowErrors). */
double jj_int_to_double(jj_rt *rt, jj_val a);
double jj_int_truediv(jj_rt *rt, jj_val a, jj_val b);
/* int(f) exactly (ValueError for NaN, OverflowError for infinities). */
jj_val jj_int_from_double(jj_rt *rt, double f);
/* Equal values hash equal: jj_float_int_hash for an integral double
 * outside int64_t's range. */
uint64_t jj_int_hash(jj_val a);
uint64_t jj_float_int_hash(double f);
/* 1 with *out when a fits int64_t. */
int jj_int_to_i64(jj_val a, int64_t *out);
/* str(a); the digits of |a| in base 2, 8, 10 or 16. Decimal past 4300
 * digits is Python's ValueError. */
void jj_int_str(jj_rt *rt, jj_buf *b, jj_val a);
void jj_int_digits(jj_rt *rt, jj_buf *b, jj_val a, int base, int upper);
/* An int from n digit characters valid in base (no sign, no '_'). */
jj_val jj_int_parse(jj_rt *rt, const char *p, size_t n, int base, int neg);
/* The same for the lexer, in arena a: 0, or -1 with Python's error in why. */
int jj_int_literal(jj_arena *a, const char *p, size_t n, int base, jj_val *out, char *why, size_t whylen);
/* round(a, nd) (halves to even; a itself for nd >= 0). */
jj_val jj_int_round(jj_rt *rt, jj_val a, int64_t nd);

/* ---- Python str semantics (jinja_ustr.c) ---- */

/* Decodes the code point at s[*i] (valid UTF-8 assumed), advancing *i. */
int32_t jj_u8_next(const char *s, size_t n, size_t *i);
void jj_u8_put(jj_rt *rt, jj_buf *b, int32_t cp);
int jj_isspace(int32_t cp);            /* str.isspace() */
int jj_isprintable(int32_t cp);        /* str.isprintable() */
size_t jj_str_len(jj_str *s);          /* code points */
/* Byte offset of code point index i (0 <= i <= len). */
size_t jj_str_off(jj_rt *rt, jj_str *s, size_t i);

jj_str *jj_str_new(jj_rt *rt, const char *p, size_t n);
jj_str *jj_str_cat(jj_rt *rt, const jj_str *a, const jj_str *b);
jj_str *jj_str_buf(jj_rt *rt, const jj_buf *b);

typedef enum { JJ_UPPER, JJ_LOWER, JJ_TITLE } jj_case;
/* Appends the full case mapping of cp (Python str.upper()/lower()/title() of
 * one character). */
void jj_case_put(jj_rt *rt, jj_buf *b, int32_t cp, jj_case c);
int jj_iscased(int32_t cp);
int jj_islower_cp(int32_t cp);
int jj_isupper_cp(int32_t cp);
int jj_isalpha_cp(int32_t cp);
int jj_isdigit_cp(int32_t cp);
int jj_isalnum_cp(int32_t cp);

/* str.upper(), lower(), capitalize(), title(), swapcase(). */
typedef enum { JJ_RC_UPPER, JJ_RC_LOWER, JJ_RC_CAPITALIZE, JJ_RC_TITLE, JJ_RC_SWAPCASE } jj_recase;
jj_str *jj_s_recase(jj_rt *rt, jj_str *s, jj_recase mode);
/* strip: which 1 = left, 2 = right, 3 = both; chars NULL = whitespace. */
jj_str *jj_s_strip(jj_rt *rt, jj_str *s, const jj_str *chars, int which);
/* split/rsplit: sep NULL = runs of whitespace; maxsplit < 0 = all. */
jj_list *jj_s_split(jj_rt *rt, jj_str *s, const jj_str *sep, int64_t maxsplit, int right);
jj_list *jj_s_splitlines(jj_rt *rt, jj_str *s, int keepends);
jj_str *jj_s_replace(jj_rt *rt, jj_str *s, const jj_str *old, const jj_str *new_, int64_t count);
/* find in the code point range [start, end): code point index or -1. */
int64_t jj_s_find(jj_rt *rt, jj_str *s, const jj_str *sub, int64_t start, int64_t end, int right);
int64_t jj_s_count(jj_rt *rt, jj_str *s, const jj_str *sub, int64_t start, int64_t end);
/* Python slice semantics over code points; has_* 0 = omitted. */
jj_str *jj_s_slice(jj_rt *rt, jj_str *s, int has_start, int64_t start, int has_stop,
                   int64_t stop, int64_t step);
/* The code point at index i (negative from the end), or NULL out of range. */
jj_str *jj_s_at(jj_rt *rt, jj_str *s, int64_t i);
/* Python's slice.indices for a sequence of len items: the item count;
 * start and stop are adjusted in place. */
int64_t jj_slice_indices(int64_t len, int has_start, int64_t *start, int has_stop, int64_t *stop,
                         int64_t step);
int jj_s_pred(jj_rt *rt, jj_str *s, int (*pred)(int32_t));   /* all(pred) and non-empty */
/* str.isupper() (upper = 1) or islower(): some cased character, none of the other case. */
int jj_s_cased(jj_rt *rt, jj_str *s, int upper);

/* ---- values (jinja_value.c) ---- */

jj_val jj_cstr(jj_rt *rt, const char *s);
jj_val jj_strn(jj_rt *rt, const char *p, size_t n);
jj_val jj_undef_hint(jj_rt *rt, const char *hint);
jj_val jj_undef_name(jj_rt *rt, const char *name);
jj_val jj_undef_attr(jj_rt *rt, jj_val obj, const char *name);
jj_val jj_undef_item(jj_rt *rt, jj_val obj, jj_val key);
/* Raises the UndefinedError an operation on u gives. */
CAL_NORETURN void jj_undef_fail(jj_rt *rt, jj_val u);


jj_dict *jj_dict_new(jj_rt *rt);
jj_val *jj_dict_get(jj_rt *rt, jj_dict *d, jj_val key);
jj_val *jj_dict_gets(jj_rt *rt, jj_dict *d, const char *key);
void jj_dict_set(jj_rt *rt, jj_dict *d, jj_val key, jj_val v);
void jj_dict_sets(jj_rt *rt, jj_dict *d, const char *key, jj_val v);

int jj_truthy(jj_val v);
int jj_is_num(jj_val v);       /* bool, int, float */
/* float(v) of a number (OverflowError for an int too large). */
double jj_num(jj_rt *rt, jj_val v);
/* Python ==. */
int jj_eq(jj_rt *rt, jj_val a, jj_val b);
/* Python <: -1, 0 (equal) or 1; fails for unorderable types. */
int jj_cmp(jj_rt *rt, jj_val a, jj_val b);
/* Python < for sorting: like jj_cmp. */
const char *jj_type_name(jj_val v);      /* "str", "dict", ... */
void jj_str_of(jj_rt *rt, jj_buf *b, jj_val v);    /* str(v) */
void jj_repr_of(jj_rt *rt, jj_buf *b, jj_val v);   /* repr(v) */
void jj_ascii_of(jj_rt *rt, jj_buf *b, jj_val v);  /* ascii(v) */
jj_str *jj_to_str(jj_rt *rt, jj_val v);             /* str(v) as a string */
/* Python float repr (shortest round trip). */
void jj_float_repr(jj_rt *rt, jj_buf *b, double f);
/* Iteration: the items for a for loop, |list, etc.; fails if not iterable. */
jj_list *jj_iter(jj_rt *rt, jj_val v);
/* len(v); fails for values without a length. */
int64_t jj_len(jj_rt *rt, jj_val v);
int jj_hashable(jj_val v);
/* Markup escaping (markupsafe.escape). */
jj_str *jj_escape(jj_rt *rt, jj_str *s);
/* v + w, v - w, ... as Python does; fails with a TypeError-like message. */
jj_val jj_binop(jj_rt *rt, int op, jj_val a, jj_val b);
/* Complex numbers: Python's arithmetic (+ - * / **, unary -) where one
 * operand is complex and the other a number; repr ("(1+2j)"). */
jj_val jj_complex_new(jj_rt *rt, double re, double im);
/* (the operands as complex numbers, with their type names for errors;
 * float_repr writes a part: jinja_value's, passed in so that the two
 * modules do not depend on each other) */
jj_val jj_complex_binop(jj_rt *rt, int op, jj_complex x, jj_complex y, const char *an, const char *bn);
jj_val jj_complex_pow_real(jj_rt *rt, double x, double y);
typedef void (*jj_float_fmt)(jj_rt *rt, jj_buf *b, double f);
void jj_complex_repr(jj_rt *rt, jj_buf *b, const jj_complex *c, jj_float_fmt float_repr);
/* a in b */
int jj_contains(jj_rt *rt, jj_val b, jj_val a);

/* Stable merge sort of n elements of width values each (Python's sorted()
 * keeps equal items in order); cmp returns <0, 0, >0 and may fail. */
typedef int (*jj_cmp_fn)(jj_rt *rt, const jj_val *a, const jj_val *b, void *ctx);
void jj_sort(jj_rt *rt, jj_val *v, size_t n, size_t width, jj_cmp_fn cmp, void *ctx);

struct json_t;
jj_val jj_from_json(jj_rt *rt, const struct json_t *j, int depth);

/* ---- tojson (jinja_json.c) ---- */

typedef struct {
    int ensure_ascii, sort_keys;
    int indent_on;           /* indent is not None */
    const jj_str *indent;    /* the indent string */
    const jj_str *item_sep, *key_sep;   /* NULL: Python's defaults */
} jj_json_opts;
void jj_tojson(jj_rt *rt, jj_buf *b, jj_val v, const jj_json_opts *o);

/* ---- attributes, methods, globals (jinja_attr.c) ---- */

jj_val jj_getattr(jj_rt *rt, jj_val obj, const char *name);
jj_val jj_getitem(jj_rt *rt, jj_val obj, jj_val key);
/* Calls a built-in function or bound method. */
jj_val jj_call_func(jj_rt *rt, jj_func *f, const jj_val *args, size_t nargs,
                    const char *const *kwnames, const jj_val *kwvals, size_t nkw);
void jj_add_globals(jj_rt *rt, jj_dict *d);
jj_val jj_range(jj_rt *rt, const jj_val *args, size_t nargs);

/* ---- filters and tests (jinja_filters.c) ---- */

int jj_filter_id(const char *name);   /* -1 if unknown */
int jj_test_id(const char *name);
jj_val jj_call_filter(jj_rt *rt, int id, const char *name, jj_val v, const jj_val *args,
                      size_t nargs, const char *const *kwnames, const jj_val *kwvals, size_t nkw);
int jj_call_test(jj_rt *rt, int id, const char *name, jj_val v, const jj_val *args,
                 size_t nargs, const char *const *kwnames, const jj_val *kwvals, size_t nkw);
/* ---- text as HTML and URLs (jinja_html.c), Python library functions
 * (jinja_pylib.c): filters of their own ---- */

jj_str *jj_striptags(jj_rt *rt, jj_str *s);
jj_val jj_urlencode(jj_rt *rt, jj_val v);
jj_val jj_xmlattr(jj_rt *rt, jj_val d, int autospace);
/* urlize: trim < 0 for none; target, rel, extra_schemes None or Undefined
 * when not given. */
jj_val jj_urlize(jj_rt *rt, jj_val v, int64_t trim, int nofollow, jj_val target, jj_val rel, jj_val extra);
jj_val jj_wordwrap(jj_rt *rt, jj_str *s, int64_t width, int break_long_words, jj_str *wrapstring, int break_on_hyphens);
jj_val jj_pformat(jj_rt *rt, jj_val v);

/* ---- formatting (jinja_format.c) ---- */

/* printf-style formatting: fmt % args (a tuple, a mapping or one value);
 * fmt a str (a Markup one escapes its arguments). */
jj_val jj_percent_format(jj_rt *rt, jj_val fmt, jj_val args);
/* Python's format(v, spec) appended to out. */
void jj_format_spec(jj_rt *rt, jj_buf *out, jj_val v, const char *spec, size_t n);

/* ---- argument binding helper (jinja_value.c) ---- */

/* Binds positional and keyword arguments to the parameter names of a
 * built-in (Python signature rules); out[i] is jj_undefined with got[i] = 0
 * for parameters not passed. Fails on too many or unknown arguments. */
void jj_bind(jj_rt *rt, const char *fname, const char *const *params, size_t nparams,
             const jj_val *args, size_t nargs, const char *const *kwnames,
             const jj_val *kwvals, size_t nkw, jj_val *out, int *got);

/* ---- lexer and parser ---- */

typedef enum {
    T_EOF, T_DATA, T_VAR_BEGIN, T_VAR_END, T_BLOCK_BEGIN, T_BLOCK_END,
    T_NAME, T_STRING, T_INT, T_FLOAT, T_OP
} jj_tok_type;

/* T_OP codes */
enum { TO_ADD, TO_SUB, TO_DIV, TO_FLOORDIV, TO_MUL, TO_MOD, TO_POW, TO_TILDE,
       TO_LBRACKET, TO_RBRACKET, TO_LPAREN, TO_RPAREN, TO_LBRACE, TO_RBRACE,
       TO_EQ, TO_NE, TO_GT, TO_GTEQ, TO_LT, TO_LTEQ, TO_ASSIGN, TO_DOT, TO_COLON,
       TO_PIPE, TO_COMMA, TO_SEMICOLON };

typedef struct {
    uint8_t type, op;
    int line;
    const char *s;   /* T_DATA, T_NAME, T_STRING (NUL-terminated) */
    size_t n;
    jj_val i;        /* T_INT: an int (JJ_INT or JJ_BIG) */
    double f;
} jj_tok;

typedef struct {
    jj_tok *v;
    size_t n, cap;
} jj_toks;

/* Tokenizes src (already newline-normalized) into toks; raises on errors. */
void jj_lex(jj_arena *a, const char *src, size_t n, jj_toks *toks);
void jj_parse(jj_template *t, const jj_toks *toks);

/* ---- evaluation (jinja_eval.c) ---- */

void jj_render(jj_rt *rt, const jj_template *t, jj_scope *root, jj_buf *out);

#endif
