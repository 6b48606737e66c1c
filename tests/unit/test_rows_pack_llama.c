/* test_rows_pack_llama.c - cal-pack --mode llama (lib/rows/pack.c) against
 * llama-imatrix's cutting (tools/imatrix/imatrix.cpp compute_imatrix at
 * llama.cpp 80fb11a) written anew below: for every row length 1..5, every
 * token count 0..26, every skip 0..3, with and without a BOS id, with the
 * first token BOS or not, the text in one document or cut in three, and
 * -n absent, 1, or 3 with --allow-short: the same rows, the same refusals,
 * the replaced first tokens counted. (make check-llama compares with
 * llama-imatrix itself.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "rows/pack.h"
#include "test.h"

#define BOS 9000u

static cal_buf got;

static void keep(void *ctx, const cal_row_out *r) {
    (void)ctx;
    for (uint32_t i = 0; i < r->len; i++) cal_buf_addf(&got, "%s%u", i ? " " : (got.n ? "|" : ""), r->ids[i]);
}

/* llama-imatrix: tokens = tokenize(text, add_special) (BOS first when the
 * vocabulary adds one); with --chunk K it refuses (K+2)*n_ctx >= size, then
 * erases K*n_ctx tokens; it refuses fewer than 2*n_ctx; n_chunk =
 * min(--chunks, size / n_ctx); each chunk's first token becomes BOS. Writes
 * the rows into want (or "ERR") and the number of first tokens replaced. */
static void model(const uint32_t *t, size_t n, int bos, uint32_t len, uint64_t skip, int have_n, uint64_t rows,
                  cal_buf *want, uint64_t *replaced) {
    uint32_t tok[64];
    size_t m = 0;
    if (bos && (n == 0 || t[0] != BOS)) tok[m++] = BOS;
    memcpy(tok + m, t, n * 4);
    m += n;
    want->n = 0;
    *replaced = 0;
    if ((skip > 0 && (skip + 2) * len >= m) || m - (skip > 0 ? skip * len : 0) < 2 * (size_t)len) {
        cal_buf_addf(want, "ERR");
        return;
    }
    size_t start = skip * len, nchunk = (m - start) / len;
    if (have_n && rows < nchunk) nchunk = rows;
    for (size_t c = 0; c < nchunk; c++) {
        const uint32_t *ch = tok + start + c * len;
        if (bos && ch[0] != BOS) ++*replaced;
        for (uint32_t i = 0; i < len; i++) cal_buf_addf(want, "%s%u", i ? " " : (c ? "|" : ""), i == 0 && bos ? BOS : ch[i]);
    }
}

int main(void) {
    uint32_t text[32];
    cal_buf want = {0};
    char err[512];
    size_t cases = 0, bad = 0, badcount = 0, okerr = 0;
    for (uint32_t len = 1; len <= 5; len++)
        for (size_t n = 0; n <= 26; n++)
            for (uint64_t skip = 0; skip <= 3; skip++)
                for (int bos = 0; bos <= 1; bos++)
                    for (int first_bos = 0; first_bos <= 1; first_bos++)
                        for (int split = 0; split <= 1; split++)
                            for (int nmode = 0; nmode <= 2; nmode++) {
                                if (first_bos && n == 0) continue;
                                for (size_t i = 0; i < n; i++) text[i] = 100 + (uint32_t)i;
                                if (first_bos) text[0] = BOS;
                                cal_pack_opts o;
                                cal_pack_opts_init(&o);
                                o.len = len, o.mode = CAL_PACK_LLAMA, o.skip = skip;
                                o.bos_id = bos ? (int64_t)BOS : -1;
                                if (nmode) o.have_n = 1, o.n = nmode == 1 ? 1 : 3, o.allow_short = nmode == 2;
                                if (cal_pack_check(&o, err, sizeof err) || cal_pack_check_ids(&o, err, sizeof err)) {
                                    bad++;
                                    continue;
                                }
                                got.n = 0;
                                cal_packer *p = cal_packer_new(&o, keep, NULL);
                                /* one document, or cut in three (sizes n/3, n/3, rest) */
                                size_t cut[4] = {0, split ? n / 3 : n, split ? 2 * (n / 3) : n, n};
                                for (int d = 0; d < 3 && cal_packer_wants(p); d++)
                                    if (d == 0 || split) cal_packer_add(p, text + cut[d], cut[d + 1] - cut[d],
                                                                        (uint64_t)d, "t", 1);
                                int rc = cal_packer_finish(p, err, sizeof err);
                                uint64_t replaced = 0;
                                const cal_drops *dr = &cal_packer_stats(p)->drops;
                                for (size_t i = 0; i < dr->n; i++)
                                    if (strstr(dr->v[i].why, "replaced by BOS")) replaced = dr->v[i].tokens;
                                cal_packer_free(p);
                                if (rc) {
                                    got.n = 0;
                                    cal_buf_addf(&got, "ERR");
                                    okerr++;
                                }
                                cal_buf_addc(&got, 0);
                                uint64_t wrep;
                                model(text, n, bos, len, skip, nmode != 0, o.n, &want, &wrep);
                                cal_buf_addc(&want, 0);
                                /* -n 1 without --allow-short: fewer rows than asked is an error */
                                cases++;
                                if (strcmp(got.p, want.p)) {
                                    if (++bad <= 3)
                                        printf("# L=%u n=%zu skip=%llu bos=%d first=%d split=%d nmode=%d: got '%s' want '%s'\n",
                                               len, n, (unsigned long long)skip, bos, first_bos, split, nmode, got.p, want.p);
                                } else if (!rc && replaced != wrep) {
                                    if (++badcount <= 3) printf("# replaced %llu, want %llu\n", (unsigned long long)replaced,
                                                                 (unsigned long long)wrep);
                                }
                            }
    CHECK(bad == 0 && cases > 5000, "llama chunks: %zu cases, %zu differ from llama-imatrix's rule", cases, bad);
    CHECK(badcount == 0, "llama: every replaced first token counted (%zu cases off)", badcount);
    CHECK(okerr > 500, "llama: the refusals were exercised (%zu)", okerr);

    cal_pack_opts o;
    cal_pack_opts_init(&o);
    o.len = 4, o.skip = 1;
    CHECK(cal_pack_check(&o, err, sizeof err) && strstr(err, "--skip-chunks needs --mode llama"), "--skip-chunks alone: %s",
          err);
    o.mode = CAL_PACK_LLAMA, o.bos = CAL_POL_ROW;
    CHECK(cal_pack_check(&o, err, sizeof err) && strstr(err, "no --bos"), "--mode llama --bos: %s", err);
    cal_buf_free(&got), cal_buf_free(&want);
    TEST_END();
}
