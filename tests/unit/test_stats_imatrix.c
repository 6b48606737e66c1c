/* test_stats_imatrix.c - lib/stats/imatrix.c: adding entries (sums and
 * counts add, in_sum kept only when every input has it, a single count
 * copied to each expert as llama-imatrix does), the GGUF it writes (keys,
 * names in byte order, 1-D dense and 2-D expert shapes, chunk size), reading
 * that file back, and the rejection of files no writer makes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/num.h"
#include "io/gguf.h"
#include "stats/imatrix.h"
#include "test.h"

static float f32(const cal_gguf_tensor *t, size_t i) {
    uint32_t u = cal_ld32(t->data + 4 * i);
    float v;
    memcpy(&v, &u, 4);
    return v;
}

/* The imatrix m as a parsed GGUF (image kept in *img). */
static cal_gguf_file *as_gguf(const cal_imatrix *m, cal_buf *img) {
    char err[512] = "";
    img->n = 0;
    cal_imatrix_serialize(m, img);
    cal_gguf_file *f = cal_gguf_open_mem(img->p, img->n, "m.gguf", err, sizeof err);
    if (!f) printf("# %s\n", err);
    return f;
}

static void adding(void) {
    cal_imatrix m = {0};
    char err[300] = "";
    double a2[3] = {1, 2, 3}, a1[3] = {-1, 0, 1}, b2[3] = {10, 20, 30}, b1[3] = {5, 5, 5};
    uint64_t ca = 4, cb = 6;
    CHECK(cal_imatrix_add(&m, "blk.1.w", 3, 1, a2, a1, &ca, err, sizeof err) &&
              cal_imatrix_add(&m, "blk.1.w", 3, 1, b2, b1, &cb, err, sizeof err),
          "dense entry added twice");
    cal_imatrix_entry *e = &m.e[0];
    CHECK(m.n == 1 && e->in_sum2[2] == 33 && e->in_sum[0] == 4 && e->counts[0] == 10, "sums and counts add");
    CHECK(cal_imatrix_add(&m, "blk.1.w", 3, 1, a2, NULL, &ca, err, sizeof err) && !m.e[0].in_sum && m.e[0].counts[0] == 14,
          "an input without in_sum drops it");
    CHECK(!cal_imatrix_add(&m, "blk.1.w", 4, 1, b2, NULL, &ca, err, sizeof err) && strstr(err, "blk.1.w"),
          "another d is an error: %s", err);

    /* experts: 2 matrices of d = 2; an older entry of 4 values and one count */
    double x2[4] = {1, 1, 2, 2}, y2[4] = {1, 2, 3, 4};
    uint64_t one = 5, two[2] = {1, 2};
    CHECK(cal_imatrix_add(&m, "blk.0.exps", 4, 1, x2, NULL, &one, err, sizeof err) &&
              cal_imatrix_add(&m, "blk.0.exps", 2, 2, y2, NULL, two, err, sizeof err),
          "one count, then per-expert counts");
    e = &m.e[1];
    CHECK(e->d == 2 && e->nmat == 2 && e->counts[0] == 6 && e->counts[1] == 7 && e->in_sum2[3] == 6,
          "the single count is copied to each expert, then added");
    CHECK(cal_imatrix_add(&m, "blk.0.exps", 4, 1, x2, NULL, &one, err, sizeof err) && e->counts[0] == 11 &&
              e->counts[1] == 12,
          "and a later single count too");
    CHECK(!cal_imatrix_add(&m, "blk.0.exps", 1, 4, x2, NULL, two, err, sizeof err), "4 experts of 1 vs 2 of 2: error");

    cal_imatrix_add_dataset(&m, "a.cal");
    m.chunk_count = 3;
    cal_buf img = {0};
    cal_gguf_file *f = as_gguf(&m, &img);
    CHECK(f != NULL, "serialized imatrix opens");
    if (!f) return;
    const char *order[] = {"blk.0.exps.in_sum2", "blk.0.exps.counts", "blk.1.w.in_sum2", "blk.1.w.counts"};
    int ok = cal_gguf_ntensors(f) == 4;
    for (int i = 0; ok && i < 4; i++) ok = !strcmp(cal_gguf_tensor_at(f, i)->name, order[i]);
    CHECK(ok, "tensors: names in byte order, in_sum2 then counts (no in_sum where dropped)");
    const cal_gguf_tensor *t = cal_gguf_find_tensor(f, "blk.0.exps.in_sum2"), *c = cal_gguf_find_tensor(f, "blk.0.exps.counts");
    CHECK(t->ndim == 2 && t->ne[0] == 2 && t->ne[1] == 2 && c->ndim == 2 && c->ne[0] == 1 && c->ne[1] == 2 &&
              f32(c, 1) == 12 && f32(t, 3) == 8,
          "experts: in_sum2 [2, 2], counts [1, 2]");
    t = cal_gguf_find_tensor(f, "blk.1.w.in_sum2");
    c = cal_gguf_find_tensor(f, "blk.1.w.counts");
    CHECK(t->ndim == 1 && t->ne[0] == 3 && c->ndim == 1 && c->ne[0] == 1 && f32(t, 2) == 36 && f32(c, 0) == 14,
          "dense: in_sum2 [3], counts [1]");
    const char *keys[] = {"general.type", "imatrix.datasets", "imatrix.chunk_count", "imatrix.chunk_size"};
    ok = cal_gguf_nkv(f) == 4;
    for (int i = 0; ok && i < 4; i++) ok = !strcmp(cal_gguf_kv_at(f, i)->key, keys[i]);
    CHECK(ok && cal_ld32(cal_gguf_kv_at(f, 2)->val) == 3 && cal_ld32(cal_gguf_kv_at(f, 3)->val) == 14 / 3,
          "keys in llama-imatrix's order; chunk_size = largest count / chunks");

    /* reading it back adds the same values, datasets and chunks */
    cal_imatrix r = {0};
    err[0] = 0;
    CHECK(cal_imatrix_add_gguf(&r, f, err, sizeof err) && cal_imatrix_add_gguf(&r, f, err, sizeof err), "read back twice: %s", err);
    CHECK(r.n == 2 && r.ndatasets == 2 && !strcmp(r.datasets[1], "a.cal") && r.chunk_count == 6 &&
              r.e[0].counts[1] == 24 && r.e[1].in_sum2[2] == 72 && r.e[1].in_sum == NULL,
          "read back: values doubled, datasets and chunks appended");
    cal_imatrix_free(&r);
    cal_gguf_close(f);
    cal_imatrix_free(&m);
    cal_buf_free(&img);
}

/* A one-entry imatrix whose tensor `which` has value v at index 0. */
static void bad_value(const char *what, int which, float v, const char *want) {
    cal_imatrix m = {0};
    double s2[2] = {1, 2}, s1[2] = {1, 1};
    uint64_t c = 3;
    char err[512] = "";
    cal_imatrix_add(&m, "w", 2, 1, s2, s1, &c, err, sizeof err);
    cal_buf img = {0};
    cal_gguf_file *f = as_gguf(&m, &img);
    const char *names[] = {"w.in_sum2", "w.counts", "w.in_sum"};
    const cal_gguf_tensor *t = cal_gguf_find_tensor(f, names[which]);
    uint32_t u;
    memcpy(&u, &v, 4);
    cal_st32(img.p + t->pos, u);
    cal_imatrix r = {0};
    CHECK(!cal_imatrix_add_gguf(&r, f, err, sizeof err) && strstr(err, want), "%s: %s", what, err);
    cal_imatrix_free(&r);
    cal_imatrix_free(&m);
    cal_gguf_close(f);
    cal_buf_free(&img);
}

/* A GGUF of hand-made tensors (each F32 [ne0, ne1] of zeros unless typed). */
static void bad_file(const char *what, const char *gtype, const char *const *names, const int64_t (*ne)[2], int n,
                     int type, const char *want) {
    cal_gguf_writer *w = cal_gguf_writer_new();
    if (gtype) cal_gguf_add_str(w, "general.type", gtype);
    static const float zero[64];
    for (int i = 0; i < n; i++) cal_gguf_add_tensor(w, names[i], i == 0 ? type : CAL_GGML_F32, 2, ne[i], zero);
    cal_buf img = {0};
    cal_gguf_serialize(w, &img);
    cal_gguf_writer_free(w);
    char err[512] = "";
    cal_gguf_file *f = cal_gguf_open_mem(img.p, img.n, "x.gguf", err, sizeof err);
    cal_imatrix r = {0};
    CHECK(f && !cal_imatrix_add_gguf(&r, f, err, sizeof err) && strstr(err, want), "%s: %s", what, err);
    cal_imatrix_free(&r);
    cal_gguf_close(f);
    cal_buf_free(&img);
}

static void rejections(void) {
    bad_value("NaN in in_sum2", 0, NAN, "byte 320: tensor 'w.in_sum2' value 0 (nan) is not finite");
    bad_value("negative in_sum2", 0, -1, "value 0 (-1) is negative");
    bad_value("negative count", 1, -3, "tensor 'w.counts' value 0 (-3) is negative");
    bad_value("fractional count", 1, 2.5f, "is not a whole number");
    bad_value("Inf count", 1, INFINITY, "is not finite");
    bad_value("huge count", 1, 1e30f, "is over 2^53");
    bad_value("NaN in in_sum", 2, NAN, "tensor 'w.in_sum' value 0 (nan) is not finite");
    const char *pair[] = {"w.in_sum2", "w.counts"}, *lone[] = {"w.counts"}, *odd[] = {"w.in_sum2", "w.counts"};
    const int64_t ne2[][2] = {{4, 1}, {1, 1}}, ne1[][2] = {{1, 1}}, ne3[][2] = {{3, 1}, {1, 2}};
    bad_file("general.type model", "model", pair, ne2, 2, CAL_GGML_F32, "general.type is not \"imatrix\"");
    bad_file("counts without in_sum2", NULL, lone, ne1, 1, CAL_GGML_F32, "'w.counts' has no partner 'w.in_sum2'");
    bad_file("in_sum2 without counts", NULL, pair, ne2, 1, CAL_GGML_F32, "'w.in_sum2' has no partner 'w.counts'");
    bad_file("f16 in_sum2", "imatrix", pair, ne2, 2, CAL_GGML_F16, "is f16, not f32");
    bad_file("3 values for 2 counts", NULL, odd, ne3, 2, CAL_GGML_F32, "has 3 values for 2 counts");
    const char *none[] = {"w.weight"};
    bad_file("no imatrix tensors", NULL, none, ne1, 1, CAL_GGML_F32, "no imatrix tensors");
}

int main(void) {
    adding();
    rejections();
    TEST_END();
}
