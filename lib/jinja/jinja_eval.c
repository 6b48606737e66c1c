/* jinja_eval.c - runs a parsed template: statements write to a buffer,
 * expressions give values. Scoping is Jinja's: a for loop's body (each
 * iteration afresh), a macro, a call, filter or set block and a with block
 * have their own scope, an if does not; set inside a loop is not seen after
 * it (hence namespace()). */
#include <string.h>

#include "jinja/jinja_int.h"

typedef enum { FLOW_NORMAL, FLOW_BREAK, FLOW_CONTINUE } flow;

static jj_val eval(jj_rt *rt, const jj_node *n, jj_scope *sc);
static flow exec_body(jj_rt *rt, jj_nodes body, jj_scope *sc, jj_buf *out);

static jj_scope *child(jj_rt *rt, jj_scope *parent) {
    jj_scope *s = jj_alloc(&rt->ar, sizeof *s);
    memset(s, 0, sizeof *s);
    s->parent = parent;
    s->vars.epoch = rt->epoch;
    return s;
}

static jj_val lookup(jj_rt *rt, jj_scope *sc, const char *name) {
    for (; sc; sc = sc->parent) {
        jj_val *v = jj_dict_gets(rt, &sc->vars, name);
        if (v) return *v;
    }
    return jj_undef_name(rt, name);
}

static void set_var(jj_rt *rt, jj_scope *sc, const char *name, jj_val v) {
    jj_dict_sets(rt, &sc->vars, name, v);
}

/* for a, b in ...; set a, b = ...: Python's unpacking. */
static void assign(jj_rt *rt, const jj_node *target, jj_val v, jj_scope *sc) {
    if (target->kind == N_NAME) {
        set_var(rt, sc, target->name, v);
        return;
    }
    if (target->kind == N_NSREF) {
        jj_val ns = lookup(rt, sc, target->name);
        if (ns.t != JJ_NS) jj_fail(rt, "TemplateRuntimeError: cannot assign attribute on non-namespace object");
        jj_dict_sets(rt, ns.u.d, target->attr, v);
        return;
    }
    /* a tuple of targets */
    size_t want = target->k1.n;
    if (v.t == JJ_UNDEF) jj_fail(rt, "ValueError: not enough values to unpack (expected %zu, got 0)", want);
    if (!(v.t == JJ_LIST || v.t == JJ_TUPLE || v.t == JJ_STR || v.t == JJ_DICT))
        jj_fail(rt, "TypeError: cannot unpack non-iterable %s object", jj_type_name(v));
    jj_list *items = jj_iter(rt, v);
    if (items->n < want)
        jj_fail(rt, "ValueError: not enough values to unpack (expected %zu, got %zu)", want, items->n);
    if (items->n > want) jj_fail(rt, "ValueError: too many values to unpack (expected %zu)", want);
    for (size_t i = 0; i < want; i++) assign(rt, target->k1.v[i], items->v[i], sc);
}

/* ---- calls ---- */

typedef struct {
    jj_val *args;
    size_t nargs;
    const char **kwn;
    jj_val *kwv;
    size_t nkw;
} callargs;

static void eval_args(jj_rt *rt, const jj_node *n, jj_scope *sc, callargs *ca, size_t extra_kw) {
    size_t na = n->k1.n, nk = n->k2.n;
    jj_list *dyn = NULL;
    jj_dict *dynkw = NULL;
    jj_val *args = NULL;
    if (na) {
        args = jj_alloc(&rt->ar, na * sizeof *args);
        for (size_t i = 0; i < na; i++) args[i] = eval(rt, n->k1.v[i], sc);
    }
    const char **kwn = jj_alloc(&rt->ar, (nk + extra_kw + 1) * sizeof *kwn);
    jj_val *kwv = jj_alloc(&rt->ar, (nk + extra_kw + 1) * sizeof *kwv);
    for (size_t i = 0; i < nk; i++) {
        kwn[i] = n->k2.v[i]->name;
        kwv[i] = eval(rt, n->k2.v[i]->a, sc);
    }
    if (n->c) dyn = jj_iter(rt, eval(rt, n->c, sc));
    if (n->d) {
        jj_val d = eval(rt, n->d, sc);
        if (d.t != JJ_DICT) jj_fail(rt, "TypeError: argument after ** must be a mapping, not %s", jj_type_name(d));
        dynkw = d.u.d;
    }
    if (dyn && dyn->n) {
        jj_val *all = jj_alloc(&rt->ar, (na + dyn->n) * sizeof *all);
        if (na) memcpy(all, args, na * sizeof *args);
        memcpy(all + na, dyn->v, dyn->n * sizeof *all);
        args = all;
        na += dyn->n;
    }
    if (dynkw && dynkw->n) {
        const char **k2 = jj_alloc(&rt->ar, (nk + dynkw->n + extra_kw + 1) * sizeof *k2);
        jj_val *v2 = jj_alloc(&rt->ar, (nk + dynkw->n + extra_kw + 1) * sizeof *v2);
        memcpy(k2, kwn, nk * sizeof *k2);
        memcpy(v2, kwv, nk * sizeof *v2);
        for (size_t i = 0; i < dynkw->n; i++) {
            if (dynkw->k[i].t != JJ_STR) jj_fail(rt, "TypeError: keywords must be strings");
            for (size_t j = 0; j < nk; j++)
                if (!strcmp(k2[j], dynkw->k[i].u.s->s))
                    jj_fail(rt, "TypeError: got multiple values for keyword argument '%s'", k2[j]);
            k2[nk] = dynkw->k[i].u.s->s;
            v2[nk] = dynkw->v[i];
            nk++;
        }
        kwn = k2;
        kwv = v2;
    }
    ca->args = args;
    ca->nargs = na;
    ca->kwn = kwn;
    ca->kwv = kwv;
    ca->nkw = nk;
}

static jj_str *render_str(jj_rt *rt, jj_nodes body, jj_scope *sc) {
    jj_buf b = {0};
    exec_body(rt, body, sc, &b);
    return jj_str_buf(rt, &b);
}

static jj_val call_macro(jj_rt *rt, jj_macro *m, const jj_val *args, size_t nargs,
                         const char *const *kwn, const jj_val *kwv, size_t nkw) {
    const jj_node *def = m->node;
    size_t np = def->k2.n, nd = def->k3.n;
    int flags = def->op;
    jj_step(rt);
    if (++rt->depth > rt->max_depth)
        jj_fail(rt, "RecursionError: macros called more than %d deep", rt->max_depth);
    jj_scope *sc = child(rt, m->closure);
    int *used = jj_alloc(&rt->ar, (nkw + 1) * sizeof *used);
    memset(used, 0, (nkw + 1) * sizeof *used);
    int found_caller = 0;
    size_t off = nargs < np ? nargs : np;
    for (size_t i = 0; i < np; i++) {
        const char *pname = def->k2.v[i]->name;
        jj_val v;
        int have = 0;
        if (i < off) {
            v = args[i];
            have = 1;
        } else {
            if (!strcmp(pname, "caller")) found_caller = 1;
            for (size_t k = 0; k < nkw; k++)
                if (!used[k] && !strcmp(kwn[k], pname)) {
                    v = kwv[k];
                    used[k] = 1;
                    have = 1;
                    break;
                }
        }
        if (!have) {
            if (i >= np - nd) {
                /* defaults see the parameters before them */
                v = eval(rt, def->k3.v[i - (np - nd)], sc);
            } else {
                char hint[128];
                snprintf(hint, sizeof hint, "parameter '%s' was not provided", pname);
                v = jj_undef_hint(rt, jj_strndup(&rt->ar, hint, strlen(hint)));
            }
        }
        set_var(rt, sc, pname, v);
    }
    if (off == np) {
        for (size_t i = 0; i < np; i++)
            if (!strcmp(def->k2.v[i]->name, "caller")) found_caller = 1;
    }
    if ((flags & 4) && !found_caller) {
        jj_val c = jj_undef_hint(rt, "No caller defined");
        for (size_t k = 0; k < nkw; k++)
            if (!used[k] && !strcmp(kwn[k], "caller")) {
                c = kwv[k];
                used[k] = 1;
                break;
            }
        set_var(rt, sc, "caller", c);
    }
    jj_dict *rest = jj_dict_new(rt);
    for (size_t k = 0; k < nkw; k++)
        if (!used[k]) {
            if (!(flags & 2)) {
                if (!strcmp(kwn[k], "caller"))
                    jj_fail(rt, "TypeError: macro '%s' was invoked with two values for the special caller argument. This is most likely a bug.", m->name);
                jj_fail(rt, "TypeError: macro '%s' takes no keyword argument '%s'", m->name, kwn[k]);
            }
            jj_dict_sets(rt, rest, kwn[k], kwv[k]);
        }
    if (flags & 2) {
        jj_val d = {JJ_DICT, 0, {.d = rest}};
        set_var(rt, sc, "kwargs", d);
    }
    if (flags & 1) {
        size_t extra = nargs > np ? nargs - np : 0;
        jj_list *l = jj_list_new(rt, extra);
        if (extra) memcpy(l->v, args + np, extra * sizeof *args);
        set_var(rt, sc, "varargs", jj_listv(l, 1));
    } else if (nargs > np) {
        jj_fail(rt, "TypeError: macro '%s' takes not more than %zu argument(s)", m->name, np);
    }
    jj_val r = jj_strv(render_str(rt, def->k1, sc));
    rt->depth--;
    return r;
}

static flow run_loop(jj_rt *rt, const jj_node *n, jj_list *items, jj_scope *sc, jj_buf *out, int depth0);

static jj_val call_value(jj_rt *rt, jj_val callee, callargs *ca) {
    switch (callee.t) {
    case JJ_FUNC:
        jj_step(rt);
        return jj_call_func(rt, callee.u.fn, ca->args, ca->nargs, ca->kwn, ca->kwv, ca->nkw);
    case JJ_MACRO:
        return call_macro(rt, callee.u.m, ca->args, ca->nargs, ca->kwn, ca->kwv, ca->nkw);
    case JJ_LOOP: {
        jj_loop *lp = callee.u.lp;
        if (!lp->node->recursive)
            jj_fail(rt, "TypeError: The loop must have the 'recursive' marker to be called recursively.");
        if (ca->nargs != 1 || ca->nkw)
            jj_fail(rt, "TypeError: loop() takes exactly one argument");
        if (++rt->depth > rt->max_depth)
            jj_fail(rt, "RecursionError: recursive loop more than %d deep", rt->max_depth);
        jj_buf b = {0};
        run_loop(rt, lp->node, jj_iter(rt, ca->args[0]), lp->scope, &b, lp->depth0 + 1);
        rt->depth--;
        return jj_strv(jj_str_buf(rt, &b));
    }
    case JJ_UNDEF: jj_undef_fail(rt, callee);
    default:
        jj_fail(rt, "TypeError: '%s' object is not callable", jj_type_name(callee));
    }
}

/* ---- expressions ---- */

static jj_val apply_filter(jj_rt *rt, const jj_node *n, jj_val v, jj_scope *sc) {
    callargs ca;
    eval_args(rt, n, sc, &ca, 0);
    rt->line = n->line;
    if (n->soft) jj_fail(rt, "TemplateRuntimeError: No filter named '%s' found.", n->name);
    return jj_call_filter(rt, n->id, n->name, v, ca.args, ca.nargs, ca.kwn, ca.kwv, ca.nkw);
}

/* A filter chain over a value (filter blocks, set blocks): the innermost
 * filter's operand is that value. */
static jj_val filter_chain(jj_rt *rt, const jj_node *f, jj_val v, jj_scope *sc) {
    if (!f) return v;
    jj_val inner = f->a ? filter_chain(rt, f->a, v, sc) : v;
    return apply_filter(rt, f, inner, sc);
}

static jj_val slice(jj_rt *rt, jj_val obj, const jj_node *s, jj_scope *sc) {
    int has[3] = {0, 0, 0};
    int64_t x[3] = {0, 0, 1};
    for (int i = 0; i < 3; i++) {
        if (!s->k1.v[i]) continue;
        jj_val v = eval(rt, s->k1.v[i], sc);
        if (v.t == JJ_NONE) continue;
        if (!jj_is_int(v)) {
            if (obj.t == JJ_UNDEF) jj_undef_fail(rt, obj);
            if (obj.t == JJ_STR || obj.t == JJ_LIST || obj.t == JJ_TUPLE)
                jj_fail(rt, "TypeError: slice indices must be integers or None or have an __index__ method");
            return jj_undef_hint(rt, "slice of an unsliceable object");
        }
        has[i] = 1;
        /* Python clamps indices past the machine's to its range */
        if (v.t == JJ_BIG) x[i] = v.u.z->neg ? INT64_MIN : INT64_MAX;
        else x[i] = v.u.i;
        if (i == 2 && x[i] < -INT64_MAX) x[i] = -INT64_MAX;
    }
    if (obj.t == JJ_UNDEF) jj_undef_fail(rt, obj);
    if (has[2] && x[2] == 0) {
        if (obj.t == JJ_STR || obj.t == JJ_LIST || obj.t == JJ_TUPLE)
            jj_fail(rt, "ValueError: slice step cannot be zero");
    }
    if (obj.t == JJ_STR) {
        jj_val r = jj_strv(jj_s_slice(rt, obj.u.s, has[0], x[0], has[1], x[1], x[2]));
        r.flags = obj.flags & JJ_MARKUP;
        return r;
    }
    if ((obj.t == JJ_LIST || obj.t == JJ_TUPLE) &&
        !(obj.flags & (JJ_GENERATOR | JJ_DICT_ITEMS | JJ_DICT_KEYS | JJ_DICT_VALUES))) {
        jj_list *l = obj.u.l;
        int64_t start = x[0], stop = x[1];
        int64_t k = jj_slice_indices((int64_t)l->n, has[0], &start, has[1], &stop, x[2]);
        jj_list *r = jj_list_new(rt, (size_t)k);
        for (int64_t i = 0, at = start; i < k; i++, at += x[2]) r->v[i] = l->v[at];
        jj_val v = jj_listv(r, obj.t == JJ_TUPLE);
        if (obj.flags & JJ_RANGE) {
            /* a range's slice is a range: range(a + i*s, a + j*s, s*t) */
            v.flags = JJ_RANGE;
            r->r[0] = jj_int_add(rt, l->r[0], jj_int_mul(rt, jj_int(start), l->r[2]));
            r->r[1] = jj_int_add(rt, l->r[0], jj_int_mul(rt, jj_int(stop), l->r[2]));
            r->r[2] = jj_int_mul(rt, l->r[2], jj_int(x[2]));
        }
        return v;
    }
    /* dicts, None, numbers: obj[slice] fails, so Undefined */
    return jj_undef_hint(rt, "slice of an unsliceable object");
}

static jj_val neg_pos(jj_rt *rt, jj_val v, int neg) {
    if (v.t == JJ_UNDEF) jj_undef_fail(rt, v);
    if (v.t == JJ_FLOAT) return jj_float(neg ? -v.u.f : v.u.f);
    if (v.t == JJ_COMPLEX) return neg ? jj_complex_new(rt, -v.u.c->re, -v.u.c->im) : v;
    if (jj_is_int(v)) {
        if (!neg) return v.t == JJ_BOOL ? jj_int(v.u.i) : v;
        if (v.t == JJ_BIG || v.u.i == INT64_MIN) return jj_int_neg(rt, v);
        return jj_int(-v.u.i);
    }
    jj_fail(rt, "TypeError: bad operand type for unary %c: '%s'", neg ? '-' : '+', jj_type_name(v));
}

static int compare(jj_rt *rt, int op, jj_val a, jj_val b) {
    switch (op) {
    case OP_EQ: return jj_eq(rt, a, b);
    case OP_NE: return !jj_eq(rt, a, b);
    case OP_IN: return jj_contains(rt, b, a);
    case OP_NOTIN: return !jj_contains(rt, b, a);
    default: break;
    }
    if (a.t == JJ_UNDEF) jj_undef_fail(rt, a);
    if (b.t == JJ_UNDEF) jj_undef_fail(rt, b);
    if (!(jj_is_num(a) && jj_is_num(b)) && !(a.t == JJ_STR && b.t == JJ_STR) &&
        !(a.t == b.t && (a.t == JJ_LIST || a.t == JJ_TUPLE))) {
        static const char *sym[] = {"<", "<=", ">", ">="};
        jj_fail(rt, "TypeError: '%s' not supported between instances of '%s' and '%s'",
                sym[op - OP_LT], jj_type_name(a), jj_type_name(b));
    }
    int c = jj_cmp(rt, a, b);
    if (c == 2) return 0;
    switch (op) {
    case OP_LT: return c < 0;
    case OP_LTEQ: return c <= 0;
    case OP_GT: return c > 0;
    default: return c >= 0;
    }
}

static jj_val eval(jj_rt *rt, const jj_node *n, jj_scope *sc) {
    rt->line = n->line;
    switch (n->kind) {
    case N_CONST: return n->val;
    case N_NAME: return lookup(rt, sc, n->name);
    case N_GETATTR: {
        jj_val o = eval(rt, n->a, sc);
        rt->line = n->line;
        return jj_getattr(rt, o, n->name);
    }
    case N_GETITEM: {
        jj_val o = eval(rt, n->a, sc);
        if (n->b->kind == N_SLICE) return slice(rt, o, n->b, sc);
        jj_val k = eval(rt, n->b, sc);
        rt->line = n->line;
        return jj_getitem(rt, o, k);
    }
    case N_CALL: {
        jj_val callee = eval(rt, n->a, sc);
        callargs ca;
        eval_args(rt, n, sc, &ca, 0);
        rt->line = n->line;
        return call_value(rt, callee, &ca);
    }
    case N_FILTER: return apply_filter(rt, n, eval(rt, n->a, sc), sc);
    case N_TEST: {
        jj_val v = eval(rt, n->a, sc);
        callargs ca;
        eval_args(rt, n, sc, &ca, 0);
        rt->line = n->line;
        if (n->soft) jj_fail(rt, "TemplateRuntimeError: No test named '%s' found.", n->name);
        return jj_bool(jj_call_test(rt, n->id, n->name, v, ca.args, ca.nargs, ca.kwn, ca.kwv, ca.nkw));
    }
    case N_NEG: case N_POS: {
        jj_val v = eval(rt, n->a, sc);
        rt->line = n->line;
        return neg_pos(rt, v, n->kind == N_NEG);
    }
    case N_NOT: return jj_bool(!jj_truthy(eval(rt, n->a, sc)));
    case N_BINOP: {
        jj_val a = eval(rt, n->a, sc), b = eval(rt, n->b, sc);
        rt->line = n->line;
        if (n->op == OP_MOD && a.t == JJ_STR) return jj_percent_format(rt, a, b);
        return jj_binop(rt, n->op, a, b);
    }
    case N_AND: {
        jj_val a = eval(rt, n->a, sc);
        return jj_truthy(a) ? eval(rt, n->b, sc) : a;
    }
    case N_OR: {
        jj_val a = eval(rt, n->a, sc);
        return jj_truthy(a) ? a : eval(rt, n->b, sc);
    }
    case N_CONCAT: {
        jj_buf b = {0};
        for (size_t i = 0; i < n->k1.n; i++) jj_str_of(rt, &b, eval(rt, n->k1.v[i], sc));
        return jj_strv(jj_str_buf(rt, &b));
    }
    case N_COMPARE: {
        jj_val left = eval(rt, n->a, sc);
        for (size_t i = 0; i < n->k1.n; i++) {
            const jj_node *o = n->k1.v[i];
            jj_val right = eval(rt, o->a, sc);
            rt->line = n->line;
            if (!compare(rt, o->op, left, right)) return jj_bool(0);
            left = right;
        }
        return jj_bool(1);
    }
    case N_CONDEXPR:
        if (jj_truthy(eval(rt, n->a, sc))) return eval(rt, n->b, sc);
        if (n->c) return eval(rt, n->c, sc);
        {
            char hint[160];
            snprintf(hint, sizeof hint,
                     "the inline if-expression on line %d evaluated to false and no else section was defined.",
                     n->line);
            return jj_undef_hint(rt, jj_strndup(&rt->ar, hint, strlen(hint)));
        }
    case N_LIST: case N_TUPLE: {
        jj_list *l = jj_list_new(rt, n->k1.n);
        for (size_t i = 0; i < n->k1.n; i++) l->v[i] = eval(rt, n->k1.v[i], sc);
        return jj_listv(l, n->kind == N_TUPLE);
    }
    case N_DICT: {
        jj_dict *d = jj_dict_new(rt);
        for (size_t i = 0; i < n->k1.n; i++) {
            jj_val k = eval(rt, n->k1.v[i], sc);
            jj_val v = eval(rt, n->k2.v[i], sc);
            rt->line = n->line;
            if (!jj_hashable(k)) jj_fail(rt, "TypeError: unhashable type: '%s'", jj_type_name(k));
            jj_dict_set(rt, d, k, v);
        }
        jj_val r = {JJ_DICT, 0, {.d = d}};
        return r;
    }
    default:
        jj_fail(rt, "internal error: unexpected node %d", n->kind);
    }
}

/* ---- statements ---- */

static flow run_loop(jj_rt *rt, const jj_node *n, jj_list *items, jj_scope *sc, jj_buf *out, int depth0) {
    jj_loop_begin(rt);
    if (n->c) {
        /* for x in y if test: the test sees the target, not this loop */
        jj_list *kept = jj_list_new(rt, 0);
        size_t cap = 0;
        for (size_t i = 0; i < items->n; i++) {
            jj_step(rt);
            jj_frame_begin(rt, NULL);
            jj_scope *ts = child(rt, sc);
            assign(rt, n->a, items->v[i], ts);
            int keep = jj_truthy(eval(rt, n->c, ts));
            jj_frame_end(rt);
            if (keep) jj_list_push(rt, kept, &cap, items->v[i]);
        }
        items = kept;
    }
    jj_loop *lp = jj_alloc(&rt->ar, sizeof *lp);
    memset(lp, 0, sizeof *lp);
    lp->epoch = rt->epoch;
    lp->items = items;
    lp->depth0 = depth0;
    lp->node = (jj_node *)n;
    lp->scope = sc;
    jj_val lv = {JJ_LOOP, 0, {.lp = lp}};
    /* Jinja runs the else block unless some iteration ran its body to the
     * end: a loop whose every iteration hit continue (or that broke out in
     * its first) runs it too. */
    int completed = 0;
    for (size_t i = 0; i < items->n; i++) {
        jj_step(rt);
        lp->i = i;
        /* what the iteration allocates is released at its end (jinja_gc.c) */
        jj_frame_begin(rt, out);
        jj_scope *it = child(rt, sc);
        set_var(rt, it, "loop", lv);
        rt->line = n->line;
        assign(rt, n->a, items->v[i], it);
        flow f = exec_body(rt, n->k1, it, out);
        jj_frame_end(rt);
        if (f == FLOW_BREAK) break;
        if (f == FLOW_NORMAL) completed = 1;
        if (lp->consumed) break;
    }
    jj_loop_end(rt);
    if (!completed && n->k2.n) return exec_body(rt, n->k2, child(rt, sc), out);
    return FLOW_NORMAL;
}

static void output(jj_rt *rt, jj_buf *out, jj_val v) {
    if (v.t == JJ_STR) jj_buf_add(rt, out, v.u.s->s, v.u.s->n);
    else jj_str_of(rt, out, v);
}

static flow exec(jj_rt *rt, const jj_node *n, jj_scope *sc, jj_buf *out) {
    rt->line = n->line;
    switch (n->kind) {
    case N_OUTPUT:
        for (size_t i = 0; i < n->k1.n; i++) {
            const jj_node *e = n->k1.v[i];
            if (e->kind == N_DATA) jj_buf_add(rt, out, e->val.u.s->s, e->val.u.s->n);
            else output(rt, out, eval(rt, e, sc));
        }
        return FLOW_NORMAL;
    case N_IF:
        if (jj_truthy(eval(rt, n->a, sc))) return exec_body(rt, n->k1, sc, out);
        return exec_body(rt, n->k2, sc, out);
    case N_FOR: {
        jj_val it = eval(rt, n->b, sc);
        rt->line = n->line;
        jj_list *items = jj_iter(rt, it);
        /* iterate over a snapshot: the list cannot change under the loop */
        return run_loop(rt, n, items, sc, out, 0);
    }
    case N_ASSIGN: {
        jj_val v = eval(rt, n->b, sc);
        rt->line = n->line;
        assign(rt, n->a, v, sc);
        return FLOW_NORMAL;
    }
    case N_ASSIGNBLOCK: {
        jj_val v = jj_strv(render_str(rt, n->k1, child(rt, sc)));
        v = filter_chain(rt, n->b, v, sc);
        rt->line = n->line;
        assign(rt, n->a, v, sc);
        return FLOW_NORMAL;
    }
    case N_MACRO: {
        jj_macro *m = jj_alloc(&rt->ar, sizeof *m);
        m->name = n->name;
        m->node = (jj_node *)n;
        m->closure = sc;
        jj_val v = {JJ_MACRO, 0, {.m = m}};
        set_var(rt, sc, n->name, v);
        return FLOW_NORMAL;
    }
    case N_CALLBLOCK: {
        jj_macro *m = jj_alloc(&rt->ar, sizeof *m);
        m->name = "caller";
        m->node = (jj_node *)n;
        m->closure = sc;
        jj_val cv = {JJ_MACRO, 0, {.m = m}};
        const jj_node *call = n->a;
        jj_val callee = eval(rt, call->a, sc);
        callargs ca;
        eval_args(rt, call, sc, &ca, 1);
        for (size_t k = 0; k < ca.nkw; k++)
            if (!strcmp(ca.kwn[k], "caller"))
                jj_fail(rt, "TypeError: got multiple values for keyword argument 'caller'");
        ca.kwn[ca.nkw] = "caller";
        ca.kwv[ca.nkw] = cv;
        ca.nkw++;
        rt->line = n->line;
        output(rt, out, call_value(rt, callee, &ca));
        return FLOW_NORMAL;
    }
    case N_FILTERBLOCK: {
        jj_scope *fs = child(rt, sc);
        jj_val v = jj_strv(render_str(rt, n->k1, fs));
        output(rt, out, filter_chain(rt, n->a, v, fs));
        return FLOW_NORMAL;
    }
    case N_WITH: {
        jj_scope *ws = child(rt, sc);
        for (size_t i = 0; i < n->k2.n; i++) {
            jj_val v = eval(rt, n->k3.v[i], sc);
            assign(rt, n->k2.v[i], v, ws);
        }
        return exec_body(rt, n->k1, ws, out);
    }
    case N_SCOPE: { /* {% generation %}: where its output lands, as transformers' AssistantTracker records it */
        size_t start = out->n;
        flow f = exec_body(rt, n->k1, child(rt, sc), out);
        if (rt->spans && out == rt->root_out && out->n > start) {
            uint32_t se[2] = {(uint32_t)start, (uint32_t)out->n};
            cal_buf_add(rt->spans, se, sizeof se);
        } else if (out->n > start) {
            rt->unspanned++; /* captured (macro, set or filter block): no span; the caller says so */
        }
        return f;
    }
    case N_BREAK: return FLOW_BREAK;
    case N_CONTINUE: return FLOW_CONTINUE;
    default:
        jj_fail(rt, "internal error: unexpected statement %d", n->kind);
    }
}

static flow exec_body(jj_rt *rt, jj_nodes body, jj_scope *sc, jj_buf *out) {
    for (size_t i = 0; i < body.n; i++) {
        flow f = exec(rt, body.v[i], sc, out);
        if (f != FLOW_NORMAL) return f;
    }
    return FLOW_NORMAL;
}

void jj_render(jj_rt *rt, const jj_template *t, jj_scope *root, jj_buf *out) {
    exec_body(rt, t->body, root, out);
}
