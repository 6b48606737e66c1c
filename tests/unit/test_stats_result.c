/* test_stats_result.c - lib/stats/result.c: the result file's tensors and
 * metadata (plain names, LABEL.-prefixed names), scales undone exactly when
 * results are added, entries added by label, the imatrix entries made from
 * a result, and the rejection (exit 1, file, offset, tensor) of results
 * with negative counts, NaN or negative sums of squares. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/num.h"
#include "base/outfile.h"
#include "io/safetensors.h"
#include "stats/hessian.h"
#include "stats/imatrix.h"
#include "stats/result.h"
#include "scratch.h"
#include "test.h"

/* Statistics of the rows x[0..n) of width d, computed the plain way. */
static cal_hess_stats *stats(const double *x, size_t n, size_t d) {
    cal_hess_stats *s = cal_hess_stats_new(d);
    for (size_t r = 0; r < n; r++) {
        const double *v = x + r * d;
        for (size_t i = 0; i < d; i++) {
            for (size_t j = 0; j < d; j++) s->H[i * d + j] += v[i] * v[j];
            s->sum[i] += v[i];
            s->sumsq[i] += v[i] * v[i];
            s->abssum[i] += fabs(v[i]);
            if (fabs(v[i]) > s->absmax[i]) s->absmax[i] = fabs(v[i]);
        }
    }
    s->count = (double)n;
    return s;
}

static void write_result(cal_result *r, const char *name, const char *scale, int f64) {
    cal_result_form form = {scale, f64, 0, 0.01, NULL, 0};
    cal_file *f = cal_file_create(t_path(name));
    cal_result_write(r, &form, f);
    cal_file_commit(f);
}

static double f64_at(const cal_st_tensor *t, size_t i) {
    uint64_t u = cal_ld64(t->data + 8 * i);
    double v;
    memcpy(&v, &u, 8);
    return v;
}

static const double X[] = {1, 2, -3, 0.5, 4, -1, 2, 2, 0, 3, -2, 1}; /* 4 rows of 3 */

static void write_and_add(void) {
    cal_result r = {0};
    cal_meta_add(&r.meta, "source", "x");
    cal_result_counts c = {2, 5, 1, 0};
    cal_result_add(&r, "", stats(X, 4, 3), &c);
    write_result(&r, "plain.st", "mean", 1);
    cal_st_file *f = cal_st_open(t_path("plain.st"));
    const cal_st_tensor *H = cal_st_find(f, "hessian"), *tok = cal_st_find(f, "tokens"), *am = cal_st_find(f, "absmean");
    cal_hess_stats *want = stats(X, 4, 3);
    CHECK(H && H->ndim == 2 && H->shape[0] == 3 && !strcmp(H->dtype, "F64") && f64_at(H, 5) == want->H[5] / 4,
          "hessian [3, 3] F64, scaled by 1 / tokens");
    CHECK(tok && cal_ld64(tok->data) == 4 && cal_ld64(cal_st_find(f, "padding")->data) == 5 && am &&
              f64_at(am, 2) == want->abssum[2] / 4,
          "counts and absmean");
    CHECK(!strcmp(cal_st_meta_get(f, "hessian.scale"), "mean") && !strcmp(cal_st_meta_get(f, "hessian.scale_factor"), "0.25") &&
              !strcmp(cal_st_meta_get(f, "hessian.d"), "3") && !strcmp(cal_st_meta_get(f, "source"), "x"),
          "metadata: the input's and hessian.*");
    cal_st_close(f);
    cal_result_free(&r);

    /* labelled entries, f32, gptq scale; then add both files */
    cal_result l = {0};
    cal_result_counts c2 = {2, 0, 0, 0};
    cal_result_add(&l, "blk.0.a", stats(X, 2, 3), &c2);
    cal_result_add(&l, "", stats(X + 6, 2, 3), &c2);
    write_result(&l, "label.st", "gptq", 0);
    f = cal_st_open(t_path("label.st"));
    H = cal_st_find(f, "blk.0.a.hessian");
    CHECK(H && !strcmp(H->dtype, "F32") && cal_st_find(f, "blk.0.a.sumsq") && cal_st_find(f, "hessian") &&
              !strcmp(cal_st_meta_get(f, "blk.0.a.hessian.scale_factor"), "1"),
          "labelled tensors and metadata are LABEL.NAME");
    cal_result m = {0};
    cal_result_add_file(&m, f);
    cal_st_close(f);
    f = cal_st_open(t_path("plain.st"));
    cal_result_add_file(&m, f);
    cal_st_close(f);
    cal_result_entry *u = cal_result_find(&m, ""), *a = cal_result_find(&m, "blk.0.a");
    cal_hess_stats *wa = stats(X, 2, 3), *wb = stats(X + 6, 2, 3);
    int same = 1;
    for (size_t i = 0; i < 9; i++) {
        same &= fabs(u->s->H[i] - (want->H[i] + wb->H[i])) <= 1e-12 * fabs(want->H[i] + wb->H[i]);
        same &= fabs(a->s->H[i] - wa->H[i]) <= 1e-6 * fabs(wa->H[i]) + 1e-12;
    }
    CHECK(m.n == 2 && same, "added by label, scales (mean, gptq) undone");
    CHECK(u->s->count == 6 && u->c.rows == 4 && u->c.padding == 5 && u->s->sumsq[1] == want->sumsq[1] + wb->sumsq[1] &&
              u->s->absmax[0] == want->absmax[0] && u->s->absmax[0] == 3,
          "counts, sums and maxima add");

    cal_imatrix im = {0};
    char err[300] = "";
    CHECK(!cal_result_to_imatrix(&m, NULL, 0, &im, err, sizeof err) && strstr(err, "--imatrix-name"),
          "an unlabelled entry needs a name: %s", err);
    cal_imatrix_free(&im);
    CHECK(cal_result_to_imatrix(&m, "blk.0.b", 0, &im, err, sizeof err) && im.n == 2 && im.chunk_count == 4 &&
              im.e[1].counts[0] == 6 && im.e[1].in_sum2[1] == u->s->sumsq[1] && im.e[1].in_sum[2] == u->s->sum[2],
          "imatrix entries: sumsq, sum, tokens; chunks = most rows");
    cal_imatrix_free(&im);
    cal_hess_stats_free(want);
    cal_hess_stats_free(wa);
    cal_hess_stats_free(wb);
    cal_result_free(&m);
    cal_result_free(&l);
}

/* A result file whose tensor `name` has the value v (f64 or i64) at 0. */
static const char *corrupt_file;
static void add_corrupt(void *arg) {
    (void)arg;
    cal_result r = {0};
    cal_st_file *f = cal_st_open(corrupt_file);
    cal_result_add_file(&r, f);
}

static void corrupt(const char *what, const char *name, double v, const char *want) {
    cal_st_file *f = cal_st_open(t_path("plain.st"));
    const cal_st_tensor *t = cal_st_find(f, name);
    size_t off = (size_t)t->offset;
    int is_int = !strcmp(t->dtype, "I64");
    cal_st_close(f);
    FILE *fp = fopen(t_path("plain.st"), "rb");
    static char img[8192];
    size_t n = fread(img, 1, sizeof img, fp);
    fclose(fp);
    uint64_t u;
    if (is_int) {
        u = (uint64_t)(int64_t)v;
    } else {
        memcpy(&u, &v, 8);
    }
    cal_st64(img + off, u);
    fp = fopen(t_path("bad.st"), "wb");
    fwrite(img, 1, n, fp);
    fclose(fp);
    corrupt_file = t_path("bad.st");
    char msg[600];
    int st = t_child(add_corrupt, NULL, msg, sizeof msg);
    CHECK(st == 1 && strstr(msg, want), "%s: exit %d: %s", what, st, msg);
}

static void rejections(void) {
    corrupt("negative tokens", "tokens", -5, "bad.st: byte");
    corrupt("negative tokens names the tensor", "tokens", -5, "tensor 'tokens' is negative (-5)");
    corrupt("negative rows", "rows", -1, "tensor 'rows' is negative");
    corrupt("negative skipped", "skipped", -1, "tensor 'skipped' is negative");
    corrupt("NaN in the hessian", "hessian", NAN, "tensor 'hessian' value 0 is not finite");
    corrupt("Inf in sum", "sum", INFINITY, "tensor 'sum' value 0 is not finite");
    corrupt("negative sumsq", "sumsq", -2, "tensor 'sumsq' value 0 is negative");
    corrupt("negative absmax", "absmax", -2, "tensor 'absmax' value 0 is negative");
}

int main(void) {
    if (!mkdtemp(t_dir)) return 1;
    write_and_add();
    rejections();
    for (const char *const *n = (const char *const[]){"plain.st", "label.st", "bad.st", NULL}; *n; n++) unlink(t_path(*n));
    rmdir(t_dir);
    TEST_END();
}
