/* gguf.c - GGUF reader (mmap, strict) and writer; see gguf.h. */
#include "io/gguf.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/num.h"
#include "io/mapfile.h"

#define MAX_STRING (1ull << 30) /* ggml's GGUF_MAX_STRING_LENGTH */
#define MAX_ARRAY (1ull << 30)  /* ggml's GGUF_MAX_ARRAY_ELEMENTS */

/* ggml's types: elements per block and bytes per block (0: no such type,
 * e.g. the removed Q4_2 and Q4_0_4_4). */
static const struct {
    const char *name;
    uint32_t blck, size;
} ggml_types[] = {
    {"f32", 1, 4},        {"f16", 1, 2},       {"q4_0", 32, 18},    {"q4_1", 32, 20},
    {NULL, 0, 0},         {NULL, 0, 0},        {"q5_0", 32, 22},    {"q5_1", 32, 24},
    {"q8_0", 32, 34},     {"q8_1", 32, 36},    {"q2_K", 256, 84},   {"q3_K", 256, 110},
    {"q4_K", 256, 144},   {"q5_K", 256, 176},  {"q6_K", 256, 210},  {"q8_K", 256, 292},
    {"iq2_xxs", 256, 66}, {"iq2_xs", 256, 74}, {"iq3_xxs", 256, 98}, {"iq1_s", 256, 50},
    {"iq4_nl", 32, 18},   {"iq3_s", 256, 110}, {"iq2_s", 256, 82},  {"iq4_xs", 256, 136},
    {"i8", 1, 1},         {"i16", 1, 2},       {"i32", 1, 4},       {"i64", 1, 8},
    {"f64", 1, 8},        {"iq1_m", 256, 56},  {"bf16", 1, 2},      {NULL, 0, 0},
    {NULL, 0, 0},         {NULL, 0, 0},        {"tq1_0", 256, 54},  {"tq2_0", 256, 66},
    {NULL, 0, 0},         {NULL, 0, 0},        {NULL, 0, 0},        {"mxfp4", 32, 17},
};
#define N_GGML_TYPES (int)(sizeof ggml_types / sizeof ggml_types[0])

/* Bytes of one value of a key type (0 for strings and arrays, -1 unknown). */
static int kv_size(uint32_t t) {
    static const int size[] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
    return t < sizeof size / sizeof size[0] ? size[t] : -1;
}

const char *cal_ggml_type_name(int type) {
    return type >= 0 && type < N_GGML_TYPES ? ggml_types[type].name : NULL;
}

struct cal_gguf_file {
    char *name;
    cal_mapfile map;
    const uint8_t *p;
    size_t n;
    uint32_t version;
    size_t alignment;
    cal_gguf_kv *kv;
    size_t nkv;
    cal_gguf_tensor *t;
    size_t nt;
};

/* ---- reading ------------------------------------------------------------ */

typedef struct {
    cal_gguf_file *f;
    size_t pos;
    char *err;
    size_t errlen;
} cursor;

/* "NAME: byte OFF: what" into the caller's err; 0. */
#define FAIL(c, off, ...) cal_err_at((c)->err, (c)->errlen, (c)->f->name, (off), __VA_ARGS__)

static size_t left(const cursor *c) { return c->f->n - c->pos; }

static int need(cursor *c, uint64_t n, const char *what) {
    if (n > left(c))
        return FAIL(c, c->pos, "%s: %llu bytes needed, the file ends after %zu", what,
                    (unsigned long long)n, left(c));
    return 1;
}

static int rd32(cursor *c, uint32_t *v, const char *what) {
    if (!need(c, 4, what)) return 0;
    *v = cal_ld32(c->f->p + c->pos);
    c->pos += 4;
    return 1;
}

static int rd64(cursor *c, uint64_t *v, const char *what) {
    if (!need(c, 8, what)) return 0;
    *v = cal_ld64(c->f->p + c->pos);
    c->pos += 8;
    return 1;
}

static int rdstr(cursor *c, cal_gguf_str *s, const char *what) {
    uint64_t n, at = c->pos;
    if (!rd64(c, &n, what)) return 0;
    if (n > MAX_STRING) return FAIL(c, at, "%s: length %llu is over ggml's limit of 2^30", what, (unsigned long long)n);
    if (!need(c, n, what)) return 0;
    s->p = (const char *)c->f->p + c->pos;
    s->n = n;
    c->pos += (size_t)n;
    return 1;
}

/* A key or tensor name as a C string: no NUL inside. */
static char *cstr(cursor *c, cal_gguf_str s, uint64_t at, const char *what) {
    if (memchr(s.p, 0, (size_t)s.n)) {
        FAIL(c, at, "%s holds a NUL byte", what);
        return NULL;
    }
    char *r = cal_xmalloc((size_t)s.n + 1);
    memcpy(r, s.p, (size_t)s.n);
    r[s.n] = 0;
    return r;
}

static int by_key(const void *a, const void *b) {
    return strcmp((*(const cal_gguf_kv *const *)a)->key, (*(const cal_gguf_kv *const *)b)->key);
}

static int by_name(const void *a, const void *b) {
    return strcmp((*(const cal_gguf_tensor *const *)a)->name, (*(const cal_gguf_tensor *const *)b)->name);
}

static int read_kv(cursor *c, cal_gguf_kv *kv) {
    cal_gguf_str key;
    kv->offset = c->pos;
    if (!rdstr(c, &key, "key")) return 0;
    if (!key.n) return FAIL(c, kv->offset, "empty key");
    if (!(kv->key = cstr(c, key, kv->offset, "key"))) return 0;
    uint32_t type;
    uint64_t n = 1, at = c->pos;
    if (!rd32(c, &type, "key type")) return 0;
    if (type == CAL_GGUF_ARRAY) {
        kv->is_array = 1;
        at = c->pos;
        if (!rd32(c, &type, "array type") || !rd64(c, &n, "array length")) return 0;
        if (n > MAX_ARRAY)
            return FAIL(c, at, "key '%s': array of %llu values is over ggml's limit of 2^30", kv->key,
                        (unsigned long long)n);
    }
    int size = kv_size(type);
    if (size < 0 || type == CAL_GGUF_ARRAY)
        return FAIL(c, at, "key '%s' has invalid type %u", kv->key, type);
    kv->type = (int)type;
    kv->n = n;
    if (type != CAL_GGUF_STRING) {
        if (!need(c, n * (uint64_t)size, kv->key)) return 0; /* n <= 2^30: no overflow */
        kv->val = c->f->p + c->pos;
        for (uint64_t i = 0; type == CAL_GGUF_BOOL && i < n; i++)
            if (kv->val[i] > 1)
                return FAIL(c, c->pos + i, "key '%s': boolean value %u is not 0 or 1", kv->key, kv->val[i]);
        c->pos += (size_t)(n * (uint64_t)size);
        return 1;
    }
    if (!need(c, n * 8, kv->key)) return 0; /* each string has at least its length */
    kv->str = cal_xcalloc((size_t)n ? (size_t)n : 1, sizeof *kv->str);
    for (uint64_t i = 0; i < n; i++)
        if (!rdstr(c, &kv->str[i], kv->key)) return 0;
    return 1;
}

static int read_keys(cursor *c, uint64_t nkv) {
    cal_gguf_file *f = c->f;
    f->kv = cal_xcalloc((size_t)nkv + 1, sizeof *f->kv);
    for (; f->nkv < nkv; f->nkv++)
        if (!read_kv(c, &f->kv[f->nkv])) {
            f->nkv++; /* free what it holds */
            return 0;
        }
    const cal_gguf_kv **s = cal_xcalloc(f->nkv + 1, sizeof *s);
    for (size_t i = 0; i < f->nkv; i++) s[i] = &f->kv[i];
    qsort(s, f->nkv, sizeof *s, by_key);
    int ok = 1;
    for (size_t i = 1; i < f->nkv && ok; i++)
        if (!strcmp(s[i]->key, s[i - 1]->key))
            ok = FAIL(c, s[i]->offset > s[i - 1]->offset ? s[i]->offset : s[i - 1]->offset,
                      "key '%s' appears twice", s[i]->key);
    free(s);
    if (!ok) return 0;
    f->alignment = CAL_GGUF_ALIGNMENT;
    const cal_gguf_kv *a = cal_gguf_find_kv(f, "general.alignment");
    if (a) {
        if (a->is_array || a->type != CAL_GGUF_U32)
            return FAIL(c, a->offset, "general.alignment must be of type u32");
        uint32_t v = cal_ld32(a->val);
        if (!v || (v & (v - 1))) return FAIL(c, a->offset, "general.alignment %u is not a power of 2", v);
        f->alignment = v;
    }
    return 1;
}

static int read_tensor(cursor *c, cal_gguf_tensor *t) {
    cal_gguf_str name;
    uint64_t at = c->pos;
    if (!rdstr(c, &name, "tensor name")) return 0;
    if (name.n >= CAL_GGUF_MAX_NAME)
        return FAIL(c, at, "tensor name of %llu bytes is too long (ggml's limit is %d)",
                    (unsigned long long)name.n, CAL_GGUF_MAX_NAME - 1);
    if (!(t->name = cstr(c, name, at, "tensor name"))) return 0;
    at = c->pos;
    if (!rd32(c, &t->ndim, "n_dims")) return 0;
    if (t->ndim > CAL_GGUF_MAX_DIMS)
        return FAIL(c, at, "tensor '%s' has %u dimensions (at most %d)", t->name, t->ndim, CAL_GGUF_MAX_DIMS);
    uint64_t nel = 1, dims = c->pos;
    for (uint32_t j = 0; j < CAL_GGUF_MAX_DIMS; j++) {
        uint64_t v = 1;
        at = c->pos;
        if (j < t->ndim && !rd64(c, &v, "dimension")) return 0;
        if (v > (uint64_t)INT64_MAX)
            return FAIL(c, at, "tensor '%s' dimension %u is negative", t->name, j);
        t->ne[j] = (int64_t)v;
    }
    /* ggml's bound: each partial product stays below INT64_MAX / ne[j]. */
    for (uint32_t j = 0; j < CAL_GGUF_MAX_DIMS; j++) nel *= t->ne[j] ? 1 : 0;
    for (uint32_t j = 1; nel && j < CAL_GGUF_MAX_DIMS; j++) {
        nel *= (uint64_t)t->ne[j - 1];
        if ((uint64_t)(INT64_MAX / t->ne[j]) <= nel)
            return FAIL(c, dims, "tensor '%s' has too many elements", t->name);
    }
    if (nel) nel *= (uint64_t)t->ne[CAL_GGUF_MAX_DIMS - 1];
    uint32_t type;
    at = c->pos;
    if (!rd32(c, &type, "tensor type")) return 0;
    if (type >= (uint32_t)N_GGML_TYPES || !ggml_types[type].blck)
        return FAIL(c, at, "tensor '%s' has invalid ggml type %d", t->name, (int32_t)type);
    t->type = (int)type;
    uint32_t blck = ggml_types[type].blck, size = ggml_types[type].size;
    if (t->ne[0] % blck)
        return FAIL(c, at, "tensor '%s' of type %s has %lld elements per row, not a multiple of %u", t->name,
                    ggml_types[type].name, (long long)t->ne[0], blck);
    if (nel / blck > (uint64_t)SIZE_MAX / size)
        return FAIL(c, at, "tensor '%s' is too large", t->name);
    t->nelements = nel;
    t->nbytes = nel / blck * size;
    return rd64(c, &t->offset, "tensor offset");
}

static int read_tensors(cursor *c, uint64_t nt) {
    cal_gguf_file *f = c->f;
    f->t = cal_xcalloc((size_t)nt + 1, sizeof *f->t);
    uint64_t *info = cal_xcalloc((size_t)nt + 1, sizeof *info);
    int ok = 1;
    for (; ok && f->nt < nt; f->nt++) {
        info[f->nt] = c->pos;
        ok = read_tensor(c, &f->t[f->nt]);
    }
    const cal_gguf_tensor **s = cal_xcalloc(f->nt + 1, sizeof *s);
    for (size_t i = 0; ok && i < f->nt; i++) s[i] = &f->t[i];
    if (ok) qsort(s, f->nt, sizeof *s, by_name);
    for (size_t i = 1; ok && i < f->nt; i++)
        if (!strcmp(s[i]->name, s[i - 1]->name))
            ok = FAIL(c, info[s[i] > s[i - 1] ? s[i] - f->t : s[i - 1] - f->t], "tensor '%s' appears twice",
                      s[i]->name);
    free(s);
    if (!ok || !nt) {
        free(info);
        return ok;
    }
    /* The data section starts at the next multiple of the alignment; each
     * tensor starts where the previous one's padded data ends. */
    size_t a = f->alignment, start = (c->pos + a - 1) / a * a;
    if (start > f->n) {
        free(info);
        return FAIL(c, c->pos, "the data section would start at byte %zu, past the end of the file", start);
    }
    uint64_t size = 0;
    for (size_t i = 0; ok && i < f->nt; i++) {
        cal_gguf_tensor *t = &f->t[i];
        if (t->offset != size) {
            ok = FAIL(c, info[i], "tensor '%s' has offset %llu, expected %llu (the previous tensors' padded sizes)",
                      t->name, (unsigned long long)t->offset, (unsigned long long)size);
            break;
        }
        uint64_t padded = t->nbytes + (a - t->nbytes % a) % a;
        if (padded < t->nbytes || padded > UINT64_MAX - size) {
            ok = FAIL(c, info[i], "tensor '%s': the data section size overflows", t->name);
            break;
        }
        size += padded;
        t->pos = start + t->offset;
    }
    if (ok && size > f->n - start)
        ok = FAIL(c, start, "the data section needs %llu bytes (each tensor padded to %zu), the file has %zu",
                  (unsigned long long)size, a, f->n - start);
    for (size_t i = 0; ok && i < f->nt; i++) f->t[i].data = f->p + f->t[i].pos;
    free(info);
    return ok;
}

static int parse(cal_gguf_file *f, char *err, size_t errlen) {
    cursor c = {f, 0, err, errlen};
    if (!cal_gguf_is_gguf(f->p, f->n)) return FAIL(&c, 0, "not a GGUF file (no 'GGUF' magic)");
    c.pos = 4;
    uint32_t v;
    uint64_t nt, nkv;
    if (!rd32(&c, &v, "version")) return 0;
    if (v != 2 && v != 3) return FAIL(&c, 4, "GGUF version %u is not supported (2 or 3)", v);
    f->version = v;
    if (!rd64(&c, &nt, "tensor count") || !rd64(&c, &nkv, "key count")) return 0;
    /* A key takes at least 12 bytes and a tensor info 24: counts beyond the
     * file are lies (this also bounds the allocations). */
    if (nt > (uint64_t)INT64_MAX || nt > left(&c) / 24)
        return FAIL(&c, 8, "tensor count %llu does not fit the file", (unsigned long long)nt);
    if (nkv > (uint64_t)INT64_MAX || nkv > left(&c) / 12)
        return FAIL(&c, 16, "key count %llu does not fit the file", (unsigned long long)nkv);
    return read_keys(&c, nkv) && read_tensors(&c, nt);
}

int cal_gguf_is_gguf(const void *p, size_t n) { return n >= 4 && !memcmp(p, "GGUF", 4); }

int cal_gguf_sniff(const char *path) {
    char b[4];
    int fd = open(path, O_RDONLY);
    if (fd < 0) return 0;
    ssize_t n = read(fd, b, 4);
    close(fd);
    return n == 4 && cal_gguf_is_gguf(b, 4);
}

cal_gguf_file *cal_gguf_open_mem(const void *p, size_t n, const char *name, char *err, size_t errlen) {
    cal_gguf_file *f = cal_xcalloc(1, sizeof *f);
    f->name = cal_xstrdup(name);
    f->p = n ? p : (const uint8_t *)"";
    f->n = n;
    if (!parse(f, err, errlen)) {
        cal_gguf_close(f);
        return NULL;
    }
    return f;
}

cal_gguf_file *cal_gguf_open_soft(const char *path, char *err, size_t errlen) {
    cal_mapfile m;
    if (!cal_mapfile_open(&m, path, err, errlen)) return NULL;
    cal_gguf_file *f = cal_gguf_open_mem(m.p, m.len, path, err, errlen);
    if (!f) cal_mapfile_close(&m);
    else f->map = m;
    return f;
}

void cal_gguf_close(cal_gguf_file *f) {
    if (!f) return;
    for (size_t i = 0; i < f->nkv; i++) free(f->kv[i].key), free(f->kv[i].str);
    for (size_t i = 0; i < f->nt; i++) free(f->t[i].name);
    free(f->kv);
    free(f->t);
    free(f->name);
    cal_mapfile_close(&f->map);
    free(f);
}

const char *cal_gguf_name(const cal_gguf_file *f) { return f->name; }
uint32_t cal_gguf_version(const cal_gguf_file *f) { return f->version; }
size_t cal_gguf_alignment(const cal_gguf_file *f) { return f->alignment; }
size_t cal_gguf_nkv(const cal_gguf_file *f) { return f->nkv; }
size_t cal_gguf_ntensors(const cal_gguf_file *f) { return f->nt; }
const cal_gguf_kv *cal_gguf_kv_at(const cal_gguf_file *f, size_t i) { return i < f->nkv ? &f->kv[i] : NULL; }
const cal_gguf_tensor *cal_gguf_tensor_at(const cal_gguf_file *f, size_t i) { return i < f->nt ? &f->t[i] : NULL; }

const cal_gguf_kv *cal_gguf_find_kv(const cal_gguf_file *f, const char *key) {
    for (size_t i = 0; i < f->nkv; i++)
        if (f->kv[i].key && !strcmp(f->kv[i].key, key)) return &f->kv[i];
    return NULL;
}

const cal_gguf_tensor *cal_gguf_find_tensor(const cal_gguf_file *f, const char *name) {
    for (size_t i = 0; i < f->nt; i++)
        if (f->t[i].name && !strcmp(f->t[i].name, name)) return &f->t[i];
    return NULL;
}

/* ---- writing ------------------------------------------------------------ */

typedef struct {
    char *name;
    int type;
    uint32_t ndim;
    int64_t ne[CAL_GGUF_MAX_DIMS];
    uint64_t nbytes;
    const void *data;
} wtensor;

struct cal_gguf_writer {
    cal_buf kv; /* the keys, serialized as they are added */
    uint64_t nkv;
    wtensor *t;
    size_t nt, cap;
    uint32_t alignment;
};

cal_gguf_writer *cal_gguf_writer_new(void) {
    cal_gguf_writer *w = cal_xcalloc(1, sizeof *w);
    w->alignment = CAL_GGUF_ALIGNMENT;
    return w;
}

static void put32(cal_buf *b, uint32_t v) {
    uint8_t t[4];
    cal_st32(t, v);
    cal_buf_add(b, t, 4);
}

static void put64(cal_buf *b, uint64_t v) {
    uint8_t t[8];
    cal_st64(t, v);
    cal_buf_add(b, t, 8);
}

static void putstr(cal_buf *b, const char *s) {
    put64(b, strlen(s));
    cal_buf_add(b, s, strlen(s));
}

static void key(cal_gguf_writer *w, const char *k, uint32_t type) {
    putstr(&w->kv, k);
    put32(&w->kv, type);
    w->nkv++;
}

void cal_gguf_add_str(cal_gguf_writer *w, const char *k, const char *val) {
    key(w, k, CAL_GGUF_STRING);
    putstr(&w->kv, val);
}

void cal_gguf_add_u32(cal_gguf_writer *w, const char *k, uint32_t val) {
    if (!strcmp(k, "general.alignment")) {
        if (!val || (val & (val - 1))) cal_die("GGUF: general.alignment %u is not a power of 2", val);
        w->alignment = val;
    }
    key(w, k, CAL_GGUF_U32);
    put32(&w->kv, val);
}

void cal_gguf_add_str_array(cal_gguf_writer *w, const char *k, const char *const *val, size_t n) {
    key(w, k, CAL_GGUF_ARRAY);
    put32(&w->kv, CAL_GGUF_STRING);
    put64(&w->kv, n);
    for (size_t i = 0; i < n; i++) putstr(&w->kv, val[i]);
}

void cal_gguf_add_tensor(cal_gguf_writer *w, const char *name, int type, uint32_t ndim,
                         const int64_t *ne, const void *data) {
    if (strlen(name) >= CAL_GGUF_MAX_NAME)
        cal_die("GGUF: tensor name '%s' is too long (at most %d bytes)", name, CAL_GGUF_MAX_NAME - 1);
    for (size_t i = 0; i < w->nt; i++)
        if (!strcmp(w->t[i].name, name)) cal_die("GGUF: tensor '%s' added twice", name);
    if (type < 0 || type >= N_GGML_TYPES || ggml_types[type].blck != 1 || ndim < 1 || ndim > CAL_GGUF_MAX_DIMS)
        cal_die("GGUF: tensor '%s': unsupported type %d or %u dimensions", name, type, ndim);
    if (w->nt == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 16;
        w->t = cal_xrealloc(w->t, w->cap * sizeof *w->t);
    }
    wtensor *t = &w->t[w->nt++];
    memset(t, 0, sizeof *t);
    t->name = cal_xstrdup(name);
    t->type = type;
    t->nbytes = ggml_types[type].size;
    for (uint32_t j = 0; j < CAL_GGUF_MAX_DIMS; j++) {
        t->ne[j] = j < ndim ? ne[j] : 1;
        if (t->ne[j] < 0 || (t->ne[j] && t->nbytes > SIZE_MAX / (uint64_t)t->ne[j]))
            cal_die("GGUF: tensor '%s' has a bad shape", name);
        t->nbytes *= (uint64_t)t->ne[j];
    }
    /* ggml writes n_dims without trailing dimensions of 1 */
    t->ndim = CAL_GGUF_MAX_DIMS;
    while (t->ndim > 1 && t->ne[t->ndim - 1] == 1) t->ndim--;
    t->data = data;
}

static void pad(cal_buf *b, size_t from, uint32_t a) {
    while ((b->n - from) % a) cal_buf_addc(b, 0);
}

void cal_gguf_serialize(const cal_gguf_writer *w, cal_buf *out) {
    size_t start = out->n;
    cal_buf_add(out, "GGUF", 4);
    put32(out, 3);
    put64(out, w->nt);
    put64(out, w->nkv);
    cal_buf_add(out, w->kv.p, w->kv.n);
    uint64_t off = 0;
    for (size_t i = 0; i < w->nt; i++) {
        const wtensor *t = &w->t[i];
        putstr(out, t->name);
        put32(out, t->ndim);
        for (uint32_t j = 0; j < t->ndim; j++) put64(out, (uint64_t)t->ne[j]);
        put32(out, (uint32_t)t->type);
        put64(out, off);
        off += t->nbytes + (w->alignment - t->nbytes % w->alignment) % w->alignment;
    }
    pad(out, start, w->alignment);
    for (size_t i = 0; i < w->nt; i++) {
        if (w->t[i].nbytes) cal_buf_add(out, w->t[i].data, (size_t)w->t[i].nbytes);
        pad(out, start, w->alignment);
    }
}

void cal_gguf_writer_free(cal_gguf_writer *w) {
    if (!w) return;
    for (size_t i = 0; i < w->nt; i++) free(w->t[i].name);
    free(w->t);
    cal_buf_free(&w->kv);
    free(w);
}
