/* jinja_gc.c - the memory of a loop's iterations. A render allocates from
 * one arena and never frees a block on its own, so a long loop kept every
 * iteration's scope, strings and lists to the end (a 99-million-step loop
 * filled 1 GiB in 3 s). Now each iteration is a frame: the arena is marked
 * when it begins and released to the mark when it ends.
 *
 * What an iteration allocated can outlive it only through what is older
 * than it: the output it writes to, namespace attributes (`set ns.x = ...`),
 * variables of older scopes, loop.changed()'s memory. The places that
 * change an older object call the write barrier (jj_dict_written,
 * jj_gc_written), which remembers the write in the loop; objects carry the
 * epoch they were made in, so "older" is one comparison.
 *
 * At an iteration's end the values reachable from the writes of the last
 * two iterations (and the output's text) are collected: those in the
 * iteration's memory move to the loop's young space, those in the young
 * space (survivors of one iteration's end already) to its old space; the
 * iteration's memory and the former young space are then freed. So a
 * namespace attribute overwritten at every iteration costs the memory of
 * two values, not of all of them; what lives on is copied at most twice.
 * When the loop ends its two spaces join the arena, as memory of the
 * enclosing iteration, and the writes into objects older than that
 * iteration were remembered there too. Copies keep sharing and identity (a
 * table of moved objects) and use a stack of their own, so deep values need
 * no deep C stack. */
#include <stdlib.h>
#include <string.h>

#include "jinja/jinja_int.h"

#define ALL_ENTRIES SIZE_MAX
#define SCOPE 255
enum { IN_FRAME = 1, IN_YOUNG = 2 };

typedef struct {
    const void *from;
    void *to;
} moved;

typedef struct {
    uint8_t kind; /* JJ_LIST (also tuples), JJ_DICT (also namespaces), JJ_MACRO, JJ_LOOP, JJ_FUNC, JJ_UNDEF, SCOPE */
    void *p;
} todo;

struct jj_gc {
    uintptr_t (*r)[3]; /* the memory being emptied: sorted ranges, tagged IN_FRAME or IN_YOUNG */
    size_t nr;
    moved *memo;       /* open addressing on `from` */
    size_t memo_cap, memo_n;
    todo *todo;
    size_t ntodo, cap_todo;
    jj_arena young;    /* the next young space */
    jj_arena *old;     /* the loop's old space */
};

static CAL_NORETURN void oom(jj_rt *rt) { jj_limit(rt, "out of memory"); }

/* IN_FRAME, IN_YOUNG, or 0 for memory that stays where it is. */
static int where(const struct jj_gc *g, const void *p) {
    uintptr_t a = (uintptr_t)p;
    size_t lo = 0, hi = g->nr;
    while (lo < hi) {
        size_t m = (lo + hi) / 2;
        if (a < g->r[m][0]) hi = m;
        else if (a >= g->r[m][1]) lo = m + 1;
        else return (int)g->r[m][2];
    }
    return 0;
}

static size_t slot_of(const void *p, size_t cap) {
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 29;
    return (size_t)x & (cap - 1);
}

static void *lookup(const struct jj_gc *g, const void *p) {
    if (!g->memo_n) return NULL;
    for (size_t s = slot_of(p, g->memo_cap);; s = (s + 1) & (g->memo_cap - 1)) {
        if (!g->memo[s].from) return NULL;
        if (g->memo[s].from == p) return g->memo[s].to;
    }
}

static void note(jj_rt *rt, struct jj_gc *g, const void *from, void *to) {
    if (2 * (g->memo_n + 1) > g->memo_cap) {
        size_t cap = g->memo_cap ? 2 * g->memo_cap : 256;
        moved *m = calloc(cap, sizeof *m);
        if (!m) oom(rt);
        for (size_t i = 0; i < g->memo_cap; i++)
            if (g->memo[i].from) {
                size_t s = slot_of(g->memo[i].from, cap);
                while (m[s].from) s = (s + 1) & (cap - 1);
                m[s] = g->memo[i];
            }
        free(g->memo);
        g->memo = m;
        g->memo_cap = cap;
    }
    size_t s = slot_of(from, g->memo_cap);
    while (g->memo[s].from) s = (s + 1) & (g->memo_cap - 1);
    g->memo[s].from = from;
    g->memo[s].to = to;
    g->memo_n++;
}

static void later(jj_rt *rt, struct jj_gc *g, uint8_t kind, void *p) {
    if (g->ntodo == g->cap_todo) {
        size_t cap = g->cap_todo ? 2 * g->cap_todo : 64;
        todo *t = realloc(g->todo, cap * sizeof *t);
        if (!t) oom(rt);
        g->todo = t;
        g->cap_todo = cap;
    }
    g->todo[g->ntodo].kind = kind;
    g->todo[g->ntodo++].p = p;
}

/* A block of n bytes at p, moved (once) when it lies in the memory being
 * emptied: the iteration's to the next young space, the young to old. */
static void *block(jj_rt *rt, struct jj_gc *g, const void *p, size_t n, int *fresh) {
    *fresh = 0;
    int w = p ? where(g, p) : 0;
    if (!w) return (void *)p;
    void *q = lookup(g, p);
    if (q) return q;
    q = jj_alloc(w == IN_FRAME ? &g->young : g->old, n);
    memcpy(q, p, n);
    note(rt, g, p, q);
    *fresh = 1;
    return q;
}

#define COPY(T, x) ((T *)block(rt, g, (x), sizeof *(x), &fresh))

static const char *cstr(jj_rt *rt, struct jj_gc *g, const char *s) {
    int fresh;
    return s ? block(rt, g, s, strlen(s) + 1, &fresh) : s;
}

static jj_scope *scope(jj_rt *rt, struct jj_gc *g, jj_scope *sc) {
    int fresh;
    jj_scope *t = COPY(jj_scope, sc);
    if (fresh) later(rt, g, SCOPE, t);
    return t;
}

static jj_dict *dict(jj_rt *rt, struct jj_gc *g, jj_dict *d) {
    int fresh;
    jj_dict *t = COPY(jj_dict, d);
    if (fresh) later(rt, g, JJ_DICT, t);
    return t;
}

static jj_list *list(jj_rt *rt, struct jj_gc *g, jj_list *l) {
    int fresh;
    jj_list *t = COPY(jj_list, l);
    if (fresh) later(rt, g, JJ_LIST, t);
    return t;
}

static jj_val value(jj_rt *rt, struct jj_gc *g, jj_val v) {
    int fresh = 0;
    switch (v.t) {
    case JJ_STR: v.u.s = block(rt, g, v.u.s, sizeof *v.u.s + v.u.s->n + 1, &fresh); break;
    case JJ_BIG: v.u.z = block(rt, g, v.u.z, sizeof *v.u.z + v.u.z->n * sizeof(mp_limb_t), &fresh); break;
    case JJ_COMPLEX: v.u.c = block(rt, g, v.u.c, sizeof *v.u.c, &fresh); break;
    case JJ_LIST: case JJ_TUPLE: v.u.l = list(rt, g, v.u.l); break;
    case JJ_DICT: case JJ_NS: v.u.d = dict(rt, g, v.u.d); break;
    case JJ_MACRO:
        v.u.m = COPY(jj_macro, v.u.m);
        if (fresh) later(rt, g, JJ_MACRO, v.u.m);
        break;
    case JJ_LOOP:
        v.u.lp = COPY(jj_loop, v.u.lp);
        if (fresh) later(rt, g, JJ_LOOP, v.u.lp);
        break;
    case JJ_FUNC:
        v.u.fn = COPY(jj_func, v.u.fn);
        if (fresh) later(rt, g, JJ_FUNC, v.u.fn);
        break;
    case JJ_UNDEF:
        if (v.u.u) {
            v.u.u = COPY(jj_undef, v.u.u);
            if (fresh) later(rt, g, JJ_UNDEF, v.u.u);
        }
        break;
    default: break;
    }
    return v;
}

/* The entries [from, to) of d, and its arrays when they move (a dict that
 * grew since): then all of its entries. */
static void dict_insides(jj_rt *rt, struct jj_gc *g, jj_dict *d, size_t from, size_t to) {
    int fresh;
    if ((d->k && where(g, d->k)) || (d->v && where(g, d->v))) {
        /* both arrays have cap entries; copied whole, so later sets fit */
        jj_val *k = block(rt, g, d->k, d->cap * sizeof(jj_val), &fresh);
        jj_val *v = block(rt, g, d->v, d->cap * sizeof(jj_val), &fresh);
        d->k = k, d->v = v;
        from = 0, to = d->n;
    }
    if (d->idx && where(g, d->idx)) d->idx = block(rt, g, d->idx, d->idxcap * sizeof *d->idx, &fresh);
    if (to > d->n) to = d->n;
    for (size_t i = from; i < to; i++) {
        d->k[i] = value(rt, g, d->k[i]);
        d->v[i] = value(rt, g, d->v[i]);
    }
}

/* The insides of a moved object: what may still point into moving memory. */
static void scan(jj_rt *rt, struct jj_gc *g, todo t) {
    int fresh;
    switch (t.kind) {
    case JJ_LIST: {
        jj_list *l = t.p;
        if (l->v) l->v = block(rt, g, l->v, (l->n ? l->n : 1) * sizeof *l->v, &fresh);
        for (size_t i = 0; i < l->n; i++) l->v[i] = value(rt, g, l->v[i]);
        for (int i = 0; i < 3; i++) l->r[i] = value(rt, g, l->r[i]);
        l->err = cstr(rt, g, l->err);
        break;
    }
    case JJ_DICT: {
        jj_dict *d = t.p;
        d->epoch = rt->epoch;
        d->rem = 0;
        dict_insides(rt, g, d, 0, d->n);
        /* keys hashed by identity have moved: the index is rebuilt when next used */
        d->idx = NULL;
        d->idxcap = 0;
        break;
    }
    case SCOPE: {
        jj_scope *sc = t.p;
        sc->parent = scope(rt, g, sc->parent);
        sc->vars.epoch = rt->epoch;
        sc->vars.rem = 0;
        dict_insides(rt, g, &sc->vars, 0, sc->vars.n);
        sc->vars.idx = NULL;
        sc->vars.idxcap = 0;
        break;
    }
    case JJ_MACRO: {
        jj_macro *m = t.p;
        m->name = cstr(rt, g, m->name);
        m->closure = scope(rt, g, m->closure);
        break;
    }
    case JJ_LOOP: {
        jj_loop *lp = t.p;
        lp->epoch = rt->epoch;
        lp->rem = 0;
        lp->items = list(rt, g, (jj_list *)lp->items);
        lp->scope = scope(rt, g, lp->scope);
        lp->last_changed = value(rt, g, lp->last_changed);
        break;
    }
    case JJ_FUNC: {
        jj_func *f = t.p;
        f->name = cstr(rt, g, f->name);
        f->self = value(rt, g, f->self);
        f->state = dict(rt, g, f->state);
        break;
    }
    case JJ_UNDEF: {
        jj_undef *u = t.p;
        u->hint = cstr(rt, g, u->hint);
        u->name = cstr(rt, g, u->name);
        u->objtype = cstr(rt, g, u->objtype);
        break;
    }
    }
}

static void drain(jj_rt *rt, struct jj_gc *g) {
    while (g->ntodo) scan(rt, g, g->todo[--g->ntodo]);
}

static struct jj_gc *gc_of(jj_rt *rt) {
    if (!rt->gc) {
        rt->gc = calloc(1, sizeof *rt->gc);
        if (!rt->gc) oom(rt);
    }
    return rt->gc;
}

static void remember(jj_rt *rt, jj_loopmem *lm, int kind, void *p, size_t idx) {
    if (lm->nw == lm->capw) {
        size_t cap = lm->capw ? 2 * lm->capw : 16;
        jj_written *w = realloc(lm->w, cap * sizeof *w);
        if (!w) oom(rt);
        lm->w = w;
        lm->capw = cap;
    }
    jj_written *w = &lm->w[lm->nw++];
    w->kind = (uint8_t)kind;
    w->left = 2;
    w->p = p;
    w->idx = idx;
}

/* Remembers a write in frame f: entry by entry while a frame's writes are
 * few (and few beside the dict's size), then whole dicts, so that an
 * iteration's end costs what the iteration did, not what the dicts hold. */
static void remember_in(jj_rt *rt, jj_frame *f, int kind, void *p, size_t idx) {
    jj_loopmem *lm = &rt->loops[f->loop];
    if (kind == JJ_LOOP) {
        jj_loop *lp = p;
        if (lp->rem == f->epoch) return;
        lp->rem = f->epoch;
        remember(rt, lm, JJ_LOOP, lp, 0);
        return;
    }
    jj_dict *d = p;
    if (d->rem == f->epoch && (d->rem_idx == idx || d->rem_idx == ALL_ENTRIES)) return;
    if (f->wrote >= 4096 + d->n / 4) idx = ALL_ENTRIES;
    f->wrote++;
    d->rem = f->epoch;
    d->rem_idx = idx;
    remember(rt, lm, JJ_DICT, d, idx);
}

void jj_gc_written(jj_rt *rt, int kind, void *p, size_t idx) {
    jj_frame *f = &rt->frames[rt->nframes - 1];
    if (kind == JJ_LOOP && ((jj_loop *)p)->epoch >= f->epoch) return;
    remember_in(rt, f, kind, p, idx);
}

void jj_loop_begin(jj_rt *rt) {
    if (rt->nloops == rt->caploops) {
        size_t cap = rt->caploops ? 2 * rt->caploops : 8;
        jj_loopmem *l = realloc(rt->loops, cap * sizeof *l);
        if (!l) oom(rt);
        rt->loops = l;
        rt->caploops = cap;
    }
    jj_loopmem *lm = &rt->loops[rt->nloops++];
    memset(lm, 0, sizeof *lm);
    lm->young.err = lm->old.err = &rt->err;
    lm->young.line = lm->old.line = &rt->line;
    lm->young.owner = lm->old.owner = &rt->ar;
    lm->young.limit = lm->old.limit = rt->ar.limit;
}

void jj_loop_end(jj_rt *rt) {
    jj_loopmem *lm = &rt->loops[rt->nloops - 1];
    /* what the iterations left is the enclosing iteration's memory now */
    jj_arena_adopt(&rt->ar, &lm->young);
    jj_arena_adopt(&rt->ar, &lm->old);
    free(lm->w);
    rt->nloops--;
}

void jj_frame_begin(jj_rt *rt, jj_buf *out) {
    if (rt->nframes == rt->capframes) {
        size_t cap = rt->capframes ? 2 * rt->capframes : 16;
        jj_frame *fr = realloc(rt->frames, cap * sizeof *fr);
        if (!fr) oom(rt);
        rt->frames = fr;
        rt->capframes = cap;
    }
    jj_frame *f = &rt->frames[rt->nframes++];
    f->mark = jj_arena_mark(&rt->ar);
    f->epoch = ++rt->epoch;
    f->out = out;
    f->loop = rt->nloops - 1;
    f->wrote = 0;
}

/* Whether p lies in what a allocated since m (the chunks since are a
 * prefix of its list, usually none or one). */
static int allocated_since(const jj_arena *a, jj_mark m, const void *p) {
    const char *q = p;
    for (const jj_chunk *c = a->head; c && c->seq > m.seq; c = c->next)
        if (q >= c->mem && q < c->mem + c->used) return 1;
    return m.cur && q >= m.cur->mem + m.used && q < m.cur->mem + m.cur->used;
}

void jj_frame_end(jj_rt *rt) {
    jj_frame *f = &rt->frames[rt->nframes - 1];
    jj_loopmem *lm = &rt->loops[f->loop];
    size_t fresh_from = lm->nw; /* the writes of this frame are the last ones (left == 2) */
    while (fresh_from > 0 && lm->w[fresh_from - 1].left == 2) fresh_from--;
    if (!lm->nw && !lm->young.head && !(f->out && f->out->p && allocated_since(&rt->ar, f->mark, f->out->p))) {
        /* nothing of the iteration outlives it */
        jj_arena_release(&rt->ar, f->mark);
        rt->nframes--;
        return;
    }
    struct jj_gc *g = gc_of(rt);
    g->nr = 0;
    jj_mark all = {NULL, 0, 0};
    size_t nr = jj_arena_since(&rt->ar, f->mark, &g->r, 0, IN_FRAME);
    if (nr != SIZE_MAX) nr = jj_arena_since(&lm->young, all, &g->r, nr, IN_YOUNG);
    if (nr == SIZE_MAX) oom(rt);
    g->nr = nr;
    if (g->memo_n) memset(g->memo, 0, g->memo_cap * sizeof *g->memo);
    g->memo_n = 0;
    g->ntodo = 0;
    jj_arena_free(&g->young);
    g->young = lm->young;
    g->young.head = g->young.cur = NULL;
    g->young.total = 0;
    g->old = &lm->old;
    /* the roots: the output's text, the remembered writes */
    if (f->out && f->out->p) {
        int w = where(g, f->out->p);
        if (w) {
            char *p = jj_alloc(w == IN_FRAME ? &g->young : g->old, f->out->cap);
            memcpy(p, f->out->p, f->out->n + 1);
            f->out->p = p;
        }
    }
    for (size_t i = 0; i < lm->nw; i++) {
        jj_written *w = &lm->w[i];
        if (w->kind == JJ_LOOP) {
            jj_loop *lp = lookup(g, w->p);
            if (!lp) lp = w->p;
            if (where(g, lp)) {
                jj_val v = {JJ_LOOP, 0, {.lp = lp}};
                lp = value(rt, g, v).u.lp;
            } else {
                lp->last_changed = value(rt, g, lp->last_changed);
            }
            w->p = lp;
        } else {
            jj_dict *d = lookup(g, w->p);
            if (!d) d = w->p;
            if (where(g, d)) d = dict(rt, g, d); /* moves whole: all of it is looked at */
            else if (w->idx == ALL_ENTRIES) dict_insides(rt, g, d, 0, d->n);
            else dict_insides(rt, g, d, w->idx, w->idx + 1);
            w->p = d;
        }
        drain(rt, g);
    }
    jj_arena_release(&rt->ar, f->mark);
    jj_arena_free(&lm->young);
    lm->young = g->young;
    g->young.head = g->young.cur = NULL;
    g->young.total = 0;
    rt->nframes--;
    /* Writes into objects older than the enclosing iteration are its too:
     * what they reach joins its memory when this loop ends. */
    if (rt->nframes) {
        jj_frame *up = &rt->frames[rt->nframes - 1];
        for (size_t i = fresh_from; i < lm->nw; i++) {
            jj_written *w = &lm->w[i];
            uint64_t epoch = w->kind == JJ_LOOP ? ((jj_loop *)w->p)->epoch : ((jj_dict *)w->p)->epoch;
            if (epoch < up->epoch) remember_in(rt, up, w->kind, w->p, w->idx);
        }
    }
    /* a write is looked at in two collections: after them, what it
     * reaches is old (or was overwritten) */
    size_t k = 0;
    for (size_t i = 0; i < lm->nw; i++)
        if (--lm->w[i].left) lm->w[k++] = lm->w[i];
    lm->nw = k;
}

void jj_gc_free(jj_rt *rt) {
    free(rt->frames);
    rt->frames = NULL;
    rt->nframes = rt->capframes = 0;
    for (size_t i = 0; i < rt->nloops; i++) {
        jj_arena_free(&rt->loops[i].young);
        jj_arena_free(&rt->loops[i].old);
        free(rt->loops[i].w);
    }
    free(rt->loops);
    rt->loops = NULL;
    rt->nloops = rt->caploops = 0;
    if (rt->gc) {
        jj_arena_free(&rt->gc->young);
        free(rt->gc->r);
        free(rt->gc->memo);
        free(rt->gc->todo);
        free(rt->gc);
        rt->gc = NULL;
    }
}
