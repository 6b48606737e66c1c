/* test_tok_unigram.c - the unigram engine (tok/unigram.h), the precompiled
 * character map (tok/charsmap.h), the ModelProto reader (tok/spm_proto.h)
 * and the SentencePiece unigram engine's image (tok/spm_unigram.h):
 *  - the Rust tokenizers' rules (UG_HF), by exact expectations worked out
 *    by hand from model.rs: the best path, the first of equal candidates,
 *    a repeated entry's last id, unknown runs fused and looked up, byte
 *    fallback only when every byte has its piece, no unknown token;
 *  - SentencePiece's (UG_SPM): float best scores against double ones (a
 *    case where they choose differently), unused pieces skipped, the
 *    user-defined bonus, one unknown id per run;
 *  - ALBERT's nmt_nfkc map: rules known from NFKC, shortest first, the
 *    longest chosen; a blob too short for its trie refused; every prefix
 *    of every rule's key found again (the walk), on the real double array;
 *  - a .model's pieces and settings as libsentencepiece reports them;
 *  - an image of a unigram .model (with the map) restored gives the same
 *    ids; forged images (changed, checksums recomputed) are refused or
 *    used without a crash (SANITIZE=1 makes any read outside a table an
 *    error). The agreement with libsentencepiece on real and random models
 *    is test_encode_exact.sh, test_encode_unicode.sh and
 *    test_encode_unigram.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "scratch.h"
#include "test.h"
#include "tok/charsmap.h"
#include "tok/image.h"
#include "tok/spm_proto.h"
#include "tok/spm_unigram.h"
#include "tok/unigram.h"

static char *read_all(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    rewind(f);
    char *p = malloc(*n ? *n : 1);
    if (fread(p, 1, *n, f) != *n) *n = 0;
    fclose(f);
    return p;
}

/* A model from "text:score:kind" entries (kind n normal, u user, x unused, o out). */
static void build(ug_model *m, int mode, const char *const *e, uint32_t n, uint32_t unk, int bf) {
    const char *text[64];
    uint32_t len[64], byte_id[256];
    double score[64];
    uint8_t kind[64];
    static char buf[64][32];
    double min = 1e300;
    float fmin = 3.4e38f, fmax = 1.17549435e-38f;
    for (int c = 0; c < 256; c++) byte_id[c] = UG_NONE;
    for (uint32_t i = 0; i < n; i++) {
        snprintf(buf[i], sizeof buf[i], "%s", e[i]);
        char *a = strchr(buf[i], ':'), *b = strrchr(buf[i], ':');
        *a = 0;
        text[i] = buf[i];
        len[i] = (uint32_t)strlen(buf[i]);
        score[i] = strtod(a + 1, NULL);
        kind[i] = b[1] == 'u' ? UG_K_USER : b[1] == 'x' ? UG_K_UNUSED : b[1] == 'o' ? UG_K_OUT : UG_K_NORMAL;
        unsigned v;
        if (len[i] == 6 && sscanf(buf[i], "<0x%2X>", &v) == 1 && byte_id[v] == UG_NONE) byte_id[v] = i;
        if (score[i] < min) min = score[i];
        if (kind[i] == UG_K_NORMAL) {
            if ((float)score[i] < fmin) fmin = (float)score[i];
            if ((float)score[i] > fmax) fmax = (float)score[i];
        }
    }
    double unk_score = mode == UG_HF ? min - 10.0 : (double)(fmin - 10.0f);
    ug_build(m, mode, n, text, len, score, kind, unk, bf, byte_id, unk_score, fmax);
}

/* The ids of s, space-separated ("ERR" on an error). */
static const char *ids(const ug_model *m, const char *s) {
    static char out[512];
    cal_ids v = {0};
    ug_scratch sc = {0};
    char err[256];
    if (ug_encode(m, s, strlen(s), &sc, &v, err, sizeof err)) snprintf(out, sizeof out, "ERR");
    else {
        out[0] = 0;
        for (size_t i = 0; i < v.n; i++)
            snprintf(out + strlen(out), sizeof out - strlen(out), "%s%u", i ? " " : "", v.v[i]);
    }
    ug_scratch_free(&sc);
    cal_ids_free(&v);
    return out;
}

static void test_hf(void) {
    ug_model m;
    static const char *const v1[] = {"<unk>:0:n", "a:-1:n", "b:-2:n", "ab:-2.5:n", "abc:-10:n", "c:-3:n", "a:-5:n"};
    build(&m, UG_HF, v1, 7, 0, 0);
    CHECK(!strcmp(ids(&m, "ab"), "3"), "HF: ab (-2.5) beats a b (-5 - 2: a's last entry)");
    CHECK(!strcmp(ids(&m, "abc"), "3 5"), "HF: ab c (-5.5) beats abc (-10): %s", ids(&m, "abc"));
    CHECK(!strcmp(ids(&m, "aa"), "6 6"), "HF: a repeated entry has its last id: %s", ids(&m, "aa"));
    CHECK(!strcmp(ids(&m, "xyb"), "0 2"), "HF: an unknown run fused into one id: %s", ids(&m, "xyb"));
    CHECK(!strcmp(ids(&m, "x<unk>y"), "0"), "HF: the unknown token's own text joins the run: %s", ids(&m, "x<unk>y"));
    CHECK(!strcmp(ids(&m, "<unk>"), "0"), "HF: the unknown token's text alone: its id");
    ug_free(&m);

    static const char *const v2[] = {"<unk>:0:n", "a:-1:n", "b:-1:n", "ab:-2:n", "<0x78>:0:n", "<0x79>:0:n",
                                     "cd:-1:n"};
    build(&m, UG_HF, v2, 7, 0, 1);
    CHECK(!strcmp(ids(&m, "ab"), "3"), "HF: of equal candidates the first (ab, found from 0) stays: %s", ids(&m, "ab"));
    CHECK(!strcmp(ids(&m, "axy"), "1 4 5"), "HF: byte fallback for the run xy: %s", ids(&m, "axy"));
    CHECK(!strcmp(ids(&m, "axz"), "1 0"), "HF: a byte without its piece: the run is the unknown id: %s", ids(&m, "axz"));
    CHECK(!strcmp(ids(&m, "c"), "0"), "HF: c has no single piece (cd does not cover it): unknown: %s", ids(&m, "c"));
    ug_free(&m);

    static const char *const v3[] = {"a:-1:n", "b:-1:n"};
    build(&m, UG_HF, v3, 2, UG_NONE, 0);
    CHECK(!strcmp(ids(&m, "ab"), "0 1"), "HF: no unknown token and nothing unknown: fine");
    CHECK(!strcmp(ids(&m, "azb"), "ERR"), "HF: an unknown character without an unknown token is an error");
    ug_free(&m);
}

static void test_spm(void) {
    ug_model m;
    /* float against double (found by a search over small models): with
     * x -11.1f, a -0.1f, b -1, ab -1.1f, the candidates for "xab" ending at
     * 3 are x+ab = -12.2000004 (double, stored as the float -12.2000008)
     * and x+a+b = float(-11.2000004) - 1 = -12.2000008: SentencePiece
     * compares that double with the stored float, not greater, so x ab
     * stays; in double (the Rust tokenizers) x a b is greater and wins. */
    static const char *const v1[] = {"<unk>:0:o", "a:-0.10000000149011612:n", "b:-1:n", "ab:-1.100000023841858:n",
                                     "c:-1:x", "cc:-1:n", "(:0:u", "(((:0:u", "x:-11.100000381469727:n"};
    build(&m, UG_SPM, v1, 9, 0, 0);
    CHECK(!strcmp(ids(&m, "xab"), "8 3"), "SPM: x ab, by the double candidate against the stored float: %s", ids(&m, "xab"));
    ug_model h;
    build(&h, UG_HF, v1, 9, 0, 0);
    CHECK(!strcmp(ids(&h, "xab"), "8 1 2"), "HF: x a b, in double throughout: %s", ids(&h, "xab"));
    ug_free(&h);
    CHECK(!strcmp(ids(&m, "c"), "0"), "SPM: an unused single piece is skipped: unknown: %s", ids(&m, "c"));
    CHECK(!strcmp(ids(&m, "cc"), "5"), "SPM: cc is a piece: %s", ids(&m, "cc"));
    CHECK(!strcmp(ids(&m, "zzaz"), "0 1 0"), "SPM: one unknown id per run: %s", ids(&m, "zzaz"));
    CHECK(!strcmp(ids(&m, "(((("), "7 6"), "SPM: user-defined pieces: the longest, by the length bonus: %s",
          ids(&m, "(((("));
    ug_free(&m);
}

static void test_charsmap(const spm_model *sm) {
    charsmap cm;
    char err[256];
    CHECK(sm->charsmap && charsmap_init(&cm, sm->charsmap, sm->charsmap_len, err, sizeof err) == 0,
          "ALBERT's nmt_nfkc map loads (%zu bytes)", sm->charsmap_len);
    if (!sm->charsmap) return;
    static const struct { const char *in, *out; size_t len; } known[] = {
        {"\xe2\x91\xa0", "1", 3},          /* U+2460 circled one */
        {"\xef\xbc\xa1", "A", 3},          /* fullwidth A */
        {"\xef\xac\x81", "fi", 3},         /* U+FB01 ligature */
        {"\xc2\xa0x", " ", 2},             /* no-break space */
        {"e\xcc\x81!", "\xc3\xa9", 3},     /* e + combining acute: composed */
    };
    for (size_t i = 0; i < sizeof known / sizeof *known; i++) {
        const char *o = NULL;
        size_t ol = 0, k = charsmap_longest(&cm, known[i].in, strlen(known[i].in), &o, &ol);
        CHECK(k == known[i].len && ol == strlen(known[i].out) && !memcmp(o, known[i].out, ol),
              "nmt_nfkc rule %zu: %zu bytes -> %.*s", i, k, (int)ol, o ? o : "");
    }
    size_t len[8], ol[8];
    const char *o[8];
    size_t k = charsmap_prefixes(&cm, "e\xcc\x81", 3, len, o, ol, 8);
    CHECK(k >= 1 && len[k - 1] == 3, "prefixes come shortest first, the whole key last (%zu found)", k);
    CHECK(charsmap_longest(&cm, "a", 1, o, ol) == 0 && charsmap_longest(&cm, "", 0, o, ol) == 0,
          "no rule for a or for nothing");
    charsmap_free(&cm);
    CHECK(charsmap_init(&cm, sm->charsmap, 4, err, sizeof err) == -1, "4 bytes: refused (%s)", err);
    unsigned char bad[8] = {200, 0, 0, 0, 1, 2, 3, 4};
    CHECK(charsmap_init(&cm, bad, 8, err, sizeof err) == -1, "a trie longer than the blob: refused (%s)", err);
}

static const char *const texts[] = {
    "Hello World!  It is   2024.", "  leading and trailing  ", "caf\xc3\xa9 \xe2\x91\xa0 \xef\xbc\xa1 fi",
    "(test) \"quote\" - a.b \xe2\x80\x93 \xc2\xa3" "5", "\xe6\x97\xa5\xe6\x9c\xac unknown \xf0\x9f\x98\x80", "",
};
#define NTEXT (sizeof texts / sizeof *texts)

static void run(const spm_unigram *u, cal_buf *out, size_t nt) {
    out->n = 0;
    for (size_t i = 0; i < nt; i++) {
        cal_ids v = {0};
        char err[256];
        int rc = spm_unigram_encode(u, texts[i], strlen(texts[i]), &v, err, sizeof err);
        cal_buf_addf(out, "%d:", rc);
        for (size_t k = 0; k < v.n; k++) cal_buf_addf(out, "%u ", v.v[k]);
        cal_ids_free(&v);
    }
}

static const uint64_t key[2] = {7, 8};

static spm_unigram *restore_mem(const char *p, size_t n, tok_image *im, char *err, size_t errlen) {
    if (tok_image_open_mem(im, p, n, "test-build", key, err, errlen) != 1) return NULL;
    return spm_unigram_from_image(im, 300, err, errlen);
}

static void test_image(const char *model, size_t mlen, int sanitize) {
    char err[512] = "";
    spm_unigram *u = spm_unigram_build(model, mlen, err, sizeof err);
    CHECK(u != NULL, "ALBERT's model builds (%s)", err);
    if (!u) return;
    tok_image_parts w = {0};
    spm_unigram_image_parts(u, &w, 300);
    const char *path = t_path("ug.tok");
    CHECK(tok_image_write(path, "test-build", key, &w, err, sizeof err) == 0, "image written (%s)", err);
    cal_buf want = {0}, got = {0};
    run(u, &want, NTEXT);
    spm_unigram_free(u);
    size_t n;
    char *orig = read_all(path, &n), *buf = malloc(n);
    tok_image im;
    spm_unigram *r = restore_mem(orig, n, &im, err, sizeof err);
    CHECK(r != NULL, "the image restores (%s)", err);
    if (r) run(r, &got, NTEXT);
    CHECK(r && got.n == want.n && !memcmp(got.p, want.p, got.n), "same ids from the image: %.*s", (int)want.n, want.p);
    spm_unigram_free(r);
    /* bytes of the large sections (trie, scores, the map) every 1999th
     * (7919th under SANITIZE=1), of the middle ones (the numbers) every
     * 13th, the rest (header, table, settings) every one; each resealed so
     * that it passes the checksums */
    size_t tried = 0, refused = 0, used = 0, step = sanitize ? 7919 : 1999;
    tok_image_open_mem(&im, orig, n, "test-build", key, err, sizeof err);
    for (size_t i = 0; i < n; i++) {
        size_t size = 0;
        for (size_t s = 0; s < im.nsec; s++)
            if (i >= im.sec[s].off && i < im.sec[s].off + im.sec[s].count * im.sec[s].elem) size = im.sec[s].count * im.sec[s].elem;
        if ((size > 4096 && i % step) || (size > 512 && size <= 4096 && i % 13)) continue;
        for (int v = 0; v < 2; v++) {
            memcpy(buf, orig, n);
            buf[i] = (char)(v ? buf[i] ^ 0x80 : 0xFF);
            if (!memcmp(buf, orig, n)) continue;
            tok_image_reseal(buf, n);
            tok_image fm;
            spm_unigram *x = restore_mem(buf, n, &fm, err, sizeof err);
            tried++;
            if (!x) {
                refused++;
                continue;
            }
            used++;
            run(x, &got, NTEXT); /* must not crash or hang; the ids may be wrong */
            spm_unigram_free(x);
        }
    }
    /* targeted forgeries, each of which must be refused: a trie slot whose
     * piece is past the vocabulary (U+2581's, which every text reaches),
     * a piece of an unknown kind, the unknown id past the vocabulary */
    const struct { uint32_t tag; const char *what; } forged[] = {{303, "a trie slot's piece past the vocabulary"},
                                                                 {302, "a piece of an unknown kind"},
                                                                 {300, "the unknown id past the vocabulary"}};
    for (size_t f = 0; f < 3; f++) {
        memcpy(buf, orig, n);
        int done = 0;
        for (size_t s = 0; s < im.nsec && !done; s++) {
            if (im.sec[s].tag != forged[f].tag) continue;
            char *sec = buf + im.sec[s].off;
            if (f == 0)
                for (uint64_t k = 0; k < im.sec[s].count && !done; k++) {
                    uint32_t id;
                    memcpy(&id, sec + k * 12 + 8, 4);
                    if (id == 13) id = 30005, memcpy(sec + k * 12 + 8, &id, 4), done = 1;
                }
            if (f == 1) sec[13] = 9, done = 1;
            if (f == 2) {
                uint64_t v = 30000;
                memcpy(sec + 2 * 8, &v, 8);
                done = 1;
            }
        }
        tok_image_reseal(buf, n);
        tok_image fm;
        spm_unigram *x = restore_mem(buf, n, &fm, err, sizeof err);
        CHECK(done && !x && strstr(err, "unigram"), "forged: %s: refused (%s)", forged[f].what, err);
        spm_unigram_free(x);
    }
    CHECK(tried > 500, "%zu forged images: %zu refused, %zu used without a crash", tried, refused,
          used);
    unlink(path);
    free(orig);
    free(buf);
    cal_buf_free(&want);
    cal_buf_free(&got);
}

int main(void) {
    const char *san = getenv("CAL_SANITIZE");
    int sanitize = san && !strcmp(san, "1");
    if (!mkdtemp(t_dir)) return 2;
    test_hf();
    test_spm();
    size_t n = 0;
    char *model = read_all("build/tokenizers/albert-unigram.model", &n);
    spm_model sm;
    char err[256];
    CHECK(model && spm_model_read(&sm, model, n, err, sizeof err) == 0, "ALBERT's .model reads");
    if (model) {
        size_t user = 0, control = 0;
        for (size_t i = 0; i < sm.n; i++) user += sm.pieces[i].type == SPM_P_USER, control += sm.pieces[i].type == SPM_P_CONTROL;
        CHECK(sm.n == 30000 && sm.model_type == 1 && !sm.byte_fallback && sm.remove_extra && sm.dummy_prefix && sm.escape,
              "30000 pieces, unigram, no byte fallback, the three whitespace rules");
        CHECK(user == 8 && control == 4 && sm.pieces[1].type == SPM_P_UNKNOWN && sm.norm_name_len == 8 &&
                  !memcmp(sm.norm_name, "nmt_nfkc", 8),
              "8 user-defined pieces, 4 control, <unk> at 1, nmt_nfkc (%zu, %zu)", user, control);
        CHECK(sm.pieces[13].len == 3 && !memcmp(sm.pieces[13].text, "\xe2\x96\x81", 3) && sm.pieces[13].score < -2.18f &&
                  sm.pieces[13].score > -2.19f,
              "piece 13 is U+2581, score -2.189");
        test_charsmap(&sm);
        spm_model_free(&sm);
        CHECK(spm_model_read(&sm, model, 100, err, sizeof err) == -1, "a cut .model: %s", err);
        test_image(model, n, sanitize);
    }
    free(model);
    rmdir(t_dir);
    TEST_END();
}
