/* test_tokenizer.c - cal_tok policy on top of the engines: UTF-8 repair
 * (against the WHATWG/Python rule), loading and naming, the SentencePiece
 * conventions (ids from python3-sentencepiece 0.1.97 for the Llama 2 model,
 * hard-coded), errors. The engines' exactness is tests/sh/test_encode_*.sh. */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/utf8.h"
#include "test.h"
#include "tok/tokenizer.h"

static int repaired(const char *in, size_t n, const char *want) {
    cal_buf b = {0};
    cal_utf8_repair(in, n, &b);
    int ok = b.n == strlen(want) && !memcmp(b.p, want, b.n);
    if (!ok) printf("# got %zu bytes\n", b.n);
    cal_buf_free(&b);
    return ok;
}

#define R "\xef\xbf\xbd"

static void test_repair(void) {
    CHECK(cal_utf8_valid_prefix("abc\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80", 13) == 13, "valid UTF-8 is all valid");
    CHECK(cal_utf8_valid_prefix("abcdefghij\x80", 11) == 10, "valid prefix stops at a stray continuation byte");
    CHECK(repaired("a\x80" "b", 3, "a" R "b"), "stray continuation byte -> one U+FFFD");
    CHECK(repaired("\xc0\xaf", 2, R R), "overlong C0 AF -> two U+FFFD");
    CHECK(repaired("\xe0\x80\x80", 3, R R R), "E0 80 80 (overlong) -> three U+FFFD");
    CHECK(repaired("\xed\xa0\x80", 3, R R R), "UTF-8 surrogate ED A0 80 -> three U+FFFD");
    CHECK(repaired("\xe2\x82", 2, R), "truncated 3-byte sequence at the end -> one U+FFFD");
    CHECK(repaired("\xe2\x82" "a", 3, R "a"), "truncated 3-byte sequence before ASCII -> one U+FFFD");
    CHECK(repaired("\xf0\x9f\x98", 3, R), "truncated 4-byte sequence -> one U+FFFD");
    CHECK(repaired("\xf4\x90\x80\x80", 4, R R R R), "F4 90 (above U+10FFFF) -> four U+FFFD");
    CHECK(repaired("\xf5\xff\xfe", 3, R R R), "F5 FF FE -> three U+FFFD");
    CHECK(repaired("\xf1\x80\x80\xe1\x80\xc2", 6, R R R), "W3C example: F1 80 80 | E1 80 | C2 -> three U+FFFD");
    CHECK(repaired("", 0, ""), "empty input");
}

static int ids_are(const cal_ids *a, const uint32_t *want, size_t n) {
    if (a->n != n) {
        printf("# got %zu ids:", a->n);
        for (size_t i = 0; i < a->n && i < 20; i++) printf(" %u", a->v[i]);
        printf("\n");
        return 0;
    }
    return !memcmp(a->v, want, n * sizeof *want);
}

static int enc(const cal_tok *t, const char *s, unsigned flags, const uint32_t *want, size_t n) {
    cal_ids a = {0};
    char err[256];
    int rc = cal_tok_encode(t, s, strlen(s), flags, &a, err, sizeof err);
    int ok = rc == 0 && ids_are(&a, want, n);
    cal_ids_free(&a);
    return ok;
}

#define ENC(t, s, fl, ...) enc(t, s, fl, (const uint32_t[]){__VA_ARGS__}, \
                               sizeof((const uint32_t[]){__VA_ARGS__}) / sizeof(uint32_t))

static void test_spm(void) {
    const char *path = "build/tokenizers/llama2-spm.model";
    char err[512];
    cal_tok *t = cal_tok_load(path, err, sizeof err);
    CHECK(t != NULL, "load %s", path);
    if (!t) {
        printf("# %s\n", err);
        return;
    }
    CHECK(!strcmp(cal_tok_name(t), "llama2-spm"), "name of a .model is its base name without .model");
    CHECK(cal_tok_vocab_size(t) == 32000, "Llama 2 vocab 32000");
    CHECK(cal_tok_bos(t) == 1 && cal_tok_eos(t) == 2 && cal_tok_pad(t) == -1, "Llama 2 bos 1, eos 2, no pad");
    CHECK(ENC(t, "Hello world", 0, 15043, 3186), "'Hello world' as python sentencepiece");
    CHECK(ENC(t, "Hello world", CAL_TOK_ADD_SPECIAL, 1, 15043, 3186), "--add-special: BOS, no EOS");
    CHECK(ENC(t, "a<s>b", 0, 263, 29966, 29879, 29958, 29890), "'<s>' is text without --parse-special");
    CHECK(ENC(t, "a<s>b", CAL_TOK_PARSE_SPECIAL, 263, 1, 289), "--parse-special: '<s>' is id 1, pieces encoded apart");
    CHECK(ENC(t, "<unk></s>", CAL_TOK_PARSE_SPECIAL, 0, 2), "--parse-special: <unk> and </s>");
    CHECK(ENC(t, "\xff", 0, 29871, 30140), "invalid UTF-8 encodes as U+FFFD");
    CHECK(ENC(t, "", CAL_TOK_ADD_SPECIAL, 1), "empty text with --add-special is just BOS");
    cal_buf b = {0};
    uint32_t ids[] = {1, 15043, 3186, 2, 99999};
    cal_tok_decode(t, ids, 5, &b);
    CHECK(b.n && !strcmp(b.p, "<s>Hello world</s>" R), "decode keeps special pieces, bad id -> U+FFFD (got '%s')",
          b.p ? b.p : "");
    cal_buf_free(&b);
    cal_tok *t2 = cal_tok_load(path, err, sizeof err);
    CHECK(t2 && cal_tok_fingerprint(t2) == cal_tok_fingerprint(t), "fingerprint is stable");
    cal_tok_free(t2);
    cal_tok_free(t);
}

static void test_unigram(void) {
    char err[512];
    cal_tok *t = cal_tok_load("build/tokenizers/albert-unigram.model", err, sizeof err);
    CHECK(t != NULL, "load the ALBERT unigram model");
    if (!t) return;
    CHECK(cal_tok_vocab_size(t) == 30000 && cal_tok_bos(t) == -1 && cal_tok_eos(t) == -1 && cal_tok_pad(t) == 0,
          "ALBERT: vocab 30000, no BOS/EOS, pad 0");
    CHECK(ENC(t, "hello [CLS] world", 0, 10975, 636, 1, 500, 126), "'[CLS]' is text without --parse-special");
    CHECK(ENC(t, "hello [CLS] world", CAL_TOK_PARSE_SPECIAL, 10975, 2, 126), "--parse-special cuts out [CLS]");
    CHECK(ENC(t, "\xef\xbd\x88\xef\xbd\x85\xef\xbd\x8c\xef\xbd\x8c\xef\xbd\x8f", CAL_TOK_ADD_SPECIAL, 10975),
          "nmt_nfkc folds fullwidth letters; no BOS to add");
    cal_tok_free(t);
}

static void test_errors(void) {
    char err[512] = "";
    CHECK(!cal_tok_load("build/no/such/tokenizer.json", err, sizeof err) && strstr(err, "No such file"),
          "missing file: %s", err);
    const char *junk = "build/test_tokenizer.junk";
    FILE *f = fopen(junk, "w");
    if (f) {
        fputs("this is not a tokenizer\n", f);
        fclose(f);
    }
    err[0] = 0;
    CHECK(!cal_tok_load(junk, err, sizeof err) && strstr(err, "neither JSON") && !strstr(err, ".cc"), "junk file: %s", err);
    f = fopen(junk, "w");
    if (f) fclose(f);
    err[0] = 0;
    CHECK(!cal_tok_load(junk, err, sizeof err) && strstr(err, "empty"), "empty file: %s", err);
    remove(junk);
    err[0] = 0;
    CHECK(!cal_tok_load("build", err, sizeof err) && strstr(err, "a folder without tokenizer.json or tokenizer.model"), "a folder that is not a model folder: %s", err);
}

int main(void) {
    if (system("sh scripts/fetch-tokenizers.sh >/dev/null") != 0) printf("# fetch-tokenizers failed\n");
    test_repair();
    test_spm();
    test_unigram();
    test_errors();
    TEST_END();
}
