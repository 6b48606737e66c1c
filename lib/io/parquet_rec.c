/* parquet_rec.c - see parquet_rec.h. One cal_pq per leaf column; a row of a
 * leaf is its level entries from one with repetition level 0 up to the next
 * one; build() turns the entries of a schema node's leaves into its value. */
#include "io/parquet_rec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "io/parquet.h"

typedef struct {
    int def, rep;      /* levels of the node itself */
    size_t end;        /* index after its subtree */
    int leaf0, leaf1;  /* its leaves, in the reader's leaf numbering */
} pq_nd;

typedef struct {
    int rep, def;
    size_t at, n; /* value bytes in the leaf's arena */
} pq_ent;

typedef struct {
    cal_pq *q;
    pq_ent *e;
    size_t ne, cap;
    cal_buf arena;
    cal_pq_level pend; /* the first entry of the next row */
    uint64_t row_off;  /* page offset of the row's first entry */
    int have_pend, ended;
} pq_leaf;

struct cal_pqrec {
    const char *file;  /* the file, or */
    const void *mem;   /* its bytes in memory */
    size_t memn;
    cal_pq *schema;
    const cal_pq_node *sn;
    size_t nsn;
    pq_nd *nd;
    size_t *top; /* the opened top-level columns (schema indices) */
    size_t ntop;
    pq_leaf *leaf;
    int nleaf;
    json_t *row;
    uint64_t rows, off;
    char *err;
    size_t errlen;
};

static int failf(cal_pqrec *r, const char *fmt, ...) CAL_PRINTF(2, 3);
static int failf(cal_pqrec *r, const char *fmt, ...) {
    int k = snprintf(r->err, r->errlen, "byte %llu: ", (unsigned long long)r->off);
    if (k >= 0 && (size_t)k < r->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->err + k, r->errlen - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Levels and subtree ends of the nodes from i on; dotted paths into path. */
static size_t walk(cal_pqrec *r, size_t i, int def, int rep, char **paths, const char *prefix, int *nleaf) {
    if (i >= r->nsn) return 0;
    const cal_pq_node *s = &r->sn[i];
    pq_nd *d = &r->nd[i];
    d->def = def + (i > 0 && s->rep != 0), d->rep = rep + (i > 0 && s->rep == 2);
    cal_buf p = {0};
    if (i > 0) {
        if (*prefix) cal_buf_addf(&p, "%s.", prefix);
        cal_buf_add(&p, s->name, s->name_len);
    }
    cal_buf_addc(&p, 0);
    paths[i] = p.p;
    d->leaf0 = *nleaf;
    size_t j = i + 1;
    if (s->children <= 0 && i > 0) {
        (*nleaf)++;
    } else {
        for (int c = 0; c < s->children; c++)
            if ((j = walk(r, j, d->def, d->rep, paths, paths[i], nleaf)) == 0) return 0;
    }
    d->leaf1 = *nleaf, d->end = j;
    return j;
}

static size_t child_of(const cal_pqrec *r, size_t parent, const char *name) {
    for (size_t c = parent + 1; c < r->nd[parent].end; c = r->nd[c].end)
        if (r->sn[c].name_len == strlen(name) && !memcmp(r->sn[c].name, name, r->sn[c].name_len)) return c;
    return 0;
}

/* ---- assembly ---------------------------------------------------------------- */
/* A node's entries: for leaf l of the node, entries [st[l], en[l]). */
static json_t *build(cal_pqrec *r, size_t i, const size_t *st, const size_t *en, int list);

/* All of the node's leaves agree that it is absent at this level (null or
 * an empty list): one entry each, below the node's definition level. */
static int absent(cal_pqrec *r, size_t i, const size_t *st, const size_t *en) {
    const pq_nd *d = &r->nd[i];
    int k = 0, below = 0;
    for (int l = d->leaf0; l < d->leaf1; l++, k++) {
        int b = r->leaf[l].e[st[l]].def < d->def;
        if (b && en[l] - st[l] != 1) return -1;
        if (k && b != below) return -1;
        below = b;
    }
    return below;
}

static json_t *leaf_value(cal_pqrec *r, size_t i, const size_t *st, const size_t *en) {
    pq_leaf *lf = &r->leaf[r->nd[i].leaf0];
    size_t s = st[r->nd[i].leaf0];
    if (en[r->nd[i].leaf0] - s != 1 || lf->e[s].def != cal_pq_max_def(lf->q)) return NULL;
    return json_stringn_nocheck(lf->arena.p ? lf->arena.p + lf->e[s].at : "", lf->e[s].n);
}

/* The value of one present instance of node i. */
static json_t *single(cal_pqrec *r, size_t i, const size_t *st, const size_t *en) {
    const cal_pq_node *s = &r->sn[i];
    if (s->children <= 0) return leaf_value(r, i, st, en);
    size_t c1 = i + 1;
    /* LIST: group { repeated group list { element } } is [element, ...];
     * the older two-level forms keep the repeated group as the element */
    if (s->list && s->children == 1 && r->sn[c1].rep == 2) return build(r, c1, st, en, 1);
    json_t *o = json_object();
    for (size_t c = c1; c < r->nd[i].end; c = r->nd[c].end) {
        json_t *v = build(r, c, st, en, 0);
        if (!v) return json_decref(o), NULL;
        json_object_setn_new_nocheck(o, r->sn[c].name, r->sn[c].name_len, v);
    }
    return o;
}

/* A repeated node: its instances, each one cut where a leaf's repetition
 * level comes back to the node's own. In a LIST group (list), a repeated
 * group of one field is the list's "list" level: the elements are that
 * field (except the older forms named "array" and "..._tuple"). */
static json_t *repeated(cal_pqrec *r, size_t i, const size_t *st, const size_t *en, int list) {
    const pq_nd *d = &r->nd[i];
    const cal_pq_node *s = &r->sn[i];
    int unwrap = list && s->children == 1;
    if (unwrap && ((s->name_len == 5 && !memcmp(s->name, "array", 5)) ||
                   (s->name_len > 6 && !memcmp(s->name + s->name_len - 6, "_tuple", 6))))
        unwrap = 0;
    size_t nl = (size_t)(d->leaf1 - d->leaf0);
    size_t *cur = calloc(2 * r->nleaf + 1, sizeof *cur), *nx = cur + r->nleaf;
    json_t *a = json_array();
    if (!cur) return json_decref(a), NULL;
    memcpy(cur, st, (size_t)r->nleaf * sizeof *cur);
    for (;;) {
        int at_end = 0;
        for (int l = d->leaf0; l < d->leaf1; l++) {
            const pq_leaf *lf = &r->leaf[l];
            at_end += cur[l] == en[l];
            size_t k = cur[l] + 1;
            while (k < en[l] && lf->e[k].rep > d->rep) k++;
            nx[l] = k < en[l] ? k : en[l];
        }
        if (at_end == (int)nl) break;
        if (at_end) goto bad; /* leaves disagree on the number of elements */
        json_t *v = unwrap ? build(r, i + 1, cur, nx, 0) : single(r, i, cur, nx);
        if (!v) goto bad;
        json_array_append_new(a, v);
        memcpy(cur + d->leaf0, nx + d->leaf0, nl * sizeof *cur);
    }
    free(cur);
    return a;
bad:
    free(cur);
    json_decref(a);
    return NULL;
}

/* The value of node i (null, [] or its value) from its leaves' entries. */
static json_t *build(cal_pqrec *r, size_t i, const size_t *st, const size_t *en, int list) {
    int rep = r->sn[i].rep;
    if (rep != 0) {
        int ab = absent(r, i, st, en);
        if (ab < 0) return NULL;
        if (ab) return rep == 2 ? json_array() : json_null();
    }
    return rep == 2 ? repeated(r, i, st, en, list) : single(r, i, st, en);
}

/* ---- rows -------------------------------------------------------------------- */
static int add_entry(cal_pqrec *r, pq_leaf *lf, const cal_pq_level *lv) {
    if (lf->ne == lf->cap) {
        size_t nc = lf->cap ? 2 * lf->cap : 64;
        pq_ent *e = realloc(lf->e, nc * sizeof *e);
        if (!e) return failf(r, "out of memory");
        lf->e = e, lf->cap = nc;
    }
    pq_ent *e = &lf->e[lf->ne++];
    e->rep = lv->rep, e->def = lv->def, e->at = lf->arena.n, e->n = lv->n;
    if (lv->p) cal_buf_add(&lf->arena, (const char *)lv->p, lv->n);
    return 0;
}

/* The entries of the leaf's next row: 1, 0 at the end, -1 on error. */
static int leaf_row(cal_pqrec *r, pq_leaf *lf) {
    lf->ne = 0, lf->arena.n = 0;
    cal_pq_level lv;
    if (!lf->have_pend) {
        int got = lf->ended ? 0 : cal_pq_level_next(lf->q, &lf->pend, r->err, r->errlen);
        if (got <= 0) return got;
    }
    lf->have_pend = 0;
    lf->row_off = lf->pend.off;
    if (add_entry(r, lf, &lf->pend) < 0) return -1;
    int got;
    while ((got = cal_pq_level_next(lf->q, &lv, r->err, r->errlen)) == 1) {
        if (lv.rep == 0) {
            lf->pend = lv, lf->have_pend = 1;
            return 1;
        }
        if (add_entry(r, lf, &lv) < 0) return -1;
    }
    if (got < 0) return -1;
    lf->ended = 1;
    return 1;
}

int cal_pqrec_next(cal_pqrec *r, json_t **row, uint64_t *off, char *err, size_t errlen) {
    r->err = err, r->errlen = errlen;
    json_decref(r->row), r->row = NULL;
    int rows = 0;
    for (int l = 0; l < r->nleaf; l++) {
        int got = leaf_row(r, &r->leaf[l]);
        if (got < 0) return -1;
        if (l == 0 && got) r->off = r->leaf[0].row_off;
        if (l > 0 && got != rows) return failf(r, "columns end at different rows (row %llu)", (unsigned long long)r->rows);
        rows = got;
    }
    if (!rows) return 0;
    size_t *st = calloc(2 * (size_t)r->nleaf + 1, sizeof *st), *en = st + r->nleaf;
    if (!st) return failf(r, "out of memory");
    for (int l = 0; l < r->nleaf; l++) en[l] = r->leaf[l].ne;
    r->row = json_object();
    for (size_t t = 0; t < r->ntop; t++) {
        json_t *v = build(r, r->top[t], st, en, 0);
        if (!v) {
            free(st);
            return failf(r, "row %llu: levels of column '%.*s' do not fit its schema", (unsigned long long)r->rows,
                         (int)r->sn[r->top[t]].name_len, r->sn[r->top[t]].name);
        }
        json_object_setn_new_nocheck(r->row, r->sn[r->top[t]].name, r->sn[r->top[t]].name_len, v);
    }
    free(st);
    r->rows++;
    *row = r->row, *off = r->off;
    return 1;
}

uint64_t cal_pqrec_rows(const cal_pqrec *r) { return r->rows; }

/* ---- open -------------------------------------------------------------------- */
static int setup(cal_pqrec *r, char ***paths) {
    r->sn = cal_pq_schema(r->schema, &r->nsn);
    r->nd = calloc(r->nsn + 1, sizeof *r->nd);
    *paths = calloc(r->nsn + 1, sizeof **paths);
    if (!r->nd || !*paths) return failf(r, "out of memory");
    int nleaf = 0;
    if (walk(r, 0, 0, 0, *paths, "", &nleaf) != r->nsn) return failf(r, "schema does not form a tree");
    return 0;
}

static void free_paths(char **paths, size_t n) {
    if (paths)
        for (size_t i = 0; i < n; i++) free(paths[i]);
    free(paths);
}

int cal_pqrec_kind(const char *file, const char *path, char *err, size_t errlen) {
    cal_pqrec r = {0};
    r.err = err, r.errlen = errlen;
    if (!(r.schema = cal_pq_open(file, NULL, err, errlen))) return -1;
    char **paths = NULL;
    int kind = -1;
    if (setup(&r, &paths) == 0) {
        kind = CAL_PQ_NONE;
        for (size_t i = 1; i < r.nsn; i++)
            if (!strcmp(paths[i], path)) {
                kind = r.sn[i].children <= 0 && r.nd[i].rep == 0 && r.sn[i].type == 6 ? CAL_PQ_STRING : CAL_PQ_OTHER;
                break;
            }
    }
    free_paths(paths, r.nsn);
    free(r.nd);
    cal_pq_close(r.schema);
    return kind;
}

static cal_pq *open_column(const cal_pqrec *r, const char *column) {
    return r->mem ? cal_pq_open_mem(r->mem, r->memn, column, r->err, r->errlen)
                  : cal_pq_open(r->file, column, r->err, r->errlen);
}

static cal_pqrec *open_rec(const char *file, const void *mem, size_t memn, const char *const *cols, size_t ncols,
                           char *err, size_t errlen) {
    cal_pqrec *r = calloc(1, sizeof *r);
    if (!r) return snprintf(err, errlen, "out of memory"), NULL;
    r->err = err, r->errlen = errlen, r->file = file, r->mem = mem, r->memn = memn;
    char **paths = NULL;
    if (!(r->schema = open_column(r, NULL))) goto fail;
    if (setup(r, &paths) < 0) goto fail;
    r->top = calloc(ncols + 1, sizeof *r->top);
    if (!r->top) goto fail;
    for (size_t k = 0; k < ncols; k++) {
        size_t c = child_of(r, 0, cols[k]);
        if (!c) {
            failf(r, "no column '%s' in the file", cols[k]);
            goto fail;
        }
        int dup = 0;
        for (size_t t = 0; t < r->ntop; t++) dup |= r->top[t] == c;
        if (!dup) r->top[r->ntop++] = c;
    }
    /* leaves of the opened columns only: renumber them 0.. in schema order */
    int total = r->nd[0].leaf1;
    int *map = calloc((size_t)total + 1, sizeof *map);
    if (!map) goto fail;
    for (int l = 0; l < total; l++) map[l] = -1;
    for (size_t t = 0; t < r->ntop; t++)
        for (int l = r->nd[r->top[t]].leaf0; l < r->nd[r->top[t]].leaf1; l++) map[l] = 1;
    for (int l = 0; l < total; l++)
        if (map[l] > 0) map[l] = r->nleaf++;
    r->leaf = calloc((size_t)r->nleaf + 1, sizeof *r->leaf);
    if (!r->leaf) { free(map); goto fail; }
    for (size_t i = 1; i < r->nsn; i++) {
        pq_nd *d = &r->nd[i];
        int l0 = d->leaf0 < total ? map[d->leaf0] : -1;
        if (r->sn[i].children <= 0 && l0 >= 0) {
            if (r->sn[i].type != 6) {
                free(map);
                failf(r, "column '%s' is not a string (BYTE_ARRAY) column", paths[i]);
                goto fail;
            }
            if (!(r->leaf[l0].q = open_column(r, paths[i]))) { free(map); goto fail; }
        }
        /* the node's leaves in the new numbering (contiguous: a subtree) */
        if (l0 >= 0) d->leaf1 = l0 + (d->leaf1 - d->leaf0), d->leaf0 = l0;
        else d->leaf0 = d->leaf1 = 0;
    }
    free(map);
    for (size_t t = 0; t < r->ntop; t++)
        if (r->nd[r->top[t]].leaf0 == r->nd[r->top[t]].leaf1) {
            failf(r, "column '%s' has no leaf columns", paths[r->top[t]]);
            goto fail;
        }
    free_paths(paths, r->nsn);
    return r;
fail:
    free_paths(paths, r->nsn);
    cal_pqrec_close(r);
    return NULL;
}

cal_pqrec *cal_pqrec_open(const char *file, const char *const *cols, size_t ncols, char *err, size_t errlen) {
    return open_rec(file, NULL, 0, cols, ncols, err, errlen);
}

cal_pqrec *cal_pqrec_open_mem(const void *p, size_t n, const char *const *cols, size_t ncols, char *err,
                              size_t errlen) {
    return open_rec("", p ? p : "", n, cols, ncols, err, errlen);
}

void cal_pqrec_close(cal_pqrec *r) {
    if (!r) return;
    for (int l = 0; l < r->nleaf; l++) {
        cal_pq_close(r->leaf[l].q);
        free(r->leaf[l].e);
        cal_buf_free(&r->leaf[l].arena);
    }
    free(r->leaf), free(r->top), free(r->nd);
    json_decref(r->row);
    cal_pq_close(r->schema);
    free(r);
}
