/* jinja_parse.c - Jinja's parser (jinja2/parser.py): statements for, if,
 * set (also block set and namespace attributes), macro, call, filter,
 * with, print, break/continue (loopcontrols) and generation (transformers'
 * assistant tracking); expressions with Jinja's precedence (if-else, or,
 * and, not, comparisons and in, + -, ~, * / // %, **, unary, then
 * subscripts, calls, filters and tests). Unknown filters and tests are
 * compile errors unless inside an if, as Jinja decides. */
#include <stdio.h>
#include <string.h>

#include "jinja/jinja_int.h"

typedef struct {
    jj_template *t;
    const jj_tok *tok;
    size_t i;
    int depth;
    const char *end_stack[64][4];   /* tags subparse is looking for */
    int nend;
} parser;

#define MAX_NEST 200

static const jj_tok *cur(parser *P) { return &P->tok[P->i]; }
static const jj_tok *look(parser *P) {
    return P->tok[P->i].type == T_EOF ? &P->tok[P->i] : &P->tok[P->i + 1];
}
static const jj_tok *next(parser *P) {
    const jj_tok *k = &P->tok[P->i];
    if (k->type != T_EOF) P->i++;
    return k;
}

static const char *op_text(int op) {
    static const char *const t[] = {"+", "-", "/", "//", "*", "%", "**", "~", "[", "]", "(", ")",
                                    "{", "}", "==", "!=", ">", ">=", "<", "<=", "=", ".", ":",
                                    "|", ",", ";"};
    return op >= 0 && op < (int)(sizeof t / sizeof t[0]) ? t[op] : "?";
}

static const char *describe(const jj_tok *k) {
    switch (k->type) {
    case T_EOF: return "end of template";
    case T_DATA: return "template data";
    case T_VAR_BEGIN: return "begin of print statement";
    case T_VAR_END: return "end of print statement";
    case T_BLOCK_BEGIN: return "begin of statement block";
    case T_BLOCK_END: return "end of statement block";
    case T_NAME: return k->s;
    case T_STRING: return "string";
    case T_INT: return "integer";
    case T_FLOAT: return "float";
    default: return op_text(k->op);
    }
}

static CAL_NORETURN void pfail(parser *P, int line, const char *fmt, const char *a, const char *b) {
    jj_raise(&P->t->err, line, fmt, a, b);
}

static int is_name(const jj_tok *k, const char *name) {
    return k->type == T_NAME && strcmp(k->s, name) == 0;
}
static int is_op(const jj_tok *k, int op) { return k->type == T_OP && k->op == op; }

static void expect_op(parser *P, int op) {
    const jj_tok *k = cur(P);
    if (!is_op(k, op)) {
        if (k->type == T_EOF)
            pfail(P, k->line, "unexpected end of template, expected '%s'.%s", op_text(op), "");
        pfail(P, k->line, "expected token '%s', got '%s'", op_text(op), describe(k));
    }
    next(P);
}

static void expect_type(parser *P, int type, const char *what) {
    const jj_tok *k = cur(P);
    if (k->type != type) {
        if (k->type == T_EOF) pfail(P, k->line, "unexpected end of template, expected '%s'.%s", what, "");
        pfail(P, k->line, "expected token '%s', got '%s'", what, describe(k));
    }
    next(P);
}

static const char *expect_name(parser *P) {
    const jj_tok *k = cur(P);
    if (k->type != T_NAME) {
        if (k->type == T_EOF) pfail(P, k->line, "unexpected end of template, expected 'name'.%s%s", "", "");
        pfail(P, k->line, "expected token 'name', got '%s'%s", describe(k), "");
    }
    next(P);
    return k->s;
}

/* The height of an expression node from its children: left-deep chains
 * (a + b + c ..., x|f|g ..., x.a.b ...) are not nested calls of the parser,
 * so their height is bounded here, as Python's own recursion bounds Jinja. */
#define MAX_HEIGHT 500
static jj_node *deepen(parser *P, jj_node *n) {
    int h = 0;
    const jj_node *kids[4] = {n->a, n->b, n->c, n->d};
    for (int i = 0; i < 4; i++)
        if (kids[i] && kids[i]->depth > h) h = kids[i]->depth;
    const jj_nodes *lists[3] = {&n->k1, &n->k2, &n->k3};
    for (int j = 0; j < 3; j++)
        for (size_t i = 0; i < lists[j]->n; i++)
            if (lists[j]->v[i] && lists[j]->v[i]->depth > h) h = lists[j]->v[i]->depth;
    if (h + 1 > MAX_HEIGHT)
        pfail(P, n->line, "the expression is nested more than %s levels deep%s", "500", "");
    n->depth = (uint16_t)(h + 1);
    return n;
}

/* A string constant of the template, its code point count known now: renders
 * only read the template, so threads may share it. */
static jj_str *const_str(parser *P, const char *p, size_t n) {
    jj_str *s = jj_alloc(&P->t->ar, sizeof *s + n + 1);
    s->n = n;
    memcpy(s->s, p, n);
    s->s[n] = 0;
    s->ncp = SIZE_MAX;
    jj_str_len(s);
    return s;
}

static jj_node *node(parser *P, int kind, int line) {
    jj_node *n = jj_alloc(&P->t->ar, sizeof *n);
    memset(n, 0, sizeof *n);
    n->kind = (uint8_t)kind;
    n->line = line;
    n->id = -1;
    return n;
}

typedef struct {
    jj_node **v;
    size_t n, cap;
} nvec;

static void nv_push(parser *P, nvec *v, jj_node *n) {
    if (v->n == v->cap) {
        size_t nc = v->cap ? v->cap * 2 : 4;
        jj_node **nn = jj_alloc(&P->t->ar, nc * sizeof *nn);
        if (v->n) memcpy(nn, v->v, v->n * sizeof *nn);
        v->v = nn;
        v->cap = nc;
    }
    v->v[v->n++] = n;
}

static jj_nodes nv_done(nvec *v) {
    jj_nodes r = {v->v, v->n};
    return r;
}

static void enter(parser *P) {
    if (++P->depth > MAX_NEST)
        pfail(P, cur(P)->line, "the template is nested more than %s levels deep%s", "200", "");
}
static void leave(parser *P) { P->depth--; }

/* ---- expressions ---- */

static jj_node *parse_expression(parser *P, int with_condexpr);
static jj_node *parse_tuple(parser *P, int simplified, int with_condexpr, const char *extra_end,
                            int explicit_parens);
static jj_node *parse_unary(parser *P, int with_filter);
static jj_node *parse_primary(parser *P);
static jj_node *parse_postfix(parser *P, jj_node *n);
static jj_node *parse_filter_expr(parser *P, jj_node *n);
static jj_node *parse_filter(parser *P, jj_node *n, int start_inline);

static jj_node *parse_condexpr(parser *P);
static jj_node *parse_or(parser *P);

static jj_node *parse_expression(parser *P, int with_condexpr) {
    enter(P);
    jj_node *n = with_condexpr ? parse_condexpr(P) : parse_or(P);
    leave(P);
    return n;
}

static jj_node *parse_condexpr(parser *P) {
    int line = cur(P)->line;
    jj_node *e1 = parse_or(P);
    while (is_name(cur(P), "if")) {
        next(P);
        jj_node *e2 = parse_or(P);
        jj_node *e3 = NULL;
        if (is_name(cur(P), "else")) {
            next(P);
            enter(P);
            e3 = parse_condexpr(P);
            leave(P);
        }
        jj_node *c = node(P, N_CONDEXPR, line);
        c->a = e2;
        c->b = e1;
        c->c = e3;
        e1 = deepen(P, c);
        line = cur(P)->line;
    }
    return e1;
}

/* a or b or ..., a and b and ...: left-associative chains */
static jj_node *logic_chain(parser *P, const char *word, int kind, jj_node *(*operand)(parser *)) {
    int line = cur(P)->line;
    jj_node *l = operand(P);
    while (is_name(cur(P), word)) {
        next(P);
        jj_node *o = node(P, kind, line);
        o->a = l;
        o->b = operand(P);
        l = deepen(P, o);
        line = cur(P)->line;
    }
    return l;
}

static jj_node *parse_not(parser *P);
static jj_node *parse_and(parser *P) { return logic_chain(P, "and", N_AND, parse_not); }
static jj_node *parse_or(parser *P) { return logic_chain(P, "or", N_OR, parse_and); }

static jj_node *parse_compare(parser *P);
static jj_node *parse_not(parser *P) {
    if (is_name(cur(P), "not")) {
        int line = next(P)->line;
        jj_node *n = node(P, N_NOT, line);
        enter(P);
        n->a = parse_not(P);
        leave(P);
        return deepen(P, n);
    }
    return parse_compare(P);
}

static jj_node *parse_math1(parser *P);
static jj_node *parse_compare(parser *P) {
    int line = cur(P)->line;
    jj_node *e = parse_math1(P);
    nvec ops = {0};
    for (;;) {
        const jj_tok *k = cur(P);
        int op = -1;
        if (k->type == T_OP) {
            switch (k->op) {
            case TO_EQ: op = OP_EQ; break;
            case TO_NE: op = OP_NE; break;
            case TO_LT: op = OP_LT; break;
            case TO_LTEQ: op = OP_LTEQ; break;
            case TO_GT: op = OP_GT; break;
            case TO_GTEQ: op = OP_GTEQ; break;
            default: break;
            }
            if (op >= 0) next(P);
        } else if (is_name(k, "in")) {
            op = OP_IN;
            next(P);
        } else if (is_name(k, "not") && is_name(look(P), "in")) {
            op = OP_NOTIN;
            next(P);
            next(P);
        }
        if (op < 0) break;
        jj_node *o = node(P, N_OPERAND, cur(P)->line);
        o->op = (uint8_t)op;
        o->a = parse_math1(P);
        nv_push(P, &ops, deepen(P, o));
        line = cur(P)->line;
    }
    if (!ops.n) return e;
    jj_node *c = node(P, N_COMPARE, line);
    c->a = e;
    c->k1 = nv_done(&ops);
    return deepen(P, c);
}

static jj_node *binop(parser *P, int op, jj_node *a, jj_node *b, int line) {
    jj_node *n = node(P, N_BINOP, line);
    n->op = (uint8_t)op;
    n->a = a;
    n->b = b;
    return deepen(P, n);
}

static jj_node *parse_concat(parser *P);
static jj_node *parse_math1(parser *P) {
    int line = cur(P)->line;
    jj_node *l = parse_concat(P);
    while (is_op(cur(P), TO_ADD) || is_op(cur(P), TO_SUB)) {
        int op = next(P)->op == TO_ADD ? OP_ADD : OP_SUB;
        l = binop(P, op, l, parse_concat(P), line);
        line = cur(P)->line;
    }
    return l;
}

static jj_node *parse_math2(parser *P);
static jj_node *parse_concat(parser *P) {
    int line = cur(P)->line;
    jj_node *first = parse_math2(P);
    if (!is_op(cur(P), TO_TILDE)) return first;
    nvec args = {0};
    nv_push(P, &args, first);
    while (is_op(cur(P), TO_TILDE)) {
        next(P);
        nv_push(P, &args, parse_math2(P));
    }
    jj_node *c = node(P, N_CONCAT, line);
    c->k1 = nv_done(&args);
    return deepen(P, c);
}

static jj_node *parse_pow(parser *P);
static jj_node *parse_math2(parser *P) {
    int line = cur(P)->line;
    jj_node *l = parse_pow(P);
    for (;;) {
        const jj_tok *k = cur(P);
        int op = is_op(k, TO_MUL) ? OP_MUL : is_op(k, TO_DIV) ? OP_DIV : is_op(k, TO_FLOORDIV) ? OP_FLOORDIV
                 : is_op(k, TO_MOD) ? OP_MOD : -1;
        if (op < 0) break;
        next(P);
        l = binop(P, op, l, parse_pow(P), line);
        line = cur(P)->line;
    }
    return l;
}

static jj_node *parse_pow(parser *P) {
    int line = cur(P)->line;
    jj_node *l = parse_unary(P, 1);
    while (is_op(cur(P), TO_POW)) {
        next(P);
        l = binop(P, OP_POW, l, parse_unary(P, 1), line);
        line = cur(P)->line;
    }
    return l;
}

static jj_node *parse_unary(parser *P, int with_filter) {
    const jj_tok *k = cur(P);
    int line = k->line;
    jj_node *n;
    enter(P);
    if (is_op(k, TO_SUB) || is_op(k, TO_ADD)) {
        next(P);
        n = node(P, k->op == TO_SUB ? N_NEG : N_POS, line);
        n->a = parse_unary(P, 0);
        deepen(P, n);
    } else {
        n = parse_primary(P);
    }
    n = parse_postfix(P, n);
    if (with_filter) n = parse_filter_expr(P, n);
    leave(P);
    return n;
}

static jj_node *parse_list(parser *P) {
    int line = cur(P)->line;
    expect_op(P, TO_LBRACKET);
    nvec items = {0};
    while (!is_op(cur(P), TO_RBRACKET)) {
        if (items.n) expect_op(P, TO_COMMA);
        if (is_op(cur(P), TO_RBRACKET)) break;
        nv_push(P, &items, parse_expression(P, 1));
    }
    expect_op(P, TO_RBRACKET);
    jj_node *n = node(P, N_LIST, line);
    n->k1 = nv_done(&items);
    return deepen(P, n);
}

static jj_node *parse_dict(parser *P) {
    int line = cur(P)->line;
    expect_op(P, TO_LBRACE);
    nvec keys = {0}, vals = {0};
    while (!is_op(cur(P), TO_RBRACE)) {
        if (keys.n) expect_op(P, TO_COMMA);
        if (is_op(cur(P), TO_RBRACE)) break;
        nv_push(P, &keys, parse_expression(P, 1));
        expect_op(P, TO_COLON);
        nv_push(P, &vals, parse_expression(P, 1));
    }
    expect_op(P, TO_RBRACE);
    jj_node *n = node(P, N_DICT, line);
    n->k1 = nv_done(&keys);
    n->k2 = nv_done(&vals);
    return deepen(P, n);
}

static jj_node *parse_primary(parser *P) {
    const jj_tok *k = cur(P);
    jj_node *n;
    switch (k->type) {
    case T_NAME:
        next(P);
        if (!strcmp(k->s, "true") || !strcmp(k->s, "True") || !strcmp(k->s, "false") || !strcmp(k->s, "False")) {
            n = node(P, N_CONST, k->line);
            n->val = jj_bool(k->s[0] == 't' || k->s[0] == 'T');
        } else if (!strcmp(k->s, "none") || !strcmp(k->s, "None")) {
            n = node(P, N_CONST, k->line);
            n->val = jj_none;
        } else {
            n = node(P, N_NAME, k->line);
            n->name = k->s;
        }
        return n;
    case T_STRING: {
        next(P);
        n = node(P, N_CONST, k->line);
        if (cur(P)->type != T_STRING) {
            n->val = jj_strv(const_str(P, k->s, k->n));
            return n;
        }
        /* adjacent literals are one string */
        size_t total = k->n;
        for (size_t j = P->i; P->tok[j].type == T_STRING; j++) total += P->tok[j].n;
        char *buf = jj_alloc(&P->t->ar, total + 1);
        memcpy(buf, k->s, k->n);
        size_t o = k->n;
        while (cur(P)->type == T_STRING) {
            memcpy(buf + o, cur(P)->s, cur(P)->n);
            o += cur(P)->n;
            next(P);
        }
        n->val = jj_strv(const_str(P, buf, o));
        return n;
    }
    case T_INT: case T_FLOAT:
        next(P);
        n = node(P, N_CONST, k->line);
        n->val = k->type == T_INT ? k->i : jj_float(k->f);
        return n;
    case T_OP:
        if (k->op == TO_LPAREN) {
            next(P);
            n = parse_tuple(P, 0, 1, NULL, 1);
            expect_op(P, TO_RPAREN);
            return n;
        }
        if (k->op == TO_LBRACKET) return parse_list(P);
        if (k->op == TO_LBRACE) return parse_dict(P);
        break;
    case T_EOF:
        pfail(P, k->line, "unexpected end of template%s%s", "", "");
    default: break;
    }
    pfail(P, k->line, "unexpected '%s'%s", describe(k), "");
}

static int is_tuple_end(parser *P, const char *extra_end) {
    const jj_tok *k = cur(P);
    if (k->type == T_VAR_END || k->type == T_BLOCK_END || is_op(k, TO_RPAREN)) return 1;
    return extra_end && is_name(k, extra_end);
}

static jj_node *parse_tuple(parser *P, int simplified, int with_condexpr, const char *extra_end,
                            int explicit_parens) {
    int line = cur(P)->line;
    nvec args = {0};
    int is_tuple = 0;
    enter(P);
    for (;;) {
        if (args.n) expect_op(P, TO_COMMA);
        if (is_tuple_end(P, extra_end)) break;
        jj_node *e = simplified ? parse_primary(P) : parse_expression(P, with_condexpr);
        nv_push(P, &args, e);
        if (is_op(cur(P), TO_COMMA)) is_tuple = 1;
        else break;
        line = cur(P)->line;
    }
    leave(P);
    if (!is_tuple) {
        if (args.n) return args.v[0];
        if (!explicit_parens)
            pfail(P, cur(P)->line, "Expected an expression, got '%s'%s", describe(cur(P)), "");
    }
    jj_node *t = node(P, N_TUPLE, line);
    t->k1 = nv_done(&args);
    return deepen(P, t);
}

/* ( args, key=value, *dyn, **dynkw ) into n's k1, k2, c, d */
static void parse_call_args(parser *P, jj_node *n) {
    int line = cur(P)->line;
    expect_op(P, TO_LPAREN);
    nvec args = {0}, kws = {0};
    int require_comma = 0;
    while (!is_op(cur(P), TO_RPAREN)) {
        if (require_comma) {
            expect_op(P, TO_COMMA);
            if (is_op(cur(P), TO_RPAREN)) break;
        }
        if (is_op(cur(P), TO_MUL)) {
            if (n->c || n->d) pfail(P, line, "invalid syntax for function call expression%s%s", "", "");
            next(P);
            n->c = parse_expression(P, 1);
        } else if (is_op(cur(P), TO_POW)) {
            if (n->d) pfail(P, line, "invalid syntax for function call expression%s%s", "", "");
            next(P);
            n->d = parse_expression(P, 1);
        } else if (cur(P)->type == T_NAME && is_op(look(P), TO_ASSIGN)) {
            if (n->d) pfail(P, line, "invalid syntax for function call expression%s%s", "", "");
            const char *key = cur(P)->s;
            next(P);
            next(P);
            jj_node *kw = node(P, N_KEYWORD, cur(P)->line);
            kw->name = key;
            kw->a = parse_expression(P, 1);
            nv_push(P, &kws, kw);
        } else {
            if (n->c || n->d || kws.n) pfail(P, line, "invalid syntax for function call expression%s%s", "", "");
            nv_push(P, &args, parse_expression(P, 1));
        }
        require_comma = 1;
    }
    expect_op(P, TO_RPAREN);
    n->k1 = nv_done(&args);
    n->k2 = nv_done(&kws);
}

static jj_node *parse_subscribed(parser *P) {
    int line = cur(P)->line;
    jj_node *parts[3] = {NULL, NULL, NULL};
    if (is_op(cur(P), TO_COLON)) {
        next(P);
    } else {
        jj_node *e = parse_expression(P, 1);
        if (!is_op(cur(P), TO_COLON)) return e;
        next(P);
        parts[0] = e;
    }
    if (!is_op(cur(P), TO_COLON) && !is_op(cur(P), TO_RBRACKET) && !is_op(cur(P), TO_COMMA))
        parts[1] = parse_expression(P, 1);
    if (is_op(cur(P), TO_COLON)) {
        next(P);
        if (!is_op(cur(P), TO_RBRACKET) && !is_op(cur(P), TO_COMMA)) parts[2] = parse_expression(P, 1);
    }
    jj_node *s = node(P, N_SLICE, line);
    jj_node **v = jj_alloc(&P->t->ar, 3 * sizeof *v);
    memcpy(v, parts, sizeof parts);
    s->k1.v = v;
    s->k1.n = 3;
    return deepen(P, s);
}

static jj_node *parse_subscript(parser *P, jj_node *obj) {
    const jj_tok *k = next(P);
    if (is_op(k, TO_DOT)) {
        const jj_tok *a = next(P);
        if (a->type == T_NAME) {
            jj_node *n = node(P, N_GETATTR, k->line);
            n->a = obj;
            n->name = a->s;
            return deepen(P, n);
        }
        if (a->type != T_INT) pfail(P, a->line, "expected name or number%s%s", "", "");
        jj_node *c = node(P, N_CONST, a->line);
        c->val = a->i;
        jj_node *n = node(P, N_GETITEM, k->line);
        n->a = obj;
        n->b = c;
        return deepen(P, n);
    }
    /* '[' */
    nvec args = {0};
    while (!is_op(cur(P), TO_RBRACKET)) {
        if (args.n) expect_op(P, TO_COMMA);
        nv_push(P, &args, parse_subscribed(P));
    }
    expect_op(P, TO_RBRACKET);
    jj_node *n = node(P, N_GETITEM, k->line);
    n->a = obj;
    if (args.n == 1) n->b = args.v[0];
    else {
        jj_node *t = node(P, N_TUPLE, k->line);
        t->k1 = nv_done(&args);
        n->b = deepen(P, t);
    }
    return deepen(P, n);
}

static jj_node *parse_call(parser *P, jj_node *callee) {
    jj_node *n = node(P, N_CALL, cur(P)->line);
    n->a = callee;
    parse_call_args(P, n);
    return deepen(P, n);
}

static jj_node *parse_postfix(parser *P, jj_node *n) {
    for (;;) {
        const jj_tok *k = cur(P);
        if (is_op(k, TO_DOT) || is_op(k, TO_LBRACKET)) n = parse_subscript(P, n);
        else if (is_op(k, TO_LPAREN)) n = parse_call(P, n);
        else return n;
    }
}

/* name(.name)* of a filter or test */
static const char *dotted_name(parser *P) {
    const char *name = expect_name(P);
    while (is_op(cur(P), TO_DOT)) {
        next(P);
        const char *more = expect_name(P);
        size_t a = strlen(name), b = strlen(more);
        char *s = jj_alloc(&P->t->ar, a + b + 2);
        memcpy(s, name, a);
        s[a] = '.';
        memcpy(s + a + 1, more, b + 1);
        name = s;
    }
    return name;
}

static jj_node *parse_filter(parser *P, jj_node *n, int start_inline) {
    while (is_op(cur(P), TO_PIPE) || start_inline) {
        if (!start_inline) next(P);
        int line = cur(P)->line;
        const char *name = dotted_name(P);
        jj_node *f = node(P, N_FILTER, line);
        f->a = n;
        f->name = name;
        f->id = jj_filter_id(name);
        if (is_op(cur(P), TO_LPAREN)) parse_call_args(P, f);
        n = deepen(P, f);
        start_inline = 0;
    }
    return n;
}

static jj_node *parse_test(parser *P, jj_node *n) {
    int line = next(P)->line; /* 'is' */
    int negated = 0;
    if (is_name(cur(P), "not")) {
        next(P);
        negated = 1;
    }
    const char *name = dotted_name(P);
    jj_node *t = node(P, N_TEST, line);
    t->a = n;
    t->name = name;
    t->id = jj_test_id(name);
    const jj_tok *k = cur(P);
    if (is_op(k, TO_LPAREN)) {
        parse_call_args(P, t);
    } else if ((k->type == T_NAME || k->type == T_STRING || k->type == T_INT || k->type == T_FLOAT ||
                is_op(k, TO_LPAREN) || is_op(k, TO_LBRACKET) || is_op(k, TO_LBRACE)) &&
               !is_name(k, "else") && !is_name(k, "or") && !is_name(k, "and")) {
        if (is_name(k, "is")) pfail(P, k->line, "You cannot chain multiple tests with is%s%s", "", "");
        jj_node *arg = parse_postfix(P, parse_primary(P));
        jj_node **v = jj_alloc(&P->t->ar, sizeof *v);
        v[0] = arg;
        t->k1.v = v;
        t->k1.n = 1;
    }
    deepen(P, t);
    if (!negated) return t;
    jj_node *nt = node(P, N_NOT, line);
    nt->a = t;
    return deepen(P, nt);
}

static jj_node *parse_filter_expr(parser *P, jj_node *n) {
    for (;;) {
        const jj_tok *k = cur(P);
        if (is_op(k, TO_PIPE)) n = parse_filter(P, n, 0);
        else if (is_name(k, "is")) n = parse_test(P, n);
        else if (is_op(k, TO_LPAREN)) n = parse_call(P, n);
        else return n;
    }
}

/* ---- statements ---- */

static jj_nodes subparse(parser *P, const char *e1, const char *e2, const char *e3);

/* The body of a block statement: an optional ':', the end of the tag, then
 * statements up to one of the end tags (consumed when drop is set). */
static jj_nodes parse_statements(parser *P, const char *e1, const char *e2, const char *e3, int drop) {
    if (is_op(cur(P), TO_COLON)) next(P);
    expect_type(P, T_BLOCK_END, "end of statement block");
    jj_nodes body = subparse(P, e1, e2, e3);
    if (cur(P)->type == T_EOF) {
        char want[160];
        snprintf(want, sizeof want, "'%s'%s%s%s%s%s%s", e1, e2 ? " or '" : "", e2 ? e2 : "", e2 ? "'" : "",
                 e3 ? " or '" : "", e3 ? e3 : "", e3 ? "'" : "");
        pfail(P, cur(P)->line, "Unexpected end of template. Jinja was looking for the following tags: %s.%s",
              want, "");
    }
    if (drop) next(P);
    return body;
}

static int can_assign(const jj_node *n) {
    if (n->kind == N_NAME) return 1;
    if (n->kind == N_NSREF) return 1;
    if (n->kind == N_TUPLE) {
        for (size_t i = 0; i < n->k1.n; i++)
            if (!can_assign(n->k1.v[i])) return 0;
        return 1;
    }
    return 0;
}

static const char *kind_name(const jj_node *n) {
    switch (n->kind) {
    case N_CONST: return "const";
    case N_CALL: return "call";
    case N_GETATTR: return "getattr";
    case N_GETITEM: return "getitem";
    case N_LIST: return "list";
    case N_DICT: return "dict";
    default: return "expression";
    }
}

static void mark_store(jj_node *n) {
    if (n->kind == N_NAME) n->op = 1;
    else if (n->kind == N_TUPLE)
        for (size_t i = 0; i < n->k1.n; i++) mark_store(n->k1.v[i]);
}

static jj_node *parse_assign_target(parser *P, int with_tuple, int name_only, const char *extra_end,
                                    int with_namespace) {
    jj_node *t;
    if (with_namespace && is_op(look(P), TO_DOT)) {
        const jj_tok *k = cur(P);
        if (k->type != T_NAME) pfail(P, k->line, "expected token 'name', got '%s'%s", describe(k), "");
        next(P);
        next(P);
        t = node(P, N_NSREF, k->line);
        t->name = k->s;
        t->attr = expect_name(P);
        return t;
    }
    if (name_only) {
        int line = cur(P)->line;
        const char *name = expect_name(P);
        t = node(P, N_NAME, line);
        t->name = name;
    } else if (with_tuple) {
        t = parse_tuple(P, 1, 1, extra_end, 0);
    } else {
        t = parse_primary(P);
    }
    if (!can_assign(t) || (t->kind == N_NAME && (!strcmp(t->name, "true") || !strcmp(t->name, "false") ||
                                                 !strcmp(t->name, "none") || !strcmp(t->name, "True") ||
                                                 !strcmp(t->name, "False") || !strcmp(t->name, "None"))))
        pfail(P, t->line, "can't assign to '%s'%s", kind_name(t), "");
    mark_store(t);
    return t;
}

static void parse_signature(parser *P, jj_node *n) {
    expect_op(P, TO_LPAREN);
    nvec params = {0}, defaults = {0};
    while (!is_op(cur(P), TO_RPAREN)) {
        if (params.n) expect_op(P, TO_COMMA);
        jj_node *a = parse_assign_target(P, 0, 1, NULL, 0);
        if (is_op(cur(P), TO_ASSIGN)) {
            next(P);
            nv_push(P, &defaults, parse_expression(P, 1));
        } else if (defaults.n) {
            pfail(P, a->line, "non-default argument follows default argument%s%s", "", "");
        }
        nv_push(P, &params, a);
    }
    expect_op(P, TO_RPAREN);
    n->k2 = nv_done(&params);
    n->k3 = nv_done(&defaults);
}

static jj_node *parse_for(parser *P) {
    int line = next(P)->line;
    jj_node *n = node(P, N_FOR, line);
    n->a = parse_assign_target(P, 1, 0, "in", 0);
    if (!is_name(cur(P), "in")) {
        const jj_tok *k = cur(P);
        pfail(P, k->line, "expected token 'in', got '%s'%s", describe(k), "");
    }
    next(P);
    n->b = parse_tuple(P, 0, 0, "recursive", 0);
    if (is_name(cur(P), "if")) {
        next(P);
        n->c = parse_expression(P, 1);
    }
    if (is_name(cur(P), "recursive")) {
        next(P);
        n->recursive = 1;
    }
    n->k1 = parse_statements(P, "endfor", "else", NULL, 0);
    if (!strcmp(next(P)->s, "else")) n->k2 = parse_statements(P, "endfor", NULL, NULL, 1);
    return n;
}

static jj_node *parse_if(parser *P) {
    int line = next(P)->line;
    jj_node *top = node(P, N_IF, line), *n = top;
    for (;;) {
        n->a = parse_tuple(P, 0, 0, NULL, 0);
        n->k1 = parse_statements(P, "elif", "else", "endif", 0);
        const jj_tok *k = next(P);
        if (!strcmp(k->s, "elif")) {
            jj_node *e = node(P, N_IF, cur(P)->line);
            jj_node **v = jj_alloc(&P->t->ar, sizeof *v);
            v[0] = e;
            n->k2.v = v;
            n->k2.n = 1;
            n = e;
            continue;
        }
        if (!strcmp(k->s, "else")) n->k2 = parse_statements(P, "endif", NULL, NULL, 1);
        break;
    }
    return top;
}

static jj_node *parse_set(parser *P) {
    int line = next(P)->line;
    jj_node *target = parse_assign_target(P, 1, 0, NULL, 1);
    if (is_op(cur(P), TO_ASSIGN)) {
        next(P);
        jj_node *n = node(P, N_ASSIGN, line);
        n->a = target;
        n->b = parse_tuple(P, 0, 1, NULL, 0);
        return n;
    }
    jj_node *n = node(P, N_ASSIGNBLOCK, line);
    n->a = target;
    n->b = is_op(cur(P), TO_PIPE) ? parse_filter(P, NULL, 0) : NULL;
    n->k1 = parse_statements(P, "endset", NULL, NULL, 1);
    return n;
}

static jj_node *parse_macro(parser *P) {
    int line = next(P)->line;
    jj_node *n = node(P, N_MACRO, line);
    n->name = parse_assign_target(P, 0, 1, NULL, 0)->name;
    parse_signature(P, n);
    n->k1 = parse_statements(P, "endmacro", NULL, NULL, 1);
    return n;
}

static jj_node *parse_call_block(parser *P) {
    int line = next(P)->line;
    jj_node *n = node(P, N_CALLBLOCK, line);
    if (is_op(cur(P), TO_LPAREN)) parse_signature(P, n);
    n->a = parse_expression(P, 1);
    if (n->a->kind != N_CALL) pfail(P, line, "expected call%s%s", "", "");
    n->name = "caller";
    n->k1 = parse_statements(P, "endcall", NULL, NULL, 1);
    return n;
}

static jj_node *parse_filter_block(parser *P) {
    int line = next(P)->line;
    jj_node *n = node(P, N_FILTERBLOCK, line);
    n->a = parse_filter(P, NULL, 1);
    n->k1 = parse_statements(P, "endfilter", NULL, NULL, 1);
    return n;
}

static jj_node *parse_with(parser *P) {
    int line = next(P)->line;
    jj_node *n = node(P, N_WITH, line);
    nvec targets = {0}, values = {0};
    while (cur(P)->type != T_BLOCK_END) {
        if (targets.n) expect_op(P, TO_COMMA);
        nv_push(P, &targets, parse_assign_target(P, 1, 0, NULL, 0));
        expect_op(P, TO_ASSIGN);
        nv_push(P, &values, parse_expression(P, 1));
    }
    n->k2 = nv_done(&targets);
    n->k3 = nv_done(&values);
    n->k1 = parse_statements(P, "endwith", NULL, NULL, 1);
    return n;
}

static jj_node *parse_print(parser *P) {
    int line = next(P)->line;
    jj_node *n = node(P, N_OUTPUT, line);
    nvec items = {0};
    while (cur(P)->type != T_BLOCK_END) {
        if (items.n) expect_op(P, TO_COMMA);
        nv_push(P, &items, parse_expression(P, 1));
    }
    n->k1 = nv_done(&items);
    return n;
}

static CAL_NORETURN void unknown_tag(parser *P, const char *name, int line) {
    char looking[160] = "";
    if (P->nend > 0)
        snprintf(looking, sizeof looking, " Jinja was looking for the following tags: '%s'.",
                 P->end_stack[P->nend - 1][0]);
    pfail(P, line, "Encountered unknown tag '%s'.%s", name, looking);
}

static jj_node *parse_statement(parser *P) {
    const jj_tok *k = cur(P);
    if (k->type != T_NAME) pfail(P, k->line, "tag name expected%s%s", "", "");
    const char *s = k->s;
    enter(P);
    jj_node *n;
    if (!strcmp(s, "for")) n = parse_for(P);
    else if (!strcmp(s, "if")) n = parse_if(P);
    else if (!strcmp(s, "set")) n = parse_set(P);
    else if (!strcmp(s, "macro")) n = parse_macro(P);
    else if (!strcmp(s, "call")) n = parse_call_block(P);
    else if (!strcmp(s, "filter")) n = parse_filter_block(P);
    else if (!strcmp(s, "with")) n = parse_with(P);
    else if (!strcmp(s, "print")) n = parse_print(P);
    else if (!strcmp(s, "break") || !strcmp(s, "continue")) {
        next(P);
        n = node(P, s[0] == 'b' ? N_BREAK : N_CONTINUE, k->line);
    } else if (!strcmp(s, "generation")) {
        next(P);
        n = node(P, N_SCOPE, k->line);
        n->k1 = parse_statements(P, "endgeneration", NULL, NULL, 1);
        P->t->has_generation = 1;
    } else if (!strcmp(s, "block") || !strcmp(s, "extends") || !strcmp(s, "include") ||
               !strcmp(s, "from") || !strcmp(s, "import") || !strcmp(s, "autoescape")) {
        pfail(P, k->line, "the '%s' tag is not supported for chat templates%s", s, "");
    } else {
        unknown_tag(P, s, k->line);
    }
    leave(P);
    return n;
}

static jj_nodes subparse(parser *P, const char *e1, const char *e2, const char *e3) {
    nvec body = {0};
    nvec data = {0};
    int has_end = e1 != NULL;
    if (has_end) {
        if (P->nend == 64) pfail(P, cur(P)->line, "blocks nested too deep%s%s", "", "");
        P->end_stack[P->nend][0] = e1;
        P->end_stack[P->nend][1] = e2;
        P->end_stack[P->nend][2] = e3;
        P->end_stack[P->nend][3] = NULL;
        P->nend++;
    }
#define FLUSH()                                                    \
    do {                                                           \
        if (data.n) {                                              \
            jj_node *o = node(P, N_OUTPUT, data.v[0]->line);       \
            o->k1 = nv_done(&data);                                \
            nv_push(P, &body, o);                                  \
            memset(&data, 0, sizeof data);                         \
        }                                                          \
    } while (0)
    for (;;) {
        const jj_tok *k = cur(P);
        if (k->type == T_EOF) break;
        if (k->type == T_DATA) {
            jj_node *d = node(P, N_DATA, k->line);
            d->val = jj_strv(const_str(P, k->s, k->n));
            nv_push(P, &data, d);
            next(P);
        } else if (k->type == T_VAR_BEGIN) {
            next(P);
            nv_push(P, &data, parse_tuple(P, 0, 1, NULL, 0));
            expect_type(P, T_VAR_END, "end of print statement");
        } else if (k->type == T_BLOCK_BEGIN) {
            FLUSH();
            next(P);
            const jj_tok *t = cur(P);
            if (has_end && t->type == T_NAME &&
                (!strcmp(t->s, e1) || (e2 && !strcmp(t->s, e2)) || (e3 && !strcmp(t->s, e3)))) {
                P->nend--;
                return nv_done(&body);
            }
            nv_push(P, &body, parse_statement(P));
            expect_type(P, T_BLOCK_END, "end of statement block");
        } else {
            pfail(P, k->line, "unexpected '%s'%s", describe(k), "");
        }
    }
    FLUSH();
#undef FLUSH
    if (has_end) P->nend--;
    return nv_done(&body);
}

/* ---- checks after parsing ---- */

/* Where a node sits: soft = inside an if or inline if (unknown filters and
 * tests fail only when run), loop = inside a for body (break, continue). */
static void check(parser *P, jj_node *n, int soft, int loop);
static void check_all(parser *P, jj_nodes v, int soft, int loop) {
    for (size_t i = 0; i < v.n; i++)
        if (v.v[i]) check(P, v.v[i], soft, loop);
}

/* Whether body loads any of varargs, kwargs, caller (bits 1, 2, 4). */
static int uses_special(const jj_node *n) {
    if (!n) return 0;
    int r = 0;
    if (n->kind == N_NAME && n->op == 0) {
        if (!strcmp(n->name, "varargs")) r |= 1;
        else if (!strcmp(n->name, "kwargs")) r |= 2;
        else if (!strcmp(n->name, "caller")) r |= 4;
    }
    const jj_node *kids[4] = {n->a, n->b, n->c, n->d};
    for (int i = 0; i < 4; i++) r |= uses_special(kids[i]);
    const jj_nodes *lists[3] = {&n->k1, &n->k2, &n->k3};
    for (int j = 0; j < 3; j++)
        for (size_t i = 0; i < lists[j]->n; i++) r |= uses_special(lists[j]->v[i]);
    return r;
}

static void check(parser *P, jj_node *n, int soft, int loop) {
    switch (n->kind) {
    case N_FILTER: case N_TEST:
        if (n->id < 0) {
            if (!soft)
                pfail(P, n->line, n->kind == N_FILTER ? "No filter named '%s'.%s" : "No test named '%s'.%s",
                      n->name, "");
            n->soft = 1;
        }
        break;
    case N_BREAK: case N_CONTINUE:
        if (!loop) pfail(P, n->line, "'%s' outside loop%s", n->kind == N_BREAK ? "break" : "continue", "");
        return;
    case N_IF: case N_CONDEXPR:
        soft = 1;
        break;
    case N_FOR:
        if (n->b) check(P, n->b, soft, loop);
        if (n->c) check(P, n->c, 0, loop);
        check_all(P, n->k1, 0, 1);
        check_all(P, n->k2, 0, loop);
        return;
    case N_MACRO: case N_CALLBLOCK: {
        int u = 0;
        for (size_t i = 0; i < n->k1.n; i++) u |= uses_special(n->k1.v[i]);
        n->op = (uint8_t)u;
        if (n->kind == N_CALLBLOCK && n->a) check(P, n->a, soft, loop);
        check_all(P, n->k1, 0, 0);
        check_all(P, n->k3, 0, 0);
        return;
    }
    case N_FILTERBLOCK: case N_ASSIGNBLOCK: case N_SCOPE:
        if (n->b) check(P, n->b, 0, loop);
        if (n->a && n->kind == N_FILTERBLOCK) check(P, n->a, 0, loop);
        check_all(P, n->k1, 0, n->kind == N_SCOPE ? 0 : loop);
        return;
    case N_WITH:
        check_all(P, n->k3, soft, loop);
        check_all(P, n->k1, 0, loop);
        return;
    default: break;
    }
    if (n->a) check(P, n->a, soft, loop);
    if (n->b) check(P, n->b, soft, loop);
    if (n->c) check(P, n->c, soft, loop);
    if (n->d) check(P, n->d, soft, loop);
    check_all(P, n->k1, soft, loop);
    check_all(P, n->k2, soft, loop);
    check_all(P, n->k3, soft, loop);
}

void jj_parse(jj_template *t, const jj_toks *toks) {
    parser P;
    memset(&P, 0, sizeof P);
    P.t = t;
    P.tok = toks->v;
    t->body = subparse(&P, NULL, NULL, NULL);
    check_all(&P, t->body, 0, 0);
}
