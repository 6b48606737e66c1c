/* safetensors.c - .safetensors reader (mmap + jansson), sharded checkpoints,
 * and an atomic writer. See safetensors.h. */
#include "io/safetensors.h"

#include "base/outfile.h"
#include "base/num.h"
#include "base/buf.h"
#include "base/err.h"
#include "base/utf8.h"
#include "io/mapfile.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct cal_st_file {
    char *name;
    cal_mapfile map;    /* the mapped file (nothing for memory input) */
    const uint8_t *p;   /* file bytes */
    size_t n;
    cal_st_tensor *t;   /* sorted by data offset (file order) */
    size_t nt;
    char **mkey, **mval;
    size_t nmeta;
};

static const struct {
    const char *name;
    size_t size;
} dtypes[] = {
    {"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"I64", 8}, {"I32", 4},
    {"I16", 2}, {"I8", 1},  {"U64", 8}, {"U32", 4},  {"U16", 2}, {"U8", 1},
    {"BOOL", 1}, {"F8_E4M3", 1}, {"F8_E5M2", 1},
};

size_t cal_st_dtype_size(const char *dtype) {
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (strcmp(dtype, dtypes[i].name) == 0) return dtypes[i].size;
    return 0;
}

/* ---- reading ------------------------------------------------------------ */

static void free_parts(cal_st_file *f) {
    for (size_t i = 0; i < f->nt; i++) free((char *)f->t[i].name);
    for (size_t i = 0; i < f->nmeta; i++) free(f->mkey[i]), free(f->mval[i]);
    free(f->t);
    free(f->mkey);
    free(f->mval);
    free(f->name);
    cal_mapfile_close(&f->map);
    free(f);
}

/* Records the first error as "NAME: byte OFF: msg"; returns 0. */
CAL_PRINTF(5, 6)
static int fail(const cal_st_file *f, char *err, size_t errlen, uint64_t off, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(err, errlen, "%s: byte %llu: %s", f->name, (unsigned long long)off, msg);
    return 0;
}

static int by_offset(const void *a, const void *b) {
    const cal_st_tensor *x = a, *y = b;
    if (x->offset != y->offset) return x->offset < y->offset ? -1 : 1;
    return x->size < y->size ? -1 : x->size > y->size;
}

/* Reads an array of non-negative integers; returns its length or -1. */
static int uint_array(json_t *a, uint64_t *out, size_t max) {
    if (!json_is_array(a) || json_array_size(a) > max) return -1;
    for (size_t i = 0; i < json_array_size(a); i++) {
        json_t *v = json_array_get(a, i);
        if (!json_is_integer(v) || json_integer_value(v) < 0) return -1;
        out[i] = (uint64_t)json_integer_value(v);
    }
    return (int)json_array_size(a);
}

static int parse_tensor(cal_st_file *f, const char *key, json_t *v, uint64_t data_len,
                        uint64_t data0, char *err, size_t errlen) {
    cal_st_tensor *t = &f->t[f->nt];
    memset(t, 0, sizeof *t);
    if (!json_is_object(v)) return fail(f, err, errlen, 8, "tensor '%s' is not an object", key);
    json_t *dt = json_object_get(v, "dtype"), *sh = json_object_get(v, "shape"),
           *of = json_object_get(v, "data_offsets");
    if (!json_is_string(dt) || !sh || !of)
        return fail(f, err, errlen, 8, "tensor '%s' needs dtype, shape and data_offsets", key);
    size_t esize = cal_st_dtype_size(json_string_value(dt));
    if (!esize) return fail(f, err, errlen, 8, "tensor '%s': unknown dtype '%.16s'", key,
                            json_string_value(dt));
    strcpy(t->dtype, json_string_value(dt));
    int nd = uint_array(sh, t->shape, CAL_ST_MAX_DIM);
    if (nd < 0) return fail(f, err, errlen, 8,
                            "tensor '%s': shape is not a list of at most %d sizes", key,
                            CAL_ST_MAX_DIM);
    t->ndim = nd;
    uint64_t off[2];
    if (uint_array(of, off, 2) != 2 || off[0] > off[1])
        return fail(f, err, errlen, 8, "tensor '%s': data_offsets is not [BEGIN, END]", key);
    uint64_t numel = 1;
    for (int i = 0; i < nd; i++) {
        if (t->shape[i] && numel > UINT64_MAX / t->shape[i] / esize)
            return fail(f, err, errlen, 8, "tensor '%s': shape overflows", key);
        numel *= t->shape[i];
    }
    if (numel * esize != off[1] - off[0])
        return fail(f, err, errlen, 8,
                    "tensor '%s': %s shape needs %llu bytes, data_offsets give %llu", key,
                    t->dtype, (unsigned long long)(numel * esize),
                    (unsigned long long)(off[1] - off[0]));
    if (off[1] > data_len)
        return fail(f, err, errlen, data0 + off[0],
                    "tensor '%s': data [%llu, %llu) runs past the end of the file (%llu data bytes)",
                    key, (unsigned long long)off[0], (unsigned long long)off[1],
                    (unsigned long long)data_len);
    t->numel = numel;
    t->offset = data0 + off[0];
    t->size = off[1] - off[0];
    t->data = f->p + t->offset;
    t->name = cal_xstrdup(key);
    f->nt++;
    return 1;
}

static int parse(cal_st_file *f, char *err, size_t errlen) {
    if (f->n < 8) return fail(f, err, errlen, 0, "not a safetensors file (%zu bytes)", f->n);
    uint64_t hlen = cal_ld64(f->p);
    if (hlen > f->n - 8)
        return fail(f, err, errlen, 0, "header length %llu runs past the end of the file (%zu bytes)",
                    (unsigned long long)hlen, f->n);
    if (hlen > CAL_ST_MAX_HEADER)
        return fail(f, err, errlen, 0, "header length %llu is over the %u limit",
                    (unsigned long long)hlen, CAL_ST_MAX_HEADER);
    if (hlen < 2 || f->p[8] != '{')
        return fail(f, err, errlen, 8, "header is not a JSON object");
    json_error_t je;
    json_t *root = json_loadb((const char *)f->p + 8, hlen, JSON_REJECT_DUPLICATES, &je);
    if (!root) return fail(f, err, errlen, 8 + (uint64_t)je.position, "bad JSON header: %s", je.text);
    int ok = 1;
    if (!json_is_object(root)) {
        ok = fail(f, err, errlen, 8, "header is not a JSON object");
        goto out;
    }
    uint64_t data0 = 8 + hlen, data_len = f->n - data0;
    f->t = cal_xcalloc(json_object_size(root) + 1, sizeof *f->t);
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v) {
        if (strcmp(key, "__metadata__") == 0) {
            if (!json_is_object(v)) {
                ok = fail(f, err, errlen, 8, "__metadata__ is not an object");
                goto out;
            }
            size_t m = json_object_size(v);
            f->mkey = cal_xcalloc(m + 1, sizeof *f->mkey);
            f->mval = cal_xcalloc(m + 1, sizeof *f->mval);
            const char *mk;
            json_t *mv;
            json_object_foreach(v, mk, mv) {
                if (!json_is_string(mv)) {
                    ok = fail(f, err, errlen, 8, "__metadata__ value of '%s' is not a string", mk);
                    goto out;
                }
                f->mkey[f->nmeta] = cal_xstrdup(mk);
                f->mval[f->nmeta++] = cal_xstrdup(json_string_value(mv));
            }
            continue;
        }
        if (!(ok = parse_tensor(f, key, v, data_len, data0, err, errlen))) goto out;
    }
    qsort(f->t, f->nt, sizeof *f->t, by_offset);
    for (size_t i = 1; i < f->nt; i++)
        if (f->t[i].offset < f->t[i - 1].offset + f->t[i - 1].size && f->t[i].size) {
            ok = fail(f, err, errlen, f->t[i].offset, "tensors '%s' and '%s' overlap",
                      f->t[i - 1].name, f->t[i].name);
            goto out;
        }
out:
    json_decref(root);
    return ok;
}

cal_st_file *cal_st_open_mem(const void *p, size_t n, const char *name, char *err, size_t errlen) {
    cal_st_file *f = cal_xcalloc(1, sizeof *f);
    f->name = cal_xstrdup(name);
    f->p = p;
    f->n = n;
    if (!parse(f, err, errlen)) {
        free_parts(f);
        return NULL;
    }
    return f;
}

cal_st_file *cal_st_open_soft(const char *path, char *err, size_t errlen) {
    cal_mapfile m;
    if (!cal_mapfile_open(&m, path, err, errlen)) return NULL;
    cal_st_file *f = cal_st_open_mem(m.p, m.len, path, err, errlen);
    if (!f) cal_mapfile_close(&m);
    else f->map = m;
    return f;
}

cal_st_file *cal_st_open(const char *path) {
    char err[768];
    cal_st_file *f = cal_st_open_soft(path, err, sizeof err);
    if (!f) cal_die("%s", err);
    return f;
}

void cal_st_close(cal_st_file *f) {
    if (f) free_parts(f);
}

const char *cal_st_name(const cal_st_file *f) { return f->name; }
size_t cal_st_count(const cal_st_file *f) { return f->nt; }
const cal_st_tensor *cal_st_tensor_at(const cal_st_file *f, size_t i) {
    return i < f->nt ? &f->t[i] : NULL;
}

const cal_st_tensor *cal_st_find(const cal_st_file *f, const char *name) {
    for (size_t i = 0; i < f->nt; i++)
        if (strcmp(f->t[i].name, name) == 0) return &f->t[i];
    return NULL;
}

size_t cal_st_meta_count(const cal_st_file *f) { return f->nmeta; }
const char *cal_st_meta_key(const cal_st_file *f, size_t i) { return i < f->nmeta ? f->mkey[i] : NULL; }
const char *cal_st_meta_val(const cal_st_file *f, size_t i) { return i < f->nmeta ? f->mval[i] : NULL; }
const char *cal_st_meta_get(const cal_st_file *f, const char *key) {
    for (size_t i = 0; i < f->nmeta; i++)
        if (strcmp(f->mkey[i], key) == 0) return f->mval[i];
    return NULL;
}

/* ---- name suggestions --------------------------------------------------- */

static size_t edit_distance(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    size_t *row = cal_xmalloc((lb + 1) * sizeof *row);
    for (size_t j = 0; j <= lb; j++) row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    size_t d = row[lb];
    free(row);
    return d;
}

/* A close name: rank 0 contains the name asked for (key: its length),
 * rank 1 is near it (key: the edit distance). */
typedef struct {
    const char *s;
    int rank;
    size_t key;
} close_name;

static int by_closeness(const void *a, const void *b) {
    const close_name *x = a, *y = b;
    if (x->rank != y->rank) return x->rank - y->rank;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return strcmp(x->s, y->s);
}

size_t cal_st_suggest(const char *const *names, size_t n, const char *name, const char **out, size_t k) {
    close_name *c = cal_xcalloc(n + 1, sizeof *c);
    size_t nc = 0, limit = strlen(name) / 3 + 1;
    for (size_t i = 0; i < n; i++) {
        /* "embed_tokens.weight" should find "model.embed_tokens.weight". */
        if (*name && strstr(names[i], name)) {
            c[nc++] = (close_name){names[i], 0, strlen(names[i])};
            continue;
        }
        size_t d = edit_distance(names[i], name);
        if (d <= limit) c[nc++] = (close_name){names[i], 1, d};
    }
    qsort(c, nc, sizeof *c, by_closeness);
    if (nc > k) nc = k;
    for (size_t i = 0; i < nc; i++) out[i] = c[i].s;
    free(c);
    return nc;
}

static const char *hint(const char *const *names, size_t n, const char *name) {
    /* Each name is cut at 300 bytes, so three always fit. */
    static char buf[16 + CAL_ST_NCLOSE * 306];
    const char *s[CAL_ST_NCLOSE];
    size_t k = cal_st_suggest(names, n, name, s, CAL_ST_NCLOSE), len = 0;
    buf[0] = 0;
    for (size_t i = 0; i < k; i++)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s'%.300s'", i ? ", " : "; close names: ", s[i]);
    return buf;
}

const char *cal_st_hint(const cal_st_file *f, const char *name) {
    const char **names = cal_xcalloc(f->nt + 1, sizeof *names);
    for (size_t i = 0; i < f->nt; i++) names[i] = f->t[i].name;
    const char *h = hint(names, f->nt, name);
    free(names);
    return h;
}

/* ---- sharded checkpoints ------------------------------------------------ */

struct cal_st_model {
    char *path;          /* what the user named (for messages) */
    char **shard;        /* distinct shard paths */
    cal_st_file **open;  /* opened lazily */
    size_t nshard;
    int index;           /* from a model.safetensors.index.json */
    char **wname;        /* weight_map: tensor name -> shard index */
    size_t *wshard;
    size_t nw;
};

static int is_dir(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}
static int exists(const char *p) { return access(p, F_OK) == 0; }

static char *join(const char *dir, const char *name) {
    cal_buf b = {0};
    cal_buf_addf(&b, "%s/%s", dir, name);
    return b.p;
}

static size_t add_shard(cal_st_model *m, const char *path) {
    for (size_t i = 0; i < m->nshard; i++)
        if (strcmp(m->shard[i], path) == 0) return i;
    m->shard = cal_xrealloc(m->shard, (m->nshard + 1) * sizeof *m->shard);
    m->open = cal_xrealloc(m->open, (m->nshard + 1) * sizeof *m->open);
    m->shard[m->nshard] = cal_xstrdup(path);
    m->open[m->nshard] = NULL;
    return m->nshard++;
}

static void load_index(cal_st_model *m, const char *index) {
    json_error_t je;
    json_t *root = json_load_file(index, JSON_REJECT_DUPLICATES, &je);
    if (!root) cal_die_at(index, (uint64_t)je.position, "bad JSON: %s", je.text);
    json_t *wm = json_object_get(root, "weight_map");
    if (!json_is_object(wm)) cal_die_at(index, 0, "no \"weight_map\" object");
    m->index = 1;
    char *dir = cal_xstrdup(index);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    else strcpy(dir, ".");
    m->wname = cal_xcalloc(json_object_size(wm) + 1, sizeof *m->wname);
    m->wshard = cal_xcalloc(json_object_size(wm) + 1, sizeof *m->wshard);
    const char *k;
    json_t *v;
    json_object_foreach(wm, k, v) {
        if (!json_is_string(v) || strchr(json_string_value(v), '/'))
            cal_die_at(index, 0, "weight_map entry '%s' is not a shard file name", k);
        char *p = join(dir, json_string_value(v));
        m->wname[m->nw] = cal_xstrdup(k);
        m->wshard[m->nw++] = add_shard(m, p);
        free(p);
    }
    free(dir);
    json_decref(root);
}

/* A model of one file is opened at once: cal_st_model_count and
 * cal_st_model_name_at read it. */
static void open_single(cal_st_model *m, const char *path) {
    size_t i = add_shard(m, path); /* reallocates m->open */
    m->open[i] = cal_st_open(path);
}

cal_st_model *cal_st_model_open(const char *path) {
    cal_st_model *m = cal_xcalloc(1, sizeof *m);
    m->path = cal_xstrdup(path);
    size_t n = strlen(path);
    if (is_dir(path)) {
        char *idx = join(path, "model.safetensors.index.json");
        char *one = join(path, "model.safetensors");
        if (exists(idx)) load_index(m, idx);
        else if (exists(one)) open_single(m, one);
        else cal_die("%s: no model.safetensors.index.json or model.safetensors in this folder", path);
        free(idx);
        free(one);
    } else if (n >= 5 && strcmp(path + n - 5, ".json") == 0) {
        load_index(m, path);
    } else {
        open_single(m, path);
    }
    return m;
}

static cal_st_file *shard(cal_st_model *m, size_t i) {
    if (!m->open[i]) m->open[i] = cal_st_open(m->shard[i]);
    return m->open[i];
}

const cal_st_tensor *cal_st_model_find(cal_st_model *m, const char *name, const char **file) {
    if (m->index) {
        for (size_t i = 0; i < m->nw; i++)
            if (strcmp(m->wname[i], name) == 0) {
                if (file) *file = m->shard[m->wshard[i]];
                const cal_st_tensor *t = cal_st_find(shard(m, m->wshard[i]), name);
                if (!t) cal_die("%s: the index names tensor '%s' but the shard lacks it",
                                m->shard[m->wshard[i]], name);
                return t;
            }
        return NULL;
    }
    const cal_st_tensor *t = cal_st_find(shard(m, 0), name);
    if (t && file) *file = m->shard[0];
    return t;
}

size_t cal_st_model_count(const cal_st_model *m) { return m->index ? m->nw : cal_st_count(m->open[0]); }

const char *cal_st_model_name_at(const cal_st_model *m, size_t i) {
    if (m->index) return i < m->nw ? m->wname[i] : NULL;
    const cal_st_tensor *t = cal_st_tensor_at(m->open[0], i);
    return t ? t->name : NULL;
}

const cal_st_tensor *cal_st_model_get(cal_st_model *m, const char *name) {
    const cal_st_tensor *t = cal_st_model_find(m, name, NULL);
    if (t) return t;
    size_t n = cal_st_model_count(m);
    const char **names = cal_xcalloc(n + 1, sizeof *names);
    for (size_t i = 0; i < n; i++) names[i] = cal_st_model_name_at(m, i);
    const char *h = hint(names, n, name);
    free(names);
    cal_die("%s: no tensor '%s'%s", m->path, name, h);
}

void cal_st_model_close(cal_st_model *m) {
    if (!m) return;
    for (size_t i = 0; i < m->nshard; i++) {
        cal_st_close(m->open[i]);
        free(m->shard[i]);
    }
    for (size_t i = 0; i < m->nw; i++) free(m->wname[i]);
    free(m->wname);
    free(m->wshard);
    free(m->shard);
    free(m->open);
    free(m->path);
    free(m);
}

/* ---- writing ------------------------------------------------------------ */

typedef struct {
    char *name;
    char dtype[8];
    int ndim;
    uint64_t shape[CAL_ST_MAX_DIM];
    uint64_t size;
    const void *data;
} wtensor;

struct cal_st_writer {
    wtensor *t;
    size_t nt;
    char **mkey, **mval;
    size_t nmeta;
};

cal_st_writer *cal_st_writer_new(void) { return cal_xcalloc(1, sizeof(cal_st_writer)); }

/* The header is JSON, which holds UTF-8 only: jansson would drop the pair. */
static void need_utf8(const char *what, const char *key, const char *s) {
    size_t n = strlen(s), good = cal_utf8_valid_prefix(s, n);
    if (good == n) return;
    cal_buf b = {0};
    cal_utf8_escape(s, n, 80, &b);
    cal_die("safetensors: %s%s%s is not UTF-8 (byte %zu of '%s')", what, key ? " of " : "", key ? key : "", good, b.p);
}

void cal_st_add(cal_st_writer *w, const char *name, const char *dtype, int ndim,
                const uint64_t *shape, const void *data) {
    size_t es = cal_st_dtype_size(dtype);
    if (!es) cal_die("safetensors: unknown dtype '%s'", dtype);
    if (ndim < 0 || ndim > CAL_ST_MAX_DIM) cal_die("safetensors: %d dimensions", ndim);
    need_utf8("tensor name", NULL, name);
    w->t = cal_xrealloc(w->t, (w->nt + 1) * sizeof *w->t);
    wtensor *t = &w->t[w->nt++];
    memset(t, 0, sizeof *t);
    t->name = cal_xstrdup(name);
    strcpy(t->dtype, dtype);
    t->ndim = ndim;
    t->size = es;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] && t->size > UINT64_MAX / shape[i]) cal_die("safetensors: tensor '%s': shape overflows", name);
        t->shape[i] = shape[i], t->size *= shape[i];
    }
    t->data = data;
}

void cal_st_add_meta(cal_st_writer *w, const char *key, const char *val) {
    need_utf8("metadata key", NULL, key);
    need_utf8("metadata value", key, val);
    w->mkey = cal_xrealloc(w->mkey, (w->nmeta + 1) * sizeof *w->mkey);
    w->mval = cal_xrealloc(w->mval, (w->nmeta + 1) * sizeof *w->mval);
    w->mkey[w->nmeta] = cal_xstrdup(key);
    w->mval[w->nmeta++] = cal_xstrdup(val);
}

void cal_st_header(cal_st_writer *w, cal_buf *out) {
    json_t *root = json_object();
    if (w->nmeta) {
        json_t *m = json_object();
        for (size_t i = 0; i < w->nmeta; i++) json_object_set_new(m, w->mkey[i], json_string(w->mval[i]));
        json_object_set_new(root, "__metadata__", m);
    }
    uint64_t off = 0;
    for (size_t i = 0; i < w->nt; i++) {
        wtensor *t = &w->t[i];
        json_t *shape = json_array();
        for (int d = 0; d < t->ndim; d++) json_array_append_new(shape, json_integer((json_int_t)t->shape[d]));
        json_t *o = json_pack("{s:s, s:o, s:[I,I]}", "dtype", t->dtype, "shape", shape,
                              "data_offsets", (json_int_t)off, (json_int_t)(off + t->size));
        json_object_set_new(root, t->name, o);
        off += t->size;
    }
    char *s = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
    json_decref(root);
    if (!s) cal_die("safetensors: cannot encode the header");
    size_t n = strlen(s), padded = (n + 7) & ~(size_t)7;
    uint8_t len[8];
    cal_st64(len, padded);
    out->n = 0;
    cal_buf_add(out, len, 8);
    cal_buf_add(out, s, n);
    while (out->n < 8 + padded) cal_buf_addc(out, ' ');
    free(s);
}

void cal_st_write_header(cal_st_writer *w, cal_file *f) {
    cal_buf b = {0};
    cal_st_header(w, &b);
    cal_file_write(f, b.p, b.n);
    cal_buf_free(&b);
}

void cal_st_write(cal_st_writer *w, const char *path) {
    for (size_t i = 0; i < w->nt; i++)
        if (!w->t[i].data && w->t[i].size) cal_die("safetensors: tensor '%s' has no data", w->t[i].name);
    cal_file *f = cal_file_create(path);
    cal_st_write_header(w, f);
    for (size_t i = 0; i < w->nt; i++) cal_file_write(f, w->t[i].data, w->t[i].size);
    cal_file_commit(f);
}

void cal_st_writer_free(cal_st_writer *w) {
    if (!w) return;
    for (size_t i = 0; i < w->nt; i++) free(w->t[i].name);
    for (size_t i = 0; i < w->nmeta; i++) free(w->mkey[i]), free(w->mval[i]);
    free(w->t);
    free(w->mkey);
    free(w->mval);
    free(w);
}
