/* spm_bpe.c - a SentencePiece BPE model as calkit's BPE (see spm_bpe.h):
 * the model's pieces become a tokenizer.json model whose merges are every
 * split of a piece into two pieces, ranked by the piece's score. */
#include "tok/spm_bpe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/utf8.h"
#include "tok/hf_int.h"
#include "tok/hf_json.h"
#include "tok/spm_chunk.h"

static void json_str(cal_buf *b, const char *s, size_t n)
{
    tj v = { TJ_STR, (uint32_t)n, { .s = s } };
    tj_emit(&v, b);
}

static int by_score_desc(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x > y ? -1 : x < y;
}

tok_hf *spm_bpe_build(const spm_shim *s, const void *data, size_t len, const char *path, char *why, size_t whylen)
{
    spm_settings st = spm_settings_of(data, len);
    const char *no = st.bad ? "its settings could not be read"
                   : st.model_type != 2 ? "not a BPE model"
                   : !st.byte_fallback ? "no byte_fallback"
                   : st.charsmap ? "a precompiled character map"
                   : !st.dummy_prefix || st.remove_extra || !st.escape || st.suffix ? "its whitespace rules"
                   : st.user_defined ? "user-defined pieces"
                   : st.unused ? "unused pieces" : NULL;
    if (no) {
        snprintf(why, whylen, "%s", no);
        return NULL;
    }
    uint32_t n = spm_shim_vocab_size(s);
    th_strmap normal;
    th_strmap_init(&normal, n);
    float *scores = cal_xmalloc((n ? n : 1) * sizeof *scores);
    size_t nscores = 0;
    int64_t unk = spm_shim_unk(s);
    for (uint32_t id = 0; id < n; id++) {
        size_t pl;
        const char *p = spm_shim_piece(s, id, &pl);
        int32_t c;
        int ty = spm_shim_type(s, id), one = pl && cal_utf8_next(p, pl, 0, &c) == pl; /* one character */
        if (ty != SPM_NORMAL && one) no = "a control piece of one character";
        if (ty != SPM_NORMAL) continue;
        th_strmap_put(&normal, p, pl, id);
        if (!one) scores[nscores++] = spm_shim_score(s, id);
    }
    /* every character of a piece is a piece: no unknown character merges */
    for (uint32_t id = 0; id < n && !no; id++) {
        size_t pl;
        const char *p = spm_shim_piece(s, id, &pl);
        if (spm_shim_type(s, id) != SPM_NORMAL) continue;
        for (size_t i = 0; i < pl && !no;) {
            int32_t c;
            size_t k = cal_utf8_next(p, pl, i, &c);
            if (th_strmap_get(&normal, p + i, k) == TH_NONE) no = "a piece holds a character that is no piece";
            i += k;
        }
    }
    if (no || unk < 0) {
        snprintf(why, whylen, "%s", no ? no : "no unknown piece");
        th_strmap_free(&normal);
        free(scores);
        return NULL;
    }
    /* dense score ranks of the pieces of two or more characters */
    qsort(scores, nscores, sizeof *scores, by_score_desc);
    size_t nrank = 0;
    for (size_t i = 0; i < nscores; i++)
        if (!nrank || scores[i] != scores[nrank - 1]) scores[nrank++] = scores[i];
    cal_buf j = { 0 }, merges = { 0 }, ranks = { 0 };
    cal_buf_addf(&j, "{\"added_tokens\":[],\"normalizer\":{\"type\":\"Sequence\",\"normalizers\":["
                     "{\"type\":\"Prepend\",\"prepend\":\"\xe2\x96\x81\"},"
                     "{\"type\":\"Replace\",\"pattern\":{\"String\":\" \"},\"content\":\"\xe2\x96\x81\"}]},"
                     "\"pre_tokenizer\":null,\"post_processor\":null,\"decoder\":null,"
                     "\"model\":{\"type\":\"BPE\",\"byte_fallback\":true,\"fuse_unk\":true,\"unk_token\":");
    size_t ul;
    const char *up = spm_shim_piece(s, (uint32_t)unk, &ul);
    json_str(&j, up, ul);
    cal_buf_add(&j, ",\"vocab\":{", 10);
    size_t nmerges = 0;
    for (uint32_t id = 0; id < n; id++) {
        size_t pl;
        const char *p = spm_shim_piece(s, id, &pl);
        if (id) cal_buf_addc(&j, ',');
        json_str(&j, p, pl);
        cal_buf_addf(&j, ":%u", id);
        if (spm_shim_type(s, id) != SPM_NORMAL) continue;
        /* every split of the piece into two pieces merges into it */
        float sc = spm_shim_score(s, id);
        size_t lo = 0, hi = nrank;
        while (lo < hi) { /* the rank: scores[] descending */
            size_t mid = (lo + hi) / 2;
            if (scores[mid] > sc) lo = mid + 1;
            else hi = mid;
        }
        for (size_t i = 0; i < pl;) {
            int32_t c;
            i += cal_utf8_next(p, pl, i, &c);
            if (i >= pl) break;
            if (th_strmap_get(&normal, p, i) == TH_NONE || th_strmap_get(&normal, p + i, pl - i) == TH_NONE) continue;
            cal_buf_addc(&merges, nmerges ? ',' : '[');
            cal_buf_addc(&merges, '[');
            json_str(&merges, p, i);
            cal_buf_addc(&merges, ',');
            json_str(&merges, p + i, pl - i);
            cal_buf_addc(&merges, ']');
            cal_buf_addf(&ranks, "%s%zu", nmerges ? "," : "[", lo);
            nmerges++;
        }
    }
    cal_buf_add(&j, "},\"merges\":", 11);
    if (nmerges) {
        cal_buf_add(&j, merges.p, merges.n);
        cal_buf_add(&j, "],\"calkit_spm_ranks\":", 21);
        cal_buf_add(&j, ranks.p, ranks.n);
        cal_buf_add(&j, "]}}", 3);
    } else cal_buf_add(&j, "[],\"calkit_spm_ranks\":[]}}", 26);
    char err[512];
    tok_hf *t = tok_hf_load_spm_bpe(j.p, j.n, path, err, sizeof err);
    if (!t) snprintf(why, whylen, "%s", err);
    cal_buf_free(&j);
    cal_buf_free(&merges);
    cal_buf_free(&ranks);
    th_strmap_free(&normal);
    free(scores);
    return t;
}
