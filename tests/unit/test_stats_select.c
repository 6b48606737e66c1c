/* test_stats_select.c - cal-select's mechanisms on small exact cases:
 * features (terms, case, empty documents, seeds, embedding ids), fmat's
 * distances, k-means++ / Lloyd / nearest rows, k-center, greedy MMD, the
 * order by id, the seeded choice, the select.* metadata and the capped
 * allocation. test_select.sh checks them against scikit-learn and numpy. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/num.h"
#include "base/par.h"
#include "rows/alloc.h"
#include "stats/features.h"
#include "stats/fmat.h"
#include "stats/kcenter.h"
#include "stats/kmeans.h"
#include "stats/like.h"
#include "stats/select.h"
#include "test.h"

static cal_rec text(const char *s) {
    cal_rec r;
    memset(&r, 0, sizeof r);
    r.kind = CAL_TEXT, r.payload = (const uint8_t *)s, r.payload_len = strlen(s);
    return r;
}

static cal_rec tokens(const uint8_t *le, size_t n) {
    cal_rec r;
    memset(&r, 0, sizeof r);
    r.kind = CAL_TOKENS, r.payload = le, r.payload_len = 4 * n;
    return r;
}

static double norm(const float *v, size_t d) {
    double s = 0;
    for (size_t j = 0; j < d; j++) s += (double)v[j] * v[j];
    return sqrt(s);
}

static void features(void) {
    const char *docs[] = {"Hello, HELLO world", "hello hello WORLD!", "... !! ?", "", "caf\xc3\xa9 au lait", "42 x"};
    char err[256];
    cal_feat *f = cal_feat_tfidf(16, 0);
    long terms[6];
    for (int i = 0; i < 6; i++) {
        cal_rec r = text(docs[i]);
        terms[i] = cal_feat_count(f, &r, err, sizeof err);
    }
    CHECK(terms[0] == 3 && terms[1] == 3 && terms[2] == 0 && terms[3] == 0 && terms[4] == 3 && terms[5] == 2,
          "words: runs of letters, digits and bytes >= 0x80 (3 3 0 0 3 2 terms)");
    CHECK(cal_feat_docs(f) == 4, "documents with terms: 4");
    cal_feat_finish(f);
    float v[6][16];
    int ok[6];
    for (int i = 0; i < 6; i++) {
        cal_rec r = text(docs[i]);
        ok[i] = cal_feat_row(f, &r, v[i]);
    }
    CHECK(ok[0] && ok[1] && !ok[2] && !ok[3] && ok[4], "features for documents with terms only");
    CHECK(!memcmp(v[0], v[1], sizeof v[0]), "case and punctuation do not change the features");
    CHECK(fabs(norm(v[0], 16) - 1) < 1e-6 && fabs(norm(v[4], 16) - 1) < 1e-6, "unit length");
    CHECK(norm(v[2], 16) == 0, "no features: a zero row");
    cal_feat_free(f);
    /* Another seed, another projection; the same seed, the same. */
    float w[2][16];
    for (int s = 0; s < 2; s++) {
        cal_feat *g = cal_feat_tfidf(16, (uint64_t)s * 5);
        for (int i = 0; i < 6; i++) {
            cal_rec r = text(docs[i]);
            cal_feat_count(g, &r, err, sizeof err);
        }
        cal_feat_finish(g);
        cal_rec r = text(docs[0]);
        cal_feat_row(g, &r, w[s]);
        cal_feat_free(g);
    }
    CHECK(!memcmp(w[0], v[0], sizeof w[0]) && memcmp(w[1], v[0], sizeof w[1]), "the seed decides the projection");
    /* TOKENS: an empty record has no terms. */
    uint8_t le[12];
    for (int i = 0; i < 3; i++) cal_st32(le + 4 * i, (uint32_t)(7 * i));
    cal_feat *t = cal_feat_tfidf(4, 0);
    cal_rec a = tokens(le, 3), e = tokens(le, 0);
    CHECK(cal_feat_count(t, &a, err, sizeof err) == 3 && cal_feat_count(t, &e, err, sizeof err) == 0, "TOKENS: one term per id");
    cal_feat_finish(t);
    float x[4];
    CHECK(cal_feat_row(t, &a, x) && fabs(norm(x, 4) - 1) < 1e-6 && !cal_feat_row(t, &e, x), "TOKENS features; none for an empty record");
    cal_feat_free(t);
}

/* Points: two groups on a line and a plane. */
static const float P[] = {0, 0, 0.1f, 0, 0, 0.2f, 5, 5, 5.1f, 5, 5, 5.3f, 9, 0};

static void distances_and_kmeans(cal_par *p) {
    cal_fmat X;
    cal_fmat_init(&X, P, 7, 2);
    double c[4] = {0, 0, 5, 5}, cn[2] = {0, 50}, xd[14], out[14];
    cal_fmat_dist2(&X, 0, 7, c, cn, 2, xd, out);
    int ok = 1;
    for (int i = 0; i < 7; i++)
        for (int j = 0; j < 2; j++) {
            double dx = P[2 * i] - c[2 * j], dy = P[2 * i + 1] - c[2 * j + 1];
            ok &= fabs(out[2 * i + j] - (dx * dx + dy * dy)) < 1e-9;
        }
    CHECK(ok, "fmat: squared distances of 7 points to 2");
    size_t centers[3];
    char err[200];
    cal_rng r;
    cal_rng_init(&r, 1);
    CHECK(!cal_kmeans_pp(&X, 3, &r, p, centers, err, sizeof err), "k-means++: 3 centres");
    int g[3] = {0, 0, 0};
    for (int j = 0; j < 3; j++) g[centers[j] < 3 ? 0 : centers[j] < 6 ? 1 : 2]++;
    CHECK(g[0] == 1 && g[1] == 1 && g[2] == 1, "k-means++: one centre in each group (%zu %zu %zu)", centers[0], centers[1], centers[2]);
    cal_kmeans km;
    cal_kmeans_init(&km, 7, 2, 3, 100);
    double cn3[3];
    cal_fmat_points(&X, centers, 3, km.c, cn3);
    cal_kmeans_lloyd(&X, &km, p);
    uint64_t size[3], want[3] = {1, 1, 1};
    cal_kmeans_sizes(&km, 7, size);
    CHECK(km.converged && km.label[0] == km.label[1] && km.label[1] == km.label[2] && km.label[3] == km.label[4] &&
              km.label[4] == km.label[5] && km.label[6] != km.label[0] && km.label[6] != km.label[3],
          "Lloyd: the three groups (%zu iterations)", km.iter);
    size_t near[3];
    size_t got = cal_kmeans_nearest(&km, 7, want, near);
    /* Group 1's centroid is (0.033, 0.067): row 0 is nearest; group 2's (5.033, 5.1): row 3. */
    int has0 = 0, has3 = 0, has6 = 0;
    for (size_t i = 0; i < got; i++) has0 |= near[i] == 0, has3 |= near[i] == 3, has6 |= near[i] == 6;
    CHECK(got == 3 && has0 && has3 && has6, "nearest: the row nearest each centroid");
    cal_kmeans_free(&km);
    /* Fewer distinct points than clusters. */
    static const float same[] = {1, 1, 1, 1, 1, 1};
    cal_fmat S;
    cal_fmat_init(&S, same, 3, 2);
    cal_rng_init(&r, 0);
    CHECK(cal_kmeans_pp(&S, 2, &r, p, centers, err, sizeof err) == -1 && strstr(err, "only 1 distinct"), "k-means++: %s", err);
    cal_fmat_free(&S);
    /* k-center: from any first centre, the second is the farthest point. */
    uint32_t owner[7];
    double d2[7];
    cal_rng_init(&r, 3);
    cal_kcenter(&X, 3, &r, p, centers, owner, d2);
    int distinct = centers[0] != centers[1] && centers[1] != centers[2] && centers[0] != centers[2];
    CHECK(distinct && owner[centers[0]] == 0 && owner[centers[1]] == 1 && owner[centers[2]] == 2 && d2[centers[2]] == 0,
          "k-center: three distinct centres, each its own owner");
    size_t all7[7];
    cal_kcenter(&X, 7, &r, p, all7, owner, d2);
    uint8_t seen[7] = {0};
    for (int i = 0; i < 7; i++) seen[all7[i]] = 1;
    CHECK(memchr(seen, 0, 7) == NULL, "k-center with k = n: every row once");
    /* Greedy MMD: a target in group 2 takes group 2 first. */
    static const float tg[] = {5, 5.1f, 5.05f, 5.2f};
    cal_fmat T;
    cal_fmat_init(&T, tg, 2, 2);
    size_t ch[3];
    cal_like_info li;
    cal_like(&X, &T, 3, p, ch, &li);
    /* (the third pick may be elsewhere: with the target's narrow kernel a row
     * beside a chosen one adds more discrepancy than a far one) */
    CHECK(ch[0] == 3 && ch[1] == 5 && ch[2] != 3 && ch[2] != 5,
          "like: a target in the second group takes the rows nearest it first (%zu %zu %zu)", ch[0], ch[1], ch[2]);
    CHECK(fabs(li.h - (0.05 * 0.05 + 0.1 * 0.1)) < 1e-6, "like: the bandwidth of two target rows is their d2");
    CHECK(li.mmd2 + li.mmd2_tt > -1e-12, "like: MMD^2 >= 0");
    cal_fmat_free(&T);
    cal_fmat_free(&X);
}

static void select_parts(void) {
    uint64_t ids[] = {9, 3, 9, 1};
    size_t order[4];
    cal_select_order(ids, 4, order);
    CHECK(order[0] == 3 && order[1] == 1 && order[2] == 0 && order[3] == 2, "order: by id, then position");
    size_t pick[50];
    cal_select_random(50, 50, 7, pick);
    uint8_t seen[50] = {0};
    for (int i = 0; i < 50; i++) seen[pick[i]]++;
    int perm = 1;
    for (int i = 0; i < 50; i++) perm &= seen[i] == 1;
    CHECK(perm, "random: k = n is a permutation");
    cal_meta m = {0};
    cal_meta_set(&m, "tokenizer", "t");
    cal_meta_set(&m, "select.cluster.9", "old");
    cal_meta_set(&m, "selection", "kept");
    uint64_t cid[] = {0xab, 0xcd, 0xef}, sz[] = {5, 7};
    uint32_t cl[] = {1, 0, 1};
    cal_select_record sr = {"kmeans", 12, 3, cid, cl, 2, sz, 0};
    CHECK(cal_select_meta(&m, &sr) == 0, "meta: no ids left out");
    CHECK(!cal_meta_get(&m, "select.cluster.9") && !strcmp(cal_meta_get(&m, "selection"), "kept"),
          "meta: old select.* keys go, other keys stay");
    const char *c0 = cal_meta_get(&m, "select.cluster.0"), *c1 = cal_meta_get(&m, "select.cluster.1");
    CHECK(c0 && c1 && !strcmp(c0, "5 1 00000000000000cd") && !strcmp(c1, "7 2 00000000000000ab 00000000000000ef"),
          "meta: select.cluster.J = SIZE CHOSEN IDS (%s | %s)", c0, c1);
    CHECK(!strcmp(cal_meta_get(&m, "select.method"), "kmeans") && !strcmp(cal_meta_get(&m, "select.documents"), "12") &&
              !strcmp(cal_meta_get(&m, "select.chosen"), "3") && !strcmp(cal_meta_get(&m, "select.clusters"), "2"),
          "meta: method, documents, chosen, clusters");
    sr.max_ids = 2;
    CHECK(cal_select_meta(&m, &sr) == 2 && !strcmp(cal_meta_get(&m, "select.cluster.1"), "7 2"),
          "meta: past max_ids a cluster's ids are left out and counted");
    /* A cluster that does not fit is left out whole; a later one that fits is listed. */
    uint64_t sz3[] = {4, 6, 2}, cid3[] = {1, 2, 3, 4, 5};
    uint32_t cl3[] = {1, 0, 1, 2, 1};
    cal_select_record s3 = {"kmeans", 12, 5, cid3, cl3, 3, sz3, 2};
    CHECK(cal_select_meta(&m, &s3) == 3 && !strcmp(cal_meta_get(&m, "select.cluster.0"), "4 1 0000000000000002") &&
              !strcmp(cal_meta_get(&m, "select.cluster.1"), "6 3") &&
              !strcmp(cal_meta_get(&m, "select.cluster.2"), "2 1 0000000000000004"),
          "meta: the list that would pass max_ids is left out, a later one that fits is listed");
    cal_meta_free(&m);
    /* capped allocation */
    double w[] = {10, 1, 1};
    uint64_t cap[] = {10, 1, 1}, out[3];
    cal_alloc_capped(12, w, cap, 3, out);
    CHECK(out[0] == 10 && out[1] == 1 && out[2] == 1, "capped: every part full");
    double we[] = {1, 1, 1};
    cal_alloc_capped(9, we, cap, 3, out);
    CHECK(out[0] == 7 && out[1] == 1 && out[2] == 1, "capped, equal: small clusters give all they have, the rest goes on");
    double wz[] = {3, 0, 0};
    uint64_t capz[] = {2, 4, 4};
    cal_alloc_capped(5, wz, capz, 3, out);
    CHECK(out[0] == 2 && out[1] == 2 && out[2] == 1, "capped: weight-0 parts take what the others cannot (%llu %llu %llu)",
          (unsigned long long)out[0], (unsigned long long)out[1], (unsigned long long)out[2]);
}

int main(void) {
    features();
    for (unsigned th = 1; th <= 3; th += 2) {
        cal_par *p = cal_par_new(th);
        distances_and_kmeans(p);
        cal_par_free(p);
    }
    select_parts();
    TEST_END();
}
