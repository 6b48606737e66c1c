/* rowfile.c - ROW records <-> .safetensors / .npy / .jsonl. See rowfile.h. */
#include "io/rowfile.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/hash.h"
#include "base/num.h"
#include "base/outfile.h"
#include "io/npy.h"
#include "io/safetensors.h"
#include "io/zipstore.h"

#define CHUNK (1u << 16) /* values converted per write */

static int ends_with(const char *s, const char *suf) {
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && strcmp(s + n - m, suf) == 0;
}

cal_rf_type cal_rf_type_of(const char *path) {
    if (ends_with(path, ".safetensors")) return CAL_RF_SAFETENSORS;
    if (ends_with(path, ".npy")) return CAL_RF_NPY;
    if (ends_with(path, ".npz")) return CAL_RF_NPZ;
    if (ends_with(path, ".jsonl")) return CAL_RF_JSONL;
    return CAL_RF_NONE;
}

/* ---- export ------------------------------------------------------------- */

typedef struct {
    uint64_t id, start; /* start: index of the first id in ids/mask/role */
    uint32_t len, flags, label;
} row_info;

struct cal_rowset {
    cal_rf_type type;
    uint64_t batch; /* rows per batch, each padded to its longest (0: one matrix) */
    cal_buf ids;  /* little-endian u32 */
    cal_buf mask; /* one 0/1 byte per id (1 where a row has no mask) */
    cal_buf role; /* one 0/1 byte per id (0 where a row has no role mask) */
    row_info *row;
    size_t n, cap;
    char **label;
    size_t nlabel;
    int padded; /* some mask byte is 0 */
    cal_meta first; /* the metadata when the first row was read (before a trailer) */
    int roles;  /* some row has a role mask: labels and loss_mask are written */
    int ragged; /* rows of several lengths: padded on the right to the longest */
    uint32_t maxlen;
    int64_t pad_id;
};

cal_rowset *cal_rowset_new(cal_rf_type type) {
    cal_rowset *s = cal_xcalloc(1, sizeof *s);
    s->type = type;
    return s;
}

void cal_rowset_batch(cal_rowset *s, uint64_t rows) { s->batch = rows; }

size_t cal_rowset_rows(const cal_rowset *s) { return s->n; }

static uint32_t label_index(cal_rowset *s, const char *p, size_t n) {
    for (size_t i = s->nlabel; i-- > 0;)
        if (strlen(s->label[i]) == n && memcmp(s->label[i], p, n) == 0) return (uint32_t)i;
    s->label = cal_xrealloc(s->label, (s->nlabel + 1) * sizeof *s->label);
    char *l = cal_xmalloc(n + 1);
    memcpy(l, p, n);
    l[n] = 0;
    s->label[s->nlabel] = l;
    return (uint32_t)s->nlabel++;
}

/* Appends len bytes of v (or len copies of dflt when v is NULL) to b. */
static void add_bytes(cal_buf *b, const uint8_t *v, uint32_t len, int dflt) {
    size_t m0 = b->n;
    cal_buf_reserve(b, m0 + len + 1);
    if (v) memcpy(b->p + m0, v, len);
    else memset(b->p + m0, dflt, len);
    b->n = m0 + len;
}

void cal_rowset_add(cal_rowset *s, cal_reader *r, const cal_rec *rec) {
    if (rec->kind != CAL_ROW)
        cal_reader_die(r, rec, "expected ROW records to convert, got %s", cal_kind_name(rec->kind));
    cal_row_view v = cal_row(rec);
    if (v.role && s->type == CAL_RF_NPY)
        cal_reader_die(r, rec, "ROW with a role mask: .npy holds ids only; write .safetensors, .npz or .jsonl "
                       "(labels and loss_mask)");
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 256;
        s->row = cal_xrealloc(s->row, s->cap * sizeof *s->row);
    }
    if (!s->n) cal_meta_copy(&s->first, cal_reader_meta(r));
    row_info *ri = &s->row[s->n++];
    ri->id = rec->id;
    ri->start = s->ids.n / 4;
    ri->len = v.len;
    ri->flags = v.flags;
    ri->label = label_index(s, rec->label, rec->label_len);
    if (v.len != s->row[0].len) s->ragged = 1;
    if (v.len > s->maxlen) s->maxlen = v.len;
    cal_buf_add(&s->ids, v.ids, 4 * (size_t)v.len);
    add_bytes(&s->mask, v.mask, v.len, 1);
    if (v.mask && memchr(v.mask, 0, v.len)) s->padded = 1;
    add_bytes(&s->role, v.role, v.len, 0);
    s->roles |= v.role != NULL;
}

/* What a matrix holds: ids (pad id beyond a row's end), the attention mask,
 * labels (the id where the token is the assistant's output and real, else
 * -100, as transformers' and llm-compressor's labels), the loss mask. */
enum { V_IDS, V_MASK, V_LABELS, V_LOSS, V_LENGTHS };

static int64_t value_at(const cal_rowset *s, const row_info *ri, uint32_t j, int what) {
    if (j >= ri->len) return what == V_IDS ? s->pad_id : what == V_LABELS ? -100 : 0;
    uint64_t k = ri->start + j;
    int real = s->mask.p[k] != 0, out = real && s->role.p[k];
    switch (what) {
    case V_MASK: return real;
    case V_LOSS: return out;
    default: break;
    }
    int64_t id = (ri->flags & CAL_ROW_NOISE) ? -1 : (int64_t)cal_ld32(s->ids.p + 4 * k);
    return what == V_IDS ? id : out ? id : -100;
}

typedef void (*sink_fn)(void *ctx, const void *p, size_t n);
static void to_file(void *f, const void *p, size_t n) { cal_file_write(f, p, n); }
static void to_zip(void *z, const void *p, size_t n) { cal_zip_write(z, p, n); }
static void to_crc(void *crc, const void *p, size_t n) {
    uLong c = *(uint32_t *)crc;
    for (size_t k; n; n -= k, p = (const uint8_t *)p + k) /* crc32 takes uInt lengths */
        c = crc32(c, p, (uInt)(k = n < (1u << 30) ? n : (1u << 30)));
    *(uint32_t *)crc = (uint32_t)c;
}

/* One matrix: rows [r0, r1) of s, width w. */
typedef struct {
    size_t r0, r1;
    uint32_t w;
} block;

/* The blocks the rows are written in: one matrix of the longest row's
 * width, or with a batch size one per batch of its own longest width
 * (GPTQModel's collate_data). Returns their number; *b is a new array. */
static size_t blocks(const cal_rowset *s, block **b) {
    size_t per = s->batch ? (size_t)s->batch : s->n, nb = (s->n + per - 1) / per;
    *b = cal_xcalloc(nb ? nb : 1, sizeof **b);
    for (size_t k = 0; k < nb; k++) {
        block *x = &(*b)[k];
        x->r0 = k * per, x->r1 = x->r0 + per < s->n ? x->r0 + per : s->n;
        for (size_t i = x->r0; i < x->r1; i++)
            if (s->row[i].len > x->w) x->w = s->row[i].len;
    }
    return nb;
}

/* Passes a block's values of kind what as int64 to sink, in chunks
 * (V_LENGTHS: one value per row). */
static void each_i64(const cal_rowset *s, const block *b, int what, sink_fn sink, void *ctx) {
    uint8_t *buf = cal_xmalloc(8 * CHUNK);
    size_t k = 0;
    for (size_t i = b->r0; i < b->r1; i++) {
        const row_info *ri = &s->row[i];
        uint32_t w = what == V_LENGTHS ? 1 : b->w;
        for (uint32_t j = 0; j < w; j++) {
            int64_t x = what == V_LENGTHS ? (int64_t)ri->len : value_at(s, ri, j, what);
            cal_st64(buf + 8 * k, (uint64_t)x);
            if (++k == CHUNK) {
                sink(ctx, buf, 8 * k);
                k = 0;
            }
        }
    }
    sink(ctx, buf, 8 * k);
    free(buf);
}

/* The tensors of a block: input_ids, then attention_mask when some row is
 * padded (always with batches, as collate_data gives it), lengths when rows
 * differ (one matrix only), labels and loss_mask with role masks. */
static size_t tensors(const cal_rowset *s, int what[5]) {
    size_t n = 0;
    what[n++] = V_IDS;
    if (s->padded || s->ragged || s->batch || s->type == CAL_RF_NPZ) what[n++] = V_MASK;
    if (s->ragged && !s->batch) what[n++] = V_LENGTHS;
    if (s->roles) what[n++] = V_LABELS, what[n++] = V_LOSS;
    return n;
}

static const char *const TNAME[] = {"input_ids", "attention_mask", "labels", "loss_mask", "lengths"};

/* "NAME" or, with batches, "NAME.K". */
static void tensor_name(char *out, size_t cap, const cal_rowset *s, int what, size_t k, const char *ext) {
    if (s->batch) snprintf(out, cap, "%s.%zu%s", TNAME[what], k, ext);
    else snprintf(out, cap, "%s%s", TNAME[what], ext);
}

static char *rows_json(const cal_rowset *s) {
    json_t *a = json_array();
    size_t i = 0;
    while (i < s->n) {
        size_t j = i;
        while (j < s->n && s->row[j].label == s->row[i].label && s->row[j].flags == s->row[i].flags) j++;
        /* Labels are UTF-8 (cal_label_check), so json_pack cannot fail on them. */
        json_t *run = json_pack("[s,I,I]", s->label[s->row[i].label], (json_int_t)s->row[i].flags,
                                (json_int_t)(j - i));
        if (!run || json_array_append_new(a, run)) cal_die("cannot encode the row label '%s' in JSON", s->label[s->row[i].label]);
        i = j;
    }
    char *out = json_dumps(a, JSON_COMPACT | JSON_ENCODE_ANY);
    json_decref(a);
    return out;
}

static void write_safetensors(cal_rowset *s, const char *path, const cal_meta *meta) {
    cal_st_writer *w = cal_st_writer_new();
    /* A stream whose metadata grew after its rows (a trailer: what was
     * dropped) keeps both, so that --import gives back the same bytes. */
    int trailer = s->first.n && !cal_meta_equal(&s->first, meta);
    cal_buf m = {0}, t = {0};
    cal_meta_serialize(trailer ? &s->first : meta, &m);
    cal_buf_addc(&m, 0);
    if (trailer) {
        cal_meta_serialize(meta, &t);
        cal_buf_addc(&t, 0);
    }
    char *rows = rows_json(s);
    cal_buf ids = {0};
    cal_buf_reserve(&ids, 16 * s->n + 1);
    for (size_t i = 0; i < s->n; i++) cal_buf_addf(&ids, "%016llx", (unsigned long long)s->row[i].id);
    cal_buf_addc(&ids, 0);
    cal_st_add_meta(w, "format", "pt");
    cal_st_add_meta(w, "calkit.stream", m.p);
    if (trailer) cal_st_add_meta(w, "calkit.trailer", t.p);
    cal_st_add_meta(w, "calkit.rows", rows);
    cal_st_add_meta(w, "calkit.ids", ids.p);
    char bs[32];
    if (s->batch) snprintf(bs, sizeof bs, "%llu", (unsigned long long)s->batch), cal_st_add_meta(w, "calkit.batch", bs);
    block *b;
    int what[5];
    size_t nb = blocks(s, &b), nt = tensors(s, what);
    for (size_t k = 0; k < nb; k++)
        for (size_t t = 0; t < nt; t++) {
            char name[64];
            tensor_name(name, sizeof name, s, what[t], k, "");
            uint64_t shape[2] = {b[k].r1 - b[k].r0, b[k].w};
            cal_st_add(w, name, "I64", what[t] == V_LENGTHS ? 1 : 2, shape, NULL);
        }
    cal_file *f = cal_file_create(path);
    cal_st_write_header(w, f);
    for (size_t k = 0; k < nb; k++)
        for (size_t t = 0; t < nt; t++) each_i64(s, &b[k], what[t], to_file, f);
    cal_file_commit(f);
    cal_st_writer_free(w);
    free(b);
    free(rows);
    cal_buf_free(&m);
    cal_buf_free(&t);
    cal_buf_free(&ids);
}

/* NAME.mask.npy for NAME.npy: where the attention mask of a .npy goes. */
static char *mask_path(const char *path) {
    size_t n = strlen(path) - 4;
    char *m = cal_xmalloc(n + 10);
    memcpy(m, path, n);
    memcpy(m + n, ".mask.npy", 10);
    return m;
}

/* PATH (ids) and, when some row is padded, NAME.mask.npy, committed together;
 * a stale NAME.mask.npy from an earlier export with padding is removed, so a
 * mask beside an .npy always belongs to it. Standard output takes no mask. */
static void write_npy(cal_rowset *s, const char *path) {
    if (s->batch) cal_die("%s: --batch needs .safetensors, .npz or .jsonl (an .npy holds one matrix)", path);
    cal_buf h = {0};
    block *b;
    blocks(s, &b);
    uint64_t shape[2] = {s->n, b->w};
    cal_npy_header_i64(&h, 2, shape);
    int to_stdout = !strcmp(path, "-");
    if (s->padded && to_stdout)
        cal_die("-: rows with padding need NAME.mask.npy beside NAME.npy; write to a file, or .npz/.safetensors");
    char *mp = to_stdout ? NULL : mask_path(path);
    cal_file *f[2] = {cal_file_create(path), s->padded ? cal_file_create(mp) : NULL};
    for (int m = 0; m < 1 + s->padded; m++) {
        cal_file_write(f[m], h.p, h.n);
        each_i64(s, b, m ? V_MASK : V_IDS, to_file, f[m]);
    }
    cal_file_commit_all(f, 1 + (size_t)s->padded);
    if (mp && !s->padded && unlink(mp) != 0 && errno != ENOENT) cal_die("%s: cannot remove: %s", mp, strerror(errno));
    free(mp);
    free(b);
    cal_buf_free(&h);
}

/* input_ids.npy and attention_mask.npy (all ones when unpadded), and the
 * other tensors, in a stored ZIP, as np.savez writes; CRCs come from a first
 * pass over the rows. */
static void write_npz(cal_rowset *s, const char *path) {
    block *b;
    int what[5];
    size_t nb = blocks(s, &b), nt = tensors(s, what);
    cal_file *f = cal_file_create(path);
    cal_zip z;
    cal_zip_begin(&z, f, path);
    for (size_t k = 0; k < nb; k++)
        for (size_t t = 0; t < nt; t++) {
            cal_buf h = {0};
            uint64_t shape[2] = {b[k].r1 - b[k].r0, b[k].w};
            int nd = what[t] == V_LENGTHS ? 1 : 2;
            cal_npy_header_i64(&h, nd, shape);
            uint64_t size = h.n + 8 * shape[0] * (nd == 2 ? shape[1] : 1);
            char name[64];
            tensor_name(name, sizeof name, s, what[t], k, ".npy");
            uint32_t crc = 0;
            to_crc(&crc, h.p, h.n);
            each_i64(s, &b[k], what[t], to_crc, &crc);
            cal_zip_member(&z, name, crc, size);
            cal_zip_write(&z, h.p, h.n);
            each_i64(s, &b[k], what[t], to_zip, &z);
            cal_buf_free(&h);
        }
    cal_zip_end(&z);
    cal_file_commit(f);
    free(b);
}

/* Appends the decimal form of x (fast path for the many ids of a row). */
static char *put_i64(char *o, int64_t x) {
    char tmp[24];
    int n = 0;
    uint64_t u = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
    do tmp[n++] = (char)('0' + u % 10); while (u /= 10);
    if (x < 0) *o++ = '-';
    while (n) *o++ = tmp[--n];
    return o;
}

/* One JSON object per row ({"input_ids": [...], "attention_mask": [...]},
 * with labels and loss_mask for role masks), each row its own length; with
 * a batch size one object per batch, lists of rows padded to the batch's
 * longest, as GPTQModel takes an example of several rows. */
static void write_jsonl(cal_rowset *s, const char *path) {
    cal_file *f = cal_file_create(path);
    block *b;
    size_t nb = blocks(s, &b);
    int what[4] = {V_IDS, V_MASK, V_LABELS, V_LOSS}, nw = s->roles ? 4 : 2;
    size_t cap = 1u << 16;
    char *buf = cal_xmalloc(cap);
    for (size_t k = 0; k < nb; k++) {
        size_t rows = b[k].r1 - b[k].r0;
        for (size_t i = s->batch ? 0 : b[k].r0; i < (s->batch ? 1 : b[k].r1); i++) {
            size_t r0 = s->batch ? b[k].r0 : i, r1 = s->batch ? b[k].r1 : i + 1;
            size_t need = 64 + 96 * (r1 - r0) + (size_t)(s->batch ? b[k].w : s->row[i].len) * (r1 - r0) * 44;
            if (need > cap) buf = cal_xrealloc(buf, cap = need);
            char *o = buf;
            *o++ = '{';
            for (int t = 0; t < nw; t++) {
                o += sprintf(o, "%s\"%s\":", t ? "," : "", TNAME[what[t]]);
                if (s->batch) *o++ = '[';
                for (size_t r = r0; r < r1; r++) {
                    const row_info *ri = &s->row[r];
                    uint32_t w = s->batch ? b[k].w : ri->len;
                    if (r > r0) *o++ = ',';
                    *o++ = '[';
                    for (uint32_t j = 0; j < w; j++) {
                        if (j) *o++ = ',';
                        o = put_i64(o, value_at(s, ri, j, what[t])); /* always: AutoGPTQ reads attention_mask */
                    }
                    *o++ = ']';
                }
                if (s->batch) *o++ = ']';
            }
            *o++ = '}';
            *o++ = '\n';
            cal_file_write(f, buf, (size_t)(o - buf));
        }
        (void)rows;
    }
    free(buf);
    free(b);
    cal_file_commit(f);
}

void cal_rowset_write(cal_rowset *s, const char *path, const cal_meta *meta) {
    if (s->n == 0) cal_die("%s: no ROW records to write", path);
    int64_t pad = cal_meta_get_int(meta, "pad");
    s->pad_id = pad >= 0 ? pad : cal_meta_get_int(meta, "eos") >= 0 ? cal_meta_get_int(meta, "eos") : 0;
    if (s->ragged && !s->batch && s->type != CAL_RF_JSONL) s->padded = 1; /* the right ends of the short rows */
    switch (s->type) {
    case CAL_RF_SAFETENSORS: write_safetensors(s, path, meta); break;
    case CAL_RF_NPY: write_npy(s, path); break;
    case CAL_RF_NPZ: write_npz(s, path); break;
    case CAL_RF_JSONL: write_jsonl(s, path); break;
    default: cal_die("%s: not a .safetensors, .npy, .npz or .jsonl name", path);
    }
}

void cal_rowset_free(cal_rowset *s) {
    if (!s) return;
    for (size_t i = 0; i < s->nlabel; i++) free(s->label[i]);
    free(s->label);
    free(s->row);
    cal_buf_free(&s->ids);
    cal_buf_free(&s->mask);
    cal_meta_free(&s->first);
    cal_buf_free(&s->role);
    free(s);
}

/* ---- import ------------------------------------------------------------- */

/* What calkit metadata says about each row (restore mode). */
typedef struct {
    int on;
    json_t *runs;
    size_t run, left; /* current run and rows left in it */
    const char *hex;
} restore_info;

typedef struct {
    const char *path;
    cal_writer *w;
    char *label;      /* default label: file base name */
    const char *mask_file; /* where the mask is when not in path (NAME.mask.npy) */
    restore_info rs;
    uint32_t *ids;
    uint8_t *mask, *role;
    size_t cap;
    const uint8_t *lens;   /* .safetensors lengths: int64 per row (rows padded to the longest), or NULL */
    const uint8_t *loss;   /* .safetensors loss_mask: int64 [rows, len] (the role masks), or NULL */
    int have_role;         /* the row being emitted has a role mask in role */
} importer;

static char *base_label(const char *path) {
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strcspn(b, ".");
    if (n == 0) n = strlen(b);
    if (n > CAL_MAX_LABEL) n = CAL_MAX_LABEL;
    char *l = cal_xmalloc(n + 1);
    for (size_t i = 0; i < n; i++) l[i] = (unsigned char)b[i] < 0x20 || b[i] == 0x7f ? '_' : b[i];
    l[n] = 0;
    return l;
}

static void reserve(importer *im, size_t len) {
    if (len <= im->cap) return;
    im->cap = len;
    im->ids = cal_xrealloc(im->ids, len * sizeof *im->ids + 1);
    im->mask = cal_xrealloc(im->mask, len + 1);
    im->role = cal_xrealloc(im->role, len + 1);
}

/* Emits row number `r` from im->ids/mask; noise and has_zero from the data. */
static void emit(importer *im, uint64_t r, uint32_t len, int noise, int has_zero, int have_mask) {
    const char *label = im->label;
    uint64_t id;
    int use_mask = has_zero, use_role = im->have_role;
    if (im->rs.on) {
        json_t *run = json_array_get(im->rs.runs, im->rs.run);
        while (im->rs.left == 0) {
            run = json_array_get(im->rs.runs, ++im->rs.run);
            im->rs.left = (size_t)json_integer_value(json_array_get(run, 2));
        }
        im->rs.left--;
        label = json_string_value(json_array_get(run, 0));
        uint32_t flags = (uint32_t)json_integer_value(json_array_get(run, 1));
        use_mask = (flags & CAL_ROW_MASK) != 0;
        use_role = im->have_role && (flags & CAL_ROW_ROLE);
        if (!use_mask && has_zero)
            cal_die_at(im->path, 8, "calkit.rows says row %llu has no mask, but attention_mask has a 0",
                       (unsigned long long)r);
        if (use_mask && !have_mask) memset(im->mask, 1, len);
        char h[17];
        memcpy(h, im->rs.hex + 16 * r, 16);
        h[16] = 0;
        id = strtoull(h, NULL, 16);
    } else {
        id = cal_hash(im->ids, 4 * (size_t)len);
    }
    cal_write_row_role(im->w, label, id, im->ids, use_mask ? im->mask : NULL, use_role ? im->role : NULL, len,
                       noise ? CAL_ROW_NOISE : 0);
}

static int64_t ld(const uint8_t *p, int es) {
    switch (es) {
    case 8: return (int64_t)cal_ld64(p);
    case 4: return (int64_t)(int32_t)cal_ld32(p);
    case 2: return (int64_t)(int16_t)(p[0] | p[1] << 8);
    default: return p[0];
    }
}

/* Rows of a dense matrix: ids (element size ies), optional mask (mes). */
static size_t import_matrix(importer *im, const uint8_t *ids, int ies, uint64_t ids_off,
                            const uint8_t *mask, int mes, uint64_t mask_off, uint64_t rows,
                            uint64_t len, const char *what) {
    if (len > (CAL_MAX_PAYLOAD - 8) / 5)
        cal_die_at(im->path, ids_off, "rows of %llu ids exceed the ROW limit", (unsigned long long)len);
    /* Rows of length 0 take no data bytes: a shape of 2^60 empty rows would
     * otherwise be written out row by row. No file holds more rows than bytes. */
    if (len == 0 && rows > ids_off)
        cal_die_at(im->path, ids_off, "%llu rows of length 0 (more rows than the file has bytes)", (unsigned long long)rows);
    reserve(im, (size_t)len);
    uint64_t width = len;
    for (uint64_t r = 0; r < rows; r++) {
        const uint8_t *p = ids + r * width * ies;
        len = width;
        if (im->lens) { /* rows padded to the longest: each its own length */
            int64_t l = (int64_t)cal_ld64(im->lens + 8 * r);
            if (l < 0 || (uint64_t)l > width)
                cal_die_at(im->path, 8, "lengths[%llu] = %lld is not a length of a row of %llu", (unsigned long long)r,
                           (long long)l, (unsigned long long)width);
            len = (uint64_t)l;
        }
        int noise = len > 0 && ld(p, ies) == -1;
        for (uint64_t j = 0; j < len; j++) {
            int64_t x = ld(p + j * ies, ies);
            if (noise && x != -1)
                cal_die_at(im->path, ids_off + (r * len + j) * ies,
                           "%s[%llu][%llu] = %lld in a row that starts with -1 (noise rows are all -1)",
                           what, (unsigned long long)r, (unsigned long long)j, (long long)x);
            if (!noise && (x < 0 || x > (int64_t)UINT32_MAX))
                cal_die_at(im->path, ids_off + (r * len + j) * ies,
                           "%s[%llu][%llu] = %lld is not a token id (0..4294967295, or -1 for noise rows)",
                           what, (unsigned long long)r, (unsigned long long)j, (long long)x);
            im->ids[j] = noise ? 0 : (uint32_t)x;
        }
        int has_zero = 0;
        if (mask)
            for (uint64_t j = 0; j < len; j++) {
                int64_t m = ld(mask + (r * width + j) * mes, mes);
                if (m != 0 && m != 1)
                    cal_die_at(im->mask_file ? im->mask_file : im->path, mask_off + (r * width + j) * mes,
                               "attention_mask[%llu][%llu] = %lld is not 0 or 1", (unsigned long long)r,
                               (unsigned long long)j, (long long)m);
                im->mask[j] = (uint8_t)m;
                has_zero |= m == 0;
            }
        if (im->loss)
            for (uint64_t j = 0; j < len; j++) {
                int64_t m = (int64_t)cal_ld64(im->loss + 8 * (r * width + j));
                if (m != 0 && m != 1)
                    cal_die_at(im->path, 8, "loss_mask[%llu][%llu] = %lld is not 0 or 1", (unsigned long long)r,
                               (unsigned long long)j, (long long)m);
                im->role[j] = (uint8_t)m;
            }
        im->have_role = im->loss != NULL;
        emit(im, r, (uint32_t)len, noise, has_zero, mask != NULL);
    }
    return (size_t)rows;
}

/* Validates calkit metadata against `rows`; fills im->rs and the stream
 * metadata. Returns 1 when restoring. */
static int restore_setup(importer *im, const cal_st_file *f, uint64_t rows) {
    const char *sm = cal_st_meta_get(f, "calkit.stream"), *rm = cal_st_meta_get(f, "calkit.rows"),
               *hx = cal_st_meta_get(f, "calkit.ids");
    if (!sm || !rm || !hx) return 0;
    char err[256];
    cal_meta meta = {0};
    if (!cal_meta_parse(sm, strlen(sm), &meta, err, sizeof err))
        cal_die_at(im->path, 8, "calkit.stream metadata: %s", err);
    if (strlen(hx) != 16 * rows || strspn(hx, "0123456789abcdef") != strlen(hx))
        cal_die_at(im->path, 8, "calkit.ids metadata is not 16 hex digits for each of %llu rows",
                   (unsigned long long)rows);
    json_error_t je;
    json_t *runs = json_loads(rm, 0, &je);
    uint64_t total = 0;
    int ok = json_is_array(runs);
    for (size_t i = 0; ok && i < json_array_size(runs); i++) {
        json_t *r = json_array_get(runs, i);
        json_t *l = json_array_get(r, 0), *fl = json_array_get(r, 1), *c = json_array_get(r, 2);
        ok = json_is_array(r) && json_array_size(r) == 3 && json_is_string(l) && json_is_integer(fl) &&
             json_is_integer(c) && json_integer_value(c) > 0 && json_integer_value(fl) >= 0 &&
             json_integer_value(fl) <= 7 && strlen(json_string_value(l)) == json_string_length(l) &&
             cal_label_check(json_string_value(l), json_string_length(l), err, sizeof err) == 0;
        if (ok && (uint64_t)json_integer_value(c) > rows - total) ok = 0; /* no wrap past rows */
        if (ok) total += (uint64_t)json_integer_value(c);
    }
    if (!ok || total != rows) {
        json_decref(runs);
        cal_die_at(im->path, 8, "calkit.rows metadata does not describe the %llu rows",
                   (unsigned long long)rows);
    }
    cal_meta_copy(cal_writer_meta(im->w), &meta);
    cal_meta_free(&meta);
    im->rs.on = 1;
    im->rs.runs = runs;
    im->rs.run = 0;
    im->rs.left = rows ? (size_t)json_integer_value(json_array_get(json_array_get(runs, 0), 2)) : 0;
    im->rs.hex = hx;
    return 1;
}

static int int_dtype(const char *d) {
    if (!strcmp(d, "I64")) return 8;
    if (!strcmp(d, "I32")) return 4;
    return 0;
}
static int mask_dtype(const char *d) {
    if (!strcmp(d, "I64") || !strcmp(d, "U64")) return 8;
    if (!strcmp(d, "I32") || !strcmp(d, "U32")) return 4;
    if (!strcmp(d, "I16") || !strcmp(d, "U16")) return 2;
    if (!strcmp(d, "BOOL") || !strcmp(d, "U8") || !strcmp(d, "I8")) return 1;
    return 0;
}

static size_t import_safetensors(importer *im, int argc, char **argv) {
    cal_st_file *f = cal_st_open(im->path);
    if (cal_st_meta_get(f, "calkit.batch"))
        cal_die_at(im->path, 8, "rows written in batches (cal-cat --batch) are not read back; export without --batch");
    const cal_st_tensor *t = cal_st_find(f, "input_ids");
    if (!t) cal_die_at(im->path, 8, "no tensor 'input_ids'%s", cal_st_hint(f, "input_ids"));
    int es = int_dtype(t->dtype);
    if (!es) cal_die_at(im->path, 8, "input_ids has dtype %s; want I64 or I32", t->dtype);
    if (t->ndim != 1 && t->ndim != 2)
        cal_die_at(im->path, 8, "input_ids has %d dimensions; want [rows, length] or [length]", t->ndim);
    uint64_t rows = t->ndim == 2 ? t->shape[0] : 1, len = t->ndim == 2 ? t->shape[1] : t->shape[0];
    const cal_st_tensor *m = cal_st_find(f, "attention_mask");
    int mes = 0;
    if (m) {
        mes = mask_dtype(m->dtype);
        if (!mes) cal_die_at(im->path, 8, "attention_mask has dtype %s; want an integer or BOOL type", m->dtype);
        if (m->numel != t->numel || m->ndim != t->ndim || m->shape[0] != t->shape[0])
            cal_die_at(im->path, 8, "attention_mask and input_ids differ in shape");
    }
    const cal_st_tensor *lt = cal_st_find(f, "lengths"), *lm = cal_st_find(f, "loss_mask");
    if (lt && (strcmp(lt->dtype, "I64") || lt->ndim != 1 || lt->shape[0] != rows))
        cal_die_at(im->path, 8, "lengths is not int64 [%llu]", (unsigned long long)rows);
    if (lm && (strcmp(lm->dtype, "I64") || lm->numel != t->numel || lm->ndim != t->ndim))
        cal_die_at(im->path, 8, "loss_mask is not int64 of input_ids' shape");
    im->lens = lt ? lt->data : NULL, im->loss = lm ? lm->data : NULL;
    if (!restore_setup(im, f, rows)) cal_meta_add_stage(cal_writer_meta(im->w), argc, argv, NULL);
    size_t n = import_matrix(im, t->data, es, t->offset, m ? m->data : NULL, mes, m ? m->offset : 0, rows,
                             len, "input_ids");
    const char *tm = im->rs.on ? cal_st_meta_get(f, "calkit.trailer") : NULL;
    if (tm) { /* the stream's later metadata: its trailer again */
        char err[256];
        cal_meta meta = {0};
        if (!cal_meta_parse(tm, strlen(tm), &meta, err, sizeof err))
            cal_die_at(im->path, 8, "calkit.trailer metadata: %s", err);
        cal_meta_copy(cal_writer_meta(im->w), &meta);
        cal_meta_free(&meta);
    }
    json_decref(im->rs.runs);
    cal_st_close(f);
    return n;
}

/* NAME.npy, with the mask from NAME.mask.npy when that file exists. */
static size_t import_npy(importer *im, int argc, char **argv) {
    cal_npy a, m;
    char err[512];
    if (!cal_npy_open(&a, im->path, err, sizeof err)) cal_die("%s", err);
    char *mp = mask_path(im->path);
    int have_mask = access(mp, F_OK) == 0;
    if (have_mask && !cal_npy_open(&m, mp, err, sizeof err)) cal_die("%s", err);
    if (have_mask && (m.ndim != a.ndim || m.shape[0] != a.shape[0] || m.shape[1] != a.shape[1]))
        cal_die_at(mp, m.data_offset, "shape differs from %s's", im->path);
    cal_meta_add_stage(cal_writer_meta(im->w), argc, argv, NULL);
    im->mask_file = mp;
    uint64_t rows = a.ndim == 2 ? a.shape[0] : 1, len = a.ndim == 2 ? a.shape[1] : a.shape[0];
    size_t n = import_matrix(im, a.data, a.elem, a.data_offset, have_mask ? m.data : NULL, have_mask ? m.elem : 0,
                             have_mask ? m.data_offset : 0, rows, len, "array");
    if (have_mask) cal_npy_close(&m);
    cal_npy_close(&a);
    free(mp);
    return n;
}

/* One JSON array of integers into im->ids or im->mask; returns its length. */
static size_t jsonl_array(importer *im, json_t *a, size_t line, const char *key, int is_mask,
                          int *noise, int *has_zero) {
    if (!json_is_array(a)) cal_die("%s: line %zu: \"%s\" is not a list of integers", im->path, line, key);
    size_t n = json_array_size(a);
    if (n > (CAL_MAX_PAYLOAD - 8) / 5) cal_die("%s: line %zu: row of %zu ids exceeds the ROW limit", im->path, line, n);
    reserve(im, n);
    for (size_t j = 0; j < n; j++) {
        json_t *v = json_array_get(a, j);
        if (!json_is_integer(v))
            cal_die("%s: line %zu: %s[%zu] is not an integer", im->path, line, key, j);
        long long x = json_integer_value(v);
        if (is_mask) {
            if (x != 0 && x != 1) cal_die("%s: line %zu: %s[%zu] = %lld is not 0 or 1", im->path, line, key, j, x);
            im->mask[j] = (uint8_t)x;
            *has_zero |= x == 0;
            continue;
        }
        if (j == 0) *noise = x == -1;
        if (*noise ? x != -1 : (x < 0 || x > (long long)UINT32_MAX))
            cal_die("%s: line %zu: %s[%zu] = %lld is not a token id (0..4294967295, or -1 for noise rows)",
                    im->path, line, key, j, x);
        im->ids[j] = *noise ? 0 : (uint32_t)x;
    }
    return n;
}

static size_t import_jsonl(importer *im, int argc, char **argv) {
    FILE *fp = fopen(im->path, "r");
    if (!fp) cal_die("%s: %s", im->path, strerror(errno));
    cal_meta_add_stage(cal_writer_meta(im->w), argc, argv, NULL);
    char *line = NULL;
    size_t cap = 0, lineno = 0, rows = 0;
    ssize_t k;
    while ((k = getline(&line, &cap, fp)) > 0) {
        lineno++;
        if (strspn(line, " \t\r\n") == (size_t)k) continue;
        json_error_t je;
        json_t *o = json_loadb(line, (size_t)k, JSON_REJECT_DUPLICATES, &je);
        if (!o) cal_die("%s: line %zu: bad JSON at column %d: %s", im->path, lineno, je.column, je.text);
        if (!json_is_object(o)) cal_die("%s: line %zu: not a JSON object", im->path, lineno);
        json_t *ids = json_object_get(o, "input_ids"), *mask = json_object_get(o, "attention_mask");
        if (!ids) cal_die("%s: line %zu: no \"input_ids\"", im->path, lineno);
        int noise = 0, has_zero = 0;
        size_t n = jsonl_array(im, ids, lineno, "input_ids", 0, &noise, &has_zero);
        if (mask && jsonl_array(im, mask, lineno, "attention_mask", 1, &noise, &has_zero) != n)
            cal_die("%s: line %zu: attention_mask and input_ids differ in length", im->path, lineno);
        emit(im, rows++, (uint32_t)n, noise, has_zero, mask != NULL);
        json_decref(o);
    }
    if (ferror(fp)) cal_die("%s: read error: %s", im->path, strerror(errno));
    free(line);
    fclose(fp);
    return rows;
}

size_t cal_rowfile_import(const char *path, cal_writer *w, int argc, char **argv) {
    importer im = {0};
    im.path = path;
    im.w = w;
    im.label = base_label(path);
    size_t n;
    switch (cal_rf_type_of(path)) {
    case CAL_RF_SAFETENSORS: n = import_safetensors(&im, argc, argv); break;
    case CAL_RF_NPY: n = import_npy(&im, argc, argv); break;
    case CAL_RF_JSONL: n = import_jsonl(&im, argc, argv); break;
    case CAL_RF_NPZ: cal_usage_error("--import %s: .npz is written, not read; import the .safetensors or .npy", path);
    default: cal_usage_error("--import %s: not a .safetensors, .npy or .jsonl name", path);
    }
    free(im.label);
    free(im.ids);
    free(im.mask);
    free(im.role);
    return n;
}
